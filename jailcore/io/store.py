"""Durable state in one SQLite file (WAL): the engine's snapshot per server, and the
audit log of every action, which is also the outbox: an action is written as `pending`
before it is sent and marked `delivered` or `failed` when the server answers, so a
restart re-sends exactly what was never answered."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from ..actions import Action

SCHEMA = """
CREATE TABLE IF NOT EXISTS state (
    server TEXT PRIMARY KEY,
    snapshot TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    server TEXT NOT NULL,
    time TEXT NOT NULL,
    round INTEGER NOT NULL,
    day INTEGER NOT NULL,
    action TEXT NOT NULL,
    rule TEXT NOT NULL,
    ref TEXT NOT NULL,
    userid INTEGER,
    steamid TEXT,
    name TEXT,
    reason TEXT NOT NULL,
    detail TEXT NOT NULL,
    command TEXT,
    status TEXT NOT NULL,
    reply TEXT
);
CREATE INDEX IF NOT EXISTS audit_status ON audit (server, status);
CREATE INDEX IF NOT EXISTS audit_player ON audit (steamid);
"""

# An audit row's status: pending (written, not yet answered), delivered / failed (the
# server's ok / error: reply), observed (observe mode), advised (advise mode).


class Store:
    def __init__(self, path: str | Path):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA busy_timeout=5000")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    # -- engine state --------------------------------------------------------------------

    def load_state(self, server: str) -> dict | None:
        row = self.db.execute("SELECT snapshot FROM state WHERE server = ?", (server,)).fetchone()
        return json.loads(row["snapshot"]) if row else None

    def save_state(self, server: str, snapshot: dict, when: str) -> None:
        self.db.execute(
            "INSERT INTO state (server, snapshot, updated) VALUES (?, ?, ?) "
            "ON CONFLICT(server) DO UPDATE SET snapshot = excluded.snapshot, updated = excluded.updated",
            (server, json.dumps(snapshot, ensure_ascii=False), when),
        )

    # -- audit log / outbox --------------------------------------------------------------

    def record(self, server: str, action: Action, day: int, command: str | None, status: str) -> int:
        t = action.target
        cur = self.db.execute(
            "INSERT INTO audit (server, time, round, day, action, rule, ref, userid, steamid, name, reason, detail, command, status) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                server, action.time, action.round, day, action.action, action.rule, action.ref,
                t.userid if t else None, t.steamid if t else None, t.name if t else None,
                action.reason, json.dumps(action.to_json(), ensure_ascii=False), command, status,
            ),
        )
        return int(cur.lastrowid)

    def mark(self, row_id: int, status: str, reply: str | None) -> None:
        self.db.execute("UPDATE audit SET status = ?, reply = ? WHERE id = ?", (status, reply, row_id))

    def pending(self, server: str) -> list[tuple[int, str]]:
        rows = self.db.execute("SELECT id, command FROM audit WHERE server = ? AND status = 'pending' ORDER BY id", (server,))
        return [(r["id"], r["command"]) for r in rows]

    def entries(self, where: str = "1", params: tuple = ()) -> list[sqlite3.Row]:
        """Audit rows in order; `where` is SQL written by this program, never by a player."""
        return list(self.db.execute(f"SELECT * FROM audit WHERE {where} ORDER BY id", params))
