"""Small readings of the state that several rules share."""

from __future__ import annotations

from jailcore.engine.state import CT, State, T


def open_fight(s: State) -> bool:
    """A special day or a global game sets players against each other: what would be a
    rebellion, a teamkill or a grenade flood on another round is its own fight."""
    return bool(s.specialday_name) or (s.game is not None and "global" in s.game.tags)


def half_dead(s: State, playing: int, prisoners: int) -> tuple[bool, bool]:
    """001 ФД 5 «Общее ФД можно забрать, если Половина/Большинство игроков - Мертвы», read both
    ways: half of the `playing` (players alive when play began) dead, and half of its
    `prisoners` dead."""
    alive_t = len(s.seats(T, alive_only=True))
    dead = playing - alive_t - len(s.seats(CT, alive_only=True))
    return bool(playing) and dead * 2 >= playing, bool(prisoners) and (prisoners - alive_t) * 2 >= prisoners
