"""What a round line means, in the game's order of events: srcds's `Round_Start`, the shim's
`jb_round_start` and CS:GO's `Starting Freeze period` may each begin a round, end its freeze, or
repeat a restart already read (`Bookkeeping` then opens the round with what began it)."""

from __future__ import annotations

import attrs

from jailcore.engine import sequence
from jailcore.engine.context import Context
from jailcore.log import events as ev
from jailcore.log.logtime import plus_seconds, seconds_between

# Seconds between two lines of one round restart (the shim's, srcds's with no freeze, CS:GO's
# freeze line): they come in the same frame, in any order.
SAME_RESTART = 2
# A round begun by CS:GO's freeze line alone is taken to be frozen until its Round_Start, or
# for this long if that line is lost (the freeze's length is the shim's to say, and mp_freezetime
# is rarely past 20 s): no one is judged on play time in a freeze the log has not ended.
FREEZE_AT_MOST = 60


@attrs.define
class RoundLines:
    ctx: Context
    shim: ev.RoundBegins | None = None  # the shim's round line being read as a round start
    freeze: ev.FreezeStarted | None = None  # or CS:GO's freeze line, without the shim's

    def taken(self) -> tuple[ev.RoundBegins | None, ev.FreezeStarted | None]:
        """What began the round being opened (each read once)."""
        began, self.shim, self.freeze = (self.shim, self.freeze), None, None
        return began

    def read(self, e: ev.RoundBegins | ev.RoundStart | ev.FreezeStarted) -> ev.Event | None:
        """The event a round line stands for, in the game's order of events. The shim's
        `jb_round_start` is the round's start (the freeze period's); srcds's Round_Start in a
        round the shim began is the freeze's end; Round_Start alone (no shim, old logs, or
        the shim's line lost) is both. With `mp_freezetime 0` the two lines come together, in
        either order: one round. CS:GO's `Starting Freeze period`, written at the same
        restart, is the round's start where the shim's line did not come (a plugin older
        than it, or the line lost), and nothing new beside it, in either order. None:
        nothing new."""
        s = self.ctx.state
        same = s.round_open and seconds_between(s.round_started, e.time) <= SAME_RESTART
        if isinstance(e, ev.RoundBegins):
            if same and not s.round_by_shim and (s.round_by_freeze or (s.round_line_seen and e.freeze == 0)):
                s.round_by_shim = True  # the game's own line of this restart came first: the same round
                sequence.round_begins(self.ctx, by_shim=True, shim_expected=True)  # begun in order after all
                if not s.round_line_seen:
                    s.play_from = plus_seconds(s.round_started, e.freeze)  # the shim knows the freeze's length
                return None
            self.shim = e
            return ev.RoundStart(e.time)
        if isinstance(e, ev.FreezeStarted):
            if same and not s.round_by_freeze and (s.round_by_shim or s.round_line_seen):
                s.round_by_freeze = True  # the shim's line, or with no freeze srcds's, of this restart came first
                return None
            self.freeze = e
            return ev.RoundStart(e.time)
        if s.round_open and (s.round_by_shim or s.round_by_freeze) and not s.round_line_seen and not s.warmup:
            s.round_line_seen = True
            return ev.FreezeEnded(e.time)
        return e
