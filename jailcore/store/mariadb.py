"""The state database on a MariaDB (or MySQL) server, shared by every `jailcore run` of a
network and its `jailcore web`: `[state] url = "mysql://user:password@host:3306/jailcore"`
or JAILCORE_STATE_URL. The same tables as the SQLite file, the same typed interface (the
read side is `store.reader`'s queries in MariaDB's spelling; the write side mirrors
`store.sqlite.Store`).

Driver: PyMySQL, the pure-Python driver under aiomysql (see docs/networks.md). The store is
called from threads (the writer, the web page's worker threads, the command line), never
awaited on the event loop, so the blocking driver is the right one there; it needs no C
library, so `pip install` works on every box of a network.

Audit ids are the commands' ids on the game servers (the shim drops a repeat by id), so
they must be unique across every process sharing the database: each process reserves a
block of ids at a time (`id_blocks`, one atomic UPDATE) and numbers its rows from it, so
a row's id is known before its INSERT reaches the server and no two processes ever hand
out one id. A server is served by one process at a time: `claim` takes the server's named
lock (GET_LOCK), released with the connection if the process dies. The daemon's store keeps
that connection (`_keep_locks`): lost, it is made again in a thread and the locks taken again;
a lock another process took meanwhile is the daemon's end (`Claim.lost`).
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import threading
import time as clock
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar
from urllib.parse import unquote, urlsplit

import attrs
import pymysql
import pymysql.cursors

from jailcore.engine.actions import Action, AuditStatus
from jailcore.log.errors import AuditError
from jailcore.log.limits import KEY, NAME, SHORT_WORD, STEAMID, TIME, TOPIC, WORD
from jailcore.log.logtime import is_time, plus_minutes
from jailcore.session import effects as fx
from jailcore.session import inputs as si
from jailcore.store import appeals, notices, request_kinds
from jailcore.store import rows as common  # the statements both backends run, written once
from jailcore.store.accounts import MARIADB_TABLES as ACCOUNT_TABLES
from jailcore.store.accounts import KeepsAccounts
from jailcore.store.errors import Away, DatabaseFault, Lost, Refused, StoreError, Unreachable
from jailcore.store.hang import HangWatch
from jailcore.store.journal import DAMAGED, Journal, Leftover, Op, damaged_beside, hold, holds, left_beside
from jailcore.store.locks import RESERVE_WAIT, Claim, KeepsLocks
from jailcore.store.reader import Reader
from jailcore.store.request_kinds import ANY_WAITING, Refusal
from jailcore.store.requests import TakesRequests
from jailcore.store.rows import AUDIT_INSERT, WritesRows, audit_values, line_values
from jailcore.store.spelling import Dialect, Row

if TYPE_CHECKING:  # the daemon's typed rows: imported where it writes or resumes
    from jailcore.session import effects as fx
    from jailcore.session import inputs as si

# 0: before the schema was versioned; 1: without the web page's accounts; 2: without the names table and the indexes of _from_2;
# 3: without the accounts' activity (`account_changes`); 4: without the notifications' queue and the appeals;
# 5: without the admins' warnings and bans from the web page (`act_requests`); 6: without the pardoning admin's SteamID (`pardons.steamid`)
SCHEMA_VERSION = 7
ID_BLOCK = 1000  # audit ids a process takes at a time: one round trip per 1,000 commands, and room for an outage
READ_TIMEOUT = 30.0  # a statement's answer, in seconds: the writer's group commit, the web page's and the command line's big reads
# The daemon's store on its event loop (`on_loop`): its reads are small (is an admin's row
# waiting, the rows themselves, a block of ids), and a server that hangs without closing (its
# process stopped, a network cut) would hold the loop for as long as the driver waits: no line
# handled, no command sent. So it waits this long, then takes the server for away (`QUIET`).
LOOP_TIMEOUT = 1.5
QUIET = 5.0  # after a read found the server away or hung: the loop's polls wait this long before they ask again
REOPEN_WAIT = 0.25  # the loop's wait for its connection made again in a thread, before its read fails at once

# The names each player was logged under, per server, with how many entries and the newest
# time, as in the SQLite file: the players search reads the whole log's names here. The
# writer keeps it in the same transaction as the audit rows (one upsert a commit, see
# `MariaStore.commit`), not by a trigger: a trigger needs the TRIGGER privilege, and SUPER
# where the server keeps a binary log. The name is kept as written (utf8mb4_bin): two
# spellings are two rows, as on SQLite; the search compares case-blind.
NAMES_TABLE = f"""CREATE TABLE IF NOT EXISTS names (
    server VARCHAR({KEY}) NOT NULL, steamid VARCHAR({STEAMID}) NOT NULL, name VARCHAR({NAME}) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    userid BIGINT, n BIGINT NOT NULL, last VARCHAR({TIME}) NOT NULL, PRIMARY KEY (server, steamid, name),
    KEY names_steamid (steamid, n))"""  # (steamid, n): the search's count of each player's entries is read in the index alone
_NAMES_UPSERT = ("INSERT INTO names (server, steamid, name, userid, n, last) VALUES (?, ?, ?, ?, ?, ?) "
                 "ON DUPLICATE KEY UPDATE n = n + VALUES(n), last = GREATEST(last, VALUES(last)), userid = VALUES(userid)")

# Every width is log/limits.py's: the doors refuse, and the store cuts to, the same numbers.
_TABLES = [
    "CREATE TABLE IF NOT EXISTS jailcore_schema (name VARCHAR(32) PRIMARY KEY, version INT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS id_blocks (name VARCHAR(32) PRIMARY KEY, next BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS journal_applied (origin VARCHAR(32) PRIMARY KEY, seq BIGINT NOT NULL)",
    f"CREATE TABLE IF NOT EXISTS state (server VARCHAR({KEY}) PRIMARY KEY, snapshot LONGTEXT NOT NULL, updated VARCHAR({TIME}) NOT NULL)",
    f"CREATE TABLE IF NOT EXISTS standing (server VARCHAR({KEY}) PRIMARY KEY, state LONGTEXT NOT NULL, updated VARCHAR({TIME}) NOT NULL)",
    f"""CREATE TABLE IF NOT EXISTS audit (
        seq BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, id BIGINT NOT NULL,
        server VARCHAR({KEY}) NOT NULL, time VARCHAR({TIME}) NOT NULL, round INT NOT NULL, day INT NOT NULL,
        action VARCHAR({WORD}) NOT NULL, rule VARCHAR({KEY}) NOT NULL, ref VARCHAR({KEY}) NOT NULL, userid BIGINT, steamid VARCHAR({STEAMID}),
        name VARCHAR({NAME}), reason TEXT NOT NULL, detail LONGTEXT NOT NULL, command TEXT, status VARCHAR({WORD}) NOT NULL, reply TEXT,
        UNIQUE KEY audit_id (id), KEY audit_status (server, status), KEY audit_player (steamid), KEY audit_round (server, round), KEY audit_time (time),
        KEY audit_action (action, seq, time), KEY audit_seq_name (seq, name))""",
    NAMES_TABLE,
    f"""CREATE TABLE IF NOT EXISTS loglines (
        id BIGINT AUTO_INCREMENT PRIMARY KEY, server VARCHAR({KEY}) NOT NULL, round INT NOT NULL, time VARCHAR({TIME}) NOT NULL,
        line TEXT NOT NULL, audit BIGINT NOT NULL, KEY loglines_round (server, round), KEY loglines_time (time))""",
    f"""CREATE TABLE IF NOT EXISTS link (
        server VARCHAR({KEY}) PRIMARY KEY, rcon VARCHAR({WORD}) NOT NULL, outbox INT NOT NULL, last_line VARCHAR({TIME}), mode VARCHAR({SHORT_WORD}) NOT NULL,
        updated VARCHAR({TIME}) NOT NULL, daemon VARCHAR({SHORT_WORD}) NOT NULL DEFAULT 'running', dropped TEXT NOT NULL)""",
    f"""CREATE TABLE IF NOT EXISTS mqtt_outbox (
        id BIGINT AUTO_INCREMENT PRIMARY KEY, server VARCHAR({KEY}) NOT NULL, topic VARCHAR({TOPIC}) NOT NULL, payload LONGTEXT NOT NULL,
        retain INT NOT NULL DEFAULT 0)""",
    *ACCOUNT_TABLES,
]
T = TypeVar("T")
_OPTIONS = " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci"


@attrs.frozen
class Target:
    """Where the database is; `shown` names it without the password (for every message)."""

    host: str
    port: int
    user: str
    password: str = attrs.field(repr=False)
    database: str

    @property
    def shown(self) -> str:
        return f"mysql://{self.user}@{self.host}:{self.port}/{self.database}"


def is_url(where: str) -> bool:
    return where.startswith(("mysql://", "mariadb://"))


def target(url: str) -> Target:
    parts = urlsplit(url)
    if parts.scheme not in ("mysql", "mariadb") or not parts.hostname or not parts.path.strip("/"):
        raise StoreError("state url: give mysql://user:password@host:3306/database")
    try:
        port = parts.port or 3306
    except ValueError:
        raise StoreError(f"state url mysql://{parts.hostname}: the port is not a number") from None
    return Target(parts.hostname, port, unquote(parts.username or ""), unquote(parts.password or ""), parts.path.strip("/"))


def shown(url: str) -> str:
    """The URL as it may be printed: never its password."""
    try:
        return target(url).shown
    except StoreError:
        return "mysql://?"


def connect(where: Target, autocommit: bool = True, dicts: bool = True, batches: bool = False,
            timeout: float = READ_TIMEOUT) -> pymysql.connections.Connection:
    """A connection, or a StoreError of one line without the password: unreachable, refused,
    no such database. With `batches`, it may send several statements in one query (the
    writer's group commit: `MariaStore._flush`); every value in them is escaped by the driver.
    `timeout`: how long a statement's answer (and the handshake) is waited for, after which
    the connection is closed and the statement fails as lost (2013)."""
    from pymysql.constants import CLIENT

    try:
        return pymysql.connect(host=where.host, port=where.port, user=where.user, password=where.password, database=where.database,
                               charset="utf8mb4", autocommit=autocommit, connect_timeout=min(5.0, timeout), read_timeout=timeout,
                               write_timeout=timeout,
                               client_flag=CLIENT.MULTI_STATEMENTS if batches else 0,
                               init_command="SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",  # each read sees what others committed
                               cursorclass=pymysql.cursors.DictCursor if dicts else pymysql.cursors.Cursor)
    except pymysql.MySQLError as exc:
        code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else None
        raise (Unreachable if code in (2003, 2005, 2006, 2013) else StoreError)(f"state database {where.shown}: {_why(exc)}") from None


def _why(exc: BaseException) -> str:
    code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else None
    text = str(exc.args[1]) if len(exc.args) > 1 else str(exc)
    if code in (2003, 2005, 2006, 2013):
        return f"cannot be reached ({text.split('(')[0].strip() or text})"
    if code == 1045:
        return "refused the user or its password"
    if code == 1049:
        return "no such database on that server (CREATE DATABASE it first)"
    return text


class MariaDialect(Dialect):
    name: ClassVar[str] = "mariadb"
    pos: ClassVar[str] = "seq"  # numbered by the server at insert: ids come from each process's own blocks
    by_id: ClassVar[str] = "FORCE INDEX (PRIMARY)"  # the rows are kept in the order of their places: a range is read in one sweep
    by_action = "FORCE INDEX (audit_action)"
    # (seq, name): a name's part is looked for in a narrow index of the range, not in every
    # whole row of it (20,000 rows unpacked cost more than the match).
    by_name = "FORCE INDEX (audit_seq_name)"
    missing: ClassVar[tuple[type[BaseException], ...]] = (pymysql.err.ProgrammingError,)

    def sql(self, text: str) -> str:
        return text.replace("%", "%%").replace("?", "%s")

    @functools.cache  # noqa: B019  (as Dialect.upsert)
    def upsert(self, table: str, key: tuple[str, ...], columns: tuple[str, ...]) -> str:
        names = (*key, *columns)
        return (f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))}) "
                f"ON DUPLICATE KEY UPDATE {', '.join(f'{c} = VALUES({c})' for c in columns)}")

    def json_field(self, column: str, field: str) -> str:
        return f"JSON_VALUE({column}, '$.{field}')"

    def has_name(self, value: str, column: str = "name") -> tuple[str, object]:
        """utf8mb4_unicode_ci compares case-blind, Cyrillic included. LOCATE rather than
        LIKE '%part%': the same collation, and no wildcards to escape, but five times as
        fast (LIKE walks the pattern letter by letter through the collation's weights)."""
        return f"LOCATE(?, {column} COLLATE utf8mb4_unicode_ci) > 0", value  # the names table keeps names as written (utf8mb4_bin)


DIALECT = MariaDialect()


def _dialect(version: int) -> MariaDialect:
    """The dialect a database of this schema version is read in: one not yet upgraded has
    neither the indexes it names nor the names table (version 3 made them)."""
    if version >= 3:
        return DIALECT
    old = MariaDialect()
    old.by_action = old.by_name = ""
    old.names = False
    return old


def open_reader(url: str) -> Reader:
    try:
        where = target(url)
        db = connect(where)  # refused at once, in one line, not at the first query
        try:
            found, _ = upgrade(db, where.shown, dry=True)  # a newer database is refused: an older jailcore would misread it
        finally:
            db.close()
    except StoreError as exc:
        raise AuditError(str(exc)) from None
    return _FaultReader(where.shown, lambda: connect(where), _dialect(found))


class _FaultReader(Reader):
    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        try:
            return super().rows(sql, params)
        except self.dialect.missing:
            raise
        except pymysql.MySQLError as exc:
            self._local.db = None  # a lost connection is opened again at the next read
            raise (Lost if _lost(exc) else DatabaseFault)(f"state database {self.where}: {_why(exc)}") from None


def upgrade(db: pymysql.connections.Connection, where: str, dry: bool = False) -> tuple[int, int]:
    """Makes the tables of this version; an older database is brought up to it in place, a
    newer one is refused (an older jailcore must not write to tables it does not know).
    Returns (the version found, the version now); 0 for an empty database. Processes that
    start together (`run --workers N`, two machines, the page, `db upgrade`) upgrade one at a
    time, under a named lock: the second finds the work done. A failure is one line."""
    try:
        return _upgrade(db, where, dry)
    except pymysql.MySQLError as exc:
        raise StoreError(f"state database {where}: {_why(exc)}") from None


# The upgrade's lock is named by the database as the server knows it, never by the URL: the
# machines of a network reach it by a host name or an address, each as its own user, and two
# names would let two of them run one ALTER at once (one fails: "Duplicate column name").
_UPGRADE_LOCK = "LEFT(CONCAT('jailcore-upgrade:', DATABASE()), 64)"
UPGRADE_WAIT = 600  # seconds: building an index of a million rows takes about a minute (docs/networks.md)


def _upgrade(db: pymysql.connections.Connection, where: str, dry: bool) -> tuple[int, int]:
    found = _version(db, where)
    if dry or found == SCHEMA_VERSION:
        return found, found
    timeout, db._read_timeout = db._read_timeout, None  # the wait and the upgrade take longer than a read may
    try:
        with db.cursor() as cur:
            cur.execute(f"SELECT GET_LOCK({_UPGRADE_LOCK}, %s) AS got, IS_USED_LOCK({_UPGRADE_LOCK}) AS holder", (UPGRADE_WAIT,))
            got = cur.fetchone() or {}
            if got.get("got") != 1:
                raise StoreError(f"state database {where}: another jailcore (connection {got.get('holder')}) has been upgrading it "
                                 f"for {UPGRADE_WAIT // 60} minutes; try again when it is done")
            try:
                db.commit()  # a fresh snapshot: what the one before us did
                found = _version(db, where)
                if found == SCHEMA_VERSION:
                    return found, found
                for ddl in _TABLES:
                    cur.execute(ddl + _OPTIONS)
                for ddl in request_kinds.schema("mariadb") + notices.schema("mariadb") + appeals.schema("mariadb"):  # written once for both
                    cur.execute(ddl)
                for step in _STEPS[found:]:
                    step(cur)
                cur.execute("INSERT INTO id_blocks (name, next) SELECT 'audit', COALESCE(MAX(id), 0) + 1 FROM audit "
                            "ON DUPLICATE KEY UPDATE next = GREATEST(next, VALUES(next))")
                cur.execute("INSERT INTO jailcore_schema (name, version) VALUES ('jailcore', %s) ON DUPLICATE KEY UPDATE version = VALUES(version)",
                            (SCHEMA_VERSION,))
                db.commit()
            finally:
                if db.open:
                    cur.execute(f"SELECT RELEASE_LOCK({_UPGRADE_LOCK})")
                    cur.fetchall()
    finally:
        db._read_timeout = timeout
    return found, SCHEMA_VERSION


def _version(db: pymysql.connections.Connection, where: str) -> int:
    with db.cursor() as cur:
        cur.execute("SHOW TABLES")
        tables = {next(iter(r.values())) for r in cur.fetchall()}
        found = 0
        if "jailcore_schema" in tables:
            cur.execute("SELECT version FROM jailcore_schema WHERE name = 'jailcore'")
            row = cur.fetchone()
            found = int(row["version"]) if row else 0
        elif tables and "audit" not in tables:
            raise StoreError(f"state database {where}: not a jailcore database (it has tables {', '.join(sorted(tables)[:8])})")
    if found > SCHEMA_VERSION:
        raise StoreError(f"state database {where} has schema version {found}, newer than this jailcore's {SCHEMA_VERSION}: "
                         "upgrade jailcore on this machine first")
    return found


def _from_0(cur: Any) -> None:
    """Version 0 (a database of before the schema was versioned): the audit log had no place
    numbered by the server, the link lacked who runs it."""
    cur.execute("SHOW COLUMNS FROM audit")
    if "seq" not in {r["Field"] for r in cur.fetchall()}:  # the rows kept in the order of their places, the ids beside
        cur.execute("ALTER TABLE audit DROP PRIMARY KEY, ADD COLUMN seq BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY FIRST, "
                    "ADD UNIQUE KEY audit_id (id)")
    cur.execute("SHOW COLUMNS FROM link")
    have = {r["Field"] for r in cur.fetchall()}
    if "daemon" not in have:
        cur.execute("ALTER TABLE link ADD COLUMN daemon VARCHAR(16) NOT NULL DEFAULT 'running'")
    if "dropped" not in have:
        cur.execute("ALTER TABLE link ADD COLUMN dropped TEXT NOT NULL DEFAULT ''")


def _from_1(cur: Any) -> None:
    """Version 1 kept no accounts (they were in the configs' [web.users]): the tables are made
    above, and filled from the configs by the first page that opens the database."""


def _from_2(cur: Any) -> None:
    """Version 2 lacked the names table (the players search read the newest entries only)
    and the indexes of a page of one action and of a name's part: the indexes are built in
    place (InnoDB keeps the table readable and writable meanwhile), the names counted once
    from the whole log. The count starts afresh, so an upgrade cut off is simply run again."""
    cur.execute("SHOW INDEX FROM audit")
    have = {r["Key_name"] for r in cur.fetchall()}
    keys = [f"ADD KEY {name} {columns}" for name, columns in (("audit_action", "(action, seq, time)"), ("audit_seq_name", "(seq, name)"))
            if name not in have]
    if keys:
        cur.execute(f"ALTER TABLE audit {', '.join(keys)}")
    cur.execute("DELETE FROM names")
    cur.execute("INSERT INTO names (server, steamid, name, userid, n, last) SELECT server, steamid, name COLLATE utf8mb4_bin, MAX(userid), "
                "COUNT(*), MAX(time) FROM audit WHERE steamid IS NOT NULL AND name IS NOT NULL GROUP BY server, steamid, name COLLATE utf8mb4_bin")


def _from_3(cur: Any) -> None:
    """Version 3 kept no activity of the accounts (who added, changed or removed which): the
    table is made above, empty; the changes from before it were never written anywhere."""


def _from_4(cur: Any) -> None:
    """Version 4 had no notifications' queue and no appeals: their tables are made above, empty."""


def _from_5(cur: Any) -> None:
    """Version 5 took no warnings or bans from the web page: `act_requests` is made above, empty."""


def _from_6(cur: Any) -> None:
    """Version 6's pardons did not keep the SteamID of an admin who pardoned in game (the game
    authenticated it): SourceBans++ credits an admin by his SteamID, never by a name. Its
    pardons keep NULL, as the command line's and the page's do."""
    cur.execute("SHOW COLUMNS FROM pardons")
    if "steamid" not in {r["Field"] for r in cur.fetchall()}:
        cur.execute(f"ALTER TABLE pardons ADD COLUMN steamid VARCHAR({STEAMID}) NULL")


_STEPS = [_from_0, _from_1, _from_2, _from_3, _from_4, _from_5, _from_6]  # _STEPS[n] brings version n to n + 1


_LOST = (2003, 2006, 2013, 2055, 0)  # the server went away (0: PyMySQL's closed connection)
log = logging.getLogger("jailcore")


def _lost(exc: BaseException) -> bool:
    if isinstance(exc, pymysql.err.InterfaceError):
        return True
    code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else None
    return isinstance(exc, pymysql.err.OperationalError) and code in _LOST


# What the server refuses for a row's own values, not for the database: a text too long for
# its column (1406), a character its charset lacks or a number that is none (1366, 1292,
# 1300, 1367), out of range (1264, 1690), truncated (1265), a NULL or a missing value
# (1048, 1364), a duplicate (1062), a reference (1451, 1452), a CHECK (4025, 3819), JSON
# (3140). Such a row is set aside; any other refusal (a table gone, a right taken away) stops
# the daemon, as the database is no longer one it can keep its promises in.
VALUE_REFUSALS = frozenset({1048, 1062, 1264, 1265, 1292, 1300, 1364, 1366, 1367, 1406, 1451, 1452, 1690, 3140, 3819, 4025})


def _code(exc: BaseException) -> int | None:
    return exc.args[0] if exc.args and isinstance(exc.args[0], int) else None


class MariaStore(KeepsLocks, WritesRows, TakesRequests, KeepsAccounts):
    """The write side on MariaDB, with `store.sqlite.Store`'s methods. Writes join an open
    transaction that `commit` ends, as on SQLite. With a `journal` (the daemon's), a server
    that goes away is ridden out: transactions wait in the journal, in order, and a thread
    of the store's own replays them once it is back (`away` says why meanwhile).

    `on_loop`: the daemon's store for its reads on the event loop. Its connections wait
    `LOOP_TIMEOUT` for an answer, a lost one is made again in a thread (never on the loop),
    and meanwhile its polls, its id blocks and an admin's word in game are answered at once
    (nothing waiting, no block, "ask again") for `QUIET` seconds at a time."""

    shared: ClassVar[bool] = True
    dialect: ClassVar[MariaDialect]  # (set below the class: DIALECT)

    def __init__(self, url: str, journal: str | None = None, requests: str | None = None, on_loop: bool = False):
        self.url = url
        self.target = target(url)
        self.path = self.target.shown  # what messages name it by (never the password)
        self.on_loop = on_loop
        self.timeout = LOOP_TIMEOUT if on_loop else READ_TIMEOUT
        self.db = connect(self.target, autocommit=False, batches=True, timeout=self.timeout)
        try:
            self._ids = connect(self.target, timeout=self.timeout)  # id blocks and named locks: outside every write transaction
        except StoreError:
            self.db.close()
            raise
        self._fresh: pymysql.connections.Connection | None = None  # on the loop: the connection made again by `_opener`
        self._opener: threading.Thread | None = None
        self._handover = threading.Lock()
        self._later = False
        self._unsent = 0  # the open transaction's last ops, not yet sent: the daemon's rows go in one query at the commit
        self._lock = threading.RLock()
        self._ops: list[Op] = []  # the open transaction, kept until it is committed (or journalled)
        self._block = (0, 0)  # [next, end) of the ids reserved
        self._spare: tuple[int, int] | None = None  # the next block, taken ahead: ids go on while the server is away
        self._names: dict[tuple[str, str, str], list[Any]] = {}  # the open transaction's names: [userid, entries, newest time]
        self._prune_due = 0.0
        self._claims: dict[str, Claim] = {}  # (store.locks)
        self._ids_lock = threading.Lock()
        self._marks: list[str] = []  # (store.locks)
        self._keeper: threading.Thread | None = None  # the locks' check (`_keep_locks`), from the first claim on the loop's store
        self._saved: dict[str, str] = {}  # each server's snapshot as last written: an unchanged one is not written again
        self.set_aside = 0  # rows the server refused for their values, kept in the journal's `aside` table (`_set_aside`)
        self._aside_said: set[str] = set()
        self._waiting: set[str] = set()  # the servers with an admin's row waiting, as last asked
        self._waiting_at = float("-inf")
        self._quiet_until = 0.0  # a read that found the server away: the next ones wait a moment (the loop must not stall on it)
        self.away: str | None = None  # why the server is away (while it is)
        self.queued_mark: tuple[str, int] | None = None  # the admin's queued request being applied: (its queue, its number)
        self.requests_queue = requests  # the admins' requests of this machine waiting for the database (store.requests), looked at each second
        self._replayer: threading.Thread | None = None
        self._fatal: StoreError | None = None
        self._reviver: threading.Thread | None = None
        self._closing = threading.Event()
        self._journal_at = journal or ""
        self.journal: Journal | None = None
        # The daemon's writer: a commit the server hangs in (stopped, cut off) is cut short, and waits in the journal.
        self._hang = HangWatch(self._still_answers, self.path) if journal else None
        try:
            self.journal = Journal(journal) if journal else None  # the first beside that path no other process holds
            upgrade(self.db, self.path)
            self.db.commit()
            self._seq = self._applied_seq(self.db)
            if self.journal is not None:
                self._seq = max(self._seq, self.journal.newest())
                self._replay(self.db)  # what a run before left: before anything is read
                self._replay_left(self.db)
                self._replay_damaged(self.db)
        except BaseException as exc:
            self._refused()
            if isinstance(exc, pymysql.MySQLError):
                raise StoreError(f"state database {self.path}: {_why(exc)}") from None
            raise
        self.reader = _FaultReader(self.path, lambda: connect(self.target, timeout=self.timeout), DIALECT)

    def _refused(self) -> None:
        """A start refused (a newer schema, the upgrade's lock waited out, a replay that failed):
        its connections and its journal's lock let go now, not whenever the collector finds them
        (the caller may go on and try again)."""
        for db in (self.db, self._ids):
            try:
                db.close()
            except pymysql.MySQLError:
                pass
        if self.journal is not None:
            self.journal.close()

    # -- plumbing -------------------------------------------------------------------------------

    def _run(self, sql: str, params: Sequence[Any] = (), many: bool = False, db: Any = None) -> Any:
        with self._lock:
            if db is None and self.journal is None and not self.db.open:  # lost before: the command line and the page connect again
                try:
                    self.db = self._reopened() if self.on_loop else connect(self.target, autocommit=False, batches=True)
                except StoreError as exc:
                    raise DatabaseFault(str(exc)) from None
                self._ops, self._names, self._unsent = [], {}, 0
            try:
                cur = (db or self.db).cursor()
                if many:
                    cur.executemany(DIALECT.sql(sql), [tuple(p) for p in params])
                else:
                    cur.execute(DIALECT.sql(sql), tuple(params))
                return cur
            except pymysql.MySQLError as exc:
                if _lost(exc) and db is None:
                    self._go_away(exc)
                raise (Lost if _lost(exc) else Refused)(f"state database {self.path}: {_why(exc)}", _code(exc)) from None

    def _reopened(self) -> pymysql.connections.Connection:
        """The loop's connection, lost: the one made meanwhile in a thread, else a thread starts
        making it and this read fails at once (a server that hangs answers no handshake either,
        and the loop must not wait for it)."""
        if self._fresh is None and (self._opener is None or not self._opener.is_alive()):
            self._opener = threading.Thread(target=self._open_fresh, name="jailcore database reconnection", daemon=True)
            self._opener.start()
            self._opener.join(REOPEN_WAIT)  # a server that restarted answers the handshake in this; a hung one costs no more
        with self._handover:
            fresh, self._fresh = self._fresh, None
        if fresh is not None:
            return fresh
        raise Unreachable(f"state database {self.path}: cannot be reached (connecting again)")

    def _open_fresh(self) -> None:
        """Tries every second until the server answers; then the loop's next poll uses the connection at once."""
        while True:
            try:
                fresh = connect(self.target, autocommit=False, batches=True, timeout=self.timeout)
            except StoreError:
                if self._closing.wait(1.0):
                    return
                continue
            with self._handover:  # not `_lock`: the loop holds that while it waits for this thread
                self._fresh, self._quiet_until = fresh, 0.0
            return

    def write(self, rows: Sequence[fx.Row]) -> None:
        """The daemon's rows into the open transaction, sent with it at the commit: one round
        trip for a whole group commit, not one per row (a hundred servers' snapshots, links
        and lines made the writer wait on the network for most of each batch)."""
        with self._lock:
            self._later = True
            try:
                super().write(rows)
            finally:
                self._later = False

    def _write(self, sql: str, params: Sequence[Any] = (), many: bool = False, later: bool = False) -> Any:
        """A write of the open transaction: run now (or, for the daemon's rows, sent at the
        commit), or kept for the journal while the server is away."""
        with self._lock:
            if self._fatal is not None:
                raise self._fatal
            op: Op = (sql, [list(p) for p in params] if many else list(params), many)
            if self.away is None and (later or self._later) and self.journal is not None:
                self._ops.append(op)
                self._unsent += 1
                return None
            if self.away is None:
                try:
                    cur = self._run(sql, params, many)
                except DatabaseFault:
                    if self.away is None or self.journal is None:
                        raise
                    cur = None
            else:
                cur = None
            if self.away is not None and self.journal is None:
                raise Away(f"state database {self.path} is away ({self.away}): nothing was written; try again when it is back")
            self._ops.append(op)
            return cur

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return list(self._run(sql, params).fetchall())

    def _select(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """A read that ends its transaction (when none of ours is open): the next sees what others committed since."""
        with self._lock:
            rows = self._rows(sql, params)
            if not self._ops:
                self.db.commit()
            return rows

    def commit(self) -> None:
        with self._lock:
            if self._fatal is not None:
                raise self._fatal
            if self._names:  # the transaction's names, in one statement, in key order (two processes never wait on each other's)
                names, self._names = self._names, {}
                self._write(_NAMES_UPSERT, [(*key, *names[key]) for key in sorted(names)], many=True, later=True)
            if not self._ops:
                return
            self._seq += 1
            if self.away is None:
                try:
                    with self._hang.watching(self.db) if self._hang is not None else contextlib.nullcontext():
                        self._flush()
                        self._mark_applied(self.db, self._seq)
                        self.db.commit()
                    self.queued_mark = None
                    self._ops = []
                    return
                except (DatabaseFault, pymysql.MySQLError) as exc:
                    if isinstance(exc, Refused) and exc.code in VALUE_REFUSALS and self.journal is not None and self._each_alone():
                        return  # the rows the server refused for their values are set aside; the rest are committed
                    if isinstance(exc, pymysql.MySQLError):
                        if not _lost(exc):
                            self._abandon()
                            raise self._fault(exc) from None
                        self._go_away(exc)
                    elif isinstance(exc, Lost):  # lost in the mark of the journal's number (run on this connection by name)
                        self._go_away(exc)
                    if self.journal is None:
                        self._ops, self._unsent = [], 0  # the caller is told; what it asks next starts afresh (a queued request is asked again)
                        raise Lost(f"state database {self.path}: {_why(exc)}") from None
                    if self.away is None:  # refused by the server, not lost: kept nowhere (a replay would be refused again)
                        self._abandon()
                        raise
            if self.journal is None:
                raise Away(f"state database {self.path} is away ({self.away}): nothing was written; try again when it is back")
            self.journal.keep(self._seq, self._ops)  # did a cut-off commit land? the replay asks the database
            self._ops = []

    def _still_answers(self) -> bool:
        """Whether the server answers a fresh connection's `SELECT 1` within the loop's timeout
        (the hang watch's question, asked from its thread while a commit waits)."""
        try:
            probe = connect(self.target, timeout=LOOP_TIMEOUT)
        except Unreachable:
            return False
        except StoreError:
            return True  # it answered, with a refusal: there, not hung
        try:
            with probe.cursor() as cur:
                cur.execute("SELECT 1")
            return True
        except pymysql.MySQLError:
            return False
        finally:
            with contextlib.suppress(pymysql.MySQLError):
                probe.close()

    def _abandon(self) -> None:
        """The open transaction, refused: rolled back, and not kept for a replay."""
        self._ops, self._unsent = [], 0
        try:
            self.db.rollback()
        except pymysql.MySQLError:
            pass

    def _flush(self) -> None:
        """The ops not yet sent, as one query of many statements (a few, past 4 MB): the
        driver escapes each value as it does for one statement. A failed statement stops
        the rest, and the transaction is not committed."""
        if not self._unsent:
            return
        pending, self._unsent = self._ops[len(self._ops) - self._unsent:], 0
        with self.db.cursor() as cur:
            texts: list[str] = []
            size = 0
            for sql, params, many in pending:
                for one in (params if many else [params]):
                    texts.append(cur.mogrify(DIALECT.sql(sql), tuple(one)))
                    size += len(texts[-1])
                if size > 4 << 20:
                    self._send(cur, texts)
                    texts, size = [], 0
            self._send(cur, texts)

    def _send(self, cur: Any, texts: list[str]) -> None:
        if not texts:
            return
        try:
            cur.execute(";\n".join(texts))
            while cur.nextset():
                pass
        except pymysql.MySQLError as exc:
            if _lost(exc):
                self._go_away(exc)
                raise
            raise Refused(f"state database {self.path}: {_why(exc)}", _code(exc)) from None

    def _each_alone(self) -> bool:
        """The open transaction after the server refused one of its statements for its values (a
        text too long for its column, a character its charset lacks, a number out of range, a
        duplicate): rolled back and run again one statement at a time, each behind a savepoint,
        the refused ones set aside (`_set_aside`): one row never stops the daemon (before, every
        server of the process stopped with it) nor holds the others. False when the connection
        was lost meanwhile (the caller's usual way: the journal)."""
        try:
            with self._hang.watching(self.db) if self._hang is not None else contextlib.nullcontext():
                self.db.rollback()
                self._apply(self.db, self._ops, self.journal)
                self._mark_applied(self.db, self._seq)
                self.db.commit()
        except (Lost, pymysql.MySQLError) as exc:
            if isinstance(exc, Lost) or _lost(exc):
                self._go_away(exc)
                return False
            self._abandon()
            raise self._fault(exc) from None
        except DatabaseFault:  # refused for something else than its values: the caller's way (the daemon stops)
            self._abandon()
            raise
        self.queued_mark = None
        self._ops, self._unsent = [], 0
        return True

    def _apply(self, db: Any, ops: Sequence[Op], journal: Journal | None) -> None:
        """Ops run one at a time in the open transaction of `db`, each behind a savepoint; one
        the server refuses for its values (a row of a many-row op alone) is set aside."""
        for sql, params, many in ops:
            try:
                self._saved_run(db, sql, params, many)
            except Refused as exc:
                if exc.code not in VALUE_REFUSALS:
                    raise
                for one in (params if many else [params]):
                    try:
                        self._saved_run(db, sql, one, False)
                    except Refused as alone:
                        if alone.code not in VALUE_REFUSALS:
                            raise
                        self._set_aside(sql, one, alone, journal)

    def _saved_run(self, db: Any, sql: str, params: Any, many: bool) -> None:
        self._run("SAVEPOINT jailcore_row", db=db)
        try:
            self._run(sql, params, many, db=db)
        except Refused:
            self._run("ROLLBACK TO SAVEPOINT jailcore_row", db=db)
            raise
        self._run("RELEASE SAVEPOINT jailcore_row", db=db)

    def _set_aside(self, sql: str, params: Any, exc: Refused, journal: Journal | None) -> None:
        """A row the server refused: kept in the journal's `aside` table for an operator (its
        statement and values), counted, said once per table and cause; the rest go on."""
        table = sql.split(" INTO ", 1)[-1].split(" ", 1)[0] if " INTO " in sql else sql.split()[1] if len(sql.split()) > 1 else "?"
        why = str(exc).removeprefix(f"state database {self.path}: ")
        self.set_aside += 1
        where = "nowhere (no journal)"
        if journal is not None:
            journal.set_aside(why, (sql, params, False))
            where = f"{journal.path} (table aside)"
        cause = f"{table}: {exc.code}"
        if cause not in self._aside_said:
            self._aside_said.add(cause)
            log.error("state database %s refused a row of %s (%s): it is set aside in %s and the rest are written; "
                      "later rows refused so are only counted (%d so far)", self.path, table, why, where, self.set_aside)

    def _mark_applied(self, db: Any, seq: int, journal: Journal | Leftover | None = None) -> None:
        if self.queued_mark is not None and journal is None:  # an admin's queued request (store.requests): its number, in its own transaction
            origin, number = self.queued_mark
            self._run("INSERT INTO journal_applied (origin, seq) VALUES (?, ?) ON DUPLICATE KEY UPDATE seq = GREATEST(seq, VALUES(seq))",
                      (origin, number), db=db)
        journal = journal or self.journal
        if journal is not None:
            self._run("INSERT INTO journal_applied (origin, seq) VALUES (?, ?) ON DUPLICATE KEY UPDATE seq = VALUES(seq)",
                      (journal.origin, seq), db=db)

    def queued_applied(self, origin: str) -> int:
        """The highest number of a request queue (store.requests) the database has applied. A
        locking read: a request whose commit was cut with its COMMIT in flight holds that row
        until the server ends it, and a plain read would not wait and apply it a second time."""
        rows = self._select("SELECT seq FROM journal_applied WHERE origin = ? FOR UPDATE", (origin,))
        return int(rows[0]["seq"]) if rows else 0

    def _applied_seq(self, db: Any, journal: Journal | Leftover | None = None, hold: bool = False) -> int:
        """The journal's highest number the database has applied. `hold` (the replay): a locking
        read, kept in the transaction that applies the next: a session cut with its COMMIT in
        flight holds that row until the server ends it (committed or rolled back), and a plain
        read would not wait for it and apply the same rows a second time."""
        journal = journal or self.journal
        if journal is None:
            return 0
        with db.cursor() as cur:
            cur.execute("SELECT seq FROM journal_applied WHERE origin = %s" + (" FOR UPDATE" if hold else ""), (journal.origin,))
            row = cur.fetchone()
        if not hold:
            db.commit()
        return int(row["seq"]) if row else 0

    def _go_away(self, exc: BaseException) -> None:
        """The server went away: from now on the open transaction and the next ones wait in
        the journal; a thread tries the server every second and replays them."""
        if self.journal is None:  # the caller is told, the next call connects again; the loop's polls wait a moment first
            self._quiet_until = clock.monotonic() + QUIET
            return
        if self.away is not None:
            return
        self.away = _why(exc)
        self._unsent = 0  # the open transaction waits in _ops for the journal, or for the new connection
        log.warning("state database %s is away (%s): enforcement goes on, its writes wait in %s", self.path, self.away, self.journal.path)
        self._reviver = threading.Thread(target=self._revive, name="jailcore database revival", daemon=True)
        self._reviver.start()

    def _revive(self) -> None:
        while not self._closing.wait(1.0):
            try:
                db = connect(self.target, autocommit=False, batches=True, timeout=self.timeout)
                ids = connect(self.target, timeout=self.timeout)
            except StoreError:
                continue
            try:
                for server in sorted(self._claims):  # the named locks went with the old connection
                    self._claimed(ids, server)
                while self._replay(db):
                    with self._lock:
                        if self.journal is not None and self.journal.waiting():
                            continue
                        for sql, params, many in self._ops:  # the open transaction, not yet run anywhere
                            self._run(sql, params, many, db=db)
                        old = (self.db, self._ids)
                        self.db, self._ids, self.away = db, ids, None
                        self._spare = None
                    for conn in old:
                        try:
                            conn.close()
                        except pymysql.MySQLError:
                            pass
                    log.warning("state database %s is back: the journal is replayed", self.path)
                    return
            except StoreError as exc:
                if "served by another" in str(exc):
                    self._fatal = exc  # someone else serves the server now: this process must not send its commands
                    log.error("%s", exc)
                    return
            except (DatabaseFault, pymysql.MySQLError):
                pass
            for conn in (db, ids):
                try:
                    conn.close()
                except pymysql.MySQLError:
                    pass

    def _replay(self, db: Any, journal: Journal | Leftover | None = None) -> bool:
        """Applies the journal (this store's, or one left beside it) to the database, oldest
        first, each transaction once; True when it is empty."""
        journal = journal or self.journal
        if journal is None:
            return True
        while (entry := journal.oldest()) is not None:
            seq, ops = entry
            if self._applied_seq(db, journal, hold=True) < seq:
                mine = self.journal if self.journal is not None else journal if isinstance(journal, Journal) else None
                self._apply(db, ops, mine)  # a row refused is set aside in this process's own journal
                self._mark_applied(db, seq, journal)
            db.commit()  # (also ends the locking read of a transaction found applied)
            journal.done(seq)
        return True

    def _replay_left(self, db: Any) -> None:
        """The journals left beside this one by processes that are not running (a worker of
        a `run --workers N` started with fewer): replayed once, before anything is read."""
        if self.journal is None:
            return
        for left in left_beside(self._journal_at, self.journal.path):
            try:
                log.warning("state database %s: replaying %d transaction(s) left in %s", self.path, left.waiting(), left.path)
                self._replay(db, left)
            finally:
                left.close()

    def _replay_damaged(self, db: Any) -> None:
        """A journal SQLite could not read whole (its header overwritten, its end cut off; this
        process's, or one left beside it) was put aside by `Journal`: said in one line with what
        can be read of it (store.salvage), that part replayed as any journal is (what the
        database applied of it before is skipped), and the file then marked `.replayed`, kept
        for an operator. Before, a damaged journal stopped the writer without a word."""
        from jailcore.store import salvage

        if self.journal is None:
            return
        for aside in damaged_beside(self._journal_at):
            held = hold(aside, make=False)
            if held is None:
                continue  # another process is replaying it
            try:
                got = salvage.read(aside)
                left = Leftover(aside, got.origin, got.transactions)
                why = self.journal.damaged[1] if self.journal.damaged and self.journal.damaged[0] == aside else "put aside before"
                seqs = list(got.transactions)
                read = (f"{len(seqs)} transaction(s) of it could be read (#{seqs[0]} to #{seqs[-1]}: {holds(got.transactions)})"
                        if seqs else "nothing of it could be read")
                log.error("state database %s: the journal %s was damaged (%s): kept aside as %s; %s%s, replayed now (what the database "
                          "has of it already is skipped)", self.path, aside.split(DAMAGED)[0], why, aside, read,
                          "" if left.known else "; its origin could not be read, so a row written before is refused as a duplicate and set aside")
                self._replay(db, left)
                for suffix in ("", "-wal"):
                    if os.path.exists(aside + suffix):
                        os.rename(aside + suffix, f"{aside}.replayed{suffix}")
            finally:
                os.close(held)

    def journalled(self) -> int:
        """Transactions waiting in the journal for the server."""
        return self.journal.waiting() if self.journal is not None else 0

    def close(self) -> None:
        self._closing.set()
        if self._hang is not None:
            self._hang.close()
        try:
            self.commit()
        finally:
            if self._reviver is not None:
                self._reviver.join(5)
            if self._keeper is not None:
                self._keeper.join(5)
            for db in (self.db, self._ids, self._fresh):
                try:
                    if db is not None and db.open:
                        db.close()
                except pymysql.MySQLError:
                    pass
            self.reader.close()
            if self.journal is not None:
                self.journal.close()

    def checkpoint(self) -> None:
        """SQLite's WAL copy, which a server has none of; the writer calls it each second, so the
        admins' requests queued on this machine while the database was away are applied here,
        through a store of their own (never this one's open transaction)."""
        if self.requests_queue is None or self.away is not None or (self._replayer is not None and self._replayer.is_alive()):
            return
        from jailcore.store.requests import waiting_requests

        if waiting_requests(self.requests_queue):  # in a thread of its own: a database that does not answer must not hold the writer
            self._replayer = threading.Thread(target=self._replay_requests, name="jailcore admin requests", daemon=True)
            self._replayer.start()

    def _replay_requests(self) -> None:
        assert self.requests_queue is not None
        try:
            settled = replay_beside(self.url, self.requests_queue)
        except (StoreError, DatabaseFault, OSError) as exc:
            log.warning("the admins' requests queued in %s wait: %s", self.requests_queue, exc)
            return
        if settled:
            log.warning("%d admin request(s) queued in %s while the database was away are applied", settled, self.requests_queue)

    def still_there(self) -> str | None:
        return None

    def _connect_ids(self) -> pymysql.connections.Connection:
        return connect(self.target, timeout=self.timeout)

    def _fault(self, exc: BaseException) -> DatabaseFault:
        return DatabaseFault(f"state database {self.path}: {_why(exc)}")

    def next_id(self) -> int:
        """The next audit id, from this process's block. The next block is taken when half of
        this one is used, so ids go on for a while with the server away."""
        with self._lock:
            nxt, end = self._block
            if nxt >= end:
                if self._spare is None:
                    self._spare = self._reserve(ID_BLOCK)  # raises while away with no block left: nothing can be numbered
                nxt, end = self._spare
                self._spare = None
            if self._spare is None and self.away is None and end - nxt <= ID_BLOCK // 2:
                try:
                    self._spare = self._reserve(ID_BLOCK)
                except DatabaseFault:
                    pass  # away now: this block's ids go on
            self._block = (nxt + 1, end)
            return nxt

    def _reserve(self, n: int) -> tuple[int, int]:
        with self._holding_ids(RESERVE_WAIT):
            ids = self._ids_now()
            try:
                with ids.cursor() as cur:
                    cur.execute("UPDATE id_blocks SET next = LAST_INSERT_ID(next + %s) WHERE name = 'audit'", (n,))
                    cur.execute("SELECT LAST_INSERT_ID() AS e")
                    row = cur.fetchone()
            except pymysql.MySQLError as exc:
                if _lost(exc):
                    with contextlib.suppress(pymysql.MySQLError):
                        ids.close()  # made again: by the loop's keeper thread, else at the next reserve
                    self._go_away(exc)
                raise self._fault(exc) from None
        end = int(row["e"])
        return end - n, end

    # -- engine state -----------------------------------------------------------------------------

    def load_state(self, server: str) -> dict[str, Any] | None:
        rows = self._rows(common.SNAPSHOT, (server,))
        self.db.commit()  # a fresh snapshot for the next read (REPEATABLE READ holds the first)
        return json.loads(rows[0]["snapshot"]) if rows else None

    def record(self, server: str, action: Action, day: int, command: str | None, status: AuditStatus, row_id: int | None = None) -> int:
        """An audit row under the id the session gave it (from `reserve_ids`), else the next of this store's own block."""
        row_id = self.next_id() if row_id is None else row_id
        values = audit_values(row_id, server, action, day, command, status)
        self._write(AUDIT_INSERT, values)
        steamid, name = values[9], values[10]
        if steamid is not None and name is not None:
            seen = self._names.get((values[1], steamid, name))
            if seen is None:
                self._names[(values[1], steamid, name)] = [values[8], 1, values[2]]
            else:
                seen[0], seen[1], seen[2] = values[8], seen[1] + 1, max(seen[2], values[2])
        return row_id

    def reserve_ids(self, count: int, gap: int = 0) -> int:
        """The first of `count` audit ids no process sharing the database has or will be given,
        `gap` above the last one handed out: one atomic update of `id_blocks`."""
        if self.on_loop and self._unreachable():  # the daemon asks after each line while it runs low: not one wait each
            raise DatabaseFault(f"state database {self.path} is away: the ids in hand go on")
        with self._lock:
            first, _ = self._reserve(gap + count)
            return first + gap

    def reopen(self) -> None:
        """A file written afresh is SQLite's case; a server has nothing to open again."""


    def keep_lines(self, row: fx.KeepLines) -> None:
        if not row.lines:
            return
        self._write(common.LINES, line_values(row.lines), many=True)
        if clock.monotonic() >= self._prune_due and is_time(row.lines[-1][2]):  # (a log time is parsed: always, but never trusted)
            self._prune_due = clock.monotonic() + common.PRUNE_EVERY
            self._write(common.PRUNE_LINES, (plus_minutes(row.lines[-1][2], -row.keep_days * 1440),))

    def resume(self, server: str) -> si.Resume:
        """What a server's last process left: its pending rows and its proposals still waiting."""
        return self._resumed(server, self.pending_rows(server))

    def waiting(self, server: str, fresh: float = 0.2) -> bool:
        """Whether any admin's row waits for this server: one query a `fresh` interval for every
        server of the database (none while the server is away)."""
        now = clock.monotonic()
        if now - self._waiting_at > fresh and not self._unreachable():
            self._waiting_at = now
            try:
                self._waiting = {r["server"] for r in self._rows(ANY_WAITING)}
            except DatabaseFault:
                if not self._went_away():
                    raise
                self._waiting = set()
        return server in self._waiting


    def skip_ids(self, gap: int) -> None:
        """Ids go on `gap` above the last one handed out (a row sent but lost before its commit)."""
        with self._lock:
            self._block = (0, 0)
            self._reserve(gap)

    # -- the admins' requests (store.request_kinds: each kind checks itself and writes its row through these) --

    def entry(self, action_id: int) -> Row | None:
        return self.reader.entry(action_id)

    def pardons_for(self, action_ids: Iterable[int]) -> dict[int, Row]:
        return self.reader.pardons_for(action_ids)

    def answer_of(self, action_id: int) -> Row | None:
        return next(iter(self._rows(common.ANSWER_OF, (action_id,))), None)

    def insert(self, sql: str, values: Sequence[Any]) -> int:
        cur = self._write(sql, values)
        self.commit()
        return int(cur.lastrowid)

    def here(self, refusal: Refusal) -> None:
        """An admin's request needs the database now (its checks read it, its id is the server's)."""
        if self.away is not None or (self.on_loop and self._unreachable()):
            raise refusal(f"state database {self.path} is away ({self.away or 'it did not answer'}): ask again when it is back")

    def failed(self, exc: StoreError | DatabaseFault, refusal: Refusal) -> BaseException:
        """An admin's request the database failed. A lost connection is the caller's to ask
        about (did it land? the command line's queue asks the database); on the loop, the
        admin in game is told to ask again (a pardon or an answer taken is then refused as given)."""
        if not self.on_loop:
            return exc if isinstance(exc, Lost | Unreachable) else refusal(str(exc))
        if isinstance(exc, Lost | Unreachable):
            self._quiet_until = clock.monotonic() + QUIET
        return refusal(f"{exc}: ask again (if it was taken, it is said so)")

    def waiting_rows(self, sql: str, server: str) -> list[Row]:
        """One kind of the admins' rows not yet applied for a server (`request_kinds` `WAITING`);
        none while the server is away (they wait there)."""
        return self._polled(lambda: self._rows(sql, (server,)), [])

    def _polled(self, read: Callable[[], T], away: T) -> T:
        """A read the daemon polls for the admins' rows: `away` (nothing) while the server is away
        or when it went away during the read, so that the rows wait there; any other fault is raised."""
        if self._unreachable():
            return away
        try:
            return read()
        except DatabaseFault:
            if not self._went_away():
                raise
            return away

    def _unreachable(self) -> bool:
        """The server is away (or a read found it so less than `QUIET` s ago): the reads that poll wait."""
        return self.away is not None or clock.monotonic() < self._quiet_until

    def _went_away(self) -> bool:
        """After a failed read: was it the server going away or hung (then quiet for `QUIET` s), not a fault of ours?"""
        if self.away is None and self.db.open:
            return False
        self._quiet_until = clock.monotonic() + QUIET
        return True

    def proposal_row(self, server: str, number: int) -> int | None:
        if self.away is not None:
            return None  # the proposal's row may still wait in the journal
        rows = self._rows(common.PROPOSAL_ROW.format(index=DIALECT.json_field("detail", "index")), (server, number))
        return int(rows[0]["id"]) if rows else None

    def prune_lines(self, before: str) -> int:
        cur = self._write(common.PRUNE_LINES, (before,))
        self.commit()
        return int(cur.rowcount)


MariaStore.dialect = DIALECT


def replay_beside(url: str, queue_path: str) -> int:
    """The daemon's look: a queue of this machine's admins' requests (store.requests) with some
    waiting, replayed through a store of its own (never the writer's open transaction). Returns
    how many were settled."""
    from jailcore.store.errors import Gone
    from jailcore.store.requests import RequestQueue, replay, waiting_requests

    if not waiting_requests(queue_path):
        return 0
    store = MariaStore(url)
    queue = RequestQueue(queue_path)
    try:
        return len(replay(store, queue))
    except Gone:
        return 0
    finally:
        queue.close()
        store.close()
