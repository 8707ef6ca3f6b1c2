"""`fairness.freekill`: 004 4.5 «FreeKill: компенсация 100$ и возрождение заключённого либо
предоставление Свободного дня в следующем раунде… FreeDamage: 50$», on an admin's
confirmation (`jb_freekill`)."""

from __future__ import annotations

import attrs

from .. import events as ev
from ..actions import Action
from ..context import Context
from .base import Rule, RuleSettings, handles


class Freekill(Rule):
    key = "fairness.freekill"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "4.5"
        kill_amount: int = 100
        damage_amount: int = 50

    @attrs.define
    class State:
        next_round: list[str] = attrs.Factory(list)  # player keys owed a freeday next round

    @handles(ev.FreekillConfirmed)
    def confirmed(self, ctx: Context, e: ev.FreekillConfirmed) -> list[Action]:
        victim = ctx.state.players.get(e.victim)
        if victim is None:
            return []
        rule = self.settings
        amount = rule.damage_amount if e.damage_only else rule.kill_amount
        reason = ctx.quoting(rule, ctx.text("fairness.freedamage" if e.damage_only else "fairness.freekill", amount=amount))
        out = [ctx.action("money", victim, self.key, rule.ref, reason, amount=amount)]
        if not e.damage_only:
            if ctx.state.round_open and not victim.alive:
                victim.alive = True
                out.append(ctx.action("respawn", victim, self.key, rule.ref, reason))
            else:
                self.state.next_round.append(victim.key)
                out.append(ctx.action("freeday", victim, self.key, rule.ref, ctx.text("freeday.next", name=victim.name)))
        return out

    @handles(ev.RoundStart)
    def owed(self, ctx: Context, e: ev.RoundStart) -> list[Action]:
        if not self.state.next_round:
            return []
        names = [p.name for p in ctx.state.players.values() if p.key in self.state.next_round]
        self.state.next_round = []
        return [ctx.action("say", None, self.key, self.ref, ctx.text("freeday.today", names=", ".join(names)))] if names else []
