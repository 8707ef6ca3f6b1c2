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


# What a database refuses for one row's own values, not for itself: on the SQLite file a
# constraint (a duplicate, a CHECK or trigger of an operator's) or a value it cannot hold. The
# writer skips such a row, says it and counts it, and writes the others (store.writer); on
# MariaDB the store sets it aside in its journal itself (store.mariadb `VALUE_REFUSALS`).
ROW_ERRORS: tuple[type[BaseException], ...] = (sqlite3.IntegrityError, sqlite3.DataError)
