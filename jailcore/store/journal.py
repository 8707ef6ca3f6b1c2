"""The local journal of a daemon whose state database is a server (MariaDB): while the server
is away, each transaction the daemon commits is kept here, in order, in a SQLite file of its
own beside the configs (`[state] path` with the suffix `.journal`), and replayed when the
server is back. Enforcement never waits for the database.

Nothing is lost or doubled: every transaction carries a number (`seq`, per journal), and the
database keeps, per journal (`origin`), the highest number it has applied, written in the same
transaction as the writes. A transaction whose commit was cut off (did it land?) is journalled
too; at replay the database's number says whether it landed, and it is applied once.
"""

from __future__ import annotations

import json
import os
import sqlite3
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

Op = tuple[str, Any, bool]  # (SQL in the store's spelling, its parameters, executemany)


class Journal:
    def __init__(self, path: str | Path):
        self.path = str(path)
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        if not os.path.exists(self.path):
            os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o600))  # who was punished: owner only
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")  # the only copy of these writes until the server is back
        self.db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        self.db.execute("CREATE TABLE IF NOT EXISTS journal (seq INTEGER PRIMARY KEY, ops TEXT NOT NULL)")
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

    def done(self, seq: int) -> None:
        self.db.execute("DELETE FROM journal WHERE seq = ?", (seq,))

    def waiting(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM journal").fetchone()[0])

    def close(self) -> None:
        self.db.close()


def waiting_in(path: str | Path) -> int:
    """How many transactions wait in a journal file (0 when there is none), for `status`."""
    if not os.path.isfile(path):
        return 0
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT COUNT(*) FROM journal").fetchone()[0])
    except sqlite3.Error:
        return 0
    finally:
        db.close()


def journal_path(state_path: str) -> str:
    """Where a daemon on a database server keeps its journal: its `[state] path`, suffix `.journal`."""
    return str(Path(state_path).with_suffix(".journal"))
