"""A cap on standing prohibitions: 004 6.3 «Во время одной игры разрешается установить
одновременно не более двух запретов» (only while a game runs: `only_during_game`), 001 ФД 3
«Начальник может добавить 3 ограничения» (three on a freeday, no cap otherwise: `limit = 0`;
`freeday_added`: the three are those added in the freeday, not the ones standing before it).

The ladder is the clause's: 004 6.3 «устное предупреждение → отмена лишнего запрета» is a
warning first (the prohibition stands), the extra prohibition cancelled the next time
(`ladder = ["warn", "cancel"]`). A ladder without a `cancel` step refuses every extra one
(001 ФД 3 allows no fourth at all): the warden climbs it, and everyone is told it is void."""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action, Cancel
from jailcore.engine.context import Context
from jailcore.engine.rules.base import Rule, handles, vetoes
from jailcore.engine.rules.common import half_dead
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.engine.state import CT, T
from jailcore.log import events as ev


class MaxProhibitions(Rule["MaxProhibitions.Settings", "MaxProhibitions.State"]):
    key = "prohibitions.max"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "6.3"
        limit: int = 2  # 0: no cap
        freeday_limit: int = 3  # on a freeday; 0: no cap
        only_during_game: bool = False
        freeday_added: bool = False  # on a freeday, count only those added since it began
        ladder: Ladder = steps("warn")  # refuses every extra one; 004 6.3's own is ["warn", "cancel"]

    @attrs.define
    class State:
        playing: int = 0  # players alive when the round's play began (001 ФД 5 «Половина … игроков - Мертвы»)
        prisoners: int = 0  # of them, prisoners
        ordered: bool = False  # the warden registered an order this round

    @handles(ev.RoundStart, ev.FreezeEnded)
    def counted(self, ctx: Context, e: ev.RoundStart | ev.FreezeEnded) -> list[Action]:
        self.state.prisoners = len(ctx.alive(T))
        self.state.playing = self.state.prisoners + len(ctx.alive(CT))
        return []

    @handles(ev.OrderGiven)
    def order(self, ctx: Context, e: ev.OrderGiven) -> list[Action]:
        self.state.ordered = True
        return []

    def round_cleared(self, ctx: Context) -> None:
        self.state.ordered = False

    def _taken(self, ctx: Context) -> str:
        """001 ФД 5 «Общее ФД можно забрать, если Половина/Большинство игроков - Мертвы»: ""
        while the freeday stands; "taken" once half are dead (the players, or the prisoners)
        and the warden has given an order (an ordinary round: no cap on A); "judge" once half
        are dead and no order yet (he may take it at any moment: an admin's call)."""
        if not any(half_dead(ctx.state, self.state.playing, self.state.prisoners)):
            return ""
        return "taken" if self.state.ordered else "judge"

    def _over(self, ctx: Context, new: int) -> tuple[int, bool]:
        """The cap the standing prohibitions (with `new` more) pass, or 0 when within it;
        and whether it is the clause's clear case. 004 6.3 «Во время одной игры разрешается
        установить одновременно не более двух запретов»: more than two set during the game
        is; more than two standing only with those set before it began is «установить» read
        the other way, an admin's call."""
        s, rule = ctx.state, self.settings
        standing = len(s.prohibitions) + new
        taken = self._taken(ctx) if s.freeday else ""
        freeday = s.freeday and taken != "taken"
        limit = rule.freeday_limit if freeday else rule.limit
        if taken == "taken" and rule.limit:
            limit = max(rule.limit, rule.freeday_limit)  # those the freeday allowed still stand
        if freeday and rule.freeday_added:
            standing -= s.before_freeday
        if not limit or standing <= limit or (rule.only_during_game and s.game is None):
            return 0, True
        if taken == "judge" and limit == rule.freeday_limit != rule.limit:
            return limit, False
        if rule.only_during_game and s.game is not None:
            during = sum(1 for p in s.prohibitions if p.time >= s.game.started) + new
            return limit, during > limit
        return limit, True

    def _cancels(self, ctx: Context, e: ev.ProhibitionSet) -> bool:
        ladder = self.settings.ladder
        return "cancel" not in (step.action for step in ladder) or ctx.next_step(self.key, ctx.seat(e.player)).action == "cancel"

    @vetoes(ev.ProhibitionSet)
    def extra(self, ctx: Context, e: ev.ProhibitionSet) -> list[Action] | None:
        s, rule = ctx.state, self.settings
        limit, clear = self._over(ctx, 1)
        if not limit or not clear or not self._cancels(ctx, e):
            return None  # within the cap, the ladder's warning or an admin's call: it stands (see `warned`)
        seat = ctx.seat(e.player)
        out = ctx.punish(self.key, seat, ctx.text("prohibitions.max", count=len(s.prohibitions), limit=limit, text=e.text))
        index = len(s.prohibitions) + 1
        void = ctx.quoting(rule, ctx.text("prohibitions.cancelled", index=index, text=e.text))
        out.append(ctx.action(Cancel, seat, self.key, rule.ref, void, index=index))
        return out

    @handles(ev.ProhibitionSet)
    def warned(self, ctx: Context, e: ev.ProhibitionSet) -> list[Action]:
        """Past the cap, at a step before the ladder's cancel: warned, and it stands."""
        s = ctx.state
        limit, clear = self._over(ctx, 0)
        if not limit:
            return []
        text = ctx.text("prohibitions.max.warned", count=len(s.prohibitions) - 1, limit=limit, text=e.text)
        return ctx.punish(self.key, ctx.seat(e.player), text, judgement=not clear)
