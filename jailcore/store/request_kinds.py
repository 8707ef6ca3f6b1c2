"""What an admin may ask of a server's daemon through the store, whichever door he asks by (the
command line, the web page, `!jcpardon` in game): one frozen class each, given to the store's
`submit(request)` (store/requests.py `submit` queues it on this machine while a database server
is away). Each class is the whole of its kind for both backends: what refuses it (`refusal`,
and its checks in `write`) and the row it writes, through the few reads and the one insert a
backend offers as a `RequestDesk`; a new kind is a class here (and its statement in
store/rows.py), nothing in store/sqlite.py or store/mariadb.py. A request kept in a queue file
is its `kind` and its fields as JSON: the same words and keys the queue held before the classes
(issue 35), so a queue written by an older jailcore replays."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any, ClassVar, Protocol

import attrs

from jailcore.log.errors import AdminRequestError
from jailcore.store import rows
from jailcore.store.errors import Away, DatabaseFault, PardonError, ProposalError, StoreError, Unreachable
from jailcore.store.verdicts import check_act, check_answer, check_pardon

# What an admin is told when the database cannot take his request now: his kind's own refusal.
Refusal = type[StoreError] | type[AdminRequestError]


class RequestDesk(Protocol):
    """What a backend offers an admin's request (both do: store.sqlite.Store, store.mariadb.MariaStore)."""

    path: str  # how messages name the database

    def entry(self, action_id: int) -> Any | None:
        """The audit row of this id (its server, action, status, reply, detail), None for an id it cannot hold."""

    def pardons_for(self, action_ids: Iterable[int]) -> Mapping[int, Any]: ...

    def answer_of(self, action_id: int) -> Any | None:
        """The answer already given to this proposal, if any."""

    def insert(self, sql: str, values: Sequence[Any]) -> int:
        """One row written and committed at once (the daemon and the page see it): its id."""

    def here(self, refusal: Refusal) -> None:
        """Raises `refusal` while the database is away (a request's checks read it, its id is the database's)."""

    def failed(self, exc: StoreError | DatabaseFault, refusal: Refusal) -> BaseException:
        """What the admin is told of a request the database failed (MariaDB: on the daemon's loop, to ask again)."""


@contextmanager
def _told_as(desk: RequestDesk, refusal: Refusal) -> Iterator[None]:
    """A request asked in game too (a pardon, an answer): refused as its kind while the database
    is away, and a database's failure told as its kind (the desk says how)."""
    desk.here(refusal)
    try:
        yield
    except (DatabaseFault, Unreachable) as exc:
        raise desk.failed(exc, refusal) from None


def _now() -> str:
    return datetime.now().isoformat(timespec="seconds")


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

    refusal: ClassVar[Refusal] = PardonError

    def write(self, desk: RequestDesk) -> int:
        with _told_as(desk, self.refusal):
            row = check_pardon(desk.entry(self.action_id), lambda: desk.pardons_for([self.action_id]).get(self.action_id), self.action_id,
                               desk.path, self.server, self.may_ban)
            return desk.insert(rows.PARDON, rows.pardon_values(row["server"], self.action_id, self.by, self.reason, self.when or _now(),
                                                               self.steamid))

    @staticmethod
    def in_words(args: Mapping[str, Any]) -> str:
        """What was asked, in the words of the command that asks it (from a queue file's fields)."""
        return f"pardon #{args.get('action_id')}"


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

    refusal: ClassVar[Refusal] = Away

    def write(self, desk: RequestDesk) -> int:
        desk.here(self.refusal)
        values = rows.request_values(self.server, self.steamid, self.name, self.minutes, self.rounds, self.lift, self.reason, self.by,
                                     self.when or _now())
        return desk.insert(rows.CTBAN, (*values, None))

    @staticmethod
    def in_words(args: Mapping[str, Any]) -> str:
        return f"ctban {'lift' if args.get('lift') else 'add'} {args.get('steamid') or '?'}"


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

    refusal: ClassVar[Refusal] = ProposalError

    def write(self, desk: RequestDesk) -> int:
        with _told_as(desk, self.refusal):
            row = check_answer(desk.entry(self.action_id), lambda: desk.answer_of(self.action_id), self.action_id, self.answer, desk.path,
                               self.server, self.may_ban)
            return desk.insert(rows.ANSWER, rows.answer_values(row["server"], self.action_id, self.answer, self.by, self.reason,
                                                               self.when or _now()))

    @staticmethod
    def in_words(args: Mapping[str, Any]) -> str:
        return f"{args.get('answer') or 'answer'} #{args.get('action_id')}"


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

    refusal: ClassVar[Refusal] = Away

    def write(self, desk: RequestDesk) -> int:
        check_act(self.act, self.minutes)  # refused for what it asks even while the database is away
        desk.here(self.refusal)
        return desk.insert(rows.ACT, rows.act_values(self.server, self.steamid, self.name, self.act, self.minutes, self.reason, self.by,
                                                     self.when or _now()))

    @staticmethod
    def in_words(args: Mapping[str, Any]) -> str:
        return f"{args.get('act') or 'act'} {args.get('steamid') or '?'}"


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
