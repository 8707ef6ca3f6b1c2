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

from jailcore.log.errors import StateError

Op = tuple[str, Any, bool]  # (SQL in the store's spelling, its parameters, executemany)


MOST = 64  # journals beside one path: more processes than that on one machine and one database is a mistake


class Taken(StateError):
    """Every journal beside the path is held by another process."""


def _named(path: str, k: int) -> str:
    return path if k == 1 else f"{path}-{k}"


class Journal:
    def __init__(self, path: str | Path, exact: bool = False):
        """The first journal at `path` (or beside it) no other process holds; with `exact`,
        that one file or Taken."""
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        for k in range(1, 2 if exact else MOST + 1):
            candidate = _named(str(path), k)
            if not os.path.exists(candidate):
                try:
                    os.close(os.open(candidate, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o600))  # who was punished: owner only
                except FileExistsError:
                    pass
            fd = os.open(candidate, os.O_RDWR | os.O_NOFOLLOW)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self._held = fd
            self.path = candidate
            break
        else:
            raise Taken(f"every journal beside {path} is held by another jailcore process")
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")  # the only copy of these writes until the server is back
        self.db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        self.db.execute("CREATE TABLE IF NOT EXISTS journal (seq INTEGER PRIMARY KEY, ops TEXT NOT NULL)")
        # Rows the database refused for their values (too long, a character its charset lacks, a
        # duplicate): kept here for an operator, never replayed (store.mariadb `_set_aside`).
        self.db.execute("CREATE TABLE IF NOT EXISTS aside (id INTEGER PRIMARY KEY, time TEXT NOT NULL, why TEXT NOT NULL, op TEXT NOT NULL)")
        row = self.db.execute("SELECT value FROM meta WHERE key = 'origin'").fetchone()
        if row is None:
            self.origin = uuid.uuid4().hex
            self.db.execute("INSERT INTO meta (key, value) VALUES ('origin', ?)", (self.origin,))
        else:
            self.origin = row[0]

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


def left_beside(path: str | Path, mine: str) -> Iterator[Journal]:
    """The journals beside `path` other than `mine` that no process holds and that hold
    transactions, each opened (and so held) for its replay: the caller closes it."""
    for k in range(1, MOST + 1):
        candidate = _named(str(path), k)
        if candidate == mine or not os.path.isfile(candidate) or not waiting_in(candidate):
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
