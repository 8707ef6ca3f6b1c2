"""An admin's request (a pardon, a CT ban given or lifted, a proposal's answer, a warning or a ban) from the command
line or the web page on a MariaDB state database is never lost to an outage: it is first kept in
a local queue (a SQLite file beside the config's `[state] path`, suffix `.requests`, owner only)
and then applied from it, at once while the database is there, else by the first jailcore of
this machine that reaches it again: the daemon (its writer looks every second), the web page, or
the next command.

Each request is applied once: it carries its queue's number (`seq`, per queue file, its
`origin`), and the database keeps per origin the highest number applied, in the same
transaction as the request's own row (`journal_applied`, as the daemon's journal). A commit cut
off halfway (did it land?) is asked of the database at the next replay. One replayer at a time
per queue (an exclusive lock on the file), in order, so a lift queued after a ban is applied
after it. At replay a request is checked as it would have been when asked: a pardon of an entry
pardoned meanwhile, or the answer to a proposal that lapsed, is refused then; the refusal is
kept in the queue file (`settled`, with when), said in the log, counted by `jailcore status` and
listed on the web page's Activity (`refused_requests`): the admin who asked is not in the log.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import sqlite3
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from jailcore.log.errors import AdminRequestError
from jailcore.store.errors import AwayError, Gone, StoreError, errors_or
from jailcore.store.journal import origin, rows_in
from jailcore.store.request_kinds import KINDS, PardonRequest, Request, RequestDesk, asked_at, from_queue, queued

if TYPE_CHECKING:
    from jailcore.store.interface import StateStore

log = logging.getLogger("jailcore")



@attrs.frozen
class Queued:
    """A request kept for the database: it is applied once when the database is back."""

    seq: int
    path: str
    why: str

    def said(self) -> str:
        return (f"queued (request {self.seq} in {self.path}): the state database is away ({self.why}); it is applied once, "
                "by the first jailcore of this machine that reaches the database again (the daemon within a second of its return)")


def requests_path(state_path: str) -> str:
    """Where a machine's admins' requests wait for a database server: `[state] path`, suffix `.requests`."""
    return str(Path(state_path).with_suffix(".requests"))


class RequestQueue:
    def __init__(self, path: str | Path):
        self.path = str(path)
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        if not os.path.exists(self.path):
            try:
                os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o600))  # who is pardoned: owner only
            except FileExistsError:
                pass
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=60)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")  # the only copy of the request until the database has it
        self.db.executescript(
            "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
            "CREATE TABLE IF NOT EXISTS queued (seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, args TEXT NOT NULL);"
            "CREATE TABLE IF NOT EXISTS settled (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, args TEXT NOT NULL, outcome TEXT NOT NULL, "
            "time TEXT);")
        if "time" not in {r[1] for r in self.db.execute("PRAGMA table_info(settled)")}:  # a queue file from before: when it was settled
            try:
                self.db.execute("ALTER TABLE settled ADD COLUMN time TEXT")
            except sqlite3.OperationalError as exc:  # another process of this machine added it first
                if "duplicate column" not in str(exc):
                    raise
        self.origin = origin(self.db, f"req-{uuid.uuid4().hex[:24]}")

    def add(self, request: Request) -> int:
        cur = self.db.execute("INSERT INTO queued (kind, args) VALUES (?, ?)", (request.kind, json.dumps(queued(request), ensure_ascii=False)))
        assert cur.lastrowid is not None
        return cur.lastrowid

    def queued(self) -> list[tuple[int, str, dict[str, Any]]]:
        return [(int(s), k, json.loads(a)) for s, k, a in self.db.execute("SELECT seq, kind, args FROM queued ORDER BY seq")]

    def settle(self, seq: int, kind: str, args: dict[str, Any], outcome: str) -> None:
        self.db.execute("BEGIN IMMEDIATE")
        self.db.execute("INSERT OR REPLACE INTO settled (seq, kind, args, outcome, time) VALUES (?, ?, ?, ?, ?)",
                        (seq, kind, json.dumps(args, ensure_ascii=False), outcome, datetime.now().isoformat(timespec="seconds")))
        self.db.execute("DELETE FROM queued WHERE seq = ?", (seq,))
        self.db.execute("COMMIT")

    def outcome(self, seq: int) -> str | None:
        row = self.db.execute("SELECT outcome FROM settled WHERE seq = ?", (seq,)).fetchone()
        return str(row[0]) if row else None

    @contextmanager
    def replaying(self) -> Iterator[None]:
        """One replayer at a time, whichever process (a lock of its own: SQLite's are per transaction)."""
        fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def close(self) -> None:
        self.db.close()


def waiting_requests(path: str | Path) -> int:
    """How many requests wait in a queue file (0 when there is none), for `status` and the daemon's look each second."""
    return rows_in(path, "queued")


REFUSED = "refused: "  # how a refusal's outcome starts in `settled`
REFUSALS_SHOWN = 3  # the newest refusals `jailcore status` names (it counts them all)


@attrs.frozen
class RefusedRequest:
    """A queued request that its checks refused at replay: what was asked (`kind`, `args`: the
    store method's arguments, `by` and `server` among them), why not, and when ('' in a queue
    file from before the time was kept)."""

    seq: int
    kind: str
    args: Mapping[str, Any]
    why: str
    time: str

    @property
    def asked(self) -> str:
        """What was asked, in the words of the command that asks it (a kind this jailcore does not know: as a pardon)."""
        return KINDS.get(self.kind, PardonRequest).in_words(self.args)


def refused_requests(path: str | Path | None, limit: int = REFUSALS_SHOWN, since: str = "") -> tuple[int, list[RefusedRequest]]:
    """How many requests of a queue file were refused at replay (those settled at `since` or
    later, a time; '' for all) and the newest `limit` of them; read only, (0, []) without a file."""
    if not path or not os.path.isfile(path):
        return 0, []
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error:
        return 0, []
    try:
        timed = "time" in {r[1] for r in db.execute("PRAGMA table_info(settled)")}
        when = "COALESCE(time, '')" if timed else "''"
        where = f"outcome LIKE 'refused: %' AND {when} >= ?"
        count = int(db.execute(f"SELECT COUNT(*) FROM settled WHERE {where}", (since,)).fetchone()[0])
        rows = db.execute(f"SELECT seq, kind, args, outcome, {when} FROM settled WHERE {where} ORDER BY seq DESC LIMIT ?", (since, limit))
        return count, [RefusedRequest(int(seq), kind, _args(args), outcome.removeprefix(REFUSED), at) for seq, kind, args, outcome, at in rows]
    except sqlite3.Error:  # not a queue file (yet): nothing refused in it
        return 0, []
    finally:
        db.close()


def _args(text: str) -> dict[str, Any]:
    try:
        got = json.loads(text)
    except ValueError:
        return {}
    return got if isinstance(got, dict) else {}


def replay(store: StateStore, queue: RequestQueue) -> dict[int, int | AdminRequestError]:
    """Applies the queue to the database, oldest first, each request once. Returns each settled
    request's row id, or the refusal its checks gave; stops (raises Gone) if the database goes away."""
    out: dict[int, int | AdminRequestError] = {}
    with queue.replaying():
        for seq, kind, args in queue.queued():  # read again under the lock: another process may have settled some
            try:
                if store.queued_applied(queue.origin) >= seq:  # a commit cut off last time had landed
                    queue.settle(seq, kind, args, "applied before")
                    continue
                store.queued_mark = (queue.origin, seq)
                try:
                    row_id = store.submit(from_queue(kind, args))
                finally:
                    store.queued_mark = None
            except AdminRequestError as exc:  # checked now, as when it was asked: refused, nothing written
                out[seq] = exc
                queue.settle(seq, kind, args, f"{REFUSED}{exc}")
                log.warning("%s request %d (queued in %s) refused at replay: %s", kind, seq, queue.path, exc)
                continue
            except errors_or(StoreError, OSError) as exc:
                raise Gone(str(exc)) from None
            out[seq] = int(row_id)
            queue.settle(seq, kind, args, f"applied: row {row_id}")
    return out


def submit(store: StateStore | None, queue_path: str | None, why_away: str, request: Request) -> int | Queued:
    """An admin's request: the row id written, or Queued while the database is away (`store` None:
    it could not be reached). Without a queue (a SQLite file, or no `[state] path` known) it is
    the store's own write. A refusal of its checks is raised (AdminRequestError)."""
    request = asked_at(request)
    if queue_path is None or (store is not None and not getattr(store, "shared", False)):
        if store is None:
            raise AwayError(f"the state database is away ({why_away}) and this command has no local queue to keep the request in: "
                            "give --config FILE (its [state] path holds the queue), or ask again when the database is back")
        return int(store.submit(request))
    queue = RequestQueue(queue_path)
    try:
        seq = queue.add(request)
        if store is None:
            return Queued(seq, queue.path, why_away)
        try:
            done = replay(store, queue)
        except Gone as exc:
            return Queued(seq, queue.path, str(exc))
        got = done.get(seq)
        if isinstance(got, AdminRequestError):
            raise got
        if got is None:  # settled by another process meanwhile: its outcome is kept
            said = queue.outcome(seq) or ""
            if said.startswith(REFUSED):
                raise AdminRequestError(said.removeprefix(REFUSED))
            return int(said.rsplit(" ", 1)[-1]) if said.startswith("applied: row ") else 0
        return got
    except errors_or(StoreError) as exc:
        raise AwayError(str(exc)) from None
    finally:
        queue.close()


class TakesRequests:
    """Mixed into a backend: `submit(request)`, the one write of an admin's request, whatever its
    kind: the request checks itself and writes its row through the backend's `RequestDesk`."""

    def submit(self: RequestDesk, request: Request) -> int:
        return request.write(self)
