"""The warden's orders (001 general 3 «Каждый новый приказ Начальника отменяет
предыдущий»; 004 5.3: orders stack unless they contradict). The list is shown on the HUD;
the warden's death and the round's end clear it (bookkeeping)."""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.ledger import Entry, NewOrder, NoOrders
from jailcore.engine.rules.base import Rule, handles
from jailcore.engine.settings import RuleSettings, choice
from jailcore.engine.state import Order
from jailcore.log import events as ev


class Orders(Rule["Orders.Settings", None]):
    key = "orders"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "3"
        mode: str = choice("replace", "stack")
        # 001 Общие 7 «После смерти начальника все приказы отменяются, игры заканчиваются»:
        # the warden's death (or leaving) clears his orders and game. 004 has no such clause:
        # there his orders stand and his game ends only as 000 VI ends a host's.
        end_with_warden: bool = True

    @handles(ev.OrderGiven)
    def given(self, ctx: Context, e: ev.OrderGiven) -> list[Action | Entry]:
        return [NewOrder(Order(e.text, e.time, ctx.seat(e.player).userid), replace=self.settings.mode == "replace")]

    @handles(ev.OrdersCancelled)
    def cancelled(self, ctx: Context, e: ev.OrdersCancelled) -> list[Action | Entry]:
        return [NoOrders()]
