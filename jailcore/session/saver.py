"""When one server's state is written, and what goes with it: the snapshot and the standing
`status` reads (`SaveState`), the kept log lines of the round story (`KeepLines`), the link row
(`SaveLink`) and the retained state on the broker (`Publish`).

Contract: the other parts say what changed (`dirty`: a round or an admin's word, saved at the
next tick; `drift`: only plain lines, saved within `SNAPSHOT_EVERY`; `decided`: a decision's
state, saved with its row before its command leaves, by the commands' flush); the dispatcher's
clock asks `due` and then for what the tick writes. Nothing here decides anything.
"""

from __future__ import annotations

from typing import Any

from jailcore.config.config import Config
from jailcore.engine.engine import Engine
from jailcore.engine.rules.specialday import SpecialDayCooldown
from jailcore.log import jsontext
from jailcore.session.effects import Effect, KeepLines, Publish, Record, SaveLink, SaveState, Write
from jailcore.session.outbox import Outbox
from jailcore.session.shared import Part, Shared

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


class Saver(Part):
    def __init__(self, shared: Shared, outbox: Outbox, save_interval: float):
        self.shared, self.outbox = shared, outbox
        self.fixed = config_parts(shared.config)  # the standing's parts that only a reload changes
        self.save_interval = save_interval
        self._state_wanted, self._state_at = False, -STATE_EVERY  # the retained state: changed since, and last published
        self.dirty = True  # a change to save at the next tick (the first shows this server to `status`, before any line)
        self.drift = False  # only plain lines changed the state: saved within SNAPSHOT_EVERY
        # A decision was recorded: its state (the ladder step it climbed, the CT ban it gave) is
        # saved with its row, before its command or its word to the peers (`flush`).
        self.decided = False
        self.said_stopped = False  # a clean stop's `stopped` was written and published (`stopped`)
        self._save_due = 0.0
        self._snapshot_due = 0.0
        self._link_row: tuple[str, int, str | None, str] | None = None
        self._link_written = float("-inf")
        self._lines: list[tuple[str, int, str, str, int]] = []

    @property
    def unsaved(self) -> bool:
        """The state changed since it was last saved."""
        return self.dirty or self.drift or self.decided

    def reconfigured(self, config: Config) -> None:
        self.fixed = config_parts(config)
        self.dirty = True

    # -- the clock's turn -----------------------------------------------------------------------

    def due(self) -> bool:
        """The save interval has passed: this tick writes (and the next is one interval on)."""
        if self.now < self._save_due:
            return False
        self._save_due = self.now + self.save_interval
        return True

    @property
    def deadline(self) -> float:
        return self._save_due

    def wanted(self) -> bool:
        """The state is saved at this tick: a round or an admin's word, a decision no flush wrote, or plain lines
        whose snapshot interval has passed."""
        return self.dirty or self.decided or (self.drift and self.now >= self._snapshot_due)

    def ticked(self, saved: bool) -> list[Effect]:
        """What a tick writes after the state: the kept lines, the link row, the retained state."""
        out: list[Effect] = []
        if self._lines:
            out.append(self.keep_lines())
        changed = self._link_changed()
        # The clock ticks on after a clean stop while the broker drains: what it writes still says `stopped`.
        daemon = "stopped" if self.said_stopped else "running"
        if changed or self.now - self._link_written >= LINK_HEARTBEAT:  # its age says the daemon lives
            out.append(self._link_write(daemon))
        if (changed or saved) and self.config.mqtt_url:  # one retained state a tick, whichever of the two changed
            self._state_wanted = True
        if self._state_wanted and self.now >= self._state_at + STATE_EVERY:
            self._state_wanted, self._state_at = False, self.now
            out.append(Publish(f"jailcore/{self.server}/state", self.public(daemon), state=True))
        return out

    def stopped(self) -> list[Effect]:
        """A clean stop says so, after the state: the link row and the retained state read `stopped`."""
        out: list[Effect] = []
        if self._lines:
            out.append(self.keep_lines())
        out.append(self._link_write("stopped"))
        self.said_stopped = True
        if self.config.mqtt_url:
            # This state holds any change the interval held back: none is published after it (as `running`).
            self._state_wanted, self._state_at = False, self.now
            out.append(Publish(f"jailcore/{self.server}/state", self.public("stopped"), state=True))
        return out

    # -- the state --------------------------------------------------------------------------------

    def save(self) -> Write:
        self.dirty = self.drift = self.decided = False
        # Every saved state goes to the broker too: a decision's flush saves it before the tick,
        # which then saw nothing saved, and a proposal in the same second as the line before it
        # (the link unchanged) stayed off `status --mqtt` until the next change.
        self._state_wanted = self._state_wanted or bool(self.config.mqtt_url)
        self._snapshot_due = self.now + SNAPSHOT_EVERY
        engine = self.engine
        state = engine.snapshot()
        if self.shared.place:
            state["relay"] = [self.shared.relay, self.shared.place]
        snapshot = jsontext.dumps(state)
        return Write(SaveState(self.server, snapshot, jsontext.dumps(standing(engine, self.config, self.fixed)),
                               engine.state.time or ""))

    def keep(self, data: bytes, time: str, out: list[Effect]) -> list[Effect]:
        """A line kept for the web page's round story (`[web] story_days`); written now with the decision it made."""
        if not time or self.config.web.story_days <= 0:
            return []
        text = data.decode("utf-8", "replace").strip("\x00\r\n")
        self._lines.append((self.server, self.engine.state.round, time, text, self.ids.last))
        if len(self._lines) >= 2000 or any(isinstance(e, Write) and isinstance(e.row, Record) for e in out):
            # A line that decided something is written with its decision, not at the next tick: the
            # live page shows the row at once, and its round story must hold the line it links to.
            return [self.keep_lines()]
        return []

    def keep_lines(self) -> Write:
        lines, self._lines = tuple(self._lines), []
        return Write(KeepLines(lines, self.config.web.story_days))

    # -- the link row and the retained state ----------------------------------------------------

    def _link_now(self) -> tuple[str, int, str | None, str]:
        return (self.shared.link, len(self.outbox), self.engine.state.time or None, self.config.mode)

    def _link_changed(self) -> bool:
        now, row = self._link_now(), self._link_row
        if row is None or now[:2] != row[:2] or now[3] != row[3]:
            return True  # the link, its queue or the mode: at once
        # The last line's time moves with every line: written every LINE_EVERY, not every tick
        # (a busy server wrote its link row twice a second for a clock `status` shows in seconds).
        return now[2] != row[2] and self.now - self._link_written >= LINE_EVERY

    def _link_write(self, daemon: str = "running") -> Write:
        self._link_row, self._link_written = self._link_now(), self.now
        return Write(SaveLink(self.server, *self._link_row, self.wall, daemon=daemon, dropped=self.shared.drops))

    def public(self, daemon: str = "running") -> dict[str, Any]:
        link: dict[str, Any] | None = None
        if self._link_row is not None:
            link = dict(zip(("rcon", "outbox", "last_line", "mode"), self._link_row, strict=True))
            link.update(daemon=daemon, dropped=self.shared.drops, updated=self.wall)
        engine = self.engine
        return {**engine.public_state(), **engine.shim_state(), "cooldown_rounds": self.fixed["cooldown_rounds"], "link": link,
                "proposals": self.waiting_proposals()}

    def waiting_proposals(self) -> list[dict[str, Any]]:
        """The punishments waiting for an admin, as `status` lists them from the database: each
        with its audit id (what `jailcore confirm|dismiss ID` and `!jcconfirm` take), oldest
        first; so `status --mqtt` shows them too. At most MAX_SHOWN: the retained state stays small."""
        return [{"id": self.shared.proposals.get(p.number), "time": p.time, "round": p.round, "userid": p.userid, "steamid": p.steamid,
                 "name": p.name, "rule": p.rule, "ref": p.ref, "step": p.step, "expires": p.expires}
                for p in self.engine.state.proposals[:MAX_SHOWN]]
