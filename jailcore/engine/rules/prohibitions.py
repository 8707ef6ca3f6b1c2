"""A cap on standing prohibitions: 004 6.3 «Во время одной игры разрешается установить
одновременно не более двух запретов» (only while a game runs: `only_during_game`), 001 ФД 3
«Начальник может добавить 3 ограничения» (three on a freeday, no cap otherwise: `limit = 0`).
The extra one is refused, the warden climbs his ladder, and everyone is told it is void."""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.rules.base import Rule, vetoes
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.log import events as ev


class MaxProhibitions(Rule["MaxProhibitions.Settings", None]):
    key = "prohibitions.max"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "6.3"
        limit: int = 2  # 0: no cap
        freeday_limit: int = 3  # on a freeday; 0: no cap
        only_during_game: bool = False
        ladder: Ladder = steps("warn")

    @vetoes(ev.ProhibitionSet)
    def extra(self, ctx: Context, e: ev.ProhibitionSet) -> list[Action] | None:
        s, rule = ctx.state, self.settings
        limit = rule.freeday_limit if s.freeday else rule.limit
        if not limit or len(s.prohibitions) < limit or (rule.only_during_game and s.game is None):
            return None
        seat = ctx.seat(e.player)
        out = ctx.punish(self.key, seat, ctx.text("prohibitions.max", count=len(s.prohibitions), limit=limit, text=e.text))
        index = len(s.prohibitions) + 1
        void = ctx.quoting(rule, ctx.text("prohibitions.cancelled", index=index, text=e.text))
        out.append(ctx.action("cancel", seat, self.key, rule.ref, void, index=index))
        return out
