"""The last prisoner's duels (rulebook 001, last prisoner and duels), opt-in.

- `lastrequest.one_wish`: ПЗ 2 «Одна дуэль с Охранником - одно желание заключённого»: a
  second request (`jb_lr`) by the same prisoner before he has won a duel (killed a guard)
  since his first is void; he is told so.
- `lastrequest.duel_stakes`: Дуэли 4 «Дуэль можно играть только на одиночное Фд, Голос,
  деньги (себе или другому заключенному). А так же, просто так.» and «Дуэль на
  дробовиках играется ПРОСТО ТАК.»: a request whose text names another stake (`forbidden`:
  a general freeday, a place among the guards, immortality...) or a shotgun duel with any
  stake; the prisoner is told the duel is played «просто так». The stake is read from free
  text: the ladder is a warning, and a server may send it to an admin (`confirm`).
"""

from __future__ import annotations

import re

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.rules.base import Rule, handles
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.engine.state import CT, T
from jailcore.log import events as ev


class OneWish(Rule["OneWish.Settings", "OneWish.State"]):
    key = "lastrequest.one_wish"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "ПЗ 2"
        ladder: Ladder = steps("warn")

    @attrs.define
    class State:
        wished: list[int] = attrs.Factory(list)  # prisoners with a request and no duel won since

    @handles(ev.LastRequest)
    def chosen(self, ctx: Context, e: ev.LastRequest) -> list[Action]:
        seat = ctx.seat(e.player)
        if seat.team != T:
            return []
        if seat.userid not in self.state.wished:
            self.state.wished.append(seat.userid)
            return []
        return ctx.punish(self.key, seat, ctx.text("lastrequest.one_wish", choice=e.choice))

    @handles(ev.Killed)
    def killed(self, ctx: Context, e: ev.Killed) -> list[Action]:
        s = ctx.state
        killer, victim = s.players.get(e.killer.userid), s.players.get(e.victim.userid)
        if killer is not None and victim is not None and victim.team == CT and killer.userid in self.state.wished:
            self.state.wished.remove(killer.userid)  # a duel won: the next one earns a wish of its own
        return []

    def round_cleared(self, ctx: Context) -> None:
        self.state.wished = []


class DuelStakes(Rule["DuelStakes.Settings", None]):
    key = "lastrequest.duel_stakes"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Дуэли 4"
        # Stakes the clause does not name: a freeday for everyone, a place among the guards,
        # immortality, the warden's role, privileges, another round's game.
        forbidden: tuple[str, ...] = (
            r"(?i)общ\w*\s+(?:фд|freeday)", r"(?i)(?:фд|freeday)\s+(?:всем|для\s+всех|на\s+всех)", r"(?i)\bвсем\s+(?:фд|freeday)",
            r"(?i)\bза\s+кт\b", r"(?i)\bв\s+кт\b", r"(?i)бессмерт", r"(?i)\bначальник", r"(?i)\b(?:вип|vip|админ\w*)\b",
        )
        shotgun: str = r"(?i)дробовик|шотган|shotgun|\bnova\b|\bxm1014\b|\bm3\b|\bmag-?7\b|\bsawed"
        stake: str = r"(?i)(?:\bна\s+|\bfor\s+)(?:\w+\s+)?(?:фд|freeday|голос|voice|деньг|\d+\s*\$|\$)"
        ladder: Ladder = steps("warn")

    @handles(ev.LastRequest)
    def chosen(self, ctx: Context, e: ev.LastRequest) -> list[Action]:
        seat = ctx.seat(e.player)
        if seat.team != T:
            return []
        rule = self.settings
        for pattern in rule.forbidden:
            m = re.search(pattern, e.choice)
            if m:
                return ctx.punish(self.key, seat, ctx.text("lastrequest.duel_stakes", stake=m.group(0)))
        if re.search(rule.shotgun, e.choice) and re.search(rule.stake, e.choice):
            return ctx.punish(self.key, seat, ctx.text("lastrequest.duel_shotgun"))
        return []
