"""A commit cut short while its COMMIT was in flight (the hang watch shut its socket: store.hang)
may still land: the server, once it runs again, reads the COMMIT it had already received and
applies it. The replay of the journal, on a fresh connection, must then not apply the same
transaction a second time, and a transaction that did not land must still be applied once.
The old session is the store's own writer connection, left with its rows and its journal
number sent and its COMMIT not yet answered, as the cut leaves it (a real MariaDB)."""

from __future__ import annotations

import threading
import time

from jailcore.store.mariadb import MariaStore, connect
from tests.mariadb import mariadb, mariadb_server  # noqa: F401  (fixtures)

LINE = "INSERT INTO loglines (server, round, time, line, audit) VALUES (?, ?, ?, ?, ?)"


def _lines(url: str) -> int:
    from jailcore.store.mariadb import target

    db = connect(target(url))
    try:
        with db.cursor() as cur:
            cur.execute("SELECT COUNT(*) AS n FROM loglines WHERE line = 'the cut one'")
            return int(cur.fetchone()["n"])
    finally:
        db.close()


def _cut_in_flight(store: MariaStore) -> int:
    """The writer's commit up to its COMMIT (its rows and its journal number sent), then cut:
    the transaction kept in the journal, as `MariaStore.commit` does when the connection is lost."""
    store._write(LINE, ("jail", 1, "2026-12-01T10:00:00", "the cut one", 0), later=True)
    store._seq += 1
    store._flush()
    store._mark_applied(store.db, store._seq)
    assert store.journal is not None
    store.journal.keep(store._seq, store._ops)
    store._ops = []
    return store._seq


def _replay_beside(store: MariaStore, url: str) -> tuple[threading.Thread, list[BaseException]]:
    from jailcore.store.mariadb import target

    fresh = connect(target(url), autocommit=False, batches=True)
    errors: list[BaseException] = []

    def replay() -> None:
        try:
            store._replay(fresh)
        except BaseException as exc:  # the test reads it
            errors.append(exc)
        finally:
            fresh.close()

    thread = threading.Thread(target=replay)
    thread.start()
    return thread, errors


def _store(url: str, tmp_path) -> MariaStore:
    store = MariaStore(url, journal=str(tmp_path / "journal"))
    store._write(LINE, ("jail", 1, "2026-12-01T09:00:00", "before", 0), later=True)
    store.commit()  # the origin's row in journal_applied exists, as after any first commit
    return store


def test_a_cut_commit_that_lands_late_is_not_applied_again_by_the_replay(mariadb, tmp_path):  # noqa: F811
    store = _store(mariadb, tmp_path)
    try:
        _cut_in_flight(store)
        thread, errors = _replay_beside(store, mariadb)
        time.sleep(0.5)  # the replay has looked (and, before the fix, run the rows again)
        store.db.commit()  # the server runs again and answers the COMMIT it had received
        thread.join(30)
        assert not thread.is_alive() and not errors
        assert _lines(mariadb) == 1, "the transaction was applied twice: by its own late COMMIT and by the replay"
        assert store.journal is not None and store.journal.waiting() == 0
    finally:
        store.close()


def test_a_cut_commit_that_never_lands_is_applied_once_by_the_replay(mariadb, tmp_path):  # noqa: F811
    store = _store(mariadb, tmp_path)
    try:
        _cut_in_flight(store)
        thread, errors = _replay_beside(store, mariadb)
        time.sleep(0.5)
        store.db.rollback()  # the server saw the connection closed before the COMMIT: rolled back
        thread.join(30)
        assert not thread.is_alive() and not errors
        assert _lines(mariadb) == 1
        assert store.journal is not None and store.journal.waiting() == 0
    finally:
        store.close()


def test_a_queued_request_whose_commit_is_in_flight_is_waited_for_not_applied_again(mariadb):  # noqa: F811
    """The admins' request queue (store.requests) asks `queued_applied` before it applies a
    request: a request of the queue whose COMMIT is still in flight must be waited for."""
    first = MariaStore(mariadb)
    other = MariaStore(mariadb)
    try:
        for number in (1, 2):
            first.queued_mark = ("box:requests", number)
            first._write(LINE, ("jail", 1, "2026-12-01T10:00:00", f"request {number}", 0), later=True)
            if number == 1:
                first.commit()
        first._seq += 1
        first._flush()
        first._mark_applied(first.db, first._seq)  # request 2 sent with its number, its COMMIT not answered
        seen: list[int] = []
        thread = threading.Thread(target=lambda: seen.append(other.queued_applied("box:requests")))
        thread.start()
        time.sleep(0.5)
        assert thread.is_alive() and not seen, f"read {seen} without waiting for the request in flight"
        first.db.commit()  # the server answers the COMMIT it had received
        thread.join(30)
        assert seen == [2]  # applied: the replay settles it as `applied before`, not a second time
    finally:
        first.queued_mark = None
        first.close()
        other.close()
