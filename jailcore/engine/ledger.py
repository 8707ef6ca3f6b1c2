"""What the rules find about the shared facts, written in one place.

Contract: a rule changes only its own state (`Rule.state`). What it finds about the facts
every rule shares (the round's orders, the warden's first command, Monday's freeday, a
freeday a rule owes a player, the game's winners, its reminder, its host's punishment, its
end) it returns beside its actions, as one of the small frozen entries below; the engine
hands each rule's return to `take`, which writes the entries into the `State` in the order
they came, before the next rule runs, and passes the actions on. So the state a rule reads
is the bookkeeping's and the ledger's alone (`tests/test_engine_shape.py` holds that no rule
module assigns to it).
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.state import Order, State


@attrs.frozen
class Entry:
    """One change of the shared state a rule asks for."""

    def write(self, s: State) -> None:
        raise NotImplementedError


@attrs.frozen
class NewOrder(Entry):
    """The warden's order stands: it replaces his orders (001 Общие 3) or joins them (004 5.3).
    It is his first command too (Привилегии 1)."""

    order: Order
    replace: bool

    def write(self, s: State) -> None:
        s.first_order = True
        s.orders = [self.order] if self.replace else [*s.orders, self.order]


@attrs.frozen
class NoOrders(Entry):
    """The warden cancelled his orders."""

    def write(self, s: State) -> None:
        s.orders = []


@attrs.frozen
class FirstCommand(Entry):
    """The warden commanded (a game, a prohibition, a special day of his): «до 1 приказа
    Начальника» is over."""

    def write(self, s: State) -> None:
        s.first_order = True


@attrs.frozen
class RoundFreeday(Entry):
    """The round is Monday's freeday (001 ФД 1)."""

    def write(self, s: State) -> None:
        s.freeday = True


@attrs.frozen
class FreedayOwed(Entry):
    """A rule owes this player a freeday (001 ПЗ 1, 004 4.5), from this round: the one he is
    given for it is not one he acquired himself (001 ФД 8)."""

    key: str

    def write(self, s: State) -> None:
        s.owed[self.key] = s.round


@attrs.frozen
class OwedFreedayGiven(Entry):
    """The freeday a rule owed this player was given: nothing is owed him any more."""

    key: str

    def write(self, s: State) -> None:
        s.owed.pop(self.key, None)


@attrs.frozen
class Respawned(Entry):
    """The player is alive again: the shim respawns him (a freekilled prisoner's choice, 004 4.5)."""

    userid: int

    def write(self, s: State) -> None:
        seat = s.players.get(self.userid)
        if seat is not None:
            seat.alive = True


@attrs.frozen
class GameDecided(Entry):
    """The round's game has a result: winners named (by its host, the warden or the referee)."""

    def write(self, s: State) -> None:
        if s.game is not None:
            s.game.result = True


@attrs.frozen
class GameReminded(Entry):
    """The host was reminded that his game is past its minutes (004 5.11), at this log time."""

    at: str

    def write(self, s: State) -> None:
        if s.game is not None:
            s.game.reminded, s.game.reminded_at = True, self.at


@attrs.frozen
class GamePunished(Entry):
    """The game's host was punished for it once: not again for the same game."""

    def write(self, s: State) -> None:
        if s.game is not None:
            s.game.punished = True


@attrs.frozen
class GameOver(Entry):
    """The round's game is over (its host died or left the guards: 000 VI)."""

    def write(self, s: State) -> None:
        s.game = None


def take(s: State, returned: Iterable[Action | Entry]) -> list[Action]:
    """A rule's return: its entries written, in their order; its actions, to pass on."""
    out: list[Action] = []
    for item in returned:
        if isinstance(item, Entry):
            item.write(s)
        else:
            out.append(item)
    return out
