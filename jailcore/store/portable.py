"""SQL written once for both backends: a connection of its own to a state database (the SQLite
file or the MariaDB server), its statements in the SQL the two share (`?` placeholders,
identifiers that are words of MySQL in backquotes, which SQLite takes too, no upsert: an
UPDATE and, when it touched nothing, an INSERT), and the few words of a table's definition
they spell differently (store/spelling.py). The notices' and the appeals' tables are written this way
(store/notices.py, store/appeals.py); the rest of the store is to follow (issue 35).

Used from threads (the notifier's, the web page's workers, the command line): one statement
at a time per connection, under its lock.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from jailcore.store.errors import DatabaseFault
from jailcore.store.location import is_url, shown
from jailcore.store.spelling import Row


class Db:
    """One connection to a state database, for the portable statements. `where` is the SQLite
    file's path or the MariaDB URL; `name` says it without a password."""

    def __init__(self, where: str, timeout: float = 10.0):
        self.where, self.name = where, shown(where)
        self.dialect = "mariadb" if is_url(where) else "sqlite"
        self.timeout = timeout
        self._lock = threading.RLock()
        self._depth = 0
        self._conn: Any = None
        self._connect()

    def _connect(self) -> Any:
        """The connection, made again after one was lost (a MariaDB restarted, a network cut)."""
        if self._conn is not None:
            return self._conn
        if self.dialect == "mariadb":
            from jailcore.store.errors import StoreError
            from jailcore.store.mariadb import connect, target

            try:
                self._conn = connect(target(self.where), autocommit=False, timeout=self.timeout)
            except StoreError as exc:
                raise DatabaseFault(str(exc)) from None
        else:
            try:
                self._conn = sqlite3.connect(self.where, isolation_level=None, check_same_thread=False, timeout=self.timeout)
                self._conn.execute(f"PRAGMA busy_timeout={int(self.timeout * 1000)}")
            except sqlite3.Error as exc:
                raise DatabaseFault(f"state database {self.name}: {exc}") from None
        return self._conn

    @property
    def _db(self) -> Any:
        return self._connect()

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                try:
                    self._conn.close()
                except Exception:  # closing what is already gone
                    pass
                self._conn = None

    def _sql(self, sql: str) -> str:
        return sql.replace("%", "%%").replace("?", "%s") if self.dialect == "mariadb" else sql

    def _fault(self, exc: BaseException) -> DatabaseFault:
        if self.dialect == "mariadb":
            from jailcore.store.mariadb import _lost, _why

            if _lost(exc) and self._depth <= 1:  # made again at the next statement
                self.close()
            return DatabaseFault(f"state database {self.name}: {_why(exc)}")
        return DatabaseFault(f"state database {self.name}: {exc}")

    def execute(self, sql: str, params: Sequence[Any] = ()) -> tuple[int, int | None]:
        """A statement of the open transaction (or alone, committed): (rows touched, the id an INSERT gave)."""
        with self._lock, self.transaction():
            try:
                cur = self._db.cursor()
                cur.execute(self._sql(sql), tuple(params))
                return int(cur.rowcount), cur.lastrowid
            except (sqlite3.Error, _driver_error()) as exc:
                raise self._fault(exc) from None

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        with self._lock:
            try:
                cur = self._db.cursor()
                cur.execute(self._sql(sql), tuple(params))
                names = [d[0] for d in cur.description or ()]
                got = [Row(r) if isinstance(r, dict) else Row(zip(names, r, strict=True)) for r in cur.fetchall()]
                if self._depth == 0 and self.dialect == "mariadb":
                    self._db.commit()  # a read alone: the next sees what others committed since
                return got
            except (sqlite3.Error, _driver_error()) as exc:
                raise self._fault(exc) from None

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction (the write lock taken at once on SQLite); nested ones join the outer."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            try:
                if self.dialect == "sqlite":
                    self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise self._fault(exc) from None
            self._depth = 1
            try:
                yield
            except BaseException:
                self._depth = 0
                conn = self._conn
                try:
                    if conn is not None:
                        conn.execute("ROLLBACK") if self.dialect == "sqlite" else conn.rollback()
                except Exception:  # the connection is gone with the transaction
                    pass
                raise
            self._depth = 0
            try:
                self._db.execute("COMMIT") if self.dialect == "sqlite" else self._db.commit()
            except (sqlite3.Error, _driver_error()) as exc:
                raise self._fault(exc) from None

    def put(self, table: str, key: dict[str, Any], values: dict[str, Any]) -> None:
        """The row of this key set to these values: an UPDATE, and an INSERT when there was none
        (in one transaction; SQLite and MariaDB spell an upsert differently)."""
        sets = ", ".join(f"`{k}` = ?" for k in values)
        where = " AND ".join(f"`{k}` = ?" for k in key)
        with self.transaction():
            touched, _ = self.execute(f"UPDATE {table} SET {sets} WHERE {where}", [*values.values(), *key.values()])
            if touched == 0 and not self.rows(f"SELECT 1 AS x FROM {table} WHERE {where}", list(key.values())):
                both = {**key, **values}
                marks = ", ".join("?" * len(both))
                self.execute(f"INSERT INTO {table} ({', '.join(f'`{k}`' for k in both)}) VALUES ({marks})", list(both.values()))


def _driver_error() -> type[BaseException]:
    """PyMySQL's base error, imported only where a MariaDB is used."""
    import sys

    module = sys.modules.get("pymysql")
    return module.MySQLError if module is not None else sqlite3.Error

