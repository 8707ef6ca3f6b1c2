"""One game server's whole policy, sans-IO: `Session.handle(input, now) -> list[Effect]`.

Everything that decides what happens to a server lives here, around the engine it owns: the
mode (`enforce` sends every command; `advise` turns each punishment into a warning that says
what would have been done; `observe` sends nothing and only records), exactly-once (each
command carries its audit id, ` @<id>`, given from a block the driver reserved), the moment
of a command (one for a round expires when that round ends, a targeted one when its player
left; an expired command is never sent late, its row says `expired`), re-judging what waits
after a restart or a reload, proposals and their answers, pardons, CT bans shared with the
network and held at the game's door, and asking the shim for the truth (`jb_status`) when
lines were lost.

The driver feeds inputs in the order they happen and performs the effects in the order they
come; nothing here calls back into it, reads a clock or touches a socket or a file.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from jailcore.config.config import Config
from jailcore.engine import proposals as engine_proposals
from jailcore.engine.actions import STEPS, Action, AuditStatus, clean_text, kind_name, kinds_that, render, with_id
from jailcore.engine.engine import Engine
from jailcore.engine.rules.specialday import SpecialDayCooldown
from jailcore.log import events as ev
from jailcore.log import jsontext, shapes
from jailcore.log.errors import LimitError, StateError
from jailcore.log.inbound import NetworkBan, NetworkLift, ctban_message
from jailcore.log.logtime import plus_seconds
from jailcore.log.parse import LogParser
from jailcore.log.plugin import PLUGIN_UPDATE, PLUGIN_VERSION, older_plugin
from jailcore.session import admin, reload
from jailcore.session import inputs as i
from jailcore.session.effects import (
    AskAnswer,
    AskPardon,
    CloseAppeals,
    DropLink,
    Effect,
    InGameCtBan,
    KeepLines,
    Mark,
    Publish,
    Record,
    SaveLink,
    SaveState,
    Send,
    TellPeers,
    Told,
    Write,
)
from jailcore.session.outbox import Done, Item, Outbox, is_shim_reply

log = logging.getLogger("jailcore")

ADVISORY = kinds_that("advisory")
RECORDED = kinds_that("audited")
ROUND_BOUND = kinds_that("round")  # sent late they would punish for another day's doing
OFFLINE = kinds_that("offline")  # by steamid: whoever is online
FEED = kinds_that("feed")  # what the admins online are told of
PROPOSALS = frozenset({"propose", "lapse"})
MAX_SHOWN = 50  # proposals a retained state carries (they lapse in minutes: more is a flood, not a list to answer)
LINK_HEARTBEAT = 5.0  # seconds between link rows while nothing changes: `status` reads their age
# Seconds between a server's retained states on the broker (`status --mqtt`): the newest within
# that, not every change. A CT ban changes every server of a network at once, and 200 states
# published at each of its steps were half of what the fan-out cost the process.
STATE_EVERY = 2.0
LINE_EVERY = 2.0  # seconds between link rows that only move the last line's time
# Seconds between snapshots while only plain lines changed the state (the time, who is online):
# a round or an admin's word is saved at the next tick, a decision (the ladder step it climbed,
# the ban it gave) with its row, before its command leaves. A snapshot of every
# server at every tick was most of a big fleet's work and all of its collector's.
SNAPSHOT_EVERY = 2.0
STATUS_KEY = "status"  # the outbox key of the `jb_status` request


class IdsExhausted(StateError, RuntimeError):
    """The driver let the block of audit ids run out: a bug of ours, not of the input."""


class Ids:
    """Audit ids for the sessions of one store, handed out in blocks the driver reserves
    (`give`), so a session answers without waiting for a database. A block starts well above
    the last id ever used: a row sent but lost before its commit (a crash in between) left its
    id in the shim's memory, and a new command carrying it would be taken for a repeat."""

    def __init__(self, low: int = 2000):
        self.next = 0
        self.end = 0
        self.last = 0  # the newest id given: the round story's mark of what a line decided
        self.low_water = low

    def give(self, first: int, count: int) -> None:
        self.next, self.end = first, first + count

    @property
    def low(self) -> bool:
        return self.end - self.next < self.low_water

    def take(self) -> int:
        if self.next >= self.end:
            raise IdsExhausted("no audit ids reserved")
        self.last = self.next
        self.next += 1
        return self.last


def really_given(status: str) -> bool:
    """A CT ban is shared with the network only where it was really given (`owed`: given to
    one who has left, held at the door when he comes back)."""
    return status in ("pending", "delivered", "owed")


def standing(engine: Engine, config: Config, fixed: dict[str, Any] | None = None) -> dict[str, Any]:
    """The public state as `jailcore status` shows it, under this server's own config, with
    what `ctban list` and `history` read from it so that they load no rule: each ban's
    reason, giver and origin, and each ladder's steps."""
    state = {**engine.public_state(), **engine.shim_state()}
    online = {seat.key for seat in engine.state.players.values()}
    bans = engine.state.ctbans
    for ban in state["ctbans"]:
        ban["online"] = ban["key"] in online
        kept = bans.get(ban["key"])
        if kept is not None:
            ban.update(reason=kept.reason, by=kept.by, origin=kept.origin)
    state["time"] = engine.state.time or None
    state.update(fixed if fixed is not None else config_parts(config))
    return state


def config_parts(config: Config) -> dict[str, Any]:
    """What the standing takes from the config alone: a session works it out once a config
    (each save wrote every ladder's steps again, a third of a save's cost)."""
    ladders = {key: getattr(rule, "ladder", None) for key, rule in config.rules.items() if rule.enabled}
    return {"cooldown_rounds": cooldown_rounds(config),
            "ladder_steps": {key: [str(step) for step in ladder] for key, ladder in ladders.items() if ladder}}


def cooldown_rounds(config: Config) -> int | None:
    """The special-day cooldown this server's config sets, for `status` without its config."""
    rule = config.settings_of(SpecialDayCooldown)
    return rule.rounds if rule.enabled else None


class Session:
    def __init__(self, config: Config, snapshot: dict[str, Any] | None, ids: Ids, save_interval: float = 0.5):
        self.config = config
        self._fixed = config_parts(config)  # the standing's parts that only a reload changes
        self.server = config.server_name
        self.engine = Engine(config, snapshot)  # a snapshot that is not ours raises here, before anything is done
        # `run --workers`: the relay this state follows (its parent's run) and the last of its places taken, saved
        # with the state, so a worker started again skips exactly what its saved state already holds.
        self.relay, self.place = "", 0
        saved = snapshot.get("relay") if snapshot else None
        self._saved_relay = (saved[0], saved[1]) if isinstance(saved, list) and len(saved) == 2 and isinstance(saved[1], int) else None
        self.parser = LogParser(self._needed())  # lines no enabled rule reads are only counted
        self.ids = ids
        self.outbox = Outbox()
        self.save_interval = save_interval
        self._state_wanted, self._state_at = False, -STATE_EVERY  # the retained state: changed since, and last published
        self.now = 0.0
        self.wall = ""
        self.epoch = 0  # round ends this process has seen: a round-bound command expires once one passed
        self._round = (self.engine.state.round, self.engine.state.round_open)
        self.dirty = True  # a change to save at the next tick (the first shows this server to `status`, before any line)
        self.drift = False  # only plain lines changed the state: saved within SNAPSHOT_EVERY
        # A decision was recorded: its state (the ladder step it climbed, the CT ban it gave) is
        # saved with its row, before its command or its word to the peers (`flush`).
        self.decided = False
        self._tells: list[TellPeers] = []  # CT bans for the network, told after the state that holds them
        self.proposals: dict[int, int] = {}  # the engine's proposal number -> its audit id
        self.link = "closed"
        self.drops = ""
        self.shim_missing = False
        self.stopped = False
        self._said_stopped = False  # a clean stop's `stopped` was written and published (`_stopping`)
        self._save_due = 0.0
        self._snapshot_due = 0.0
        self._line_at: float | None = None  # when the last line came (or the session started): the log's clock runs on from it
        self._link_row: tuple[str, int, str | None, str] | None = None
        self._link_written = float("-inf")
        self._dropping = False
        self._lines: list[tuple[str, int, str, str, int]] = []
        self.desk = admin.Desk()
        self._lines_lost = self.engine.state.lost  # shim lines lost so far: each new gap is said once in the log
        self._plugin_said: str | None = None  # the old plugin version said in the log already
        self._shim_said()
        self.reloads: list[str] = []  # what each reading of the config file did, for admins and tests
        self._handlers: dict[type, Callable[[Any], list[Effect]]] = {
            i.LogRecord: self._record, i.Tick: self._tick, i.Reply: self._reply, i.Sent: self._sent, i.LinkOpened: self._opened,
            i.LinkLost: self._lost, i.LinkState: self._link_state, i.PeerBan: self._peer_ban,
            i.ConfigRead: self._reread, i.Resume: self._resume, i.AdminRequests: self._requests,
            i.Refused: self._refused, i.Stopping: self._stopping, i.TellAdmins: self._tell,
        }

    # -- the one entry point ----------------------------------------------------------------

    def handle(self, event: i.Input, now: float) -> list[Effect]:
        self.now = now
        if self.stopped:
            return []  # stopping on a failure: decide nothing that could not be recorded
        return self._handlers[type(event)](event)

    def deadline(self) -> float:
        """The latest moment the session wants its next `Tick`."""
        due = self._save_due
        flying = self.outbox.deadline(self.config.rcon_timeout)
        return due if flying is None else min(due, flying)

    @property
    def busy(self) -> bool:
        """Commands wait or fly."""
        return bool(self.outbox.items)

    # -- log lines --------------------------------------------------------------------------

    def _needed(self) -> frozenset[str]:
        return self.engine.needed_kinds()

    def relayed_by(self, run: str) -> int:
        """This state follows the relay of parent run `run` from now on; the last of its places the
        saved state holds (0 if it was saved under another run, or none)."""
        self.relay = run
        if self._saved_relay is not None and self._saved_relay[0] == run:
            self.place = max(self.place, self._saved_relay[1])
        return self.place

    @property
    def unsaved(self) -> bool:
        """The state changed since it was last saved."""
        return self.dirty or self.drift or self.decided

    def _record(self, record: i.LogRecord) -> list[Effect]:
        if record.place:
            self.place = record.place
        event = self.parser.parse(record.data)
        if event is None:
            return []
        kind = type(event)
        try:
            actions = self.engine.handle(event)
        except Exception:  # an engine bug on one line must not stop enforcement
            log.exception("the engine failed on %r; the line is skipped", record.data[:300])
            return []
        s = self.engine.state
        self._line_at = self.now
        if s.lost != self._lines_lost or kind is ev.ShimHello:
            self._shim_said()
        ended = self._round[1] and (not s.round_open or s.round != self._round[0])
        if self._round != (s.round, s.round_open):
            self.dirty = True  # a round: saved at the next tick
        else:
            self.drift = True  # within SNAPSHOT_EVERY; a decision's state goes with its row (`_decisions`)
        self._round = (s.round, s.round_open)
        if ended:
            self.epoch += 1
        out = self.carry_out(actions, sweep=ended)
        if kind is ev.CtBanLifted or kind is ev.CtBanGiven:
            out += self._in_game_ctban(event, actions)  # type: ignore[arg-type]
        keep = self.config.web.story_days
        if event.time and keep > 0:  # kept for the web page's round story; not the cheap `Noted` lines
            text = record.data.decode("utf-8", "replace").strip("\x00\r\n")
            self._lines.append((self.server, s.round, event.time, text, self.ids.last))
            if len(self._lines) >= 2000 or any(isinstance(e, Write) and isinstance(e.row, Record) for e in out):
                # A line that decided something is written with its decision, not at the next tick: the
                # live page shows the row at once, and its round story must hold the line it links to.
                out.append(self._keep_lines())
        if self.engine.resync_wanted:
            self.resync()
            out += self.flush()
        return out

    def _shim_said(self) -> None:
        """In the daemon's log, once each: lines the shim wrote that never came (a gap in its
        seq), and a plugin older than this daemon expects, with what to do about it."""
        s = self.engine.state
        if s.lost != self._lines_lost:
            log.warning("%s: %d line(s) of the jailcore plugin were lost before %s (%d in all): the game is asked for its "
                        "state, and until a round begins in order what depends on the warden, the orders or the game goes "
                        "to an admin", self.server, s.lost - self._lines_lost, s.lost_at, s.lost)
            self._lines_lost = s.lost
        version = s.plugin
        if version is not None and version != self._plugin_said and older_plugin(version):
            self._plugin_said = version
            log.warning("%s: the jailcore plugin on the game server is version %s, older than the %s this daemon expects: %s",
                        self.server, version or "(none said)", PLUGIN_VERSION, PLUGIN_UPDATE)

    def _in_game_ctban(self, event: ev.CtBanGiven | ev.CtBanLifted, actions: list[Action]) -> list[Effect]:
        """An admin's `!unctban` in game is the network's word too, like a lift from the
        command line (a `!ctban` is shared with its audit row, as every CT ban). Both are
        written as the row the command line writes, already applied, so the web page's
        activity and its past requests show who gave or lifted a CT ban in game too."""
        lift = isinstance(event, ev.CtBanLifted)
        out: list[Effect] = []
        for action in actions:
            t = action.target
            if t is None or action.action != ("unctban" if lift else "ctban"):
                continue
            if not lift and self.config.mode == "observe":
                continue  # observed, not given: no admin's CT ban to list among the requests
            if lift:
                out.append(self.network_lift(t.steamid, event.player.name, f"game {event.time} {event.seq}"))
                length: tuple[int | None, int | None, str] = (None, None, "")
            else:
                assert isinstance(event, ev.CtBanGiven)
                length = (event.minutes, event.rounds, event.reason)
            out.append(Write(InGameCtBan(self.server, t.steamid, t.name, *length, event.player.name, lift, self.wall)))
        return out

    # -- decisions into rows and commands -----------------------------------------------------

    def carry_out(self, actions: list[Action], sweep: bool = False) -> list[Effect]:
        """Record the decisions and queue their commands, then send what may go now: each
        `Send` after the `Write` of its row."""
        out: list[Effect] = []
        for action in actions:
            out += self.dispatch(action)
        if sweep:
            out += self._ended(self.outbox.sweep(self._expired))
        if actions or sweep:
            out += self.flush()
        return out

    def dispatch(self, action: Action) -> list[Effect]:
        if action.action == "ask":  # an admin's word in game: the command line's row, whatever the mode
            if action.step == "pardon":
                return [AskPardon(action.index or 0, action.by or "", action.reason, action.target.steamid if action.target else None)]
            return [AskAnswer(action.index or 0, action.step or "", action.by or "", action.reason)]
        if action.action == "lapse" and action.owed_row is not None:  # he did not come back in time
            log.info("owed #%s (%s %s) expired: %s", action.owed_row, action.rule, action.step, action.reason)
            return [Write(Mark(action.owed_row, "expired", action.reason)), *self.publish(action.owed_row, "expired", action, action.reason)]
        if action.action in PROPOSALS:  # waits for an admin: nothing goes to the game
            return admin.decided(self, action)
        try:
            command = render(action)
        except LimitError as exc:  # a template bug, not a player's text (texts are capped): this one is refused, the rest go on
            log.error("%s for %s not sent: %s", action.action, action.rule, exc)
            return self.record(action, None, "failed") if action.action in RECORDED else []
        if action.action not in RECORDED:  # what is shown, not decided: the display, the door's copy of a ban
            key = "hud" if action.action == "hud" else f"door:{action.target.userid if action.target else 0}"
            if self.config.mode != "observe" and command is not None:
                self.outbox.put(None, command, key=key, action=action, epoch=self.epoch)
            return []
        mode = self.config.mode
        if mode == "observe" or command is None:
            # Nothing to send now to one who has left: not `delivered` but `owed`, carried out
            # (a row of its own naming this one) when he returns, `expired` if he does not.
            # A lift for one who has left is done here (the daemon holds the ban; the game holds nothing for him).
            status: AuditStatus = "observed" if mode == "observe" else "owed" if action.absent and action.action in STEPS else "delivered"
            written = self.record(action, command, status)
            if status == "owed":
                self._owed_row(action, self.ids.last)
            return written
        out: list[Effect] = []
        if mode == "advise" and action.action not in ADVISORY:
            out += self.record(action, command, "advised")
            if action.target is None:
                return out
            would = f"{kind_name(self.config.language, action.action)}: {action.reason}"
            action = Action(action.time, action.round, "warn", action.target, action.rule, action.ref, would)
            command = render(action)
            assert command is not None  # a warning to a player always has its command
        out += self.record(action, command, "pending")
        row_id = self.ids.last
        self.outbox.put(row_id, with_id(command, row_id), action=action, epoch=self.epoch)
        self._feed_admins(action, row_id)
        return out

    def _owed_row(self, action: Action, row_id: int) -> None:
        """The engine's record of what he owes learns its audit row, so that the carrying out
        names it and its lapse marks it (saved with the next snapshot). A CT ban or an
        autoslay is kept by SteamID already: the ban's door, the autoslay's first slay at his
        return names it."""
        t = action.target
        if t is None:
            return
        key = ev.player_key(t.steamid, t.userid)
        kept = self.engine.state.ctbans.get(key) if action.action == "ctban" else self.engine.state.autoslay.get(key) if action.action == "autoslay" else None
        if kept is not None:
            if kept.row is None:
                kept.row = row_id
                self.dirty = True
            return
        for owed in reversed(self.engine.state.owing.get(ev.player_key(t.steamid, t.userid), [])):
            if owed.row is None and owed.rule == action.rule and owed.reason == action.reason:
                owed.row = row_id
                self.dirty = True
                return

    def record(self, action: Action, command: str | None, status: AuditStatus) -> list[Effect]:
        """The row of one decision, and who must hear of it."""
        row_id = self.ids.take()
        out: list[Effect] = [Write(Record(row_id, self.server, action, self.engine.day, command, status)), Told(action, command, status)]
        self.decided = True  # the ladder step or ban it made, durable with its row: kill -9 cannot part them
        t = action.target
        if action.action == "ctban" and t is not None and really_given(status):
            ban = self.engine.state.ctbans.get(ev.player_key(t.steamid, t.userid))
            if ban is not None:  # lifted meanwhile: nothing to share
                self._tells.append(TellPeers({"id": f"{self.server}:{row_id}", "origin": self.server, "steamid": t.steamid, "name": t.name,
                                              "until": ban.until, "rounds": ban.rounds, "ref": action.ref, "reason": action.reason}))
        if action.action == "unctban" and t is not None and really_given(status):  # its appeals are answered by the lift
            out.append(Write(CloseAppeals(self.server, (), (t.steamid,), action.by or "jailcore", action.reason, self.wall or action.time)))
        out += self.publish(row_id, status, action)
        if action.owed and action.owed_row is not None:  # the decision's row names its carrying out, as this one names it
            said = "исполнено при возвращении" if self.config.language == "ru" else "carried out at his return"
            out.append(Write(Mark(action.owed_row, "owed", f"{said}: #{row_id}")))
        who = f"{t.name} #{t.userid} {t.steamid}" if t else "everyone"
        log.info("%s %s [%s %s] %s: %s (%s)", action.time, action.action, action.rule, action.ref, who, action.reason, status)
        return out

    def publish(self, row_id: int, status: str, action: Action | dict[str, Any], reply: str | None = None, **extra: Any) -> list[Effect]:
        if not self.config.mqtt_url:
            return []
        body = action.to_json() if isinstance(action, Action) else action
        payload = {**body, "server": self.server, "id": row_id, "status": status, **({"reply": reply} if reply is not None else {}), **extra}
        return [Publish(f"jailcore/{self.server}/actions", payload)]

    def _feed_admins(self, action: Action, row_id: int) -> None:
        """`[jailcore #123] slay Вася (6.5 specialday.cooldown) — !jcpardon 123`, to the admins
        on the server only (the shim checks the admin flag)."""
        if action.action not in FEED or action.target is None or self.config.mode == "observe":
            return
        name = kind_name(self.config.language, action.action)
        why = action.rule if action.rule != "admin" or not action.by else f"admin {action.by}"
        why = f"{action.ref} {why}" if action.ref else why  # no empty number: «( admin)» said nothing
        self.say_to_admins(f"[jailcore #{row_id}] {name} {action.target.name} ({why}) — !jcpardon {row_id}")

    def say_to_admins(self, text: str) -> None:
        if self.config.mode != "observe":
            self.outbox.put(None, f'jb_adminfeed "{clean_text(text)}"')

    # -- the outbox ---------------------------------------------------------------------------

    def flush(self) -> list[Effect]:
        out = self._decisions()
        batch, done = self.outbox.flush(self.now, self._expired)
        out += self._ended(done)
        out += [Send(item.ticket, item.command, item.tag) for item in batch]
        return out

    def _decisions(self) -> list[Effect]:
        """The state the decisions just recorded made (a ladder climbed, a ban given), written
        after their rows and before anything leaves: the driver commits the rows before a
        `Send` or a `TellPeers` together, so a command or a ban told to the network always has
        its row and its ladder step, and a restart gives the next offence the next step. Once
        for all the decisions of one line; a plain line's state waits for the clock."""
        out: list[Effect] = [self.save()] if self.decided else []
        if self._tells:
            out += self._tells
            self._tells = []
        return out

    def _ended(self, done: list[Done]) -> list[Effect]:
        out: list[Effect] = []
        for d in done:
            item = d.item
            if d.status == "delivered" and item.action is not None and item.action.owed_row is not None:
                out += self._owed_done(item)
            if item.tag is None:
                continue
            if d.status in ("expired", "dropped", "unanswered"):
                log.info("command #%s %s: %s", item.tag, d.status, d.reply)
            out.append(Write(Mark(item.tag, d.status, d.reply)))
            if item.action is not None:  # `tail -f --mqtt` shows the entry again, with its outcome
                out += self.publish(item.tag, d.status, item.action, d.reply or "")
        return out

    def _owed_done(self, item: Item) -> list[Effect]:
        """What was owed is carried out (its follow-up delivered): the `owed` row says done, so
        `tail`, `status` and the web page stop listing it as waiting for his return."""
        assert item.action is not None and item.action.owed_row is not None
        row = item.action.owed_row
        if item.tag is None:  # the door's copy of a ban: the ban forgets its row, the next door is a plain one
            for ban in self.engine.state.ctbans.values():
                if ban.row == row:
                    ban.row = None
                    self.dirty = True
        said = "исполнено при возвращении" if self.config.language == "ru" else "carried out at his return"
        how = f"#{item.tag}" if item.tag is not None else item.command.split()[0]
        return [Write(Mark(row, "delivered", f"{said}: {how}")), *self.publish(row, "delivered", item.action, f"{said}: {how}")]

    def _expired(self, item: Item) -> str | None:
        """Why a command may no longer be sent, or None while it still makes sense."""
        action = item.action
        if action is None:
            return None  # a note to the admins online, the shim's status: late is still worth saying
        # Sent and unanswered (the server may have run it), or never sent: the row says which.
        sent = f"sent{' before the restart' if item.sent_at < 0 else ''}, its answer never came; " if item.sent_at else ""
        if action.action in ROUND_BOUND and self.epoch > item.epoch:
            return f"{sent}round {action.round} ended, so it is not sent again" if sent else f"round {action.round} ended before it could be sent"
        t = action.target
        if t is not None and action.action not in OFFLINE and not action.absent:  # by SteamID: his absence is the point
            seat = self.engine.state.players.get(t.userid)
            if seat is None or seat.steamid != t.steamid:
                return f"{sent}{t.name} #{t.userid} is no longer on the server"
        return None

    def not_allowed(self, action: Action) -> str | None:
        """Why the config in force would not send this command (decided under another one:
        before a restart or a live reload), or None."""
        mode = self.config.mode
        if mode == "observe":
            return "not sent: the server is in observe mode now"
        rule = self.config.rules.get(action.rule)
        if rule is not None and not rule.enabled:
            return f"not sent: rule {action.rule} is off (or gone) in the config now"
        if mode == "advise" and action.action not in ADVISORY and action.rule in self.config.rules:
            return f"not sent: the server is in advise mode now ({action.action} would only be advised)"
        return None

    def _sent(self, sent: i.Sent) -> list[Effect]:
        self.outbox.left_now(set(sent.tickets), self.now)
        return []

    def _reply(self, reply: i.Reply) -> list[Effect]:
        item = self.outbox.answered(reply.ticket)
        if item is None:
            return []  # the answer to a session since given up: the command went out again
        text = reply.text.strip()
        if item.key == STATUS_KEY:
            self.outbox.finish(item, "delivered", text)
            return self._status(text)
        if is_shim_reply(text):
            if self.shim_missing:
                self.shim_missing = False
                log.info("the jailcore shim answers again")
            status: AuditStatus = "delivered" if text.startswith("ok") else "failed"
        else:
            if not self.shim_missing:
                self.shim_missing = True
                log.error("the server answered %r to %r: the jailcore shim (sourcemod_bridge) is not loaded; "
                          "commands fail until it is loaded and says jb_hello", text[:120], item.command.split()[0])
            status = "failed"
        return self._ended([self.outbox.finish(item, status, text)]) + self.flush()

    def _opened(self, _: i.LinkOpened) -> list[Effect]:
        self.outbox.open, self.link, self._dropping = True, "open", False
        return self.flush()

    def _lost(self, lost: i.LinkLost) -> list[Effect]:
        self.link, self._dropping = lost.state, False
        failed = self.outbox.lost()
        for d in failed:
            log.error("RCON: no answer to %r after %d tries; marked failed", d.item.command[:80], d.item.attempts)
        return self._ended(failed)

    def _link_state(self, state: i.LinkState) -> list[Effect]:
        self.link = state.state
        return []

    # -- the shim's truth ---------------------------------------------------------------------

    def resync(self) -> None:
        """Ask the shim for the players, teams and warden (`jb_status`): once at a time."""
        self.engine.resync_wanted = False
        self.outbox.put(None, "jb_status", key=STATUS_KEY)

    def _status(self, reply: str) -> list[Effect]:
        status = shapes.status_reply(reply, self.engine.refused_status)
        if status is None:
            log.warning("jb_status answered something that is not the shim's JSON: %.80r; the shim's jb_hello will ask again", reply)
            return self.flush()
        # The players as they are now, then their CT bans into the shim's hands: it refuses a
        # banned join to CT even while the daemon is away.
        out = self.carry_out(self.engine.apply_status(status) + self.engine.door(), sweep=True)
        self._note_drops()
        self.dirty = True
        return out + self.flush()

    def _note_drops(self) -> None:
        """The admins online read the drops in !jcstatus (the shim's `jb_note`; again after a reload of it)."""
        if self.drops:
            said = "отброшено датаграмм лога" if self.config.language == "ru" else "dropped log datagrams"
            self.outbox.put(None, f'jb_note "{clean_text(f"{said}: {self.drops}")}"', key="note")

    # -- the clock ----------------------------------------------------------------------------

    def _tick(self, tick: i.Tick) -> list[Effect]:
        self.wall = tick.wall
        out: list[Effect] = []
        # At the tick's own time: one that waited in the inbox behind a slow line was not the game's silence.
        late = self.outbox.overdue(tick.now, self.config.rcon_timeout)
        if late is not None and not self._dropping:
            self._dropping = True
            out.append(DropLink(f"no answer to {late.command.split()[0]!r} in {self.config.rcon_timeout:g}s"))
        if tick.drops != self.drops:
            self.drops = tick.drops
            self._note_drops()
            out += self.flush()
        out += self._lapse_by_clock()
        if self.now < self._save_due:
            return out
        self._save_due = self.now + self.save_interval
        saved = self.dirty or self.decided or (self.drift and self.now >= self._snapshot_due)
        if saved:
            out.append(self.save())
        out += self._decisions()  # a decision no flush followed: its word to the peers now
        if self._lines:
            out.append(self._keep_lines())
        changed = self._link_changed()
        # The clock ticks on after a clean stop while the broker drains: what it writes still says `stopped`.
        daemon = "stopped" if self._said_stopped else "running"
        if changed or self.now - self._link_written >= LINK_HEARTBEAT:  # its age says the daemon lives
            out.append(self._link_write(daemon))
        if (changed or saved) and self.config.mqtt_url:  # one retained state a tick, whichever of the two changed
            self._state_wanted = True
        if self._state_wanted and self.now >= self._state_at + STATE_EVERY:
            self._state_wanted, self._state_at = False, self.now
            out.append(Publish(f"jailcore/{self.server}/state", self.public(daemon), state=True))
        return out

    def _lapse_by_clock(self) -> list[Effect]:
        """A proposal lapses when its time is up, not only at the next line: the log's time
        runs on from the last line by the clock while the server is quiet."""
        s = self.engine.state
        if self._line_at is None:
            self._line_at = self.now  # after a restart the log's clock runs from the start, not from the box's boot
        if not s.proposals or not s.time:
            return []
        real = s.time
        s.time = plus_seconds(real, max(0.0, self.now - self._line_at))
        try:
            lapsed = engine_proposals.lapse_due(self.engine.ctx)
        finally:
            s.time = real
        return self.carry_out(lapsed) if lapsed else []

    def save(self) -> Write:
        self.dirty = self.drift = self.decided = False
        # Every saved state goes to the broker too: a decision's flush saves it before the tick,
        # which then saw nothing saved, and a proposal in the same second as the line before it
        # (the link unchanged) stayed off `status --mqtt` until the next change.
        self._state_wanted = self._state_wanted or bool(self.config.mqtt_url)
        self._snapshot_due = self.now + SNAPSHOT_EVERY
        state = self.engine.snapshot()
        if self.place:
            state["relay"] = [self.relay, self.place]
        snapshot = jsontext.dumps(state)
        return Write(SaveState(self.server, snapshot, jsontext.dumps(standing(self.engine, self.config, self._fixed)), self.engine.state.time or ""))

    def _keep_lines(self) -> Write:
        lines, self._lines = tuple(self._lines), []
        return Write(KeepLines(lines, self.config.web.story_days))

    def _link_now(self) -> tuple[str, int, str | None, str]:
        return (self.link, len(self.outbox), self.engine.state.time or None, self.config.mode)

    def _link_changed(self) -> bool:
        now, row = self._link_now(), self._link_row
        if row is None or now[:2] != row[:2] or now[3] != row[3]:
            return True  # the link, its queue or the mode: at once
        # The last line's time moves with every line: written every LINE_EVERY, not every tick
        # (a busy server wrote its link row twice a second for a clock `status` shows in seconds).
        return now[2] != row[2] and self.now - self._link_written >= LINE_EVERY

    def _link_write(self, daemon: str = "running") -> Write:
        self._link_row, self._link_written = self._link_now(), self.now
        return Write(SaveLink(self.server, *self._link_row, self.wall, daemon=daemon, dropped=self.drops))

    def public(self, daemon: str = "running") -> dict[str, Any]:
        link: dict[str, Any] | None = None
        if self._link_row is not None:
            link = dict(zip(("rcon", "outbox", "last_line", "mode"), self._link_row, strict=True))
            link.update(daemon=daemon, dropped=self.drops, updated=self.wall)
        return {**self.engine.public_state(), **self.engine.shim_state(), "cooldown_rounds": self._fixed["cooldown_rounds"], "link": link,
                "proposals": self.waiting_proposals()}

    def waiting_proposals(self) -> list[dict[str, Any]]:
        """The punishments waiting for an admin, as `status` lists them from the database: each
        with its audit id (what `jailcore confirm|dismiss ID` and `!jcconfirm` take), oldest
        first; so `status --mqtt` shows them too. At most MAX_SHOWN: the retained state stays small."""
        return [{"id": self.proposals.get(p.number), "time": p.time, "round": p.round, "userid": p.userid, "steamid": p.steamid,
                 "name": p.name, "rule": p.rule, "ref": p.ref, "step": p.step, "expires": p.expires}
                for p in self.engine.state.proposals[:MAX_SHOWN]]

    def _stopping(self, stop: i.Stopping) -> list[Effect]:
        """A clean stop says so: the link row and the retained state read `stopped`."""
        self.wall = stop.wall
        out: list[Effect] = [self.save(), *self._decisions()]
        if self._lines:
            out.append(self._keep_lines())
        out.append(self._link_write("stopped"))
        self._said_stopped = True
        if self.config.mqtt_url:
            # This state holds any change the interval held back: none is published after it (as `running`).
            self._state_wanted, self._state_at = False, self.now
            out.append(Publish(f"jailcore/{self.server}/state", self.public("stopped"), state=True))
        return out

    def fail(self) -> None:
        """The driver could not keep a promise (the disk): from now on nothing is decided."""
        self.stopped = True

    # -- the network ----------------------------------------------------------------------------

    def _peer_ban(self, peer: i.PeerBan) -> list[Effect]:
        if peer.place:
            self.place = peer.place
        ban = peer.ban
        message = ban if isinstance(ban, NetworkBan | NetworkLift) else ctban_message(ban, self.engine.refused, "network CT ban")
        if message is None:  # refused, counted and said by the engine's refusals
            return []
        self.dirty = True
        if isinstance(message, NetworkLift):
            return self.carry_out(self.engine.lift_ctban(message.steamid, message.by, f"network ({message.origin})"))
        return self.carry_out(self.engine.import_ctban(message))

    def network_ban(self, steamid: str, why: str) -> list[Effect]:
        ban = self.engine.state.ctbans.get(ev.player_key(steamid, 0))
        if ban is None:
            return []
        return [TellPeers({"id": f"{self.server}:{why}", "origin": self.server, "steamid": ban.steamid, "name": ban.name,
                           "until": ban.until, "rounds": ban.rounds, "ref": ban.ref, "reason": ban.reason, "by": ban.by})]

    def network_lift(self, steamid: str, by: str, why: str) -> TellPeers:
        return TellPeers({"id": f"{self.server}:lift:{why}:{steamid}", "origin": self.server, "steamid": steamid, "lift": True, "by": by})

    # -- start, reload --------------------------------------------------------------------------

    def _resume(self, resume: i.Resume) -> list[Effect]:
        """What the last process left pending, judged again under the config in force."""
        self.proposals.update(resume.proposals)
        out: list[Effect] = []
        for row in resume.pending:
            action = Action.from_json(row.detail)
            why = self.not_allowed(action)
            if why is not None:
                log.info("command #%s dropped: %s", row.id, why)
                out.append(Write(Mark(row.id, "dropped", why)))
                out += self.publish(row.id, "dropped", action, why)
                continue
            # After a restart only the round the engine stands in is still the same round.
            epoch = 0 if action.round == self.engine.state.round else -1
            item = self.outbox.put(row.id, with_id(row.command, row.id), action=action, epoch=epoch)
            if row.sent:  # sent by the last process, never answered
                item.sent_at = -1.0
        self.resync()
        return out + self.flush()

    def _reread(self, read: i.ConfigRead) -> list[Effect]:
        return reload.reread(self, read)

    def reconfigure(self, new: Config) -> list[Effect]:
        """The config in force from now on: the engine takes its rules, and what waits is judged again."""
        self.config = new
        self._fixed = config_parts(new)
        self.engine.reconfigure(new)
        self.parser.need(self._needed())

        def why(item: Item) -> str | None:
            if item.action is None:
                return None
            if item.tag is None:  # the display line and the door's copies: nothing to send in observe mode
                return "observe" if new.mode == "observe" else None
            return self.not_allowed(item.action)

        out = self._ended(self.outbox.sweep(why, "dropped"))
        self.resync()
        self.dirty = True
        return out + self.flush()

    # -- admins ---------------------------------------------------------------------------------

    def _requests(self, rows: i.AdminRequests) -> list[Effect]:
        return admin.apply(self, rows)

    def _refused(self, refused: i.Refused) -> list[Effect]:
        self.say_to_admins(f"[jailcore] {refused.text}")
        return self.flush()

    def _tell(self, told: i.TellAdmins) -> list[Effect]:
        self.say_to_admins(told.text)
        return self.flush()

    @property
    def line_at(self) -> float | None:
        """When (the driver's clock) the last log line came, or the session first ticked; None before."""
        return self._line_at
