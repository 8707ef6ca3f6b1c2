"""What a database may raise, for the floors above that must catch it without naming a
driver: `except DATABASE_ERRORS` stands where `except sqlite3.Error` stood. A backend whose
driver raises something else (MariaDB's) turns it into `DatabaseFault` at its edge."""

from __future__ import annotations

import sqlite3

from jailcore.log.errors import StateError


class DatabaseFault(StateError):
    """A database that is there failed a statement (a lost connection, a full disk, a lock
    waited out): the message says which database and why, without its password."""


DATABASE_ERRORS: tuple[type[BaseException], ...] = (sqlite3.Error, DatabaseFault)


def errors_or(*others: type[BaseException]) -> tuple[type[BaseException], ...]:
    """A database's errors and these, for one `except` (a bad file is one line, never a traceback)."""
    return (*DATABASE_ERRORS, *others)
