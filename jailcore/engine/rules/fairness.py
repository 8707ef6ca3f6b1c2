"""`fairness.freekill`: 004 4.5 «FreeKill: компенсация 100$ и возрождение заключённого либо
предоставление Свободного дня в следующем раунде… FreeDamage: 50$», on an admin's
confirmation (`jb_freekill`). «…заключённый самостоятельно выбирает между возрождением и
Свободным днём. Если возрождение невозможно по правилам, автоматически выдаётся Свободный
день»: while he can still be respawned the shim offers him the choice (`jb_fk_offer`) and
reports it (`jb_fk_choice`); otherwise, and if the round ends before he chose, he gets the
freeday."""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action, Freeday, Money, Offer, Respawn, Say
from jailcore.engine.context import Context
from jailcore.engine.ledger import Entry, FreedayOwed, Respawned
from jailcore.engine.rules.base import Rule, handles
from jailcore.engine.settings import RuleSettings
from jailcore.engine.state import Seat, T
from jailcore.log import events as ev


class Freekill(Rule["Freekill.Settings", "Freekill.State"]):
    key = "fairness.freekill"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "4.5"
        kill_amount: int = 100
        damage_amount: int = 50

    @attrs.define
    class State:
        next_round: list[str] = attrs.Factory(list)  # player keys owed a freeday next round
        offered: list[int] = attrs.Factory(list)  # prisoners choosing between respawn and freeday

    @handles(ev.FreekillConfirmed)
    def confirmed(self, ctx: Context, e: ev.FreekillConfirmed) -> list[Action | Entry]:
        victim = ctx.state.players.get(e.victim)
        if victim is None:
            return []
        rule = self.settings
        amount = rule.damage_amount if e.damage_only else rule.kill_amount
        reason = ctx.quoting(rule, ctx.text("fairness.freedamage" if e.damage_only else "fairness.freekill", amount=amount))
        out: list[Action | Entry] = [ctx.action(Money, victim, self.key, rule.ref, reason, amount=amount)]
        if not e.damage_only:
            if self._can_respawn(ctx, victim):
                self.state.offered.append(victim.userid)
                out.append(ctx.action(Offer, victim, self.key, rule.ref, ctx.quoting(rule, ctx.text("fairness.choose"))))
            else:
                out += self._freeday(ctx, victim)
        return out

    @handles(ev.FreekillChoice)
    def chosen(self, ctx: Context, e: ev.FreekillChoice) -> list[Action | Entry]:
        victim = ctx.state.players.get(e.player.userid)
        if victim is None or victim.userid not in self.state.offered:
            return []
        self.state.offered.remove(victim.userid)
        if e.choice == "respawn" and self._can_respawn(ctx, victim):
            return [Respawned(victim.userid), ctx.action(Respawn, victim, self.key, self.ref, ctx.quoting(self.settings, ctx.text("fairness.respawn")))]
        return self._freeday(ctx, victim)

    @handles(ev.RoundEnd)
    def unanswered(self, ctx: Context, e: ev.RoundEnd) -> list[Action | Entry]:
        """The round is over: a respawn is no longer possible, so the freeday it is."""
        out: list[Action | Entry] = []
        for uid in self.state.offered:
            victim = ctx.state.players.get(uid)
            if victim is not None:
                out += self._freeday(ctx, victim)
        self.state.offered = []
        return out

    @staticmethod
    def _can_respawn(ctx: Context, victim: Seat) -> bool:
        return ctx.state.round_open and not victim.alive and victim.team == T

    def _freeday(self, ctx: Context, victim: Seat) -> list[Action | Entry]:
        self.state.next_round.append(victim.key)
        return [FreedayOwed(victim.key), ctx.action(Freeday, victim, self.key, self.ref, ctx.text("freeday.next", name=victim.name))]

    @handles(ev.RoundStart)
    def owed(self, ctx: Context, e: ev.RoundStart) -> list[Action]:
        if not self.state.next_round:
            return []
        names = [p.name for p in ctx.state.players.values() if p.key in self.state.next_round]
        self.state.next_round = []
        return [ctx.everyone(Say, self.key, self.ref, ctx.text("freeday.today", names=", ".join(names)))] if names else []
