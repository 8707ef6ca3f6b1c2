"""Durable state in one SQLite file (WAL): the engine's snapshot per server, and the
audit log of every action, which is also the outbox: an action is written as `pending`
before it is sent and marked `delivered` or `failed` when the server answers, so a
restart re-sends exactly what was never answered.

Writes are grouped: `record` and `mark` join an open transaction (`BEGIN IMMEDIATE`: it waits
for another writer, see `_begin`) that `commit` ends (the
daemon commits right before the commands of a decision go out). The loop's connection
never checkpoints the WAL itself (`wal_autocheckpoint=0`: a checkpoint fsyncs and would
stall a command); `checkpoint()` does it on its own connection, from a worker thread.
The file is created readable by its owner only: it holds who was punished and why.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time as clock
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from jailcore.engine.actions import Action, AuditStatus
from jailcore.log.logtime import is_time, plus_minutes
from jailcore.log.numbers import SQLITE_MAX
from jailcore.store import appeals, notices, request_kinds
from jailcore.store import rows as common  # the statements both backends run, written once
from jailcore.store.accounts import SQLITE_SCHEMA as ACCOUNTS_SCHEMA
from jailcore.store.accounts import KeepsAccounts
from jailcore.store.errors import DatabaseFault, StoreError
from jailcore.store.request_kinds import ANY_WAITING, Refusal
from jailcore.store.requests import TakesRequests
from jailcore.store.rows import AUDIT_INSERT, WritesRows, audit_values, line_values, pardons_of
from jailcore.store.spelling import Dialect, contains

if TYPE_CHECKING:  # the daemon's typed rows: imported where it writes or resumes, so `tail` and `ctban list` start at once
    from jailcore.session import effects as fx
    from jailcore.session import inputs as si

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
    reply TEXT,
    seq INTEGER
);
CREATE INDEX IF NOT EXISTS audit_status ON audit (server, status);
CREATE INDEX IF NOT EXISTS audit_player ON audit (steamid);
CREATE TABLE IF NOT EXISTS standing (
    server TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_round ON audit (server, round);
CREATE INDEX IF NOT EXISTS audit_time ON audit (time);
"""
# audit_round and audit_time: the web page's round story and charts stay fast at a million rows (bench/web_bench.py)

# An audit row's place in the log (`seq`), the order every reader follows (store.reader's
# `pos`): with `run --workers N` each process writes ids from a block of its own, so a later
# row may have a lower id. The trigger numbers every row at insert, whoever writes it, inside
# the writer's transaction: writers are one at a time (`BEGIN IMMEDIATE`), so the newest
# place plus one, read on the unique index, is taken by no one else. Version 1's rows get
# their id as their place (the upgrade).
SEQ_SCHEMA = """
CREATE UNIQUE INDEX IF NOT EXISTS audit_seq ON audit (seq);
CREATE TRIGGER IF NOT EXISTS audit_placed AFTER INSERT ON audit WHEN NEW.seq IS NULL
BEGIN
    UPDATE audit SET seq = (SELECT COALESCE(MAX(seq), 0) + 1 FROM audit) WHERE id = NEW.id;
END;
"""

# The names each player was logged under, per server, with how many entries and the newest
# time: what the web page's players search reads, so that a name is found in the whole log,
# not only in its newest entries. Kept by a trigger on every audit row (whoever writes it),
# filled once from the audit log when a file from before it is opened, and indexed by
# trigrams (NAMES_INDEX) where SQLite has FTS5: part of a name, in any case, Cyrillic too.
NAMES_SCHEMA = """
CREATE TABLE IF NOT EXISTS names (
    server TEXT NOT NULL,
    steamid TEXT NOT NULL,
    name TEXT NOT NULL,
    userid INTEGER,
    n INTEGER NOT NULL,
    last TEXT NOT NULL,
    PRIMARY KEY (server, steamid, name)
);
CREATE INDEX IF NOT EXISTS names_steamid ON names (steamid);
CREATE TRIGGER IF NOT EXISTS audit_names AFTER INSERT ON audit WHEN NEW.steamid IS NOT NULL AND NEW.name IS NOT NULL
BEGIN
    INSERT INTO names (server, steamid, name, userid, n, last) VALUES (NEW.server, NEW.steamid, NEW.name, NEW.userid, 1, NEW.time)
    ON CONFLICT (server, steamid, name) DO UPDATE SET n = n + 1, last = max(last, excluded.last), userid = excluded.userid;
END;
"""
NAMES_INDEX = """
CREATE VIRTUAL TABLE IF NOT EXISTS names_fts USING fts5(name, content='names', tokenize='trigram');
CREATE TRIGGER IF NOT EXISTS names_indexed AFTER INSERT ON names BEGIN
    INSERT INTO names_fts (rowid, name) VALUES (NEW.rowid, NEW.name);
END;
"""


def _names(db: sqlite3.Connection) -> None:
    """The names table and its index, filled from the audit log the first time: in one
    transaction, so that two processes opening the file at once fill it once."""
    with _locked(db):
        _fill_names(db)


def _fill_names(db: sqlite3.Connection) -> None:
    new = not db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'names'").fetchone()
    _run(db, NAMES_SCHEMA)
    try:
        _run(db, NAMES_INDEX)
    except sqlite3.OperationalError:  # an SQLite without FTS5 or its trigram tokenizer: the search scans the names instead
        pass
    if new:
        db.execute("INSERT INTO names (server, steamid, name, userid, n, last) SELECT server, steamid, name, MAX(userid), COUNT(*), "
                   "MAX(time) FROM audit WHERE steamid IS NOT NULL AND name IS NOT NULL GROUP BY server, steamid, name")

# An audit row's status: pending (written, not yet answered), delivered / failed (the
# server's ok / error: reply, or an answer that is not the shim's), expired (its round
# ended, or its target left, before it could be sent), unanswered (sent, its answer lost
# with the session, and then its moment passed: the server may have run it), dropped (the
# config in force after a restart or a reload would not send it: observe or advise mode,
# its rule off), observed (observe mode), advised (advise mode). The reply says why.
# A `propose` row (a punishment waiting for an admin) is proposed, then confirmed,
# dismissed or expired, its reply saying by whom or why.

_OURS = {"state": {"server", "snapshot", "updated"}, "audit": {"id", "server", "action", "status", "command", "detail"}}


def _inserted(cur: sqlite3.Cursor) -> int:
    """The row id an INSERT gave; SQLite always gives one, so its absence is a broken database."""
    if cur.lastrowid is None:
        raise StoreError("the state database gave no row id for an insert")
    return cur.lastrowid


class Store(WritesRows, TakesRequests, KeepsAccounts):
    shared: ClassVar[bool] = False  # one machine's file (a file lock keeps one daemon on it), not a database server
    dialect: ClassVar[Dialect] = Dialect()  # how the statements both backends run are spelled here (store.rows)
    queued_mark: tuple[str, int] | None = None  # a file is never away: the admins' requests are never queued for it

    def queued_applied(self, origin: str) -> int:
        return 0

    def __init__(self, path: str | Path):
        self.path = str(path)
        if self.path != ":memory:":
            _create_private(Path(self.path))
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.row_factory = sqlite3.Row
            self.db.create_function("jc_has", 2, contains, deterministic=True)  # a Filter's part of a name (entries)
            check_ours(self.db)
            wal(self.db)
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA busy_timeout=5000")
            self.db.execute("PRAGMA wal_autocheckpoint=0")
            upgrade(self.db, self.path)
            _names(self.db)  # the players search's names: made and filled once, kept by a trigger
            self._probe()
        except sqlite3.Error as exc:
            raise StoreError(f"state database {self.path}: {exc}") from None
        self._checkpointer: sqlite3.Connection | None = None
        self._checkpoint_lock = threading.Lock()
        self._file = _identity(self.path)
        self._prune_due = 0.0
        self._saved: dict[str, str] = {}  # server -> the snapshot this connection last wrote
        self._waiting: set[str] = set()
        self._waiting_at = float("-inf")

    def _open(self) -> None:
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.row_factory = sqlite3.Row
        self.db.create_function("jc_has", 2, contains, deterministic=True)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA busy_timeout=5000")
        self.db.execute("PRAGMA wal_autocheckpoint=0")

    def reopen(self) -> None:
        """The file was written afresh at the same path (by the writer's `still_there`): read that one."""
        self.db.close()
        self._open()
        self._file = _identity(self.path)

    def still_there(self) -> str | None:
        """None while the file is the one opened. Deleted under the running daemon (an
        admin's `rm`, a clean-up script), every row would go with the process: a fresh file
        is written at the same path from the open (unlinked) database, whole, and used from
        then on; the returned line says so. A file put in its place is left alone (said once)."""
        if self._file is None:
            return None
        now = _identity(self.path)
        if now == self._file:
            return None
        if now is not None:
            self._file = now  # someone else's file now: not ours to overwrite; say it once
            return (f"state database {self.path} was replaced by another file while running; "
                    "jailcore goes on writing to the file it opened: restart it to use the new one")
        self.commit()
        with self._checkpoint_lock:
            self._close_checkpointer()
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()  # everything into the open file
            _create_private(Path(self.path))
            self.db.execute("VACUUM INTO ?", (self.path,))
            self.db.close()  # removes the old -wal and -shm beside the path
            self._open()
        self._file = _identity(self.path)
        return f"state database {self.path} was deleted while running; a fresh one was written from the open database (nothing lost)"

    def claim(self, server: str) -> None:
        """A file has no lock of its own here: the daemon's file lock (io/lock.py) keeps one process on it."""
        return None

    def _probe(self) -> None:
        """A write that is rolled back: a read-only file fails here, at start, not later."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute("INSERT INTO state (server, snapshot, updated) VALUES ('', '', '') ON CONFLICT(server) DO NOTHING")
        finally:
            self.db.execute("ROLLBACK")

    def close(self) -> None:
        self.commit()
        with self._checkpoint_lock:
            self._close_checkpointer()
        self.db.close()

    def _close_checkpointer(self) -> None:
        """The checkpoint worker's own connection; under `_checkpoint_lock`."""
        if self._checkpointer is not None:
            self._checkpointer.close()
            self._checkpointer = None

    def commit(self) -> None:
        if self.db.in_transaction:
            self.db.execute("COMMIT")

    def _begin(self) -> None:
        """A write transaction, its lock taken at once: `BEGIN IMMEDIATE` waits for another
        writer (busy_timeout) where a deferred `BEGIN` let the first INSERT fail at once with
        `database is locked` while the daemon's writer or the web page was committing."""
        if not self.db.in_transaction:
            self.db.execute("BEGIN IMMEDIATE")

    def _write(self, sql: str, params: Sequence[Any], many: bool = False) -> sqlite3.Cursor:
        """A write of the open transaction (begun here); `many`: `params` is a list of rows."""
        self._begin()
        return self.db.executemany(sql, params) if many else self.db.execute(sql, params)

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        return list(self.db.execute(sql, params))

    _select = _rows  # (store.accounts' name for a read)

    def checkpoint(self) -> None:
        """Copy the WAL into the database file; on the caller's (worker) thread, with its own
        connection, so the loop's writes never wait for the fsync."""
        with self._checkpoint_lock:
            if self._file is not None and _identity(self.path) != self._file:
                return  # the file was deleted or replaced: opening the path would create or take another
            if self._checkpointer is None:
                self._checkpointer = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
                self._checkpointer.execute("PRAGMA busy_timeout=5000")
            self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    # -- engine state --------------------------------------------------------------------

    def load_state(self, server: str) -> dict[str, Any] | None:
        row = self.db.execute(common.SNAPSHOT, (server,)).fetchone()
        return json.loads(row["snapshot"]) if row else None

    def record(self, server: str, action: Action, day: int, command: str | None, status: AuditStatus, row_id: int | None = None) -> int:
        cur = self._write(AUDIT_INSERT, audit_values(row_id, server, action, day, command, status))
        return _inserted(cur)

    def skip_ids(self, gap: int) -> None:
        """Audit ids go on `gap` above the last one: a row sent but lost before its commit
        (a crash in between) left its id in the shim's memory, and a new command carrying
        it would be taken for a repeat and not run."""
        self._write("UPDATE sqlite_sequence SET seq = seq + ? WHERE name = 'audit'", (gap,))
        self.commit()

    def keep_lines(self, row: fx.KeepLines) -> None:
        if not row.lines:
            return
        self._write(common.LINES, line_values(row.lines), many=True)
        if clock.monotonic() >= self._prune_due and is_time(row.lines[-1][2]):  # (a log time is parsed: always, but never trusted)
            self._prune_due = clock.monotonic() + common.PRUNE_EVERY
            self.prune_lines(plus_minutes(row.lines[-1][2], -row.keep_days * 1440))

    def reserve_ids(self, count: int, gap: int = 0) -> int:
        """The first of `count` audit ids no row has or will be given by anyone else, `gap`
        above the last one ever used (see `Ids`)."""
        self.commit()
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute("INSERT INTO sqlite_sequence (name, seq) SELECT 'audit', COALESCE((SELECT MAX(id) FROM audit), 0) "
                            "WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'audit')")
            last = int(self.db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'audit'").fetchone()[0])
            self.db.execute("UPDATE sqlite_sequence SET seq = ? WHERE name = 'audit'", (last + gap + count,))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return last + gap + 1

    def resume(self, server: str) -> si.Resume:
        """What a server's last process left: its pending rows and its proposals still waiting."""
        return self._resumed(server, self.pending_rows(server))

    def waiting(self, server: str, fresh: float = 0.2) -> bool:
        """Whether any admin's row waits for this server: one query a `fresh` interval for every
        server of the file, not three a server at every poll of a big fleet."""
        now = clock.monotonic()
        if now - self._waiting_at > fresh:
            self._waiting_at = now
            self._waiting = {r[0] for r in self.db.execute(ANY_WAITING)}
        return server in self._waiting


    # -- the admins' requests (store.request_kinds: each kind checks itself and writes its row through these) --

    def entry(self, action_id: int) -> sqlite3.Row | None:
        if not 0 < action_id <= SQLITE_MAX:  # SQLite's integers are 64-bit: a bigger id names nothing
            return None
        row: sqlite3.Row | None = self.db.execute(common.ENTRY, (action_id,)).fetchone()
        return row

    def pardons_for(self, action_ids: Iterable[int]) -> dict[int, Any]:
        return pardons_of(self._rows, action_ids)

    def answer_of(self, action_id: int) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self.db.execute(common.ANSWER_OF, (action_id,)).fetchone()
        return row

    def insert(self, sql: str, values: Sequence[Any]) -> int:
        cur = self._write(sql, values)
        self.commit()  # an admin's row is his at once: the daemon and the page see it
        return _inserted(cur)

    def here(self, refusal: Refusal) -> None:
        """A file is never away."""

    def failed(self, exc: StoreError | DatabaseFault, refusal: Refusal) -> BaseException:
        return exc

    def waiting_rows(self, sql: str, server: str) -> list[sqlite3.Row]:
        """One kind of the admins' rows not yet applied for a server (`request_kinds` `WAITING`), oldest first."""
        return self._rows(sql, (server,))

    def proposal_row(self, server: str, number: int) -> int | None:
        """The audit id of the engine's proposal `number` (its `propose` row)."""
        row = self.db.execute(common.PROPOSAL_ROW.format(index=self.dialect.json_field("detail", "index")), (server, number)).fetchone()
        return int(row["id"]) if row else None

    def prune_lines(self, before: str) -> int:
        """Drop kept log lines older than `before` (log time, ISO)."""
        return int(self._write(common.PRUNE_LINES, (before,)).rowcount)


# PRAGMA user_version; 0 is a file from before the schema was versioned, 1 one without the audit's `seq`,
# 2 one without the web page's accounts (they were in the configs' [web.users]), 3 one without ACTION_SCHEMA,
# 4 one without the accounts' activity (`account_changes`, made by ACCOUNTS_SCHEMA; its earlier changes were not kept),
# 5 one without the notifications' queue and the appeals (store/notices.py, store/appeals.py: their tables made empty),
# 6 one without the admins' warnings and bans from the web page (`act_requests`, store/request_kinds.py),
# 7 one whose pardons lack the pardoning admin's SteamID (`pardons.steamid`: SourceBans++ credits him by it)
SCHEMA_VERSION = 8

# The audit log by action, in the order of its places, the time beside: the bans in force
# and a page of one action (`?action=ctban&since=1d`) read what there is of it, the time
# tested in the index (store.reader's `by_action`). Version 4.
ACTION_SCHEMA = "CREATE INDEX IF NOT EXISTS audit_action ON audit (action, seq, time);"


def upgrade(db: sqlite3.Connection, path: str, dry: bool = False) -> tuple[int, int]:
    """Makes the tables of this version: an older file is brought up to it in place, a newer
    one refused in one line (an older jailcore must not write to tables it does not know).
    Returns (the version found, the version now). The upgrade is one transaction under the
    write lock, the version read again once it is held: two processes opening one old file at
    once (`run --workers 2` at its first start) upgrade it once, the second finding it done."""
    found = _version(db, path)
    if dry or found == SCHEMA_VERSION:
        return found, found
    with _locked(db):
        found = _version(db, path)  # another process may have upgraded it while we waited
        if found == SCHEMA_VERSION:
            return found, found
        _run(db, SCHEMA + STORY_SCHEMA)
        for ddl in request_kinds.schema("sqlite"):  # the admins' requests' tables, written once for both backends
            db.execute(ddl)
        _add_column(db, "link", "daemon", "TEXT NOT NULL DEFAULT 'running'")  # version 0's link lacked who runs it
        _add_column(db, "link", "dropped", "TEXT NOT NULL DEFAULT ''")
        _add_column(db, "audit", "seq", "INTEGER")  # version 1's audit had no place of its own: its rows take their id
        _add_column(db, "pardons", "steamid", "TEXT")  # version 7's pardons: NULL, as the command line's and the page's are
        db.execute("UPDATE audit SET seq = id WHERE seq IS NULL")
        _run(db, SEQ_SCHEMA)
        _run(db, ACCOUNTS_SCHEMA)
        _run(db, ACTION_SCHEMA)
        for ddl in notices.schema("sqlite") + appeals.schema("sqlite"):
            db.execute(ddl)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    return found, SCHEMA_VERSION


def wal(db: sqlite3.Connection, patience: float = 5.0) -> None:
    """The file in WAL mode. Leaving a rollback journal for WAL needs the file to itself and
    SQLite answers `database is locked` at once, without its busy wait, while another process
    writes to it (the other worker upgrading it): tried again for as long as busy_timeout waits."""
    end = clock.monotonic() + patience
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or clock.monotonic() > end:
                raise
            clock.sleep(0.02)


def _version(db: sqlite3.Connection, path: str) -> int:
    found = int(db.execute("PRAGMA user_version").fetchone()[0])
    if found > SCHEMA_VERSION:
        raise StoreError(f"state database {path} has schema version {found}, newer than this jailcore's {SCHEMA_VERSION}: "
                         "upgrade jailcore on this machine first")
    return found


@contextmanager
def _locked(db: sqlite3.Connection) -> Iterator[None]:
    """One write transaction, its lock taken at once (`BEGIN IMMEDIATE` waits for another
    writer, busy_timeout): committed whole, or rolled back whole on any error."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _run(db: sqlite3.Connection, script: str) -> None:
    """A script's statements one by one, inside the caller's transaction: `executescript`
    would commit it first."""
    for statement in _statements(script):
        db.execute(statement)


def _statements(script: str) -> list[str]:
    out, part = [], ""
    for piece in script.split(";"):
        part += piece + ";"
        if sqlite3.complete_statement(part):  # a trigger's body holds `;` of its own
            if part.strip(" \n;"):
                out.append(part.strip())
            part = ""
    return out


def _identity(path: str) -> tuple[int, int] | None:
    if path == ":memory:":
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def refuse_link(path: str | Path) -> None:
    """A state file replaced by a symbolic link is not followed: whoever can write the folder
    could point the daemon's writes at another file (issue 25). Said in one line."""
    try:
        if os.path.islink(path):
            raise StoreError(f"state database {path} is a symbolic link (to {os.readlink(path)}): jailcore does not follow it; "
                             "give the real file's path in [state] path")
    except OSError:
        return


def _create_private(path: Path) -> None:
    refuse_link(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o600))
    except FileExistsError:
        pass
    except OSError as exc:
        raise StoreError(f"state database {path}: cannot be created: {exc.strerror}") from None


def _add_column(db: sqlite3.Connection, table: str, column: str, spec: str) -> None:
    """A column added since: a file from before gets it, its rows the default."""
    if column not in {r[1] for r in db.execute(f"PRAGMA table_info({table})")}:
        db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {spec}")


def check_ours(db: sqlite3.Connection) -> None:
    """A file that is not SQLite, or another program's database, is refused untouched."""
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        return
    for table, columns in _OURS.items():
        have = {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
        if not columns <= have:
            raise sqlite3.DatabaseError(f"not a jailcore state database (it has tables {', '.join(sorted(tables))})")



STORY_SCHEMA = """
CREATE TABLE IF NOT EXISTS loglines (
    id INTEGER PRIMARY KEY,
    server TEXT NOT NULL,
    round INTEGER NOT NULL,
    time TEXT NOT NULL,
    line TEXT NOT NULL,
    audit INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS link (
    server TEXT PRIMARY KEY,
    rcon TEXT NOT NULL,
    outbox INTEGER NOT NULL,
    last_line TEXT,
    mode TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS mqtt_outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    server TEXT NOT NULL,
    topic TEXT NOT NULL,
    payload TEXT NOT NULL,
    retain INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS loglines_round ON loglines (server, round);
CREATE INDEX IF NOT EXISTS loglines_time ON loglines (time);
"""
