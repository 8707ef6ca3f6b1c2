"""The notifications' durable queue (issue 32): every line of its SQL, written once for both
backends (store/portable.py).

`notices`: one row per message a sink is to get (its kind, server, time and what it says, as
JSON), written in the same transaction as the watcher's mark that found it, so an event is
queued once; `sent` stays empty until the sink took it. A sender takes a sink's oldest waiting
rows under a lease (`holder`, `lease`: two processes with one sink never send one row twice
while the lease runs), posts them as one message, and marks them sent. A crash between the
sink's answer and the mark sends them again at the next start (at least once: a message
twice rather than none; the window is one database write). `notice_sinks`: each sink's health
(failures in a row since when, the last error, the last success), which `jailcore status`
and the web page show. `notice_marks`: how far each watcher has read (the audit log, the
appeals) per server.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from jailcore.store.spelling import Database, Row, marks, missing_table, spell

SCHEMA = [
    "CREATE TABLE IF NOT EXISTS notices (id {id}, sink {account} NOT NULL, server {key} NOT NULL, kind {short} NOT NULL, "
    "time {time} NOT NULL, body TEXT NOT NULL, sent {time}, answer TEXT, holder {account}, lease {time}){options}",
    "CREATE INDEX IF NOT EXISTS notices_waiting ON notices (sink, sent, id)",
    "CREATE TABLE IF NOT EXISTS notice_sinks (sink {account} NOT NULL PRIMARY KEY, shown {key} NOT NULL, "
    "failures INT NOT NULL DEFAULT 0, since {time}, error TEXT, ok {time}, updated {time} NOT NULL){options}",
    "CREATE TABLE IF NOT EXISTS notice_marks (name {key} NOT NULL PRIMARY KEY, upto BIGINT NOT NULL){options}",
]
KEEP_DAYS = 14  # sent messages are kept this long (what was said, and the sink's answer), then pruned
BODY_MAX = 16_000  # characters of one message's JSON: an excerpt or an appeal is cut well before


def schema(dialect: str) -> list[str]:
    return [spell(ddl, dialect) for ddl in SCHEMA]


def now() -> str:
    return datetime.now().isoformat(timespec="seconds")


class Notices:
    """The queue, the sinks' health and the watchers' marks, on one connection (store/portable.py `Db`)."""

    def __init__(self, db: Database):
        self.db = db

    # -- the queue --------------------------------------------------------------------------------

    def put(self, items: Iterable[tuple[str, str, str, str, dict[str, Any]]]) -> int:
        """Messages to send: (sink, server, kind, time, body); in the caller's transaction."""
        n = 0
        for sink, server, kind, time, body in items:
            text = json.dumps(body, ensure_ascii=False)
            if len(text) > BODY_MAX:
                text = json.dumps({**{k: v for k, v in body.items() if k != "excerpt"}, "excerpt": []}, ensure_ascii=False)[:BODY_MAX]
            self.db.execute("INSERT INTO notices (sink, server, kind, time, body) VALUES (?, ?, ?, ?, ?)", (sink, server[:191], kind, time, text))
            n += 1
        return n

    def take(self, sink: str, holder: str, lease_seconds: float, limit: int = 100) -> list[dict[str, Any]]:
        """The sink's oldest messages not yet sent and held by no one (or whose holder's lease
        ran out), now held by `holder`; oldest first."""
        at = datetime.now()
        stamp, until = at.isoformat(timespec="seconds"), (at + timedelta(seconds=lease_seconds)).isoformat(timespec="seconds")
        with self.db.transaction():
            free = self.db.rows("SELECT id FROM notices WHERE sink = ? AND sent IS NULL AND (lease IS NULL OR lease < ?) ORDER BY id LIMIT ?",
                                (sink, stamp, limit))
            ids = [int(r["id"]) for r in free]
            if not ids:
                return []
            self.db.execute(f"UPDATE notices SET holder = ?, lease = ? WHERE id IN ({marks(len(ids))}) AND sent IS NULL "
                            "AND (lease IS NULL OR lease < ?)", (holder, until, *ids, stamp))
            rows = self.db.rows(f"SELECT * FROM notices WHERE id IN ({marks(len(ids))}) AND holder = ? AND lease = ? ORDER BY id",
                                (*ids, holder, until))
        return [{**r, "body": json.loads(r["body"])} for r in rows]

    def sent(self, ids: Sequence[int], answer: str, holder: str) -> None:
        """These messages reached their sink (or were refused for good: `answer` says which)."""
        if ids:
            self.db.execute(f"UPDATE notices SET sent = ?, answer = ?, lease = NULL WHERE id IN ({marks(len(ids))}) AND holder = ?",
                            (now(), answer[:1000], *ids, holder))

    def hold(self, ids: Sequence[int], holder: str, lease_seconds: float) -> int:
        """The lease on these messages, taken afresh before each request (a 429 may be waited
        out for minutes): how many the holder still holds (fewer: another took them, as its
        lease ran out)."""
        if not ids:
            return 0
        until = (datetime.now() + timedelta(seconds=lease_seconds)).isoformat(timespec="seconds")
        with self.db.transaction():  # counted by a read: MariaDB's count of an UPDATE leaves out the rows it found unchanged
            self.db.execute(f"UPDATE notices SET lease = ? WHERE id IN ({marks(len(ids))}) AND holder = ? AND sent IS NULL", (until, *ids, holder))
            got = self.db.rows(f"SELECT COUNT(*) AS n FROM notices WHERE id IN ({marks(len(ids))}) AND holder = ? AND sent IS NULL", (*ids, holder))
        return int(got[0]["n"]) if got else 0

    def holders(self) -> list[str]:
        """Who holds messages not yet sent (the senders now, or ones that died holding them)."""
        return [str(r["holder"]) for r in self.db.rows("SELECT DISTINCT holder FROM notices WHERE sent IS NULL AND lease IS NOT NULL "
                                                       "AND holder IS NOT NULL")]

    def let_go(self, holder: str) -> int:
        """Every message this holder holds waits again, for anyone (a sender that stopped, or
        one found dead): not after its lease, minutes later."""
        touched, _ = self.db.execute("UPDATE notices SET lease = NULL WHERE holder = ? AND sent IS NULL AND lease IS NOT NULL", (holder,))
        return touched  # the rows let go (each had a lease: a change MariaDB counts too)

    def release(self, ids: Sequence[int], holder: str) -> None:
        """These wait again (the sink failed): the next try takes them at once, not after the lease."""
        if ids:
            self.db.execute(f"UPDATE notices SET lease = NULL WHERE id IN ({marks(len(ids))}) AND holder = ? AND sent IS NULL",
                            (*ids, holder))

    def waiting(self, sink: str | None = None) -> int:
        row = self.db.rows("SELECT COUNT(*) AS n FROM notices WHERE sent IS NULL AND (? IS NULL OR sink = ?)", (sink, sink))
        return int(row[0]["n"]) if row else 0

    def prune(self, days: int = KEEP_DAYS) -> int:
        before = (datetime.now() - timedelta(days=days)).isoformat(timespec="seconds")
        touched, _ = self.db.execute("DELETE FROM notices WHERE sent IS NOT NULL AND sent < ?", (before,))
        return touched

    def recent(self, limit: int = 50) -> list[Row]:
        """The newest messages, sent or waiting (for tests and a look by hand)."""
        return self.db.rows("SELECT * FROM notices ORDER BY id DESC LIMIT ?", (limit,))

    # -- the sinks' health ------------------------------------------------------------------------

    def went(self, sink: str, shown: str) -> None:
        """The sink took a message: its failures are over."""
        stamp = now()
        self.db.put("notice_sinks", {"sink": sink}, {"shown": shown[:191], "failures": 0, "since": None, "ok": stamp, "updated": stamp})

    def failed(self, sink: str, shown: str, error: str) -> int:
        """One more failure of the sink in a row; returns how many."""
        stamp = now()
        with self.db.transaction():
            got = self.db.rows("SELECT failures, since FROM notice_sinks WHERE sink = ?", (sink,))
            failures = int(got[0]["failures"]) + 1 if got else 1
            since = (got[0]["since"] if got else None) or stamp
            self.db.put("notice_sinks", {"sink": sink}, {"shown": shown[:191], "failures": failures, "since": since,
                                                        "error": error[:500], "updated": stamp})
        return failures

    def sinks(self) -> list[dict[str, Any]]:
        return sink_health(self.db.rows)

    # -- what the watcher reads -------------------------------------------------------------------

    def newest_place(self) -> int:
        """The audit log's newest place (`seq`): where a server seen for the first time starts."""
        return int(self.db.rows("SELECT COALESCE(MAX(seq), 0) AS n FROM audit")[0]["n"])

    def decisions_after(self, place: int, actions: Sequence[str], limit: int = 500) -> list[Row]:
        """The audit rows of these actions placed after `place`, in order (on the audit_action index)."""
        return self.db.rows(f"SELECT id, seq, server, time, round, action, rule, ref, steamid, name, reason, detail, status FROM audit "
                            f"WHERE seq > ? AND action IN ({marks(len(actions))}) ORDER BY seq LIMIT ?", (place, *actions, limit))

    def round_lines(self, server: str, round_no: int, limit: int = 5000) -> list[Row]:
        """A round's kept log lines, each with the newest audit id once it was handled (store.sqlite's loglines)."""
        return self.db.rows("SELECT line, audit FROM loglines WHERE server = ? AND round = ? ORDER BY id LIMIT ?", (server, round_no, limit))

    def clause(self, action_id: int) -> dict[str, Any] | None:
        got = self.db.rows("SELECT ref, reason, rule FROM audit WHERE id = ?", (action_id,))
        return got[0] if got else None

    # -- the watchers' marks ----------------------------------------------------------------------

    def mark(self, name: str) -> int | None:
        got = self.db.rows("SELECT upto FROM notice_marks WHERE name = ?", (name[:191],))
        return int(got[0]["upto"]) if got else None

    def set_mark(self, name: str, upto: int) -> None:
        self.db.put("notice_marks", {"name": name[:191]}, {"upto": upto})


FAILING = 3  # failures in a row after which a sink is said to be failing (status, the web page)


def sink_health(rows: Callable[[str, Sequence[Any]], list[Row]]) -> list[dict[str, Any]]:
    """Every sink's health, with how many messages wait for it, through any reader's `rows`
    (`jailcore status` and the web page read with their own); none on a database from before."""
    try:
        found = rows("SELECT * FROM notice_sinks ORDER BY sink", ())
        counts = {r["sink"]: int(r["n"]) for r in rows("SELECT sink, COUNT(*) AS n FROM notices WHERE sent IS NULL GROUP BY sink", ())}
    except Exception as exc:
        if missing_table(exc):
            return []
        raise
    return [{**r, "waiting": counts.get(r["sink"], 0)} for r in found]


def failing(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if int(r.get("failures") or 0) >= FAILING]
