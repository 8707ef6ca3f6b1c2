"""The words SQLite and MariaDB spell differently in a table's definition, and the face of a
connection the portable statements run on (store/portable.py's `Db`). Imports nothing of the
store: the backends read the notices' and appeals' tables from here without a circle."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from jailcore.log import limits

Row = dict[str, Any]

# A table's words as each backend spells them: a row id numbered by the database, text columns
# as wide as log/limits.py says (a key: MariaDB indexes at most 191 characters of utf8mb4 in
# one), and a table's options. SQLite's text has no width: the store fits every value all the same.
_WIDTHS = {"key": limits.KEY, "steamid": limits.STEAMID, "name": limits.NAME, "word": limits.WORD, "short": limits.SHORT_WORD,
           "time": limits.TIME, "account": limits.ACCOUNT}
_WORDS = {
    "sqlite": {"id": "INTEGER PRIMARY KEY AUTOINCREMENT", "options": "", **{k: "TEXT" for k in _WIDTHS}},
    "mariadb": {"id": "BIGINT AUTO_INCREMENT PRIMARY KEY", "options": " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci",
                **{k: f"VARCHAR({n})" for k, n in _WIDTHS.items()}},
}


def spell(ddl: str, dialect: str) -> str:
    """A table's definition (`{id}`, `{options}`, and a text column of each width: `{key}`, `{steamid}`, ...) in this backend's words."""
    return ddl.format(**_WORDS[dialect])


def missing_table(exc: BaseException) -> bool:
    """Whether a fault is a table a database from before lacks (not upgraded yet): nothing of it to read."""
    return "no such table" in str(exc) or "doesn't exist" in str(exc)


def marks(n: int) -> str:
    return ",".join("?" * n)


class Reads(Protocol):
    """What a read needs: `store.reader.Reader` (the web page's, the command line's) has it too."""

    def rows(self, sql: str, params: Sequence[Any] = ...) -> list[Row]: ...


class Database(Reads, Protocol):
    """A connection for the portable statements (store/portable.py `Db`)."""

    def execute(self, sql: str, params: Sequence[Any] = ...) -> tuple[int, int | None]: ...
    def transaction(self) -> AbstractContextManager[None]: ...
    def put(self, table: str, key: dict[str, Any], values: dict[str, Any]) -> None: ...
