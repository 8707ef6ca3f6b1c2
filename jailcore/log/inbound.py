"""Where data from outside becomes typed: the network's messages (MQTT) here, the other
shapes (retained states, actions, the shim's `jb_status` reply, the rows admins' tools
write for the daemon) in `log/shapes.py` on the same footing. Sans-IO: text or parsed
JSON in, a frozen attrs value out, or a refusal.

Contract: every `*_message` / `*_reply` / `*_row` function takes what came from outside and
returns its typed value, or None after telling `refused` (a `Refusals`) why. Nothing here
raises on any input: a broker, a game server or a database file carries what anyone wrote.
The schema is strict: a number must be a JSON number (not `"3"`, not `true`), a text a JSON
string, bounded in length; a SteamID one of the forms the games write. Unknown keys are
ignored, so a newer daemon can add some.

Messages between daemons are signed (`seal` / `unseal`): an HMAC-SHA256, with the network's
key, over the message's canonical JSON together with its sender and the time it was sent
(`"sig": {"by", "at", "mac"}`), so a client that can publish to the broker but has no key
cannot forge a CT ban or a lift, and one replayed after `max_age` seconds is stale.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import attrs
import cattrs
from cattrs.v import format_exception

from jailcore.log import limits
from jailcore.log.accounts import account
from jailcore.log.jsontext import SURROGATE
from jailcore.log.logtime import is_time

log = logging.getLogger("jailcore.inbound")

T = TypeVar("T")

MAX_MESSAGE = 1 << 20  # bytes of one MQTT payload or RCON reply read as JSON
TEXT = limits.TEXT  # a reason (with its quoted clause), an order
SHORT = limits.KEY  # an id, a server name, a rule key, a ref: what the state database's key columns hold
NAME = limits.NAME  # a player's name
MAX_ROUNDS = 1_000_000
MAX_MINUTES = 100 * 366 * 24 * 60
MAX_CAUSES = 64  # distinct causes counted before the rest are "other"
FUTURE = 300  # seconds a sender's clock may run ahead of ours

STEAMID = re.compile(r"STEAM_[01]:[01]:\d{1,10}|\[U:1:\d{1,10}\]")


# -- refusals: counted and said once per cause ------------------------------------------


@attrs.define
class Refusals:
    """What was refused, counted per cause; the first of each cause is logged (with `what`
    and the place it came from), the rest only counted, so a flood costs no log."""

    what: str
    counts: Counter[str] = attrs.Factory(Counter)
    say: Callable[[str], None] = attrs.field(default=log.warning)

    def refuse(self, cause: str, where: str = "", hint: str = "") -> None:
        cause = _bounded_cause(cause)
        if cause not in self.counts and len(self.counts) >= MAX_CAUSES:
            cause = "other"
        self.counts[cause] += 1
        if self.counts[cause] == 1:
            place = f" ({where[:SHORT]})" if where else ""
            hint = f" ({hint})" if hint else ""
            self.say(f"{self.what}{place} refused: {cause}{hint}; it is not stored or used, and later ones of this cause are only counted")

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def summary(self, prefix: str = "") -> str:
        """`unsigned 3, stale 1`, or "" when nothing was refused."""
        return ", ".join(f"{prefix}{cause} {n}" for cause, n in sorted(self.counts.items()))


def _bounded_cause(cause: str) -> str:
    """A cause names a field, never a value: indices and keys of a path become `[]`, so an
    attacker cannot make a new cause (a new log line) per message."""
    return re.sub(r"\[[^\]]*\]", "[]", cause)[:SHORT]


# -- the strict converter ---------------------------------------------------------------


def _exact(kind: type) -> Callable[[Any, Any], Any]:
    def hook(value: Any, _: Any) -> Any:
        if type(value) is kind or (kind is float and type(value) is int):
            return value
        raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
    return hook


strict = cattrs.Converter(forbid_extra_keys=False)
for _kind in (int, str, bool, float):
    strict.register_structure_hook(_kind, _exact(_kind))


def _id(value: Any, _: Any) -> int | str | None:
    if value is None or type(value) in (int, str):
        return value  # type: ignore[no-any-return]
    raise TypeError(f"expected a number or a text, got {type(value).__name__}")


strict.register_structure_hook(int | str | None, _id)


def typed(cls: type[T], data: Any, refused: Refusals, where: str = "") -> T | None:
    """`data` as `cls`, or None (told to `refused`) when it does not fit the schema."""
    try:
        return strict.structure(data, cls)
    except Exception as exc:  # any misfit is a refusal, never an error of ours
        refused.refuse(_why(exc), where)
        return None


def _said(exc: BaseException, kind: Any) -> str:
    if type(exc) is ValueError:  # one of our validators: its message names the rule
        return str(exc)[:SHORT]
    return format_exception(exc, kind)


def _why(exc: BaseException) -> str:
    if isinstance(exc, cattrs.BaseValidationError):
        try:
            notes = cattrs.transform_error(exc, format_exception=_said)
        except Exception:  # transform_error itself on an odd group
            notes = []
        if notes:
            text, _, path = notes[0].rpartition(" @ ")
            if not text:
                return notes[0]
            text = text.removeprefix("invalid value for type, ")
            return text if path == "$" else f"{path.removeprefix('$.')}: {text}"
    if isinstance(exc, RecursionError):
        return "nested too deep"
    return f"{type(exc).__name__}: {str(exc)[:80]}"


def json_of(payload: bytes | bytearray | str | None, refused: Refusals, where: str = "", limit: int = MAX_MESSAGE) -> Any:
    """A payload's JSON value; None (refused) for text that is not JSON, too long, or nested
    past what the parser can follow."""
    if payload is None or len(payload) == 0:
        refused.refuse("empty", where)
        return None
    if len(payload) > limit:
        refused.refuse(f"over {limit} bytes", where)
        return None
    try:
        data = json.loads(payload)
    except RecursionError:
        refused.refuse("nested too deep", where)
        return None
    except (ValueError, TypeError):
        refused.refuse("not JSON", where)
        return None
    if _lone_surrogate(data):
        # Valid JSON (`"\ud83d"`) but no text: nothing can write it as UTF-8 (the state file, the
        # broker, an RCON command), so it is refused here rather than failing every one of them.
        refused.refuse("a text with a lone surrogate", where)
        return None
    return data


def _lone_surrogate(data: Any) -> bool:
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if not value.isascii() and SURROGATE.search(value):
                return True
        elif isinstance(value, dict):
            stack += value.keys()
            stack += value.values()
        elif isinstance(value, list):
            stack += value
    return False


# -- field rules ------------------------------------------------------------------------

def _upto(most: int) -> Callable[[Any, attrs.Attribute[Any], Any], None]:
    def check(inst: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        if not isinstance(value, str):
            raise ValueError(f"{attribute.name}: not a text")
        if len(value) > most:
            raise ValueError(f"{attribute.name}: longer than {most} characters")
    return check


_text = _upto(TEXT)
_short = _upto(SHORT)
_name = _upto(NAME)


def _steamid(inst: Any, attribute: attrs.Attribute[Any], value: str) -> None:
    if not (isinstance(value, str) and STEAMID.fullmatch(value) and account(value) is not None):
        raise ValueError(f"{attribute.name}: not a SteamID (STEAM_0:Y:Z, STEAM_1:Y:Z or U:1:N in brackets, a 32-bit account)")


def _log_time(inst: Any, attribute: attrs.Attribute[Any], value: str | None) -> None:
    if value is not None and not (isinstance(value, str) and is_time(value)):
        raise ValueError(f"{attribute.name}: not a time of the calendar like 2026-11-30T21:04:05")


def _count(most: int) -> Callable[[Any, attrs.Attribute[Any], int | None], None]:
    def check(inst: Any, attribute: attrs.Attribute[Any], value: int | None) -> None:
        if value is not None and not 0 <= value <= most:
            raise ValueError(f"{attribute.name}: must be from 0 to {most}")
    return check


# -- the network: CT bans and lifts ---------------------------------------------------------


@attrs.frozen
class _FromServer:
    """Who a network message is about and where it came from."""

    steamid: str = attrs.field(validator=_steamid)
    id: str = attrs.field(default="", validator=_short)
    origin: str = attrs.field(default="", validator=_short)
    by: str = attrs.field(default="", validator=_short)


@attrs.frozen
class NetworkBan(_FromServer):
    """A CT ban made on another server of the network."""

    name: str = attrs.field(default="", validator=_name)
    until: str | None = attrs.field(default=None, validator=_log_time)
    rounds: int | None = attrs.field(default=None, validator=_count(MAX_ROUNDS))
    ref: str = attrs.field(default="", validator=_short)
    reason: str = attrs.field(default="", validator=_text)


@attrs.frozen
class NetworkLift(_FromServer):
    """A CT ban lifted on another server of the network."""


def ctban_message(data: Any, refused: Refusals, where: str = "") -> NetworkBan | NetworkLift | None:
    """A message of `jailcore/network/ctbans` (its signature already checked)."""
    if not isinstance(data, Mapping):
        refused.refuse("not a JSON object", where)
        return None
    if data.get("lift") is True:
        return typed(NetworkLift, {k: data[k] for k in ("steamid", "id", "origin", "by") if k in data}, refused, where)
    if "lift" in data and data["lift"] is not False:
        refused.refuse("lift: expected true or false", where)
        return None
    return typed(NetworkBan, dict(data), refused, where)


# -- signatures -------------------------------------------------------------------------------


def _mac(key: bytes, message: Mapping[str, Any]) -> str:
    canonical = json.dumps(message, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hmac.new(key, canonical.encode("ascii"), hashlib.sha256).hexdigest()


def seal(body: Mapping[str, Any], key: bytes, sender: str, at_ms: int) -> dict[str, Any]:
    """The message as sent: its body with `sig` (sender, time in ms since the epoch, HMAC)."""
    out = {k: value for k, value in body.items() if k != "sig"}
    out["sig"] = {"by": sender, "at": at_ms}
    out["sig"]["mac"] = _mac(key, out)
    return out


def _hex64(value: Any) -> None:
    if not (isinstance(value, str) and re.fullmatch(r"[0-9a-f]{64}", value)):
        raise ValueError("sig.mac: not an HMAC-SHA256 in hex")


@attrs.frozen
class Signature:
    by: str = attrs.field(validator=_short)
    at: int
    mac: str = attrs.field(validator=lambda _, __, value: _hex64(value))


def unseal(data: Any, key: bytes, now_ms: int, max_age: float, refused: Refusals,
           where: str = "") -> tuple[dict[str, Any], Signature] | None:
    """The body and signature of a signed message whose signature is the network's and
    whose time is within `max_age` seconds (and not ahead of ours by more than FUTURE); else None."""
    if not isinstance(data, Mapping):
        refused.refuse("not a JSON object", where)
        return None
    if "sig" not in data:
        refused.refuse("unsigned", where, "this network has a key: a message without its signature is dropped")
        return None
    sig = typed(Signature, data["sig"], refused, where)
    if sig is None:
        return None
    body = {k: value for k, value in data.items() if k != "sig"}
    try:
        expected = _mac(key, {**body, "sig": {"by": sig.by, "at": sig.at}})
    except (ValueError, TypeError, RecursionError):
        refused.refuse("not signable", where)
        return None
    if not hmac.compare_digest(expected, sig.mac):
        refused.refuse("bad signature", where, "another key, or the message was changed")
        return None
    if sig.at < now_ms - max_age * 1000:
        refused.refuse("stale", where, f"sent over {max_age:g} s ago")
        return None
    if sig.at > now_ms + FUTURE * 1000:
        refused.refuse("from the future", where, "the sender's clock is ahead: check NTP")
        return None
    if body.get("origin", sig.by) != sig.by:
        refused.refuse("origin is not its signer", where)
        return None
    return body, sig


def read_message(payload: bytes | bytearray | str | None, schema: Callable[[Any, Refusals, str], T | None], refused: Refusals,
                 where: str, key: bytes = b"", now_ms: int = 0, max_age: float = 10 * 365 * 86_400) -> T | None:
    """A message an admin's tool reads (a retained state, an action): JSON, its signature
    checked when the tool knows the network's key (retained states may be old: `max_age`
    is long), then typed by `schema`; None (refused) otherwise."""
    data = json_of(payload, refused, where)
    if data is None:
        return None
    if key:
        sealed = unseal(data, key, now_ms, max_age, refused, where)
        if sealed is None:
            return None
        data = sealed[0]
    elif isinstance(data, dict):
        data.pop("sig", None)
    return schema(data, refused, where)
