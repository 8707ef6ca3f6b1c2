"""`fairness.guard_freekill`: 001 Охрана 11 (Запрещено) «Убивать, Ранить игроков и выдать ФД
без причины. [Кик, Бан до 30 минут, Запрет за Кт]»: a prisoner's FreeKill or FreeDamage
report that an admin confirmed (`!fk`, `jb_freekill`, the same path as 004 4.5's
compensation) climbs the ladder of the guard who last hurt that prisoner this round. The
admin's confirmation is the finding; the log only names the guard."""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.rules.base import Rule, handles
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.engine.state import CT, T
from jailcore.log import events as ev


class GuardFreekill(Rule["GuardFreekill.Settings", "GuardFreekill.State"]):
    key = "fairness.guard_freekill"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Охрана 11"
        ladder: Ladder = steps("kick", "ban 30m", "ctban 30m")

    @attrs.define
    class State:
        hurt_by: dict[int, int] = attrs.Factory(dict)  # prisoner's userid -> the guard who last hurt him this round

    @handles(ev.Attacked, ev.Killed)
    def hurt(self, ctx: Context, e: ev.Attacked | ev.Killed) -> list[Action]:
        s = ctx.state
        guard = s.players.get(e.attacker.userid if isinstance(e, ev.Attacked) else e.killer.userid)
        prisoner = s.players.get(e.victim.userid)
        if guard is not None and prisoner is not None and guard.team == CT and prisoner.team == T:
            self.state.hurt_by[prisoner.userid] = guard.userid
        return []

    @handles(ev.FreekillConfirmed)
    def confirmed(self, ctx: Context, e: ev.FreekillConfirmed) -> list[Action]:
        guard_id = self.state.hurt_by.get(e.victim)
        guard, victim = (ctx.player(guard_id) if guard_id is not None else None), ctx.player(e.victim)
        if guard is None or victim is None:
            return []
        return ctx.punish(self.key, guard, ctx.text("fairness.guard_freekill", victim=victim.name))

    def round_cleared(self, ctx: Context) -> None:
        self.state.hurt_by = {}
