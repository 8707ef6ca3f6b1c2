"""`warden.immortality`: 001 warden 8 «Приобретать бессмертие и невидимку, чаще, чем 2 раза
в неделю»: the third time in a game week climbs the warden's ladder."""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.rules.base import Rule, handles
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.log import events as ev


class Immortality(Rule["Immortality.Settings", "Immortality.State"]):
    key = "warden.immortality"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Начальник 8"
        per_week: int = 2
        kinds: tuple[str, ...] = ("immortality", "invisibility")
        ladder: Ladder = steps("slay", "teamswap")

    @attrs.define
    class State:
        used: dict[str, tuple[int, int]] = attrs.Factory(dict)  # player key -> (week, times)

    @handles(ev.PrivilegeUsed)
    def used(self, ctx: Context, e: ev.PrivilegeUsed) -> list[Action]:
        seat = ctx.seat(e.player)
        if seat.userid != ctx.state.warden or e.privilege not in self.settings.kinds:
            return []
        week, count = self.state.used.get(seat.key, (ctx.week, 0))
        count = count + 1 if week == ctx.week else 1
        self.state.used[seat.key] = (ctx.week, count)
        if count <= self.settings.per_week:
            return []
        return ctx.punish(self.key, seat, ctx.text("warden.immortality", limit=self.settings.per_week, count=count))

    def week_started(self, ctx: Context) -> None:
        self.state.used = {}  # last week's count is reset on its next use anyway


class LastPrisoner(Rule["LastPrisoner.Settings", None]):
    """001 warden must 3 «Оставить одного заключенного в живых»: the last prisoner is owed
    his last request (ПЗ 1: 10 seconds to choose). The warden who kills him before he
    chose, before his time ran out, and without his having attacked a guard (ПЗ 4), has
    not left him alive."""

    key = "warden.last_prisoner"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Начальник обязан 3"
        seconds: int = 10  # 001 ПЗ 1: the last prisoner's time to choose
        ladder: Ladder = steps("warn", "teamswap")

    @handles(ev.Killed)
    def killed(self, ctx: Context, e: ev.Killed) -> list[Action]:
        s = ctx.state
        last = s.last_prisoner
        rebel = last is not None and (last.rebelled or last.uid in s.rebels)  # ПЗ 4: a rebel is owed nothing
        if last is None or e.victim.userid != last.uid or e.killer.userid != s.warden or s.last_request or rebel:
            return []
        if ctx.seconds_since(last.since) > self.settings.seconds or s.specialday_name:
            return []  # a special day is a fight to the end: no last request is owed in it
        # A global game (Прятки: the guards find every hider) may end with the warden finding
        # the last one: whether he was owed his request there is an admin's call.
        judged = s.game is not None and "global" in s.game.tags
        return ctx.punish(self.key, s.players[e.killer.userid], ctx.text("warden.last_prisoner", name=last.name), judgement=judged)
