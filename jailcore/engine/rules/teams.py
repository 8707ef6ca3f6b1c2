"""Team sizes and the warden's seat.

- `teams.balance`: 001 general 5 «Идеальный баланс 1 к 5. Минимальный баланс 1 к 3»: the
  surplus guard goes back to T, the newest first, never the warden.
- `teams.no_warden`: 004 4.4 «При отсутствии желающих КТ обязаны взять на себя роль
  Начальника тюрьмы»: asked after 30 s; after 60 s the longest-serving guard climbs the ladder;
  each gap in command gets the time again; a freeday, a special day and the last request
  need no warden.
"""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.punish import move_to_t
from jailcore.engine.rules.base import Rule, handles
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.engine.state import CT, Seat, T
from jailcore.log import events as ev
from jailcore.log.logtime import plus_seconds


class Balance(Rule["Balance.Settings", None]):
    key = "teams.balance"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Общие 5"
        ratio: int = 3

    @handles(ev.RoundStart, ev.FreezeEnded)
    def round_start(self, ctx: Context, e: ev.RoundStart | ev.FreezeEnded) -> list[Action]:
        return self._balance(ctx, None)  # again as play begins: the teams as the freeze period left them

    @handles(ev.JoinedTeam)
    def joined(self, ctx: Context, e: ev.JoinedTeam) -> list[Action]:
        seat = ctx.state.players[e.player.userid]
        return self._balance(ctx, seat) if e.new == CT and seat.team == CT else []

    def _balance(self, ctx: Context, joined: Seat | None) -> list[Action]:
        """On a join only the one who joined is moved."""
        ratio = self.settings.ratio
        prisoners = ctx.count(T)
        if prisoners < ratio:
            return []  # an emptying or filling server: nothing to balance yet
        guards = sorted(ctx.state.seats(CT), key=lambda p: p.joined, reverse=True)
        surplus = len(guards) - max(1, prisoners // ratio)
        movable = [g for g in guards if g.userid != ctx.state.warden and (joined is None or g is joined)]
        out: list[Action] = []
        for seat in movable[: max(0, surplus)]:
            text = ctx.text("teams.balance", guards=len(guards), prisoners=prisoners, ratio=ratio)
            out += move_to_t(ctx, seat, self.key, self.ref, ctx.quoting(self.settings, text), block=True)
        return out


class NoWarden(Rule["NoWarden.Settings", "NoWarden.State"]):
    key = "teams.no_warden"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "4.4"
        ask_seconds: int = 30
        punish_seconds: int = 60
        ladder: Ladder = steps("teamswap")

    @attrs.define
    class State:
        asked: bool = False
        punished: bool = False
        asked_at: str = ""  # the guards get the whole time between ask and punishment, even after a quiet log
        gap_since: str = ""  # when the guards were last left without a warden this round
        commanded: str = ""  # the last line seen with a warden: the one that ended his command
        last: int = 0  # that warden: one jailcore moved leaves no gap until the log shows the move

    @handles(ev.RoundStart)
    def round_start(self, ctx: Context, e: ev.RoundStart) -> list[Action]:
        self.state.asked = self.state.punished = False
        self.state.asked_at = ""
        self.state.gap_since = e.time
        return []

    def tick(self, ctx: Context, now: str) -> list[Action]:
        """Each gap in command (the round's start, the warden's death, leaving or
        hand-over) gives the guards the clause's whole time again."""
        s, mine, rule = ctx.state, self.state, self.settings
        if s.warden is not None:
            mine.commanded, mine.last = now, s.warden
            if mine.gap_since:
                mine.asked = mine.punished = False
                mine.asked_at = mine.gap_since = ""
            return []
        if mine.last in s.moved:
            return []  # (no cascade: our own move of the warden is not yet a gap the guards left)
        if not mine.gap_since:
            mine.gap_since = mine.commanded or now  # a new gap, from the line that ended his command
        if mine.punished or not s.round_started or s.freeday or s.specialday_name or s.last_prisoner is not None:
            return []  # a freeday, a special day, a last request: the round runs without commands
        since = max(mine.gap_since, s.play_from)  # the freeze period is no one's time to take command
        if now <= plus_seconds(since, rule.ask_seconds):
            return []
        late = now > plus_seconds(since, rule.punish_seconds) and (
            not mine.asked_at or now > plus_seconds(mine.asked_at, rule.punish_seconds - rule.ask_seconds))
        if mine.asked and not late:
            return []
        guards = sorted(ctx.alive(CT), key=lambda p: p.joined)
        if not guards:
            return []
        if late and mine.asked:
            mine.punished = True
            return ctx.punish(self.key, guards[0], ctx.text("teams.no_warden", seconds=rule.punish_seconds, name=guards[0].name))
        if not mine.asked:
            mine.asked, mine.asked_at = True, now
            ctx.ask_state()  # a warden whose jb_warden line was lost is not punished for it: the game says who commands
            return [ctx.announce(self.key, rule, ctx.text("teams.no_warden.ask", seconds=rule.ask_seconds))]
        return []
