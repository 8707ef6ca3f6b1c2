"""The store's read side: every query the command line (`tail`, `history`, `status`,
`ctban`), the web page and the daemon's readers run, behind one typed interface. Rows come
back as plain dicts, whatever the backend.

One set of queries serves both backends: each is written once, in the SQL that SQLite and
MariaDB share (identifiers that are words of MySQL in backquotes, which SQLite takes too),
and the backend's `Dialect` spells the few things they say differently (the placeholder, a
scan by id that must not take another index, a case-blind match on a Cyrillic name).

Each thread reads through a connection of its own (the web page reads from worker
threads; a connection is not shared between threads). Never writes.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from jailcore.log.errors import AuditError
from jailcore.store.access import out_of_reach
from jailcore.store.filter import Filter
from jailcore.store.spelling import Dialect, Row, UnplacedDialect, contains
from jailcore.store.standings import Standing, read_standing

if TYPE_CHECKING:
    from jailcore.store.appeals import Appeals

EVERYTHING = Filter()
_TABLES = ("audit", "pardons", "answers", "ctban_requests", "loglines")  # the tables whose newest id is asked


def _dict_row(cursor: sqlite3.Cursor, row: tuple[Any, ...]) -> Row:
    return Row(zip((d[0] for d in cursor.description), row, strict=True))


class Reader:
    """Read-only queries over one state database (a SQLite file or a MariaDB database).
    `where` names it in messages (a path, or a URL without its password)."""

    def __init__(self, where: str, connect: Callable[[], Any], dialect: Dialect):
        self.where = where
        self.dialect = dialect
        self._connect = connect
        self._local = threading.local()
        self._lock = threading.Lock()
        self._open: list[tuple[threading.Thread, Any]] = []

    # -- connections -------------------------------------------------------------------------

    def _db(self) -> Any:
        db = getattr(self._local, "db", None)
        if db is None:
            db = self._local.db = self._connect()
            with self._lock:  # worker threads come and go: close the connections of those gone
                for pair in [(t, c) for t, c in self._open if not t.is_alive()]:
                    self._open.remove(pair)
                    pair[1].close()
                self._open.append((threading.current_thread(), db))
        return db

    def close(self) -> None:
        with self._lock:
            for _, db in self._open:
                db.close()
            self._open.clear()
        self._local = threading.local()

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        cur = self._db().cursor()
        try:
            cur.execute(self.dialect.sql(sql), tuple(params))
            names = [d[0] for d in cur.description or ()]
            return [r if isinstance(r, Row) else Row(r) if isinstance(r, dict) else Row(zip(names, r, strict=True)) for r in cur.fetchall()]
        finally:
            cur.close()

    def _rows_or_none(self, sql: str, params: Sequence[Any] = ()) -> list[Row] | None:
        """The rows, or None where a database from before lacks the table."""
        try:
            return self.rows(sql, params)
        except self.dialect.missing:
            return None

    def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        got = self.rows(sql, params)
        return got[0] if got else None

    def where_of(self, f: Filter) -> tuple[str, list[Any]]:
        return self.dialect.where(f)

    # -- the audit log -----------------------------------------------------------------------

    def max_id(self, table: str = "audit") -> int:
        """The newest id of a table; of the audit log, its newest place (`pos`)."""
        if table not in _TABLES:  # the name goes into the SQL: never trust a caller with it
            raise AuditError(f"no table {table!r}")
        column = self.dialect.pos if table == "audit" else "id"
        got = self._rows_or_none(f"SELECT COALESCE(MAX({column}), 0) AS n FROM {table}")
        return int(got[0]["n"]) if got else 0

    def entries(self, f: Filter, after: int = 0) -> list[Row]:
        """Every entry the filter takes (after a place in the log), oldest first."""
        clause, params = self.where_of(f)
        p = self.dialect.pos
        return self.rows(f"SELECT *, {p} AS pos FROM audit WHERE {p} > ? AND {clause} ORDER BY {p}", [after, *params])

    def entries_among(self, ids: Iterable[int], f: Filter = EVERYTHING, upto: int | None = None, floor: int = 0) -> list[Row]:
        """The entries of these ids the filter takes (placed up to `upto`, above `floor`), oldest first."""
        ids = list(ids)
        if not ids:
            return []
        clause, params = self.where_of(f)
        p = self.dialect.pos
        out: list[Row] = []
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            marks = ",".join("?" * len(chunk))
            out += self.rows(f"SELECT *, {p} AS pos FROM audit WHERE id IN ({marks}) AND {p} <= ? AND {p} > ? AND {clause} ORDER BY {p}",
                             [*chunk, upto if upto is not None else 2**63 - 1, floor, *params])
        return sorted(out, key=lambda r: r["pos"])

    def entry(self, action_id: int, server: str | None = None) -> Row | None:
        if not 0 < action_id < 2**63:  # a bigger id names nothing (and no backend can hold it)
            return None
        return self.one(f"SELECT *, {self.dialect.pos} AS pos FROM audit WHERE id = ? AND (? IS NULL OR server = ?)", (action_id, server, server))

    def window(self, f: Filter, hi: int, low: int, limit: int, newest_first: bool = True) -> list[Row]:
        """The entries the filter takes placed in (low, hi], newest (or oldest) first: the
        range bounds the cost whatever the filter (a page of a million rows costs a page)."""
        clause, params = self.where_of(f)
        order = "DESC" if newest_first else ""
        p = self.dialect.pos
        # The places first, read on the filter's index (only the columns it tests), then the
        # page's whole rows by place: MariaDB would otherwise unpack every row of the range.
        return self.rows(f"SELECT a.*, a.{p} AS pos FROM (SELECT {p} AS k FROM audit {self.dialect.hint(f)} WHERE {p} <= ? AND {p} > ? AND {clause} "
                         f"ORDER BY {p} {order} LIMIT ?) w JOIN audit a ON a.{p} = w.k ORDER BY a.{p} {order}", [hi, low, *params, limit])

    def statuses(self, f: Filter, hi: int, low: int, statuses: Sequence[str], limit: int) -> dict[int, str]:
        """The ids placed in (low, hi] the filter takes whose status is one of these, newest first."""
        clause, params = self.where_of(f)
        marks = ",".join("?" * len(statuses))
        p = self.dialect.pos
        rows = self.rows(f"SELECT id, status FROM audit {self.dialect.by_id} WHERE {p} <= ? AND {p} > ? AND status IN ({marks}) AND {clause} "
                         f"ORDER BY {p} DESC LIMIT ?", [hi, low, *statuses, *params, limit])
        return {int(r["id"]): r["status"] for r in rows}

    def of_server(self, server: str, steamid: str | None = None, limit: int = 1) -> list[Row]:
        """A server's newest entries (of one steamid)."""
        p = self.dialect.pos
        return self.rows(f"SELECT *, {p} AS pos FROM audit WHERE server = ? AND (? IS NULL OR steamid = ?) ORDER BY {p} DESC LIMIT ?",
                         (server, steamid, steamid, limit))

    def of_steamid(self, steamid: str, limit: int) -> list[Row]:
        p = self.dialect.pos
        return self.rows(f"SELECT *, {p} AS pos FROM audit WHERE steamid = ? ORDER BY {p} DESC LIMIT ?", (steamid, limit))

    def of_userid(self, userid: int, low: int, limit: int) -> list[Row]:
        """A player without a steamid (a bot) by #userid, among the entries placed above `low`."""
        p = self.dialect.pos
        return self.rows(f"SELECT *, {p} AS pos FROM audit WHERE {p} > ? AND userid = ? AND (steamid IS NULL OR steamid NOT LIKE 'STEAM_%') "
                         f"ORDER BY {p} DESC LIMIT ?", (low, userid, limit))

    def newest_steamid(self, server: str) -> str | None:
        row = self.one(f"SELECT steamid FROM audit WHERE server = ? AND steamid IS NOT NULL ORDER BY {self.dialect.pos} DESC LIMIT 1", (server,))
        return row["steamid"] if row else None

    def last_name(self, steamid: str) -> str:
        """The player's name in his newest entry ('' if none)."""
        row = self.one(f"SELECT name FROM audit WHERE steamid = ? AND name IS NOT NULL ORDER BY {self.dialect.pos} DESC LIMIT 1", (steamid,))
        return row["name"] if row else ""

    def seen(self, server: str, steamid: str) -> int:
        """How many entries of this server name this steamid."""
        row = self.one("SELECT COUNT(*) AS n FROM audit WHERE server = ? AND steamid = ?", (server, steamid))
        return int(row["n"]) if row else 0

    def pending(self, server: str) -> tuple[int, str | None]:
        """How many of a server's commands wait for their answer, and since when."""
        row = self.one("SELECT COUNT(*) AS n, MIN(time) AS oldest FROM audit WHERE server = ? AND status = 'pending'", (server,))
        return (int(row["n"]), row["oldest"]) if row else (0, None)

    def audit_servers(self) -> set[str]:
        """Every server of the audit log and of the saved state. The audit's are walked on its
        (server, status) index, one step per server: a million rows cost a few lookups."""
        rows = self.rows("WITH RECURSIVE s(x) AS (SELECT MIN(server) FROM audit UNION ALL SELECT (SELECT MIN(server) FROM audit WHERE server > x) "
                         "FROM s WHERE x IS NOT NULL) SELECT x FROM s WHERE x IS NOT NULL UNION SELECT server FROM state WHERE server != ''")
        return {next(iter(r.values())) for r in rows}

    def rounds(self, server: str, limit: int) -> list[int]:
        """The rounds of this server with kept lines or decisions, newest first."""
        found: set[int] = set()
        for table in ("loglines", "audit"):  # apart: each walks its (server, round) index from the top
            found |= {int(r["round"]) for r in self.rows(f"SELECT DISTINCT round FROM {table} WHERE server = ? ORDER BY round DESC LIMIT ?",
                                                        (server, limit))}
        return sorted(found, reverse=True)[:limit]

    def round_lines(self, server: str, round: int) -> list[Row]:
        return self.rows("SELECT * FROM loglines WHERE server = ? AND round = ? ORDER BY id", (server, round))

    def round_entries(self, server: str, round: int) -> list[Row]:
        p = self.dialect.pos
        return self.rows(f"SELECT *, {p} AS pos FROM audit WHERE server = ? AND round = ? ORDER BY {p}", (server, round))

    def players(self, f: Filter, low: int) -> list[Row]:
        """Who the filter (a #userid, a steamid or part of a name) finds above `low`: one row
        per steamid, name and server, with how many entries and the newest time. A steamid
        is looked up on its index; the others scan the id range."""
        clause, params = self.where_of(f)
        hint = "" if f.player and f.player.startswith(("STEAM_", "[U:")) else self.dialect.by_id
        return self.rows(f"SELECT steamid, MAX(userid) AS userid, name, server, COUNT(*) AS n, MAX(time) AS last FROM audit {hint} "
                         f"WHERE {self.dialect.pos} > ? AND {clause} AND steamid IS NOT NULL GROUP BY steamid, name, server ORDER BY last", [low, *params])

    def names_with(self, query: str, players: int) -> list[Row] | None:
        """The names holding `query` of the `players` players with the most entries under
        them, from the `names` table (the whole log's, kept as each row is written): the
        same case-blind match as the log's filter decides; on SQLite its trigram index
        narrows first (three letters or more). None where there is no such table (a database
        from before it: the caller looks among the newest entries instead)."""
        if not self.dialect.names:
            return None
        if self.dialect.name == "sqlite":
            tables = {r["name"] for r in self.rows("SELECT name FROM sqlite_master WHERE name IN ('names', 'names_fts')")}
            if "names" not in tables:
                return None
            fts = "names_fts" in tables and len(query) >= 3
        else:
            fts = False
        hit, param = self.dialect.has_name(query.casefold())
        params: list[Any] = [param]
        if fts:
            hit, params = f"rowid IN (SELECT rowid FROM names_fts WHERE names_fts MATCH ?) AND {hit}", ['"' + query.replace('"', '""') + '"', *params]
        again, param = self.dialect.has_name(query.casefold(), "m.name")
        return self.rows(
            f"SELECT m.steamid, m.userid, m.name, m.server, m.n, m.last FROM (SELECT steamid FROM names WHERE {hit} "
            f"GROUP BY steamid ORDER BY SUM(n) DESC, steamid LIMIT ?) top JOIN names m ON m.steamid = top.steamid WHERE {again} "
            "ORDER BY m.last", [*params, players, param])

    def bans_after(self, low: int, server: str = "") -> list[Row]:
        """The server bans placed above `low` (of one server), newest first: read on the
        action's index, they cost what there is of them, not the range."""
        p = self.dialect.pos
        hint = self.dialect.hint(Filter(action="ban"))
        return self.rows(f"SELECT a.*, a.{p} AS pos FROM (SELECT {p} AS k FROM audit {hint} WHERE {p} > ? AND action = 'ban') b "
                         f"JOIN audit a ON a.{p} = b.k WHERE (? = '' OR a.server = ?) ORDER BY a.{p} DESC", (low, server, server))

    def ban_of_move(self, move: Mapping[str, Any]) -> Row | None:
        """The CT ban a move to T was written right after (the same rule, player and moment)."""
        return self.one(f"SELECT *, {self.dialect.pos} AS pos FROM audit WHERE id BETWEEN ? AND ? AND action = 'ctban' AND server = ? AND userid = ? "
                        "AND rule = ? AND time = ? ORDER BY id DESC LIMIT 1",
                        (move["id"] - 3, move["id"] - 1, move["server"], move["userid"], move["rule"], move["time"]))

    def day_counts(self, first: str, before: str, actions: Sequence[str]) -> list[tuple[str, str, str, str, int]]:
        """Punishments per (day, rule, server) from `first` up to `before` (a pardon's notice is none)."""
        marks = ",".join("?" * len(actions))
        rows = self.rows(f"SELECT substr(time, 1, 10) AS day, rule, MAX(ref) AS ref, server, COUNT(*) AS n FROM audit "
                         f"WHERE time >= ? AND time < ? AND action IN ({marks}) AND rule != 'pardon' GROUP BY substr(time, 1, 10), rule, server",
                         [first, before, *actions])
        return [(r["day"], r["rule"], r["ref"], r["server"], int(r["n"])) for r in rows]

    def open_proposals(self, server: str | None = None) -> list[Row]:
        """Proposals (of one server) still waiting for an admin and not yet answered, oldest
        first (none in a database from before proposals)."""
        got = self._rows_or_none(f"SELECT a.*, a.{self.dialect.pos} AS pos FROM audit a LEFT JOIN answers n ON n.action_id = a.id "
                                 "WHERE a.action = 'propose' AND a.status = 'proposed' AND n.id IS NULL AND (? IS NULL OR a.server = ?) "
                                 f"ORDER BY a.{self.dialect.pos}", (server, server))
        return got or []

    # -- pardons and requests ----------------------------------------------------------------

    def pardons_for(self, action_ids: Iterable[int]) -> dict[int, Row]:
        """The pardon of each of these enforcements that has one (none before pardons existed)."""
        from jailcore.store.rows import pardons_of

        return pardons_of(self._rows_or_none, action_ids)

    def pardons_after(self, after: int, limit: int = 2**31) -> list[Row]:
        return self._rows_or_none("SELECT * FROM pardons WHERE id > ? ORDER BY id LIMIT ?", (after, limit)) or []

    def pardons_by(self, by: str, limit: int) -> list[Row]:
        """Pardons (of one admin, or all for ''), with what they undid, newest first."""
        return self.rows("SELECT p.*, a.action, a.name, a.steamid, a.ref, a.rule FROM pardons p LEFT JOIN audit a ON a.id = p.action_id "
                         "WHERE ? = '' OR p.`by` = ? ORDER BY p.id DESC LIMIT ?", (by, by, limit))

    def ctban_requests(self, by: str = "", limit: int = 100) -> list[Row]:
        """CT bans given or lifted from outside the game (of one admin, or all for ''), newest first."""
        return self.rows("SELECT * FROM ctban_requests WHERE ? = '' OR `by` = ? ORDER BY id DESC LIMIT ?", (by, by, limit))

    def act_requests(self, by: str = "", limit: int = 100) -> list[Row]:
        """Warnings and bans admins gave from the web page (of one admin, or all for ''), newest first (none before the table)."""
        return self._rows_or_none("SELECT * FROM act_requests WHERE ? = '' OR `by` = ? ORDER BY id DESC LIMIT ?", (by, by, limit)) or []

    def account_changes(self, by: str = "", limit: int = 100) -> list[Row]:
        """The web accounts' changes (of one admin, or all for ''), newest first: who added,
        changed or removed which account, with its roles; never a password (none before the table)."""
        return self._rows_or_none("SELECT id, time, `by`, name, what, roles FROM account_changes WHERE ? = '' OR `by` = ? "
                                  "ORDER BY id DESC LIMIT ?", (by, by, limit)) or []

    def ctbans_waiting(self, server: str | None = None) -> list[Row]:
        """CT-ban requests no daemon has applied yet (of one server), oldest first."""
        return self._rows_or_none("SELECT * FROM ctban_requests WHERE applied_at IS NULL AND (? IS NULL OR server = ?) ORDER BY id",
                                  (server, server)) or []

    def admin_counts(self, first: str) -> dict[str, int]:
        """What each admin did since `first`: pardons, CT bans given or lifted, warnings and bans from outside the game."""
        counts: dict[str, int] = {}
        for table in ("pardons", "ctban_requests", "act_requests"):
            for row in self._rows_or_none(f"SELECT `by` AS who, COUNT(*) AS n FROM {table} WHERE time >= ? GROUP BY `by`", (first,)) or []:
                counts[row["who"]] = counts.get(row["who"], 0) + int(row["n"])
        return counts

    def appeals(self) -> Appeals:
        """The players' appeals, read through this reader's connections (none before their table)."""
        from jailcore.store.appeals import Appeals

        return Appeals(self)

    def sinks(self) -> list[dict[str, Any]]:
        """Every notification sink's health, with how many messages wait for it (none before their tables)."""
        from jailcore.store.notices import sink_health

        return sink_health(self.rows)

    # -- saved state -------------------------------------------------------------------------

    def states(self, server: str | None = None) -> list[Row]:
        """Each server's saved engine (`server`, `snapshot` JSON text, `updated`), by name."""
        return self.rows("SELECT server, snapshot, updated FROM state WHERE server != '' AND (? IS NULL OR server = ?) ORDER BY server",
                         (server, server))

    def servers(self) -> list[str]:
        return [r["server"] for r in self.rows("SELECT server FROM state WHERE server != '' ORDER BY server")]

    def standings(self) -> list[Standing]:
        """Each server's standing (what `status` and the web page's servers show of it), saved with
        its newest snapshot, by name (none before it was kept, nor one that is not a JSON object)."""
        got = self._rows_or_none("SELECT s.server, p.state FROM state s JOIN standing p ON p.server = s.server AND p.updated = s.updated "
                                 "WHERE s.server != '' ORDER BY s.server")
        found = (read_standing(r["server"], r["state"]) for r in got or [])
        return [s for s in found if s is not None]

    def saved_steps(self, server: str) -> dict[str, list[str]] | None:
        """Each ladder's steps under the server's own config, as its daemon saved them with its
        standing (None before it did)."""
        got = self._rows_or_none("SELECT state FROM standing WHERE server = ?", (server,))
        steps = json.loads(got[0]["state"]).get("ladder_steps") if got else None
        return steps if isinstance(steps, dict) else None

    def owed(self, server: str) -> list[Row]:
        """A server's punishments decided for players who had left and waiting for their return
        (a warning, slay, move or kick), oldest first."""
        return self.rows("SELECT id, time, action, name, steamid, rule, ref FROM audit WHERE server = ? AND status = 'owed' "
                         "AND action IN ('warn', 'slay', 'teamswap', 'kick') AND (reply IS NULL OR reply = '') ORDER BY id", (server,))

    def links(self) -> list[Row]:
        """Every server's `link` row (none before the table)."""
        return self._rows_or_none("SELECT * FROM link WHERE server != ''", ()) or []

    def link(self, server: str) -> Row | None:
        """How the server's daemon stands (its `link` row), None if it never wrote one."""
        got = self._rows_or_none("SELECT * FROM link WHERE server = ?", (server,))
        return got[0] if got else None


def open_sqlite(path: str) -> Reader:
    """A reader of a SQLite state file, read-only; a file that is not ours is refused in one line."""
    from jailcore.store.errors import StoreError
    from jailcore.store.sqlite import check_ours, refuse_link, upgrade

    def connect() -> sqlite3.Connection:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        db.row_factory = _dict_row
        db.execute("PRAGMA busy_timeout=5000")
        db.create_function("jc_has", 2, contains, deterministic=True)
        return db

    try:
        refuse_link(path)
    except StoreError as exc:
        raise AuditError(str(exc)) from None
    refused = out_of_reach(path)  # before SQLite's "unable to open database file", which names no file
    if refused:
        raise AuditError(refused)
    try:
        plain = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise AuditError(f"{path}: cannot open the state database: {exc}") from None
    try:
        check_ours(plain)
        upgrade(plain, path, dry=True)  # a newer file is refused: an older jailcore would misread it
        placed = "seq" in {r[1] for r in plain.execute("PRAGMA table_info(audit)")}
        indexed = bool(plain.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'audit_action'").fetchone())
    except sqlite3.DatabaseError as exc:
        raise AuditError(f"{path}: not a jailcore state database ({exc})") from None
    except StoreError as exc:
        raise AuditError(str(exc)) from None
    finally:
        plain.close()
    dialect = Dialect() if placed else UnplacedDialect()
    if not indexed:  # a file of schema version 2 or before, not yet upgraded: no index of the actions
        dialect.by_action = ""
    return Reader(path, connect, dialect)
