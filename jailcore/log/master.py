"""The master pattern: the common shapes of `lines.LineReader`'s grammar as one compiled
pattern, the parser's fast path. Each alternative `token(?=proof)` proves a whole line
(timestamp, first identity's place, verb, tail) and its token names a `Step`: the kind, and
how to build the event (`TOKENS`). An alternative may accept less than `read_line` (the rest
falls back to it), never more nor otherwise; the parser's tests hold the two to the same
answer on every corpus line and on generated hostile ones.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import attrs

from jailcore.log import events as ev
from jailcore.log.lines import _BODIES, _NOTED_VERBS, NOTED, LineReader, _text


@attrs.frozen
class Step:
    """One shape of line MASTER proves: its kind, and how to build its event."""

    kind: str
    # Builds the event of a needed kind: (reader, time, player, tail) -> event, the tail
    # from the verb on (a player line) or the line's body; (reader, match, time, player)
    # for a two-player line. None: the kind's shared NOTED value.
    read: Callable[..., Any] | None = None
    victim: str = ""  # a two-player line: the group holding its second identity, still to prove


_families: list[tuple[str, bool, list[tuple[str, Step]]]] = []


def _family(name: str, player: bool, *alts: tuple[str, str, Step]) -> str:
    """One capture group over alternatives `token(?=proof)`, tried in order: the group holds
    the token, which names the Step; the lookahead proves the rest of the line. Few groups:
    each costs every match, even one that never enters it. (A group per alternative, that
    named its Step by itself, would cost more than reading the token; and one that began
    an alternative would lose sre's skipping of those whose first character differs.)"""
    _families.append((name, player, [(token, step) for token, _, step in alts]))
    return f"(?P<{name}>" + "|".join(re.escape(token) + (f"(?={proof})" if proof else "") for token, proof, _ in alts) + ")"


# MASTER reads text once `parse` has stripped NULs, line ends and byte-order marks from both
# ends, as `read_line` gets it; MASTER_BYTES reads the record as it came, so it steps over
# NULs and line ends where they stand. (A byte-order mark there makes it fail: `read_line`
# reads that line. No alternative may then let a later one take the line instead.)
_M_START = "(?#strip)"
_M_END = r"(?#strip)\Z"
_M_STRIPPED = rb"[\x00\r\n]*"
# The end of a word as `\S+` reads it, in ASCII (other whitespace falls back to `read_line`).
_M_WORD_END = rf"(?:[\t\n\x0b\x0c\r\x1c-\x1f ]|{_M_END})"
# The end of a word as `split(" ")` reads it.
_M_SPLIT_END = rf"(?: |{_M_END})"
# The timestamp with the ranges `_stamp` accepts, in ASCII digits; group 1.
_M_STAMP = r"(?:L )?((?:0[1-9]|1[0-2])/(?:0[1-9]|[12][0-9]|3[01])/[0-9]{4} - (?:[01][0-9]|2[0-3]):[0-5][0-9]:(?:[0-5][0-9]|60)): "
# A player line whose first quote closes a well-formed identity followed by a word: that
# identity is the one `_FIRST_IDENTITY` finds (no earlier split can exist without a quote),
# once the parser has proved the text (group 2) through its cache.
_M_PLAYER = r'"([^"]*)" '
_M_POS = r"\[-?\d+ -?\d+ -?\d+\]"
# ` "V" [x y z] with "w"`, as `_against` reads it: the ` with "` must be the last one.
# A weapon holds no space, so none can begin before its closing quote; each proof ends by
# looking past what it read (`_M_NO_LATER_WITH`).
_M_AGAINST = r' "(?P<victim_{0}>[^"]*)"(?: ' + _M_POS + r')? with "(?P<weapon_{0}>[^" ]*)"'
_M_NO_LATER_WITH = r'(?!.* with ")'
# The first (damage) and (health) where CS:S and CS:GO write them, short enough for `int`.
_M_DAMAGE = r' \(damage "(?P<damage>-?\d{1,10})"\) \(damage_armor "-?\d+"\) \(health "(?P<health>-?\d{1,10})"\)'


def _attacked_whole(reader: LineReader, m: re.Match[str], time: str, player: ev.Player) -> ev.Attacked:
    # What `_attacked` would read, from MASTER's groups: the parser has proved both identities.
    victim = reader._identities[m[_VICTIM_A]]
    return ev.Attacked(time, player, victim, _text(m[_WEAPON_A]), int(m[_DAMAGE_A]), int(m[_HEALTH_A]))


def _killed_whole(reader: LineReader, m: re.Match[str], time: str, player: ev.Player) -> ev.Killed:
    return ev.Killed(time, player, reader._identities[m[_VICTIM_K]], _text(m[_WEAPON_K]))


_M_NOTED_VERBS = _family(
    "noted",
    True,
    # Read by their whole word, as `_player_line` does; `triggered` is the game's own
    # unless `jb_` follows.
    ("triggered", rf'(?!."jb_){_M_WORD_END}', Step("player_triggered")),
    *((verb, _M_WORD_END, Step(kind)) for verb, kind in _NOTED_VERBS.items()),
)
# The verbs `_verb` reads, after an optional position, most frequent first: the words
# differ, so the order is free (`changed` is a role unless its name alternative applies).
_M_VERBS = _family(
    "verb",
    True,
    # Two-player lines: built from the groups that proved them (see `_attacked_whole`).
    ("attacked", _M_AGAINST.format("a") + _M_DAMAGE + _M_NO_LATER_WITH, Step("attacked", _attacked_whole, "victim_a")),
    ("killed", _M_AGAINST.format("k") + _M_NO_LATER_WITH, Step("killed", _killed_whole, "victim_k")),
    ("threw", _M_SPLIT_END, Step("threw", LineReader._threw)),
    ("say", ' "', Step("chat", LineReader._say)),
    ("say_team", ' "', Step("chat", LineReader._say_team)),
    ("switched", " from team <[^<>]*> to <[^<>]*>" + _M_END, Step("joined_team", LineReader._switched)),
    ("joined", ' team "(?:.*")?' + _M_END, Step("joined_team", LineReader._joined)),
    ("entered", " the game" + _M_END, Step("entered", LineReader._entered)),
    ("connected,", ' address "', Step("connected", LineReader._connected)),
    ("disconnected", _M_SPLIT_END, Step("disconnected", LineReader._disconnected)),
    ("STEAM", " USERID validated", Step("validated", LineReader._validated)),
    ("committed", ' suicide with "', Step("suicide", LineReader._committed)),
    ("changed name", ' to "(?:.*")?' + _M_END, Step("name_changed", LineReader._changed)),
    ("changed", '(?! name to ")' + _M_SPLIT_END, Step("changed_role")),
    ("was", _M_SPLIT_END, Step("killed_by_bomb")),
)
_M_CVAR = _family("cvar", False, ("", r'"[^"<>]*" = "[^"]*"' + _M_END, Step("cvar")))
_M_WORLD = _family(
    "world",
    False,
    *(
        (name, '"', Step(kind, LineReader._body))
        for name, kind in (
            ("Round_Start", "round_start"),
            ("Round_End", "round_end"),
            ("Game_Commencing", "game_commencing"),
            ("Warmup_Start", "warmup_start"),
            ("Warmup_End", "warmup_end"),
            ("jb_hello", "jb_hello"),
        )
    ),
    # Proved whole: a malformed one falls back to `read_line`, which counts it.
    ("jb_round_start", r'" \(freeze "[0-9]{1,9}"\) \(seq "[0-9]{1,10}"\)' + _M_END, Step("jb_round_start", LineReader._body)),
    # Any other restart name reads as 0 seconds; a count of seconds `int` refuses does not.
    ("Restart_Round_", r'(?:\(\d{1,10}_seconds?\)|(?!\(\d+_seconds?\)")[^"]*)"', Step("restart_round", LineReader._body)),
    ("", r'(?!Restart_Round_|jb_round_start")[^"]*"', Step("world_triggered", LineReader._body)),
)
_M_BODIES = _family("body", False, *((prefix, "", Step(kind, LineReader._body if read else None)) for prefix, kind, read in _BODIES))

_M_ALL = (
    rf"{_M_START}{_M_STAMP}(?:{_M_PLAYER}(?:{_M_NOTED_VERBS}|(?:{_M_POS} )?{_M_VERBS})"
    rf'|{_M_CVAR}|World triggered "{_M_WORLD}|{_M_BODIES})'
)
# The same pattern for text and for bytes: every delimiter it reads is ASCII, which UTF-8
# (and the Latin-1 fallback) never uses inside a character, so both split a line at the
# same places. Matching the bytes saves decoding lines that no one will read.
_master = re.compile(_M_ALL, re.S)
MASTER = _master.match
MASTER_BYTES = re.compile(_M_ALL.encode("ascii").replace(b"(?#strip)", _M_STRIPPED), re.S).match
_VICTIM_A, _WEAPON_A, _DAMAGE_A, _HEALTH_A, _VICTIM_K, _WEAPON_K = (
    _master.groupindex[name] for name in ("victim_a", "weapon_a", "damage", "health", "victim_k", "weapon_k")
)

# Every Step by slot (the parser tallies lines per slot), and by group number (the
# family's group is `Match.lastindex`): token, as text and as bytes -> (slot, check), where
# check says what the parser must still prove: 0 nothing, 1 the actor's identity (group 2),
# more: that and the victim's identity in the group of that number.
STEPS: list[Step] = []
TOKENS: list[dict[str | bytes, tuple[int, int]]] = [{} for _ in range(_master.groups + 1)]
for _name, _player_line, _alts in _families:
    for _token, _step in _alts:
        _check = (_master.groupindex[_step.victim] if _step.victim else 1) if _player_line else 0
        TOKENS[_master.groupindex[_name]][_token] = TOKENS[_master.groupindex[_name]][_token.encode("ascii")] = (len(STEPS), _check)
        STEPS.append(_step)

# Every kind the parser can count: the event classes' and the noted ones.
ALL_KINDS = frozenset({cls.kind for cls in (*ev.Event.__subclasses__(), *ev.shim_events()) if cls is not ev.ShimEvent} | set(NOTED))
