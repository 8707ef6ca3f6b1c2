"""The MariaDB store's connection for audit ids and the servers' named locks (`_ids`, outside
every write transaction), and how it is kept. A server is served by one process at a time:
`claim` takes its named lock (GET_LOCK), which lives on that connection and goes with it,
so a process that dies leaves none behind. A daemon's store checks it each second from a
thread of its own (`_keep_locks`): lost (a restart of the server, a timeout, a cut), it is
made again once the server answers and every claimed server's lock is taken again on it, so
the next id block is taken there and a second process for the server is still refused. A
lock that another process took meanwhile is the end of this process's serving that server:
its claim says why (`Claim.lost`) and the daemon stops with that line (`Daemon._more_ids`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time as clock
import uuid
from typing import Any

import pymysql

from jailcore.store.errors import DatabaseFault, StoreError

log = logging.getLogger("jailcore")

# The loop's store: how often a thread of its own asks whether the connection of its id blocks
# and named locks still answers, and makes it again (the locks taken again) once it does not.
# A restart, a timeout or a cut ends that connection, and the servers' locks go with it.
LOCKS_CHECK = 1.0
RESERVE_WAIT = 0.05  # the loop's wait for that connection while the check has it (it may be waiting on a server that hangs)


class Claim:
    """A server's named lock: one process serves it, whichever machine it runs on. `lost`: why
    this process no longer holds it (another took it while the database was away), the one
    line its daemon stops with; None while it is held, or being taken again."""

    def __init__(self, store: KeepsLocks, server: str):
        self.store, self.server = store, server
        self.lost: str | None = None

    def release(self) -> None:
        store = self.store
        with store._ids_lock:  # at the stop: the check of the locks (a second at most, on a server that hangs) goes first
            store._claims.pop(self.server, None)
            try:  # RELEASE_LOCK frees only a lock this connection holds: never the one another process took
                store._claimed(store._ids, self.server, release=True)
            except (DatabaseFault, pymysql.MySQLError):
                pass  # the connection is gone: so is the lock


class KeepsLocks:
    """Mixed into `MariaStore`, which supplies the attributes below, `_connect_ids()` (a new
    autocommit connection with the store's timeout) and `_fault(exc)` (a driver's error as
    a `DatabaseFault` of one line, without the password)."""

    path: str
    timeout: float
    on_loop: bool
    away: str | None
    _ids: Any
    _ids_lock: threading.Lock  # `_ids` is used by one thread at a time: the loop's blocks, the locks' check
    _marks: list[str]  # the locks that mark this process's connections for ids and locks, lost ones too (`_marked`)
    _claims: dict[str, Claim]  # the servers whose named locks this store holds (on `_ids`)
    _keeper: threading.Thread | None
    _closing: threading.Event
    target: Any

    def _connect_ids(self) -> Any:
        raise NotImplementedError

    def _fault(self, exc: BaseException) -> DatabaseFault:
        raise NotImplementedError

    def _lock_name(self, server: str) -> str:
        return f"jailcore:{self.target.database}:{server}"[:64]

    def claim(self, server: str) -> Claim:
        """The server's named lock, or a StoreError saying another process serves it. On the
        loop's store a thread then keeps it (`_keep_locks`): a connection lost is made again
        and the lock taken again on it."""
        with self._holding_ids(self.timeout):
            db = self._ids_now()
            try:
                self._marked(db)
            except pymysql.MySQLError as exc:
                raise self._fault(exc) from None
            self._claimed(db, server)
            claim = self._claims[server] = Claim(self, server)
        if self.on_loop and self._keeper is None:
            self._keeper = threading.Thread(target=self._keep_locks, name="jailcore server locks", daemon=True)
            self._keeper.start()
        return claim

    def _claimed(self, db: Any, server: str, release: bool = False) -> None:
        if release:
            try:
                with db.cursor() as cur:
                    cur.execute("SELECT RELEASE_LOCK(%s)", (self._lock_name(server),))
            except pymysql.MySQLError as exc:
                raise self._fault(exc) from None
            return
        holder = self._take_lock(db, server)
        if holder is not None:
            raise StoreError(f"server {server!r} is served by another jailcore process on {self.path} (connection {holder}); "
                             "one process per server")

    def _take_lock(self, db: Any, server: str) -> int | str | None:
        """GET_LOCK without waiting: None when this connection holds it now, else the holder's connection id."""
        name = self._lock_name(server)
        try:
            with db.cursor() as cur:
                cur.execute("SELECT GET_LOCK(%s, 0) AS got, IS_USED_LOCK(%s) AS holder", (name, name))
                row = cur.fetchone()
        except pymysql.MySQLError as exc:
            raise self._fault(exc) from None
        if row and row["got"] == 1:
            return None
        return row["holder"] if row and row["holder"] is not None else "unknown"

    @contextlib.contextmanager
    def _holding_ids(self, wait: float) -> Any:
        """`_ids` to this thread alone. The loop waits `wait` at most for it (the locks' check
        may be waiting on a server that hangs), then is told the database is busy: the ids in
        hand go on; the other threads wait their turn."""
        if not self._ids_lock.acquire(timeout=wait if self.on_loop else -1):
            raise DatabaseFault(f"state database {self.path}: its connection for ids and locks is busy (being checked); ask again")
        try:
            yield
        finally:
            self._ids_lock.release()

    def _ids_now(self) -> Any:
        """`_ids`, held (`_holding_ids`); lost, it is made again here off the loop (the command
        line, the page, the writer with the server there), the locks taken again with it. The
        loop's is made again by its keeper thread, never on the loop (a handshake may hang)."""
        if self._ids.open:
            return self._ids
        if self.on_loop or self.away is not None:
            raise DatabaseFault(f"state database {self.path}: cannot be reached (its connection for ids and locks is made again)")
        try:
            self._reconnect_ids()
        except StoreError as exc:
            raise DatabaseFault(str(exc)) from None
        return self._ids

    def _keep_locks(self) -> None:
        """The loop's store: each `LOCKS_CHECK`, is `_ids` still there (a ping)? Lost (a restart, a
        timeout, a cut), it is made again once the server answers, and the servers' locks with it."""
        lost = False
        while not self._closing.wait(LOCKS_CHECK):
            with self._ids_lock:
                try:
                    if self._ids.open:
                        self._ids.ping(reconnect=False)
                        continue
                except pymysql.MySQLError:
                    pass
                if not lost:
                    lost = True
                    log.warning("state database %s: its connection for audit ids and the servers' locks is lost; made again when it answers",
                                self.path)
                try:
                    self._reconnect_ids()
                except (StoreError, DatabaseFault):
                    continue  # not back yet (or lost again halfway): the next check tries again
                except Exception:  # a bug of ours must not end the check: the locks would never be taken again
                    log.exception("state database %s: the check of the servers' locks failed; it goes on", self.path)
                    continue
                lost = False
                log.warning("state database %s: connected again for audit ids; the locks of %s are held again", self.path,
                            ", ".join(sorted(self._claims)) or "no server")

    def _reconnect_ids(self) -> None:
        """`_ids` made again (held by this thread), with every claimed server's lock taken again
        on it. A server whose lock another process took meanwhile is let go: its claim says why,
        and its daemon stops (`Daemon.fail`) rather than send its commands beside the other's."""
        with contextlib.suppress(pymysql.MySQLError):
            self._ids.close()
        fresh = self._connect_ids()
        try:
            self._marked(fresh)
            for server, claim in list(self._claims.items()):
                holder = self._retake(fresh, server)
                if holder is not None:
                    claim.lost = (f"server {server!r} is served by another jailcore process now (connection {holder} on {self.path}): "
                                  "its named lock went with this process's connection while the database was away, and the other "
                                  "took it first; this process stops serving it, so its commands are not sent twice")
                    del self._claims[server]
                    log.error("%s", claim.lost)
        except (DatabaseFault, pymysql.MySQLError) as exc:
            with contextlib.suppress(pymysql.MySQLError):
                fresh.close()
            if isinstance(exc, DatabaseFault):
                raise
            raise self._fault(exc) from None
        self._ids = fresh

    def _marked(self, db: Any) -> None:
        """`db` marked as this process's: it holds a lock of its own, named afresh (`_marks`), by
        which a session of it left on the server is known for ours, and no other process's: a
        connection's number is not (the server numbers them afresh when it restarts, and the
        clock its Uptime is read by may be stepped)."""
        if getattr(db, "jailcore_mark", None) is not None:
            return
        mark = f"jailcore-own:{uuid.uuid4().hex}"
        with db.cursor() as cur:
            cur.execute("SELECT GET_LOCK(%s, 0)", (mark,))
        db.jailcore_mark = mark
        self._marks.append(mark)

    def _ours(self, db: Any, holder: int | str) -> bool:
        """Whether the session `holder` is one of this process's own (it holds one of its marks).
        A mark no session holds any more is forgotten (that session is gone)."""
        for mark in list(self._marks):
            if mark == getattr(db, "jailcore_mark", None):
                continue
            with db.cursor() as cur:
                cur.execute("SELECT IS_USED_LOCK(%s) AS holder", (mark,))
                row = cur.fetchone()
            if row is None or row["holder"] is None:
                self._marks.remove(mark)
            elif row["holder"] == holder:
                return True
        return False

    def _retake(self, db: Any, server: str) -> int | str | None:
        """The server's lock on `db`: None once held, else who holds it. The holder may be a
        session of this process's own, lost (a network cut: the server keeps it until it sees it
        closed, its wait_timeout), known by its mark (`_marked`): that one is ended (a user may
        KILL its own connections) and the lock taken. Any other holder is another process's."""
        holder = self._take_lock(db, server)
        if holder is None or not self._ours(db, holder):
            return holder
        try:
            with db.cursor() as cur:
                cur.execute("KILL CONNECTION %s", (holder,))
        except pymysql.MySQLError:
            pass  # ended meanwhile, or not ours to end: asked again below
        clock.sleep(0.1)  # the lock goes when the server has ended the connection
        holder = self._take_lock(db, server)
        if holder is not None:
            raise DatabaseFault(f"state database {self.path}: the lock of server {server!r} is still held by this process's lost connection")
        return None
