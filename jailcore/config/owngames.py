"""A server's own games (`[[games.catalogue]]`) as catalogue games, each with its type."""

from __future__ import annotations

from collections import Counter
from typing import Any

from jailcore.config.netsettings import Fail
from jailcore.engine.catalogue import DEFAULT_CATALOGUE, Catalogue, Game, fold


def own_games(own: list[tuple[int, dict[str, Any]]], fail: Fail) -> list[Game]:
    """A server's `[[games.catalogue]]` games, each with its type (`family`: what 004 5.5
    «однотипными играми» and 001 Начальник обязан 5 compare). A type is named by a game of
    the catalogue, under any of its names (`family = "Саймон"` is Саймон говорит's type, and so
    Злой Саймон's), or is a new one that two or more of the server's own games share. A name
    that is neither, most likely a misspelt type, is refused: it would make the game a type of
    its own, which is what leaving `family` out already says."""
    plain = Catalogue([*DEFAULT_CATALOGUE, *(Game(v["name"], tuple(v["aliases"])) for _, v in own)])
    mine = {v["name"]: v for _, v in own}
    fresh = Counter(fold(v["family"]) for _, v in own if v["family"].strip() and plain.find(v["family"]) is None)
    spelled: dict[str, str] = {}  # a new type, folded -> as its first game wrote it

    def kind(v: dict[str, Any], seen: frozenset[str]) -> str | None:
        typed: str = v["family"]
        if not typed.strip():
            return str(v["name"])
        found = plain.find(typed)
        if found is None:
            return spelled.setdefault(fold(typed), typed.strip()) if fold(typed) and fresh[fold(typed)] >= 2 else None
        if found.name in mine and found.name not in seen:  # another of the server's games: of its type
            return kind(mine[found.name], seen | {found.name}) or found.name
        return next((g.kind for g in DEFAULT_CATALOGUE if g.name == found.name), found.name)

    games = []
    for i, v in own:
        family = kind(v, frozenset({v["name"]}))
        if family is None:
            types = ", ".join(sorted({g.kind for g in DEFAULT_CATALOGUE if g.family}))
            fail(("games", "catalogue", i, "family"),
                 f"{v['family']!r} is neither a game of the catalogue nor a type two of this server's own games share "
                 f"(the catalogue's types of several games: {types}; a game of a type of its own needs no family)")
        games.append(Game(v["name"], tuple(v["aliases"]), frozenset(v["tags"]), v["min_players"],
                          family="" if family in (None, v["name"]) else family))
    return games
