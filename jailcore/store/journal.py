"""The local journal of a daemon whose state database is a server (MariaDB): while the server
is away, each transaction the daemon commits is kept here, in order, in a SQLite file of its
own beside the configs (`[state] path` with the suffix `.journal`), and replayed when the
server is back. Enforcement never waits for the database.

Nothing is lost or doubled: every transaction carries a number (`seq`, per journal), and the
database keeps, per journal (`origin`), the highest number it has applied, written in the same
transaction as the writes. A transaction whose commit was cut off (did it land?) is journalled
too; at replay the database's number says whether it landed, and it is applied once.

One journal is one process's: `run --workers N` starts N processes from configs that name
one `[state] path`, so each takes the first of `X.journal`, `X.journal-2`, `X.journal-3`...
that no other process holds (an exclusive lock on the file, gone with the process). Two
writers in one journal would number their transactions alike, and the replay would skip
one's as the other's already applied. A journal left by a process that is not started again
(fewer workers) is replayed by the next store that starts beside it (`left_beside`).
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from jailcore.store.errors import Taken

Op = tuple[str, Any, bool]  # (SQL in the store's spelling, its parameters, executemany)


MOST = 64  # journals beside one path: more processes than that on one machine and one database is a mistake


def _named(path: str, k: int) -> str:
    return path if k == 1 else f"{path}-{k}"


class Journal:
    def __init__(self, path: str | Path, exact: bool = False):
        """The first journal at `path` (or beside it) no other process holds; with `exact`,
        that one file or Taken. A journal SQLite cannot read whole (its header overwritten, its
        end cut off) is renamed aside (`<path>.damaged-<time>`, `damaged` says so) and a fresh
        one takes its place: the store reads what it can of the damaged one (store.salvage)
        and replays it (`damaged_beside`)."""
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        for k in range(1, 2 if exact else MOST + 1):
            candidate = _named(str(path), k)
            held = hold(candidate)
            if held is None:
                continue
            self._held = held
            self.path = candidate
            break
        else:
            raise Taken(f"every journal beside {path} is held by another jailcore process")
        self.damaged: tuple[str, str] | None = None  # where a damaged journal at this path was put aside, and why
        try:
            self.db = _open(self.path)
        except sqlite3.DatabaseError as exc:
            aside = _put_aside(self.path)
            self.damaged = (aside, str(exc))
            os.close(self._held)
            held = hold(self.path)
            if held is None:
                raise Taken(f"journal {self.path} was taken by another jailcore process while its damaged file was put aside") from None
            self._held = held
            self.db = _open(self.path)
        self.origin = origin(self.db, uuid.uuid4().hex)

    def newest(self) -> int:
        return int(self.db.execute("SELECT COALESCE(MAX(seq), 0) FROM journal").fetchone()[0])

    def keep(self, seq: int, ops: Sequence[Op]) -> None:
        self.db.execute("INSERT INTO journal (seq, ops) VALUES (?, ?)", (seq, json.dumps([list(op) for op in ops], ensure_ascii=False)))

    def oldest(self) -> tuple[int, list[Op]] | None:
        row = self.db.execute("SELECT seq, ops FROM journal ORDER BY seq LIMIT 1").fetchone()
        if row is None:
            return None
        return int(row[0]), [(sql, params, bool(many)) for sql, params, many in json.loads(row[1])]

    def set_aside(self, why: str, op: Op) -> None:
        from datetime import datetime

        self.db.execute("INSERT INTO aside (time, why, op) VALUES (?, ?, ?)",
                        (datetime.now().isoformat(timespec="seconds"), why, json.dumps(list(op), ensure_ascii=False, default=str)))

    def done(self, seq: int) -> None:
        self.db.execute("DELETE FROM journal WHERE seq = ?", (seq,))

    def waiting(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM journal").fetchone()[0])

    def close(self) -> None:
        self.db.close()
        os.close(self._held)  # and its lock with it


def origin(db: sqlite3.Connection, fresh: str) -> str:
    """A local waiting file's name for itself (a journal's, a request queue's: `meta` origin), the
    database's key for what it applied of it: `fresh` the first time, kept for ever after."""
    db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('origin', ?)", (fresh,))
    return str(db.execute("SELECT value FROM meta WHERE key = 'origin'").fetchone()[0])


def hold(candidate: str, make: bool = True) -> int | None:
    """The journal file at `candidate`, made if missing (owner only; with `make`) and locked
    for this process; None when another process holds it (or, without `make`, it is gone)."""
    if make and not os.path.exists(candidate):
        try:
            os.close(os.open(candidate, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o600))  # who was punished: owner only
        except FileExistsError:
            pass
    try:
        fd = os.open(candidate, os.O_RDWR | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _open(path: str) -> sqlite3.Connection:
    """The journal's connection, its tables made; sqlite3.DatabaseError for a file SQLite
    cannot read whole (its quick check is not `ok`: a page cut off, a b-tree broken)."""
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")  # the only copy of these writes until the server is back
        checked = db.execute("PRAGMA quick_check").fetchone()
        if checked is None or checked[0] != "ok":
            raise sqlite3.DatabaseError(f"its check says: {checked[0] if checked else 'nothing'}")
        db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("CREATE TABLE IF NOT EXISTS journal (seq INTEGER PRIMARY KEY, ops TEXT NOT NULL)")
        # Rows the database refused for their values (too long, a character its charset lacks, a
        # duplicate): kept here for an operator, never replayed (store.mariadb `_set_aside`).
        db.execute("CREATE TABLE IF NOT EXISTS aside (id INTEGER PRIMARY KEY, time TEXT NOT NULL, why TEXT NOT NULL, op TEXT NOT NULL)")
    except BaseException:
        db.close()
        raise
    return db


DAMAGED = ".damaged-"  # a damaged journal put aside: `<journal>.damaged-<time>`, then `.replayed` once what it held is


def _put_aside(path: str) -> str:
    """A damaged journal renamed aside for an operator, with its write-ahead log (which holds
    pages of it); its shared-memory index is SQLite's scratch and goes."""
    from datetime import datetime

    aside = f"{path}{DAMAGED}{datetime.now():%Y%m%dT%H%M%S%f}"
    os.rename(path, aside)
    if os.path.exists(f"{path}-wal"):
        os.rename(f"{path}-wal", f"{aside}-wal")
    if os.path.exists(f"{path}-shm"):
        os.remove(f"{path}-shm")
    return aside


class Leftover:
    """What could be read of a damaged journal put aside (store.salvage), replayed as a journal
    is (`MariaStore._replay`): its own origin, so what the database applied of it is known;
    an origin that could not be read is named after the file (its transactions are then all
    tried, and a row written before is refused as a duplicate and set aside)."""

    def __init__(self, path: str, origin: str | None, transactions: dict[int, list[Op]]):
        import hashlib

        self.path = path
        self.origin = origin or hashlib.md5(path.encode(), usedforsecurity=False).hexdigest()
        self.known = origin is not None
        self._left = dict(sorted(transactions.items()))

    def oldest(self) -> tuple[int, list[Op]] | None:
        return next(iter(self._left.items()), None)

    def done(self, seq: int) -> None:
        self._left.pop(seq, None)

    def waiting(self) -> int:
        return len(self._left)

    def close(self) -> None:
        pass


def holds(transactions: dict[int, list[Op]]) -> str:
    """What a journal's transactions write, as an operator reads it: `audit 12 (a CT ban), state 3`."""
    from collections import Counter

    tables: Counter[str] = Counter()
    ctbans = 0
    for ops in transactions.values():
        for sql, params, many in ops:
            words = sql.replace("`", "").split()
            table = words[2] if len(words) > 2 and words[1].upper() in ("INTO", "FROM") else words[1] if len(words) > 1 else "?"
            rows = params if many else [params]
            tables[table] += len(rows)
            if table == "audit" and words[0].upper() == "INSERT":
                ctbans += sum(1 for r in rows if isinstance(r, list) and len(r) > 5 and r[5] == "ctban")
    said = ", ".join(f"{t} {n}" + (f" ({ctbans} CT ban(s))" if t == "audit" and ctbans else "") for t, n in sorted(tables.items()))
    return said or "nothing"


def damaged_beside(path: str | Path) -> list[str]:
    """The damaged journals put aside beside `path` (any process's) whose readable part is not yet replayed."""
    folder, name = os.path.split(os.fspath(path))
    try:
        found = os.listdir(folder or ".")
    except OSError:
        return []
    return sorted(os.path.join(folder, f) for f in found
                  if f.startswith(name) and DAMAGED in f and not f.endswith(("-wal", "-shm", ".replayed")))


def left_beside(path: str | Path, mine: str) -> Iterator[Journal]:
    """The journals beside `path` other than `mine` that no process holds and that hold
    transactions, each opened (and so held) for its replay: the caller closes it."""
    for k in range(1, MOST + 1):
        candidate = _named(str(path), k)
        if candidate == mine or not os.path.isfile(candidate) or not (waiting_in(candidate) or not readable(candidate)):
            continue
        try:
            journal = Journal(candidate, exact=True)
        except Taken:
            continue  # another process's, in use
        yield journal


def waiting_in(path: str | Path, beside: bool = False) -> int:
    """How many transactions wait in a journal file (0 when there is none), for `status`;
    with `beside`, in every process's journal at that path."""
    if beside:
        return sum(waiting_in(_named(str(path), k)) for k in range(1, MOST + 1))
    return rows_in(path, "journal")


def readable(path: str | Path) -> bool:
    """Whether SQLite reads the file (a damaged journal left by another process is opened,
    put aside and salvaged like one's own)."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error:
        return False
    try:
        checked = db.execute("PRAGMA quick_check").fetchone()
        return checked is not None and checked[0] == "ok"
    except sqlite3.Error:
        return False
    finally:
        db.close()


def aside_in(path: str | Path) -> int:
    """Rows the database refused, set aside in every process's journal at `path` (for `status`)."""
    return sum(rows_in(_named(str(path), k), "aside") for k in range(1, MOST + 1))


def rows_in(path: str | Path, table: str) -> int:
    """How many rows a local waiting file's table holds, read only (0 when there is no such
    file or table): the journal's transactions, the admins' queued requests."""
    if not os.path.isfile(path):
        return 0
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error:
        return 0
    try:
        return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    except sqlite3.Error:
        return 0
    finally:
        db.close()


def journal_path(state_path: str) -> str:
    """Where a daemon on a database server keeps its journal: its `[state] path`, suffix `.journal`."""
    return str(Path(state_path).with_suffix(".journal"))
