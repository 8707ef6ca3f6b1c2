"""What an admin may ask of a server's daemon through the store, whichever door he asks by (the
command line, the web page, `!jcpardon` in game): one frozen class each, given to the store's
`submit(request)` (store/requests.py `submit` queues it on this machine while a database server
is away). A request kept in a queue file is its `kind` and its fields as JSON: the same words
and keys the queue held before the classes (issue 35), so a queue written by an older jailcore
replays."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar

import attrs

from jailcore.log.errors import AdminRequestError


@attrs.frozen
class PardonRequest:
    """Undo an enforcement (web page, `jailcore pardon`, `!jcpardon` in game, whose admin's SteamID
    the game authenticated is `steamid`). Refused: an unknown id, a second pardon, another server's
    entry (given `server`, the one the admin was judged on), a server ban unless `may_ban`."""

    kind: ClassVar[str] = "pardon"
    action_id: int
    by: str
    reason: str
    when: str | None = None
    server: str | None = None
    may_ban: bool = True
    steamid: str | None = None


@attrs.frozen
class CtBanRequest:
    """A CT ban given (`minutes`, 0 permanent, or `rounds`) or lifted from outside the game."""

    kind: ClassVar[str] = "ctban"
    server: str
    steamid: str
    name: str
    minutes: int | None
    rounds: int | None
    reason: str
    by: str
    lift: bool = False
    when: str | None = None


@attrs.frozen
class AnswerRequest:
    """An admin's answer to a proposal (`confirm` or `dismiss`); refused as a pardon is."""

    kind: ClassVar[str] = "answer"
    action_id: int
    answer: str = attrs.field(validator=attrs.validators.in_(("confirm", "dismiss")))
    by: str
    reason: str = ""
    when: str | None = None
    server: str | None = None
    may_ban: bool = True


@attrs.frozen
class ActRequest:
    """A warning or a server ban (`minutes`, 0 permanent) an admin gives from the web page."""

    kind: ClassVar[str] = "act"
    server: str
    steamid: str
    name: str
    act: str
    minutes: int | None
    reason: str
    by: str
    when: str | None = None


Request = PardonRequest | CtBanRequest | AnswerRequest | ActRequest
KINDS: dict[str, type[Request]] = {c.kind: c for c in (PardonRequest, CtBanRequest, AnswerRequest, ActRequest)}


def asked_at(request: Request) -> Request:
    """The request with the moment it was asked, whichever door: kept if it waits in a queue."""
    return request if request.when is not None else attrs.evolve(request, when=datetime.now().isoformat(timespec="seconds"))


def from_queue(kind: str, args: Mapping[str, Any]) -> Request:
    """A request as a queue file keeps it (its kind, its fields); an unknown field is an AdminRequestError."""
    cls = KINDS.get(kind)
    if cls is None:
        raise AdminRequestError(f"no request of kind {kind!r}")
    try:
        return cls(**args)
    except (TypeError, ValueError) as exc:  # a field missing or unknown, or a value refused (an answer neither confirm nor dismiss)
        raise AdminRequestError(f"a {kind} request that cannot be read: {exc}") from None


def queued(request: Request) -> dict[str, Any]:
    """Its fields, as a queue file keeps them."""
    return attrs.asdict(request)


def asked_in_game(step: str, action_id: int, by: str, reason: str, steamid: str | None, server: str) -> Request:
    """An admin's word in game on one audit entry (`log.events.ADMIN_WORDS`: `!jcpardon`,
    `!jcconfirm`, `!jcdismiss`) as the request the command line writes. It is judged on the
    server he said it on: his admin flags are that server's, so another server's entry is
    refused as the page refuses it. His SteamID, which the game authenticated, goes with a
    pardon: SourceBans++ credits him by it."""
    if step == "pardon":
        return PardonRequest(action_id, by, reason, server=server, steamid=steamid)
    return AnswerRequest(action_id, step, by, reason, server=server)
