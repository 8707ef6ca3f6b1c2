"""The action vocabulary: the words for the kinds of action, what admins and players call
each, how `tail` colours it, and its traits, the one table every use of a kind's word reads
(the action classes, one per word, are `actions.py`'s).
"""

from __future__ import annotations

from typing import Literal, cast

import attrs

# The words of VOCABULARY below (and of `actions.CLASSES`), for the type checker; a test holds the two equal.
ActionKind = Literal[
    "warn", "slay", "teamswap", "ctban", "kick", "ban", "autoslay", "money", "respawn", "freeday",
    "cancel", "say", "hud", "unctban", "unban", "pardon", "offer", "door", "propose", "lapse", "ask",
]


def _words(words: str) -> frozenset[str]:
    return frozenset(words.split())


@attrs.frozen
class Kind:
    """One word of the action vocabulary: what admins and players call it, how `tail`
    colours it, and its traits, the one place each use of the vocabulary reads:
    `step` a ladder may use it; `enforcement` one of protocol section 3's actions (what
    `replay` prints); `audited` written to the audit log (the rest is only shown);
    `round` it makes sense only in the round it was decided (the outbox expires it after);
    `pardonable` a punishment a pardon takes back; `advisory` advise mode sends it as it
    is; `feed` the admins online are told of it; `offline` it acts on a steamid, not on a
    player online, so his absence does not expire it (an unban: a banned player is never
    on the server)."""

    ru: str
    en: str
    colour: str
    traits: frozenset[str] = attrs.field(converter=_words)


# CT bans are kept by the daemon and pushed to the shim, which refuses a banned join at
# the door; autoslay is kept by the daemon and the player told by a warning.
VOCABULARY: dict[ActionKind, Kind] = {
    "warn": Kind("предупреждение", "warning", "33", "step enforcement audited round pardonable advisory feed"),
    "slay": Kind("убийство", "slay", "31", "step enforcement audited round pardonable feed"),
    "teamswap": Kind("перевод за Т", "moved to T", "35", "step enforcement audited round pardonable feed"),
    "ctban": Kind("запрет за КТ", "CT ban", "35", "step enforcement audited pardonable feed"),
    "kick": Kind("кик", "kick", "31", "step enforcement audited pardonable feed"),
    "ban": Kind("бан", "ban", "31;1", "step enforcement audited pardonable feed"),
    "autoslay": Kind("автослей", "autoslay", "31", "step enforcement audited pardonable feed"),
    "money": Kind("компенсация", "compensation", "32", "step enforcement audited round feed"),
    "respawn": Kind("возрождение", "respawn", "32", "step enforcement audited round feed"),
    "freeday": Kind("ФД", "freeday", "32", "step enforcement audited round feed"),
    "cancel": Kind("отмена", "cancel", "36", "step enforcement audited round advisory"),
    "say": Kind("объявление", "announcement", "32", "enforcement audited round advisory"),
    "hud": Kind("табло", "display", "0", "round advisory"),
    # What admins and the door need: not enforcements themselves.
    "unctban": Kind("снятие запрета за КТ", "CT ban lifted", "32", "audited"),
    "unban": Kind("разбан", "unban", "32", "audited offline"),
    "pardon": Kind("помилование", "pardon", "32", "audited"),
    "offer": Kind("выбор", "choice", "36", "audited round"),
    "door": Kind("запрет за КТ в игре", "CT ban at the door", "0", ""),
    "propose": Kind("на решение админа", "proposed", "36;1", "enforcement audited"),
    "lapse": Kind("предложение истекло", "proposal lapsed", "2", ""),
    "ask": Kind("запрос админа", "admin's request", "36", ""),
}
KINDS: tuple[ActionKind, ...] = tuple(VOCABULARY)


def kinds_that(trait: str) -> frozenset[ActionKind]:
    """The kinds of action with this trait (see `Kind`)."""
    return frozenset(k for k, kind in VOCABULARY.items() if trait in kind.traits)


STEPS = tuple(k for k, kind in VOCABULARY.items() if "step" in kind.traits)


def kind_name(lang: str, kind: str) -> str:
    entry = VOCABULARY.get(cast(ActionKind, kind))  # any word: an unknown one is shown as it is
    if entry is None:
        return kind
    return entry.en if lang == "en" else entry.ru


