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

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

import attrs

from jailcore.log.errors import AdminRequestError
from jailcore.log.limits import KEY, NAME, SHORT_WORD, STEAMID, TIME, fit, fit_int, fit_text
from jailcore.store.errors import Away, DatabaseFault, PardonError, ProposalError, StoreError, Unreachable
from jailcore.store.verdicts import PARDONABLE, done

if TYPE_CHECKING:  # the session's row types: read where rows are polled, so that a command that only asks starts at once
    from jailcore.session import inputs as si
    from jailcore.session.effects import RequestTable

T = TypeVar("T")
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
    table: ClassVar[RequestTable] = "pardons"
    SCHEMA: ClassVar[tuple[str, ...]] = (
        "CREATE TABLE IF NOT EXISTS pardons (id {id}, server {key} NOT NULL, action_id {int64} NOT NULL UNIQUE{audit_ref}, "
        "`by` {key} NOT NULL, reason TEXT NOT NULL, time {time} NOT NULL, applied_at {time}, steamid {steamid}){options}",)
    INSERT: ClassVar[str] = "INSERT INTO pardons (server, action_id, `by`, reason, time, steamid) VALUES (?, ?, ?, ?, ?, ?)"
    WAITING: ClassVar[str] = ("SELECT p.id, p.action_id, p.`by`, p.reason, a.detail FROM pardons p JOIN audit a ON a.id = p.action_id "
                              "WHERE p.applied_at IS NULL AND p.server = ? ORDER BY p.id")

    def write(self, desk: RequestDesk) -> int:
        with _told_as(desk, self.refusal):
            row = self.check(desk)
            return desk.insert(self.INSERT, (fit(row["server"], KEY), self.action_id, fit(self.by, KEY), fit_text(self.reason),
                                             fit(self.when or _now(), TIME), None if self.steamid is None else fit(self.steamid, STEAMID)))

    def check(self, desk: RequestDesk) -> Any:
        """The audit row if it may be pardoned, else why not: an unknown id or another server's, a
        server ban unless `may_ban`, what is no punishment or was not done, one already pardoned
        (its pardon read only when the rest holds)."""
        action_id, server, row = self.action_id, self.server, desk.entry(self.action_id)
        if row is None or (server is not None and row["server"] != server):
            raise PardonError(f"no enforcement with id {action_id} in {desk.path}" + (f" for server {server}" if server else ""))
        if row["action"] == "ban" and not self.may_ban:
            raise PardonError(f"enforcement {action_id} is a server ban: lifting it is an admin's")
        if row["action"] not in PARDONABLE:
            raise PardonError(f"enforcement {action_id} is a {row['action']}, not a punishment: there is nothing to pardon")
        if not done(row):
            mode = "observe" if row["status"] == "observed" else "advise"
            raise PardonError(f"enforcement {action_id} was only {row['status']} (its server was in {mode} mode): nothing was done to "
                              "the player and nothing counts against him, so there is nothing to pardon")
        if (had := desk.pardons_for([action_id]).get(action_id)) is not None:
            raise PardonError(f"enforcement {action_id} was already pardoned by {had['by']} at {had['time']}: {had['reason']}")
        return row

    @staticmethod
    def waiting(r: Any) -> si.PardonRow:
        from jailcore.session import inputs as si

        return si.PardonRow(r["id"], r["action_id"], r["by"], r["reason"], r["detail"])

    @staticmethod
    def in_words(args: Mapping[str, Any]) -> str:
        """What was asked, in the words of the command that asks it (from a queue file's fields)."""
        return f"pardon #{args.get('action_id')}"


@attrs.frozen
class CtBanRequest:
    """A CT ban given (`minutes`, 0 permanent, or `rounds`) or lifted from outside the game; an
    admin's `!ctban` in game is written as one too, already applied (`applied_at`)."""

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
    table: ClassVar[RequestTable] = "ctban_requests"
    SCHEMA: ClassVar[tuple[str, ...]] = (
        "CREATE TABLE IF NOT EXISTS ctban_requests (id {id}, server {key} NOT NULL, steamid {steamid} NOT NULL, name {name} NOT NULL "
        "DEFAULT '', minutes {int}, rounds {int}, lift {int} NOT NULL DEFAULT 0, reason TEXT NOT NULL{text_default}, `by` {key} NOT NULL, "
        "time {time} NOT NULL, applied_at {time}){options}",)
    INSERT: ClassVar[str] = ("INSERT INTO ctban_requests (server, steamid, name, minutes, rounds, lift, reason, `by`, time, applied_at) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
    WAITING: ClassVar[str] = "SELECT * FROM ctban_requests WHERE applied_at IS NULL AND server = ? ORDER BY id"

    def write(self, desk: RequestDesk) -> int:
        desk.here(self.refusal)
        return desk.insert(self.INSERT, self.values(None))

    def values(self, applied_at: str | None) -> tuple[Any, ...]:
        """Its row's values, each fitted to its column; `applied_at` None for the daemon to apply it."""
        return (fit(self.server, KEY), fit(self.steamid, STEAMID), fit(self.name, NAME), None if self.minutes is None else fit_int(self.minutes),
                None if self.rounds is None else fit_int(self.rounds), int(self.lift), fit_text(self.reason), fit(self.by, KEY),
                fit(self.when or _now(), TIME), None if applied_at is None else fit(applied_at, TIME))

    @staticmethod
    def waiting(r: Any) -> si.CtBanRow:
        from jailcore.session import inputs as si

        return si.CtBanRow(r["id"], r["steamid"], r["name"], r["minutes"], r["rounds"], bool(r["lift"]), r["reason"], r["by"])

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
    table: ClassVar[RequestTable] = "answers"
    SCHEMA: ClassVar[tuple[str, ...]] = (
        "CREATE TABLE IF NOT EXISTS answers (id {id}, server {key} NOT NULL, action_id {int64} NOT NULL UNIQUE{audit_ref}, "
        "answer {short} NOT NULL, `by` {key} NOT NULL, reason TEXT NOT NULL{text_default}, time {time} NOT NULL, note TEXT, "
        "applied_at {time}){options}",)
    INSERT: ClassVar[str] = "INSERT INTO answers (server, action_id, answer, `by`, reason, time) VALUES (?, ?, ?, ?, ?, ?)"
    WAITING: ClassVar[str] = ("SELECT n.*, a.detail FROM answers n JOIN audit a ON a.id = n.action_id "
                              "WHERE n.applied_at IS NULL AND n.server = ? ORDER BY n.id")

    def write(self, desk: RequestDesk) -> int:
        with _told_as(desk, self.refusal):
            row = self.check(desk)
            return desk.insert(self.INSERT, (row["server"], self.action_id, self.answer, fit(self.by, KEY), fit_text(self.reason),
                                             fit(self.when or _now(), TIME)))

    def check(self, desk: RequestDesk) -> Any:
        """The proposal's audit row if it may be answered, else why not: no proposal (or another
        server's), a server ban to confirm unless `may_ban`, one answered already (its answer read
        only when the rest holds), one no longer waiting."""
        action_id, server, row = self.action_id, self.server, desk.entry(self.action_id)
        if row is None or (server is not None and row["server"] != server):
            raise ProposalError(f"no proposal with id {action_id} in {desk.path}" + (f" for server {server}" if server else ""))
        if row["action"] != "propose":
            raise ProposalError(f"entry {action_id} is a {row['action']}, not a proposal")
        if self.answer == "confirm" and not self.may_ban and str(json.loads(row["detail"]).get("step") or "").startswith("ban"):
            raise ProposalError(f"proposal {action_id} is a server ban: carrying it out is an admin's")
        if (had := desk.answer_of(action_id)) is not None:
            raise ProposalError(f"proposal {action_id} was already answered ({had['answer']}) by {had['by']} at {had['time']}")
        if row["status"] != "proposed":
            raise ProposalError(f"proposal {action_id} is {row['status']}: {row['reply'] or ''}".rstrip(": "))
        return row

    @staticmethod
    def waiting(r: Any) -> si.AnswerRow:
        from jailcore.session import inputs as si

        return si.AnswerRow(r["id"], r["action_id"], r["answer"], r["by"], r["reason"], r["note"], r["detail"])

    @staticmethod
    def in_words(args: Mapping[str, Any]) -> str:
        return f"{args.get('answer') or 'answer'} #{args.get('action_id')}"


ACTS = ("warn", "ban")  # what an admin asks of a player from the web page


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
    table: ClassVar[RequestTable] = "act_requests"
    SCHEMA: ClassVar[tuple[str, ...]] = (
        "CREATE TABLE IF NOT EXISTS act_requests (id {id}, server {key} NOT NULL, steamid {steamid} NOT NULL, name {name} NOT NULL "
        "DEFAULT '', act {short} NOT NULL, minutes {int}, reason TEXT NOT NULL{text_default}, `by` {key} NOT NULL, time {time} NOT NULL, "
        "applied_at {time}){options}",
        "CREATE INDEX IF NOT EXISTS act_requests_waiting ON act_requests (server, applied_at)")
    INSERT: ClassVar[str] = "INSERT INTO act_requests (server, steamid, name, act, minutes, reason, `by`, time) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    WAITING: ClassVar[str] = "SELECT * FROM act_requests WHERE applied_at IS NULL AND server = ? ORDER BY id"

    def write(self, desk: RequestDesk) -> int:
        # Refused for what it asks even while the database is away: a warning, or a ban of 0 (permanent) or more minutes.
        if self.act not in ACTS:
            raise AdminRequestError(f"no admin act {self.act!r}: give one of {', '.join(ACTS)}")
        if self.act == "ban" and (self.minutes is None or self.minutes < 0):
            raise AdminRequestError("a ban needs its length in minutes (0 is permanent)")
        desk.here(self.refusal)
        return desk.insert(self.INSERT, (fit(self.server, KEY), fit(self.steamid, STEAMID), fit(self.name, NAME), fit(self.act, SHORT_WORD),
                                         None if self.minutes is None else fit_int(self.minutes), fit_text(self.reason), fit(self.by, KEY),
                                         fit(self.when or _now(), TIME)))

    @staticmethod
    def waiting(r: Any) -> si.ActRow:
        from jailcore.session import inputs as si

        return si.ActRow(r["id"], r["steamid"], r["name"], r["act"], r["minutes"], r["reason"], r["by"])

    @staticmethod
    def in_words(args: Mapping[str, Any]) -> str:
        return f"{args.get('act') or 'act'} {args.get('steamid') or '?'}"


Request = PardonRequest | CtBanRequest | AnswerRequest | ActRequest
KINDS: dict[str, type[Request]] = {c.kind: c for c in (PardonRequest, CtBanRequest, AnswerRequest, ActRequest)}
# Their tables (the names `applied` puts into its SQL: only these), and one read of which servers
# have a row waiting in any of them.
TABLES: tuple[RequestTable, ...] = tuple(c.table for c in KINDS.values())
ANY_WAITING = " UNION ".join(f"SELECT server FROM {table} WHERE applied_at IS NULL" for table in TABLES)


def schema(dialect: str) -> list[str]:
    """The requests' tables in this backend's words (made empty where missing, at every upgrade)."""
    from jailcore.store.spelling import spell

    return [spell(ddl, dialect) for cls in KINDS.values() for ddl in cls.SCHEMA]


def waiting_for(server: str, read: Callable[[str, str], Sequence[Any]]) -> si.AdminRequests:
    """The admins' rows not yet applied for one server, typed, each kind in its order (`read(sql,
    server)`: a backend's poll, which gives none while its database is away)."""
    from jailcore.session import inputs as si

    def rows(kind: Callable[[Any], T], sql: str) -> tuple[T, ...]:
        return tuple(map(kind, read(sql, server)))

    return si.AdminRequests(rows(PardonRequest.waiting, PardonRequest.WAITING), rows(CtBanRequest.waiting, CtBanRequest.WAITING),
                            rows(AnswerRequest.waiting, AnswerRequest.WAITING), rows(ActRequest.waiting, ActRequest.WAITING))


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
