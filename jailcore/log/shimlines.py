"""The shim's own lines: `"<player>" triggered "jb_..." (key "value")... (seq "N")`.

Contract: `shim_event(time, player, name, props)` reads the properties of one shim trigger
(its `(seq "N")` still on) into its event, or None when they are not what the shim writes.
Free text (an order, a reason) is read from both ends, so quotes inside it do no harm.
`SHIM_TRIGGERS` is every trigger the daemon reads (the contract test checks the plugin
writes each); `EXTENSION_TRIGGERS` those beyond protocol section 1, named in the shim's README.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from jailcore.log import events as ev
from jailcore.log.errors import ProtocolError


class Malformed(ProtocolError, ValueError):
    """The peer (the game server, or whoever wrote the file) sent something unreadable."""


def number(digits: str) -> int:
    # Digits from the line: `int` refuses over 4300 of them, and `isdigit` lets through
    # characters such as '²' that `int` refuses: the sender's fault, not ours.
    try:
        return int(digits)
    except ValueError:
        raise Malformed(f"not a number: {digits[:20]!r}") from None


SEQ_TAIL = re.compile(r' \(seq "(\d{1,10})"\)$')
_FREEKILL = re.compile(r' \(victim "#?(\d{1,10})"\) \(kind "(kill|damage)"\)')
_FREEDAY = re.compile(r' \(scope "(personal|all)"\)(?: \(target "#?(\d{1,10})"\))?')
_CTBAN = re.compile(r' \(target "#(\d{1,10})"\) \(length "(\d{1,9})(r?)"\)(?: \(reason "(.*)"\))?', re.S)
_ADMIN_WORD = re.compile(r' \(id "(\d{1,18})"\)(?: \(reason "(.*)"\))?', re.S)


def prop(props: str, key: str) -> str | None:
    """The value of ` (key "value")` when it is the only property; the value is free
    text read from both ends, so quotes inside it do no harm."""
    head = f' ({key} "'
    if props.startswith(head) and props.endswith('")') and len(props) >= len(head) + 2:
        return props[len(head) : -2]
    return None


def _lift(time: str, player: ev.Player, seq: int, value: str) -> ev.Event | None:
    return ev.ProhibitionLifted(time, player, seq, number(value)) if value.isdigit() else None


def _gag(time: str, player: ev.Player, seq: int, value: str) -> ev.Event | None:
    return ev.GagChanged(time, player, seq, value == "on") if value in ("on", "off") else None


def _unctban(time: str, player: ev.Player, seq: int, value: str) -> ev.Event | None:
    return ev.CtBanLifted(time, player, seq, number(value[1:])) if value[:1] == "#" and value[1:].isdigit() else None


def _choice(time: str, player: ev.Player, seq: int, value: str) -> ev.Event | None:
    return ev.FreekillChoice(time, player, seq, value) if value in ("respawn", "freeday") else None


_ONE_PROP: dict[str, tuple[str, Callable[..., ev.Event | None]]] = {
    "jb_warden_removed": ("reason", ev.WardenRemoved),
    "jb_order": ("text", ev.OrderGiven),
    "jb_prohibit": ("text", ev.ProhibitionSet),
    "jb_prohibit_lift": ("index", _lift),
    "jb_game_start": ("game", ev.GameStarted),
    "jb_specialday": ("day", ev.SpecialDay),
    "jb_lr": ("choice", ev.LastRequest),
    "jb_privilege": ("kind", ev.PrivilegeUsed),
    "jb_gag": ("state", _gag),
    "jb_game_approve": ("game", ev.GameApproved),
    "jb_unctban": ("target", _unctban),
    "jb_fk_choice": ("choice", _choice),
}
_BARE = {"jb_warden": ev.WardenSet, "jb_order_cancel": ev.OrdersCancelled, "jb_game_end": ev.GameEnded}

_ANSWERS: dict[str, type[ev.AdminWord]] = {cls.kind: cls for cls in ev.ADMIN_WORDS}
SHIM_TRIGGERS = (*_BARE, "jb_freeday", "jb_freekill", "jb_hello", "jb_round_start", "jb_ctban", *_ANSWERS, *_ONE_PROP)
EXTENSION_TRIGGERS = ("jb_game_approve", "jb_freekill", "jb_ctban", "jb_unctban", *_ANSWERS, "jb_fk_choice")


def _hello(time: str, props: str) -> ev.ShimHello:
    m = SEQ_TAIL.search(props)
    version = prop(props[: m.start()] if m else props, "version")
    return ev.ShimHello(time, version or "", int(m.group(1)) if m else 0)


def _round_begins(time: str, props: str) -> ev.RoundBegins:
    m = SEQ_TAIL.search(props)
    freeze = prop(props[: m.start()], "freeze") if m else None
    if m is None or freeze is None or not (freeze.isascii() and freeze.isdigit() and len(freeze) <= 9):
        raise Malformed("jb_round_start without its (freeze) and (seq)")
    return ev.RoundBegins(time, ev.WORLD, number(m.group(1)), number(freeze))


# `World triggered "jb_..."`: the shim's lines for the server itself, read after the name.
WORLD_LINES: dict[str, Callable[[str, str], ev.Event]] = {"jb_hello": _hello, "jb_round_start": _round_begins}


def shim_event(time: str, player: ev.Player, name: str, props: str) -> ev.Event | None:
    seq_m = SEQ_TAIL.search(props)
    if seq_m is None:
        return None
    seq = number(seq_m.group(1))
    props = props[: seq_m.start()]
    bare = _BARE.get(name)
    if bare is not None:
        return bare(time, player, seq) if not props else None
    if name == "jb_freekill":
        km = _FREEKILL.fullmatch(props)
        return ev.FreekillConfirmed(time, player, seq, number(km.group(1)), km.group(2) == "damage") if km else None
    if name == "jb_freeday":
        fm = _FREEDAY.fullmatch(props)
        if fm is None:
            return None
        return ev.FreedayGranted(time, player, seq, fm.group(1), number(fm.group(2)) if fm.group(2) else None)
    if name == "jb_ctban":
        cm = _CTBAN.fullmatch(props)
        if cm is None:
            return None
        length = number(cm.group(2))
        minutes, rounds = (None, length) if cm.group(3) else (length, None)
        return ev.CtBanGiven(time, player, seq, number(cm.group(1)), minutes, rounds, cm.group(4) or "")
    answer = _ANSWERS.get(name)
    if answer is not None:  # an admin's word on one audit entry: `(id "N") (reason "...")`
        pm = _ADMIN_WORD.fullmatch(props)
        return answer(time, player, seq, number(pm.group(1)), pm.group(2) or "") if pm else None
    maker = _ONE_PROP.get(name)
    if maker is None:
        return None
    value = prop(props, maker[0])
    return None if value is None else maker[1](time, player, seq, value)
