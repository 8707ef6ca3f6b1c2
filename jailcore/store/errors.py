"""Every error the store raises, in one module, so the floors above catch them by the store's
own names (`from jailcore.store import StoreError`) and never by a backend's: `except
DATABASE_ERRORS` stands where `except sqlite3.Error` stood. A backend whose driver raises
something else (MariaDB's) turns it into `DatabaseFault` at its edge. Imports nothing of the
store; each class keeps the bases it had where it was defined before (issue 35 moved them
here), so no `except` changed meaning."""

from __future__ import annotations

import sqlite3

from jailcore.log.errors import AdminRequestError, AuditError, StateError

__all__ = ["DATABASE_ERRORS", "ROW_ERRORS", "AccountError", "AppealError", "AuditError", "Away", "AwayError", "DatabaseFault", "Gone",
           "Lost", "PardonError", "ProposalError", "Refused", "StoreError", "Taken", "Unreachable", "errors_or"]


class StoreError(StateError):
    """The state database cannot be used: the message says which database and why, in one line
    (a file that is not ours, a newer schema, a URL refused; never a password)."""


class Unreachable(StoreError):
    """A database server cannot be reached (not a refusal: a wrong password or no such database is a StoreError)."""


class Away(StoreError):
    """The database server is away and this store has no journal (the command line, the web
    page): the message says so; nothing was written."""


class DatabaseFault(StateError):
    """A database that is there failed a statement (a lost connection, a full disk, a lock
    waited out): the message says which database and why, without its password."""


class Lost(DatabaseFault):
    """The connection to the server was lost during a statement (did it land? the caller asks)."""


class Refused(DatabaseFault):
    """The server refused a statement (`code`, MariaDB's error number; see mariadb.VALUE_REFUSALS)."""

    def __init__(self, message: str, code: int | None = None):
        super().__init__(message)
        self.code = code


class Taken(StateError):
    """Every journal beside the path is held by another process."""


class Gone(StateError):
    """The database went away during a replay of queued requests: what is left stays queued."""


class PardonError(AdminRequestError, ValueError):
    """A pardon refused by its checks (no such entry, another server's, nothing to pardon, pardoned already)."""


class ProposalError(AdminRequestError, ValueError):
    """An answer to a proposal refused by its checks (no such proposal, answered already, no longer waiting)."""


class AccountError(AdminRequestError, ValueError):
    """A web account's change refused (its name, its role, the last owner)."""


class AppealError(AdminRequestError, ValueError):
    """An appeal or an answer refused: the message says why, in one line (a page shows it)."""


class AwayError(AdminRequestError):
    """The database is away and an admin's request could not be kept: nothing was written."""


DATABASE_ERRORS: tuple[type[BaseException], ...] = (sqlite3.Error, DatabaseFault)


def errors_or(*others: type[BaseException]) -> tuple[type[BaseException], ...]:
    """A database's errors and these, for one `except` (a bad file is one line, never a traceback)."""
    return (*DATABASE_ERRORS, *others)


# What a database refuses for one row's own values, not for itself: on the SQLite file a
# constraint (a duplicate, a CHECK or trigger of an operator's) or a value it cannot hold. The
# writer skips such a row, says it and counts it, and writes the others (store.writer); on
# MariaDB the store sets it aside in its journal itself (store.mariadb `VALUE_REFUSALS`).
ROW_ERRORS: tuple[type[BaseException], ...] = (sqlite3.IntegrityError, sqlite3.DataError)
