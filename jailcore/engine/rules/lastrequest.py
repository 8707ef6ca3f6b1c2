"""The last prisoner.

- `lastrequest.timeout`: 001 ПЗ 1 «ПЗ имеет 10 секунд на выбор желания»: the moment one
  prisoner is left his clock starts; without a request in time everyone is told the guards
  may kill him, and when they do, that he is owed a freeday (unless he rebelled).
- `lastrequest.guard_suicide`: 004 4.12 «…охраннику запрещается намеренно погибать.
  Наказание: компенсация заключённому в размере 100$».
"""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action, Freeday, Money
from jailcore.engine.context import Context
from jailcore.engine.ledger import Entry, FreedayOwed
from jailcore.engine.rules.base import Rule, handles
from jailcore.engine.settings import RuleSettings
from jailcore.engine.state import CT, T
from jailcore.log import events as ev


class LastRequestTimeout(Rule["LastRequestTimeout.Settings", "LastRequestTimeout.State"]):
    """ПЗ 1 «ПЗ имеет 10 секунд на выбор желания. [Убийство Охраной и выдача ФД, если зек
    не бунтует]»: after his 10 s everyone is told the guards may kill him, and when a guard
    does, a prisoner who did not rebel is owed a freeday next round (`freeday`), said to all."""

    key = "lastrequest.timeout"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "ПЗ 1"
        seconds: int = 10
        freeday: bool = True

    @attrs.define
    class State:
        done: bool = False  # chosen in time, or everyone was told
        late: int = 0  # the prisoner whose time ran out (his userid), until the guards kill him

    @handles(ev.Killed)
    def killed(self, ctx: Context, e: ev.Killed) -> list[Action | Entry]:
        s, mine = ctx.state, self.state
        if not mine.late or e.victim.userid != mine.late:
            return []
        mine.late = 0
        killer, last = s.players.get(e.killer.userid), s.last_prisoner
        rebel = last is not None and (last.rebelled or last.uid in s.rebels)
        if not self.settings.freeday or killer is None or killer.team != CT or last is None or rebel or s.last_request:
            return []
        victim = s.players[e.victim.userid]
        text = ctx.quoting(self.settings, ctx.text("lastrequest.freeday", name=victim.name))
        return [FreedayOwed(victim.key), ctx.action(Freeday, victim, self.key, self.ref, text)]

    @handles(ev.LastRequest)
    def chosen(self, ctx: Context, e: ev.LastRequest) -> list[Action]:
        if ctx.state.last_prisoner is not None:
            self.state.done = True  # chosen in time: the clock stops
        return []

    def tick(self, ctx: Context, now: str) -> list[Action]:
        last = ctx.state.last_prisoner
        if last is None or self.state.done or ctx.seconds_since(last.since) <= self.settings.seconds:
            return []
        self.state.done, self.state.late = True, last.uid
        text = ctx.text("lastrequest.timeout", name=last.name, seconds=self.settings.seconds)
        return [ctx.announce(self.key, self.settings, text)]

    def round_cleared(self, ctx: Context) -> None:
        self.state.done, self.state.late = False, 0


class GuardSuicide(Rule["GuardSuicide.Settings", None]):
    key = "lastrequest.guard_suicide"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "4.12"
        amount: int = 100
        # «намеренно погибать»: his own grenade or fire shows no intent
        unintended: tuple[str, ...] = ("hegrenade", "inferno", "molotov", "incgrenade", "env_explosion", "env_fire")

    @handles(ev.Suicide)
    def suicide(self, ctx: Context, e: ev.Suicide) -> list[Action]:
        s = ctx.state
        seat = s.players[e.player.userid]
        if seat.userid in s.slain or seat.team != CT or not s.round_open or e.weapon in self.settings.unintended:
            return []  # our own slay is not a guard dying on purpose, nor his own grenade
        alive = ctx.alive(T)
        if len(alive) != 1:
            return []
        text = ctx.text("lastrequest.guard_suicide", guard=seat.name, amount=self.settings.amount)
        return [ctx.action(Money, alive[0], self.key, self.ref, ctx.quoting(self.settings, text), amount=self.settings.amount)]
