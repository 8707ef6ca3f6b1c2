"""The game's log lines, as a session takes them: parsed, judged by the engine, carried out.

Contract: `record(input)` gives the effects of one log record: what the engine decided (the
commands part), an admin's CT ban in game told to the network (the network part), the line kept
for the round story (the saver), and the round's step (`phases.ROUND`): a round that ended
expires what was bound to it. Lines no enabled rule reads are only counted by the parser. An
engine bug on one line skips that line, never enforcement.
"""

from __future__ import annotations

import logging

from jailcore.log import events as ev
from jailcore.log.parse import LogParser
from jailcore.log.plugin import PLUGIN_UPDATE, PLUGIN_VERSION, older_plugin
from jailcore.session import inputs as i
from jailcore.session.commands import Commands
from jailcore.session.effects import Effect
from jailcore.session.network import Network
from jailcore.session.phases import OPEN, Step, round_phase, round_step
from jailcore.session.saver import Saver
from jailcore.session.shared import Part, Shared

log = logging.getLogger("jailcore")


class Lines(Part):
    def __init__(self, shared: Shared, saver: Saver, commands: Commands, network: Network):
        self.shared, self.saver, self.commands, self.network = shared, saver, commands, network
        self.parser = LogParser(self.engine.needed_kinds())  # lines no enabled rule reads are only counted
        s = self.engine.state
        self._round = (round_phase(s), s.round)
        self._lines_lost = s.lost  # shim lines lost so far: each new gap is said once in the log
        self._plugin_said: str | None = None  # the old plugin version said in the log already
        self._shim_said()

    def record(self, record: i.LogRecord) -> list[Effect]:
        if record.place:
            self.shared.place = record.place
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
        self.shared.line_at = self.now
        if s.lost != self._lines_lost or kind is ev.ShimHello:
            self._shim_said()
        if s.round == self._round[1] and s.round_open == (self._round[0] in OPEN):
            step = Step.DRIFT  # most lines: the same round, as open as it was (the table's answer, without its look-up)
        else:
            now = (round_phase(s), s.round)
            step, self._round = round_step(self._round, now), now
        if step is Step.DRIFT:
            self.saver.drift = True  # within SNAPSHOT_EVERY; a decision's state goes with its row (`decisions`)
        else:
            self.saver.dirty = True  # a round: saved at the next tick
        ended = step is Step.ENDED
        if ended:
            self.shared.epoch += 1
        out = self.commands.carry_out(actions, sweep=ended)
        if kind is ev.CtBanLifted or kind is ev.CtBanGiven:
            out += self.network.in_game(event, actions)  # type: ignore[arg-type]
        # kept for the web page's round story; not the cheap `Noted` lines
        out += self.saver.keep(record.data, event.time, out)
        if self.engine.resync_wanted:
            self.commands.resync()
            out += self.commands.flush()
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
