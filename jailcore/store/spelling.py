"""What SQLite and MariaDB spell differently: the words of a table's definition, and in a
statement the few things a `Dialect` spells (a placeholder, an upsert, a field of JSON text, a
case-blind part of a name, an index to read a range on; `store.mariadb.MariaDialect` is
MariaDB's); and the face of a connection the portable statements run on (store/portable.py's
`Db`). Imports nothing of the store but its filter's type: the backends and the reader read it
without a circle."""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from jailcore.log import limits

if TYPE_CHECKING:
    from jailcore.store.filter import Filter



class Row(dict[str, Any]):
    """One row as the store read it: column to value, frozen. It is a dict (JSON, `dict(row)`,
    `{**row, ...}`, a template's `row.name` read it as one), but a page or a command that wants
    another shape makes its own copy: a row changed in place would be a row the database never held."""

    __slots__ = ()

    def _frozen(self, *args: object, **kwargs: object) -> None:
        raise TypeError("a row the store read is not changed in place: make a copy ({**row, ...})")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _frozen  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:  # copy and pickle make it whole, not key by key
        return (Row, (dict(self),))

# A table's words as each backend spells them: a row id numbered by the database, text columns
# as wide as log/limits.py says (a key: MariaDB indexes at most 191 characters of utf8mb4 in
# one), and a table's options. SQLite's text has no width: the store fits every value all the same.
_WIDTHS = {"key": limits.KEY, "steamid": limits.STEAMID, "name": limits.NAME, "word": limits.WORD, "short": limits.SHORT_WORD,
           "time": limits.TIME, "account": limits.ACCOUNT}
# `int`, `int64`: a number, a row id; `audit_ref`: a column naming an audit row (SQLite's tables
# have always said so, unenforced; MariaDB's never did); `text_default`: a free text's default
# where the tables have always had one (SQLite's; MariaDB's older releases take no default on TEXT).
_WORDS = {
    "sqlite": {"id": "INTEGER PRIMARY KEY AUTOINCREMENT", "options": "", **{k: "TEXT" for k in _WIDTHS},
               "int": "INTEGER", "int64": "INTEGER", "audit_ref": " REFERENCES audit (id)", "text_default": " DEFAULT ''"},
    "mariadb": {"id": "BIGINT AUTO_INCREMENT PRIMARY KEY", "options": " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci",
                **{k: f"VARCHAR({n})" for k, n in _WIDTHS.items()}, "int": "INT", "int64": "BIGINT", "audit_ref": "", "text_default": ""},
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


class Dialect:
    """How SQLite spells what the backends say differently; `store.mariadb` has MariaDB's."""

    name: ClassVar[str] = "sqlite"
    # An entry's place in the log, the order readers follow: a column numbered at insert,
    # not the id, since several processes (`run --workers N`) take their ids from blocks of
    # their own, so a later row may have a lower id.
    pos: ClassVar[str] = "seq"  # store.sqlite numbers it at insert (its SEQ_SCHEMA), as MariaDB does
    by_id: ClassVar[str] = "INDEXED BY audit_seq"  # a scan of a range of places that no other index may turn into a walk of every row
    missing: ClassVar[tuple[type[BaseException], ...]] = (sqlite3.OperationalError,)  # a table or column a database from before lacks
    # The index a filter of one action is read on, its places in order, the time beside: a
    # rare action (the bans in force, ?action=ban) costs its own rows, not the whole range.
    # Empty where the database has no such index yet (a file not yet upgraded).
    by_action: str = "INDEXED BY audit_action"
    names: bool = True  # the database keeps the `names` table (the players search over the whole log)
    by_name: str = ""  # a name's part read on a narrow index of its own ('' here: SQLite reads the range itself, fast enough)

    def sql(self, text: str) -> str:
        return text

    @functools.cache  # noqa: B019  (a few dialects, each for the life of the process: spelled once a statement)
    def upsert(self, table: str, key: tuple[str, ...], columns: tuple[str, ...]) -> str:
        """The row of this key inserted, or its columns set when it is there (store.rows' STATE, LINK, ...)."""
        names = (*key, *columns)
        return (f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))}) ON CONFLICT({', '.join(key)}) "
                f"DO UPDATE SET {', '.join(f'{c} = excluded.{c}' for c in columns)}")

    def json_field(self, column: str, field: str) -> str:
        """A field of a column of JSON text, as a value."""
        return f"json_extract({column}, '$.{field}')"

    def has_name(self, value: str, column: str = "name") -> tuple[str, object]:
        """Part of a name, case-blind: SQLite folds only ASCII case, so a function of ours does it."""
        return f"jc_has({column}, ?)", value

    def hint(self, f: Filter) -> str:
        """The index a page of the log under this filter is read on."""
        if f.action and self.by_action:
            return self.by_action
        if f.name and self.by_name:
            return self.by_name
        return self.by_id

    def where(self, f: Filter) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        for column, how, value in f.terms():
            if how == "=":
                clauses.append(f"{column} = ?")
                params.append(value)
            elif how == "rule":
                clauses.append("(rule = ? OR rule LIKE ?)")
                params += [value, f"{value}.%"]
            elif how == ">=":
                clauses.append(f"{column} >= ?")
                params.append(value)
            else:
                clause, param = self.has_name(str(value))
                clauses.append(clause)
                params.append(param)
        return (" AND ".join(clauses) or "1 = 1"), params


class UnplacedDialect(Dialect):
    """A file of schema version 1 or before, read before a daemon upgraded it: its audit has
    no `seq`, and one process wrote it, so its ids are its order."""

    pos: ClassVar[str] = "id"
    by_id: ClassVar[str] = "NOT INDEXED"  # the id is the rowid: its range is read in one sweep
    by_action = ""


def contains(text: str | None, part: str) -> bool:
    """`jc_has(column, part)`: part of a name, case-blind (Cyrillic too), for SQLite, which folds only ASCII case."""
    return part in (text or "").casefold()
