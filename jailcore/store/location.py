"""Which backend a state database is on, from how it is named: `mysql://` (or `mariadb://`)
is a MariaDB server, anything else a SQLite file. The MariaDB driver is imported only for
a URL: the command line on a SQLite file starts as fast as before."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jailcore.config.config import Config
    from jailcore.store.interface import AuditLog, StateStore
    from jailcore.store.sourcebans import SourceBans
    from jailcore.store.writer import Writer


def is_url(where: str) -> bool:
    return where.startswith(("mysql://", "mariadb://"))


def shown(where: str) -> str:
    """The database as it may be printed: a URL never with its password."""
    if is_url(where):
        from jailcore.store.mariadb import shown as without_password

        return without_password(where)
    return where


def open_store(where: str, journal: str | None = None, requests: str | None = None, on_loop: bool = False) -> StateStore:
    """The read-write store (the daemon's, the web page's requests, the command line's). A
    daemon on a database server gives a `journal` file: its writes wait there while the
    server is away (store.journal); and its machine's `requests` queue, which it applies
    each second (store.requests). `on_loop`: read on an event loop, which a database server
    that hangs may hold only briefly (`mariadb.LOOP_TIMEOUT`)."""
    if is_url(where):
        from jailcore.store.mariadb import MariaStore

        return MariaStore(where, journal, requests, on_loop)
    from jailcore.store.sqlite import Store

    return Store(where)


def open_reader(where: str) -> AuditLog:
    """The read side; a SQLite file is opened read-only."""
    if is_url(where):
        from jailcore.store.mariadb import open_reader as maria_reader

        return maria_reader(where)
    from jailcore.store.reader import open_sqlite

    return open_sqlite(where)


def upgrade(where: str) -> str:
    """Brings the database to this version's schema in place; says what it did, in one line."""
    if is_url(where):
        from jailcore.store.mariadb import connect, target
        from jailcore.store.mariadb import upgrade as upgrade_tables

        t = target(where)
        db = connect(t, autocommit=False)
        try:
            found, now = upgrade_tables(db, t.shown)
            db.commit()
        finally:
            db.close()
        name = t.shown
    else:
        import sqlite3

        from jailcore.store.errors import StoreError
        from jailcore.store.sqlite import check_ours, refuse_link
        from jailcore.store.sqlite import upgrade as upgrade_file

        refuse_link(where)
        db3 = sqlite3.connect(where)
        try:
            check_ours(db3)
            found, now = upgrade_file(db3, where)
            db3.commit()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"state database {where}: {exc}") from None
        finally:
            db3.close()
        name = where
    if found == now:
        return f"state database {name}: up to date (schema version {now})"
    return f"state database {name}: upgraded from schema version {found} to {now}"


def daemon_store(state_url: str, state_path: str) -> StateStore:
    """A daemon's store for its reads on the loop (its writes go to `daemon_writer`'s)."""
    return open_store(state_url or state_path, on_loop=True)


def daemon_writer(state_url: str, state_path: str, checkpoint_interval: float = 1.0) -> Writer:
    """The daemon's writer thread and its own connection: on a database server with the
    journal beside `[state] path` (its writes wait there while the server is away), else the file."""
    from jailcore.store.errors import DATABASE_ERRORS
    from jailcore.store.writer import Writer

    if state_url:
        from jailcore.store.journal import journal_path
        from jailcore.store.requests import requests_path

        journal = journal_path(state_path)
        writer = Writer(lambda: open_store(state_url, journal, requests_path(state_path)), checkpoint_interval, DATABASE_ERRORS)
    else:
        writer = Writer(lambda: open_store(state_path), checkpoint_interval, DATABASE_ERRORS)
    writer.start()
    if writer.error is not None:  # its connection or its journal could not be opened: said now, in one line (before: nothing, and no row was ever durable)
        from jailcore.log.errors import StateError
        from jailcore.store.errors import StoreError

        error = writer.error
        raise StoreError(str(error) if isinstance(error, StateError) else
                         f"state database {shown(state_url or state_path)} cannot be written: {type(error).__name__}: {error}")
    return writer


def bridge_for(config: Config, where: str) -> SourceBans | None:
    """The SourceBans++ bridge of a server whose config has `[sourcebans] url` (None without:
    its driver is not even imported); `where` is the server's state database. Its pardons
    from SourceBans++ are written through a store of their own (it runs in a worker thread)."""
    if config.sourcebans is None:
        return None
    from jailcore.store.request_kinds import PardonRequest
    from jailcore.store.sourcebans import SourceBans

    def pardon(action_id: int, by: str, reason: str) -> object:
        store = open_store(where)
        try:
            return store.submit(PardonRequest(action_id, by, reason))
        finally:
            store.close()

    return SourceBans(config.sourcebans, config.server_name, shown(where), open_reader(where), pardon)
