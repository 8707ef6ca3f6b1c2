"""One game server's whole policy, sans-IO: `Session.handle(input, now) -> list[Effect]`.

Everything that decides what happens to a server lives in this folder, around the engine the
session owns: the mode (`enforce` sends every command; `advise` turns each punishment into a
warning that says what would have been done; `observe` sends nothing and only records),
exactly-once (each command carries its audit id, ` @<id>`, given from a block the driver
reserved), the moment of a command (one for a round expires when that round ends, a targeted one
when its player left; an expired command is never sent late, its row says `expired`), re-judging
what waits after a restart or a reload, proposals and their answers, pardons, CT bans shared
with the network and held at the game's door, and asking the shim for the truth (`jb_status`)
when lines were lost.

This class is the dispatcher: each input goes to the part that owns it, called one way, none
calling back (`shared.py` is what they all read):

    lines (log records) ─┐
    network (peer bans) ─┼─> commands (decisions into rows and commands) ─> audit (rows) ─> saver
    admin (admins' rows) ┘                                                    outbox (the queue)
    reload (the config read again) ─> commands, saver

The driver feeds inputs in the order they happen and performs the effects in the order they
come; nothing here calls back into it, reads a clock or touches a socket or a file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jailcore.config.config import Config
from jailcore.engine.actions import Action
from jailcore.engine.engine import Engine
from jailcore.log.parse import LogParser
from jailcore.session import inputs as i
from jailcore.session.admin import AdminDesk
from jailcore.session.audit import Audit
from jailcore.session.commands import Commands
from jailcore.session.effects import Effect, Write
from jailcore.session.lines import Lines
from jailcore.session.network import Network
from jailcore.session.outbox import Outbox
from jailcore.session.reload import Reload
from jailcore.session.saver import Saver
from jailcore.session.shared import Ids, IdsExhausted, Part, Shared

__all__ = ["Ids", "IdsExhausted", "Session"]

# What may come between a ban's doors and its `Settle` (both are told in one turn): the next peer
# ban, and the doors' own commands leaving (`Sent`, whose effects the driver does not take).
HOLD_SETTLING = (i.PeerBan, i.Settle, i.Sent)


class Session(Part):  # its config, engine, server and ids are the shared ground's
    def __init__(self, config: Config, snapshot: dict[str, Any] | None, ids: Ids, save_interval: float = 0.5):
        engine = Engine(config, snapshot)  # a snapshot that is not ours raises here, before anything is done
        self.shared = shared = Shared(config, engine, ids, config.server_name)
        saved = snapshot.get("relay") if snapshot else None
        self._saved_relay = (saved[0], saved[1]) if isinstance(saved, list) and len(saved) == 2 and isinstance(saved[1], int) else None
        self.outbox = Outbox()
        self.saver = Saver(shared, self.outbox, save_interval)
        self.audit = Audit(shared, self.saver, self.outbox)
        self.commands = Commands(shared, self.outbox, self.saver, self.audit)
        self.network = Network(shared, self.saver, self.commands)
        self.lines = Lines(shared, self.saver, self.commands, self.network)
        self.desk = AdminDesk(shared, self.saver, self.audit, self.commands, self.network)
        self.reload = Reload(shared, self.outbox, self.saver, self.audit, self.commands, self.lines.parser)
        self.stopped = False
        commands = self.commands
        self._handlers: dict[type, Callable[[Any], list[Effect]]] = {
            i.LogRecord: self.lines.record, i.Tick: self._tick, i.Reply: commands.reply, i.Sent: commands.sent,
            i.LinkOpened: commands.opened, i.LinkLost: commands.lost, i.LinkState: commands.link_state,
            i.PeerBan: self.network.peer_ban, i.Settle: self.network.settle, i.ConfigRead: self.reload.reread, i.Resume: commands.resume,
            i.AdminRequests: self.desk.apply, i.Refused: self._refused, i.Stopping: self._stopping, i.TellAdmins: self._tell,
        }

    # -- the one entry point ----------------------------------------------------------------

    def handle(self, event: i.Input, now: float) -> list[Effect]:
        self.shared.now = now
        if self.stopped:
            return []  # stopping on a failure: decide nothing that could not be recorded
        kind = type(event)
        if self.network.unsettled and kind not in HOLD_SETTLING:
            return self.network.settle() + self._handlers[kind](event)  # a ban's decisions before anything after them
        return self._handlers[kind](event)

    def deadline(self) -> float:
        """The latest moment the session wants its next `Tick`."""
        due = self.saver.deadline
        flying = self.outbox.deadline(self.config.rcon_timeout)
        return due if flying is None else min(due, flying)

    @property
    def busy(self) -> bool:
        """Commands wait or fly."""
        return bool(self.outbox.items)

    def fail(self) -> None:
        """The driver could not keep a promise (the disk): from now on nothing is decided."""
        self.stopped = True

    # -- the clock and the stop -----------------------------------------------------------------

    def _tick(self, tick: i.Tick) -> list[Effect]:
        self.shared.wall = tick.wall
        out = self.commands.tick(tick)
        if not self.saver.due():
            return out
        saved = self.saver.wanted()
        if saved:
            out.append(self.saver.save())
        out += self.commands.decisions()  # a decision no flush followed: its word to the peers now
        return out + self.saver.ticked(saved)

    def _stopping(self, stop: i.Stopping) -> list[Effect]:
        """A clean stop says so: the link row and the retained state read `stopped`."""
        self.shared.wall = stop.wall
        return [self.saver.save(), *self.commands.decisions(), *self.saver.stopped()]

    def _refused(self, refused: i.Refused) -> list[Effect]:
        self.audit.say_to_admins(f"[jailcore] {refused.text}")
        return self.commands.flush()

    def _tell(self, told: i.TellAdmins) -> list[Effect]:
        self.audit.say_to_admins(told.text)
        return self.commands.flush()

    # -- what the driver and the tools read -------------------------------------------------------

    def relayed_by(self, run: str) -> int:
        """This state follows the relay of parent run `run` from now on; the last of its places the
        saved state holds (0 if it was saved under another run, or none)."""
        self.shared.relay = run
        if self._saved_relay is not None and self._saved_relay[0] == run:
            self.shared.place = max(self.shared.place, self._saved_relay[1])
        return self.shared.place

    @property
    def place(self) -> int:
        return self.shared.place

    @property
    def unsaved(self) -> bool:
        """The state changed since it was last saved."""
        return self.saver.unsaved

    @property
    def parser(self) -> LogParser:
        return self.lines.parser

    @property
    def reloads(self) -> list[str]:
        """What each reading of the config file did, for admins and tests."""
        return self.reload.reloads

    @property
    def drops(self) -> str:
        return self.shared.drops

    @property
    def line_at(self) -> float | None:
        """When (the driver's clock) the last log line came, or the session first ticked; None before."""
        return self.shared.line_at

    @property
    def save_interval(self) -> float:
        return self.saver.save_interval

    @save_interval.setter
    def save_interval(self, value: float) -> None:
        self.saver.save_interval = value

    def save(self) -> Write:
        return self.saver.save()

    def flush(self) -> list[Effect]:
        return self.commands.flush()

    def carry_out(self, actions: list[Action], sweep: bool = False) -> list[Effect]:
        return self.commands.carry_out(actions, sweep)

    def say_to_admins(self, text: str) -> None:
        self.audit.say_to_admins(text)
