"""At most two prohibitions (004 6.3 «не более двух запретов»), three on a freeday (001 ФД
3): the extra one is refused, the warden climbs his ladder, and everyone is told it is void."""

from __future__ import annotations

import attrs

from .. import events as ev
from ..actions import Action
from ..context import Context
from .base import Ladder, Rule, RuleSettings, steps, vetoes


class MaxProhibitions(Rule):
    key = "prohibitions.max"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "6.3"
        limit: int = 2
        freeday_limit: int = 3
        ladder: Ladder = steps("warn")

    @vetoes(ev.ProhibitionSet)
    def extra(self, ctx: Context, e: ev.ProhibitionSet) -> list[Action] | None:
        s, rule = ctx.state, self.settings
        limit = rule.freeday_limit if s.freeday else rule.limit
        if len(s.prohibitions) < limit:
            return None
        seat = ctx.seat(e.player)
        out = ctx.punish(self.key, seat, ctx.text("prohibitions.max", count=len(s.prohibitions), limit=limit, text=e.text))
        index = len(s.prohibitions) + 1
        void = ctx.quoting(rule, ctx.text("prohibitions.cancelled", index=index, text=e.text))
        out.append(ctx.action("cancel", seat, self.key, rule.ref, void, index=index))
        return out
