"""The shapes of what comes from outside besides the network's CT bans (`log/inbound.py`
holds those, the strict converter and the refusals): a server's retained state as
`jailcore status --mqtt` reads it, an action as `jailcore tail -f --mqtt` reads it, the
shim's `jb_status` reply, and the rows admins' tools write for the daemon. Each function
returns the typed value, or None after telling `refused` why; none raises.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
from attrs import validators as v

from jailcore.log.inbound import MAX_MINUTES, MAX_ROUNDS, Refusals, _count, _log_time, _name, _short, _steamid, _text, _upto, json_of, strict, typed
from jailcore.log.limits import STEAMID

# -- the network: a server's retained state (`jailcore status --mqtt`) -----------------------


@attrs.frozen
class Said:
    text: str = attrs.field(default="", validator=_text)


@attrs.frozen
class Person:
    userid: int | None = None
    steamid: str = attrs.field(default="", validator=_short)
    name: str = attrs.field(default="", validator=_text)


@attrs.frozen
class Playing:
    name: str = attrs.field(default="", validator=_text)
    host: int | None = None


@attrs.frozen
class BanShown:
    steamid: str = attrs.field(default="", validator=_short)
    name: str = attrs.field(default="", validator=_text)
    until: str | None = attrs.field(default=None, validator=_log_time)
    rounds: int | None = None
    rule: str = attrs.field(default="", validator=_short)
    ref: str = attrs.field(default="", validator=_short)
    online: bool | None = None


@attrs.frozen
class PluginShown:
    """The plugin's version as its `jb_hello` said it, and whether it is older than the daemon expects."""

    version: str = attrs.field(default="", validator=_short)
    expected: str = attrs.field(default="", validator=_short)
    old: bool = False


@attrs.frozen
class LinkShown:
    rcon: str | None = attrs.field(default=None, validator=v.optional(_short))
    outbox: int | None = None
    last_line: str | None = attrs.field(default=None, validator=v.optional(_short))
    mode: str | None = attrs.field(default=None, validator=v.optional(_short))
    daemon: str | None = attrs.field(default=None, validator=v.optional(_short))
    dropped: str = attrs.field(default="", validator=_text)
    updated: str | None = attrs.field(default=None, validator=v.optional(_short))


@attrs.frozen
class ProposalShown:
    """A punishment waiting for an admin, with the audit id `jailcore confirm|dismiss` takes."""

    id: int | None = None
    time: str = attrs.field(default="", validator=_short)
    round: int | None = None
    userid: int | None = None
    steamid: str = attrs.field(default="", validator=_short)
    name: str = attrs.field(default="", validator=_text)
    rule: str = attrs.field(default="", validator=_short)
    ref: str = attrs.field(default="", validator=_short)
    step: str = attrs.field(default="", validator=_short)
    expires: str = attrs.field(default="", validator=_short)


@attrs.frozen
class StateMessage:
    """What `jailcore status --mqtt` reads of a daemon's retained state: the fields it
    shows, each of its type, or the message is refused as a whole."""

    server: str = attrs.field(default="", validator=_short)
    daemon: str | None = attrs.field(default=None, validator=v.optional(_short))
    round: int | None = None
    day: int | None = None
    week: int | None = None
    map: str | None = attrs.field(default=None, validator=v.optional(_short))
    freeday: bool = False
    time: str | None = attrs.field(default=None, validator=v.optional(_short))
    online: dict[str, int] = attrs.Factory(dict)
    warden: Person | None = None
    orders: list[Said] = attrs.Factory(list)
    prohibitions: list[Said] = attrs.Factory(list)
    game: Playing | None = None
    specialday: int | None = None
    cooldown_rounds: int | None = None
    ctbans: list[BanShown] = attrs.Factory(list)
    link: LinkShown | None = None
    proposals: list[ProposalShown] = attrs.Factory(list)
    plugin: PluginShown | None = None
    lost_lines: int | None = None
    lost_at: str | None = attrs.field(default=None, validator=v.optional(_short))
    doubt: bool = False


def state_message(data: Any, refused: Refusals, where: str = "") -> dict[str, Any] | None:
    """A retained state as plain JSON again, holding only what fits the schema (and the
    keys it does not model, when they are plain), or None."""
    if not isinstance(data, Mapping):
        refused.refuse("not a JSON object", where)
        return None
    state = typed(StateMessage, dict(data), refused, where)
    if state is None:
        return None
    out: dict[str, Any] = as_given(strict.unstructure(state), data)
    out.setdefault("link", None)
    return out


def as_given(typed_json: Any, given: Any) -> Any:
    """The typed value as plain JSON with only the keys the sender gave (a default is not news)."""
    if isinstance(typed_json, dict) and isinstance(given, Mapping):
        return {k: as_given(value, given[k]) for k, value in typed_json.items() if k in given}
    if isinstance(typed_json, list) and isinstance(given, list):
        return [as_given(value, g) for value, g in zip(typed_json, given, strict=True)]
    return typed_json


# -- the network: an action as it happened (`jailcore tail -f --mqtt`) ----------------------


@attrs.frozen
class Pardoned:
    by: str = attrs.field(default="", validator=_short)
    reason: str = attrs.field(default="", validator=_text)


@attrs.frozen
class ActionMessage:
    server: str = attrs.field(default="", validator=_short)
    id: int | str | None = None
    status: str | None = attrs.field(default=None, validator=v.optional(_short))
    time: str = attrs.field(default="", validator=_short)
    round: int = 0
    action: str = attrs.field(default="", validator=_short)
    target: Person | None = None
    rule: str = attrs.field(default="", validator=_short)
    ref: str = attrs.field(default="", validator=_short)
    reason: str = attrs.field(default="", validator=_text)
    team: str | None = attrs.field(default=None, validator=v.optional(_short))
    minutes: int | None = None
    rounds: int | None = None
    amount: int | None = None
    index: int | None = None
    by: str | None = attrs.field(default=None, validator=v.optional(_short))
    step: str | None = attrs.field(default=None, validator=v.optional(_short))
    reply: str | None = attrs.field(default=None, validator=v.optional(_text))
    pardon: Pardoned | None = None


def action_message(data: Any, refused: Refusals, where: str = "") -> dict[str, Any] | None:
    """An action of `jailcore/<server>/actions` as plain JSON (absent keys left out), or None."""
    if not isinstance(data, Mapping):
        refused.refuse("not a JSON object", where)
        return None
    action = typed(ActionMessage, dict(data), refused, where)
    if action is None:
        return None
    return as_given(strict.unstructure(action), data)  # type: ignore[no-any-return]


# -- the shim's jb_status reply -------------------------------------------------------------

TEAMS = ("TERRORIST", "CT", "Spectator", "Unassigned", "T", "")


@attrs.frozen
class ShimPlayer:
    userid: int = attrs.field(validator=_count(1 << 31))
    steamid: str = attrs.field(default="", validator=_upto(STEAMID))
    name: str = attrs.field(default="", validator=_name)
    team: str = attrs.field(default="Unassigned", validator=v.in_(TEAMS))
    alive: bool = False
    gagged: bool = False


@attrs.frozen
class ShimStatus:
    round: int | None = None
    map: str = attrs.field(default="", validator=_short)
    warden: int | None = None
    players: list[ShimPlayer] = attrs.Factory(list)


def status_reply(reply: str | None, refused: Refusals, where: str = "jb_status") -> ShimStatus | None:
    """The shim's `jb_status` JSON, typed; None (refused) for anything else."""
    data = json_of(reply, refused, where)
    if data is None:
        return None
    if not isinstance(data, Mapping):
        refused.refuse("not a JSON object", where)
        return None
    status = typed(ShimStatus, dict(data), refused, where)
    if status is not None and len({p.userid for p in status.players}) != len(status.players):
        refused.refuse("players: a userid twice", where)
        return None
    return status


# -- rows admins' tools wrote for the daemon ------------------------------------------------


@attrs.frozen
class CtBanRequest:
    """A row of `ctban_requests` (`jailcore ctban add|lift`, the web page)."""

    id: int
    steamid: str = attrs.field(validator=_steamid)
    name: str = attrs.field(default="", validator=_name)
    minutes: int | None = attrs.field(default=None, validator=_count(MAX_MINUTES))
    rounds: int | None = attrs.field(default=None, validator=_count(MAX_ROUNDS))
    reason: str = attrs.field(default="", validator=_text)
    by: str = attrs.field(default="", validator=_short)
    lift: bool = False


@attrs.frozen
class ActRequest:
    """A row of `act_requests`: an admin's warning or server ban from the web page."""

    id: int
    steamid: str = attrs.field(validator=_steamid)
    act: str = attrs.field(validator=v.in_(("warn", "ban")))
    name: str = attrs.field(default="", validator=_text)
    minutes: int | None = attrs.field(default=None, validator=_count(MAX_MINUTES))
    reason: str = attrs.field(default="", validator=_text)
    by: str = attrs.field(default="", validator=_short)


def act_row(row: Any, refused: Refusals) -> ActRequest | None:
    """An `act_requests` row typed; None (refused) when a tool or a hand wrote it wrong."""
    given = dict(row)
    fields = {k: given[k] for k in ("id", "steamid", "act", "name", "minutes", "reason", "by") if k in given}
    fields["name"], fields["reason"], fields["by"] = fields.get("name") or "", fields.get("reason") or "", fields.get("by") or ""
    return typed(ActRequest, fields, refused, f"request {given.get('id', '?')}")


def ctban_row(row: Any, refused: Refusals) -> CtBanRequest | None:
    """A row (a mapping or an sqlite3.Row) typed; None (refused) when a tool or a hand wrote it wrong."""
    given = dict(row)
    fields = {k: given[k] for k in ("id", "steamid", "name", "minutes", "rounds", "reason", "by", "lift") if k in given}
    fields["name"], fields["reason"], fields["by"] = fields.get("name") or "", fields.get("reason") or "", fields.get("by") or ""
    if isinstance(fields.get("lift"), int):  # SQLite keeps a boolean as 0 or 1
        fields["lift"] = bool(fields["lift"])
    return typed(CtBanRequest, fields, refused, f"request {given.get('id', '?')}")


def detail_row(text: Any, refused: Refusals, where: str) -> dict[str, Any] | None:
    """An audit row's `detail` (an action's JSON) as a pardon or an answer reads it."""
    data = json_of(text, refused, where) if isinstance(text, str | bytes) else None
    if data is None and not isinstance(text, str | bytes):
        refused.refuse("detail: not text", where)
    if data is None:
        return None
    return action_message(data, refused, where)
