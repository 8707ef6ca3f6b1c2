"""Small readings of the state that several rules share."""

from __future__ import annotations

from jailcore.engine.state import State


def open_fight(s: State) -> bool:
    """A special day or a global game sets players against each other: what would be a
    rebellion, a teamkill or a grenade flood on another round is its own fight."""
    return bool(s.specialday_name) or (s.game is not None and "global" in s.game.tags)
