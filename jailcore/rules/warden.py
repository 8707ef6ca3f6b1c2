"""`warden.immortality`: 001 warden 8 «Приобретать бессмертие и невидимку, чаще, чем 2 раза
в неделю»: the third time in a game week climbs the warden's ladder."""

from __future__ import annotations

import attrs

from .. import events as ev
from ..actions import Action
from ..context import Context
from .base import Ladder, Rule, RuleSettings, handles, steps


class Immortality(Rule):
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
