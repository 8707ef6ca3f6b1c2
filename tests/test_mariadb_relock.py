"""The MariaDB server restarted under a running daemon (a real mariadbd of the tests' own,
stopped by its pid and started again): the loop's connection for audit ids and the server's
named lock is made again, so new id blocks are taken (the ids still unique, every row once)
and the lock is held again (a second daemon for the server is refused). If another process
took the lock while the database was away, the daemon stops with one line, exit status 1,
and sends nothing more."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pymysql
import pytest

from jailcore.config.config import load
from jailcore.io.daemon import Daemon
from jailcore.sim.simserver import SimServer
from jailcore.store.filter import Filter
from jailcore.store.location import open_reader
from jailcore.store.mariadb import QUIET, MariaStore, connect, target
from jailcore.store.sqlite import StoreError
from tests.mariadb import USER, MariaServer, started
from tests.test_live import config_text, populate, running, sent, until
from tests.test_mariadb import _served_ids
from tests.test_mariadb_frozen import answers

ID_BLOCK = 20  # ids asked at a time: a few offences after the restart need new blocks (1,000 would take ~500 commands)


@pytest.fixture(scope="module")
def db_server(tmp_path_factory):
    """A server of this module's own: its tests stop and start it."""
    server = started(tmp_path_factory.mktemp("relock") / "db")
    try:
        yield server
    finally:
        server.stop()


def lock_name(url: str, server: str = "jail") -> str:
    return f"jailcore:{target(url).database}:{server}"[:64]


def holder(server: MariaServer, url: str) -> int | None:
    """The connection that holds the server's named lock, as the database says."""
    db = pymysql.connect(unix_socket=str(server.sock), user="root", autocommit=True)
    try:
        with db.cursor() as cur:
            cur.execute("SELECT IS_USED_LOCK(%s)", (lock_name(url),))
            return cur.fetchone()[0]
    finally:
        db.close()


def config_for(sim_port: int, tmp_path: Path, url: str):
    text = config_text(sim_port, tmp_path / "jail.sqlite3", rest=f'url = "{url}"\n').replace('name = "t"', 'name = "jail"')
    return load(text, "<t>", {})


async def offences(sim: SimServer, warden, numbers: range) -> None:
    """A prohibition beyond the two allowed each: a warning and a cancel (two ids, one command)."""
    for i in numbers:
        sim.say(warden, f"!prohibit p{i}")
        sim.flush()
        await asyncio.sleep(0.05)


def lock_is_ours(daemon: Daemon, server: MariaServer, url: str) -> bool:
    ids = daemon.store._ids
    return ids.open and holder(server, url) == ids.server_thread_id[0]


async def test_after_a_restart_new_id_blocks_are_taken_and_the_lock_is_held_again(tmp_path, db_server):
    url = db_server.database()
    sim = SimServer(password="pw")
    port = await sim.start()
    config = config_for(port, tmp_path, url)
    async with running(config, sim, id_block=ID_BLOCK) as daemon:
        warden, _ = populate(sim)
        sim.flush()
        await until(lambda: daemon.engine.state.warden == warden.userid, timeout=10)
        await offences(sim, warden, range(4))  # two taken, two refused
        await until(lambda: len(sent(sim, "jb_cancel_prohibition")) == 2, timeout=10)
        assert lock_is_ours(daemon, db_server, url)

        await asyncio.to_thread(db_server.stop)
        await offences(sim, warden, range(4, 6))  # while it is away: the ids in hand
        await until(lambda: len(sent(sim, "jb_cancel_prohibition")) == 4, timeout=15)
        await asyncio.to_thread(db_server.start)
        backend = daemon.writer.backend
        await until(lambda: backend.away is None and backend.journalled() == 0, timeout=30)
        await until(lambda: lock_is_ours(daemon, db_server, url), timeout=10)  # taken again on a new connection
        await until(lambda: answers(daemon.store), timeout=10)
        # The loop's first reads after the restart found it away: for QUIET seconds it asks for no block
        # (the back-off). With 20 ids a block, the burst below would use the ids in hand before then.
        await asyncio.sleep(QUIET + 0.5)
        held_end = daemon.ids.end  # the block in hand when the database came back

        # (b) the lock is held again: a second daemon for this server is refused, in one line.
        with pytest.raises(StoreError, match="served by another jailcore process") as refused:
            async with Daemon(config, rcon_backoff=(0.05, 0.2), auth_backoff=0.5):
                pass
        assert "\n" not in str(refused.value)

        # (a) more ids than the block in hand: new blocks come from the database again.
        await offences(sim, warden, range(6, 21))
        await until(lambda: len(sent(sim, "jb_cancel_prohibition")) == 19, timeout=20)
        await until(lambda: daemon.idle.is_set() and not daemon.store.pending("jail"), timeout=20)
        assert daemon.ids.end > held_end + ID_BLOCK, (held_end, daemon.ids.end)  # two blocks at least, after the restart
        assert daemon.stop_reason is None and not daemon.task_failures
    served = _served_ids(sim)
    assert len(served) == len(set(served)) and len(sent(sim, "jb_cancel_prohibition")) == 19  # each command once, each id its own
    reader = open_reader(url)
    try:
        rows = [r for r in reader.entries(Filter(server="jail")) if r["rule"] == "prohibitions.max"]
    finally:
        reader.close()
    assert len(rows) == 38 and len({r["id"] for r in rows}) == 38  # a warning and a cancel for each of 19, none doubled
    assert {r["status"] for r in rows} == {"delivered"}
    assert max(r["id"] for r in rows) >= held_end  # numbered from the blocks taken after the restart
    assert holder(db_server, url) is None  # let go at the stop


async def test_a_lock_taken_by_another_process_while_the_database_was_away_stops_the_daemon(tmp_path, db_server, caplog):
    url = db_server.database()
    sim = SimServer(password="pw")
    port = await sim.start()
    other = None
    account = f"'{USER}'@'127.0.0.1'"
    try:
        async with running(config_for(port, tmp_path, url), sim, id_block=ID_BLOCK) as daemon:
            warden, _ = populate(sim)
            sim.flush()
            await until(lambda: daemon.engine.state.warden == warden.userid, timeout=10)
            await offences(sim, warden, range(3))
            await until(lambda: len(sent(sim, "jb_cancel_prohibition")) == 1, timeout=10)
            # The database goes away; when it is back, another process (root, on the socket) takes the lock
            # before this daemon can connect again (its account refused meanwhile, for this test's order).
            await asyncio.to_thread(db_server.admin, f"ALTER USER {account} ACCOUNT LOCK")
            await asyncio.to_thread(db_server.stop)
            await asyncio.to_thread(db_server.start)
            other = pymysql.connect(unix_socket=str(db_server.sock), user="root", autocommit=True)
            with other.cursor() as cur:
                cur.execute("SELECT GET_LOCK(%s, 0), CONNECTION_ID()", (lock_name(url),))
                got, other_id = cur.fetchone()
            assert got == 1
            await asyncio.to_thread(db_server.admin, f"ALTER USER {account} ACCOUNT UNLOCK")
            with caplog.at_level(logging.CRITICAL, logger="jailcore"):
                await until(lambda: daemon.stop_reason is not None, timeout=15)
            assert daemon.exit_code == 1
            assert "served by another jailcore process now" in daemon.stop_reason and "\n" not in daemon.stop_reason
            said = [r.getMessage() for r in caplog.records if r.levelno == logging.CRITICAL]
            assert said == [f"jailcore stops: {daemon.stop_reason}"]
            cancels = len(sent(sim, "jb_cancel_prohibition"))
            await offences(sim, warden, range(3, 5))  # its commands are the other's to send now
            await asyncio.sleep(1.0)
            assert len(sent(sim, "jb_cancel_prohibition")) == cancels
        assert holder(db_server, url) == other_id  # its stop did not free the other's lock
    finally:
        if other is not None:
            other.close()
        await asyncio.to_thread(db_server.admin, f"ALTER USER {account} ACCOUNT UNLOCK")


def test_a_lock_still_held_by_its_own_lost_connection_is_taken_back(db_server):
    """After a network cut the server keeps the old session, and the lock with it, until it
    sees it gone (its wait_timeout: hours): the store ends that session (KILL, its own) and
    takes the lock on the new connection, not taking itself for another process."""
    url = db_server.database()
    store = MariaStore(url, on_loop=True)
    try:
        claim = store.claim("jail")
        held = store._ids  # alive on the server, holding the lock: lost as far as the store knows
        cut = connect(store.target)
        cut.server_thread_id = held.server_thread_id
        cut.close()
        with store._ids_lock:
            store._ids = cut
        deadline = time.monotonic() + 10
        while store._ids is cut or not store._ids.open:
            assert time.monotonic() < deadline, "the connection was not made again"
            time.sleep(0.1)
        assert holder(db_server, url) == store._ids.server_thread_id[0] != held.server_thread_id[0]
        assert claim.lost is None and "jail" in store._claims
        with pytest.raises(pymysql.MySQLError):
            held.ping(reconnect=False)  # that session was ended
        assert store.reserve_ids(5) > 0  # and the ids go on, on the new connection
    finally:
        store.close()


def test_after_a_restart_the_same_connection_number_of_another_process_is_never_ended(tmp_path):
    """Connection numbers start afresh when the server restarts, so the number of this
    process's old session may be another process's now, one that took the server's lock
    meanwhile: that session must not be ended (KILL) as if it were this process's own, and
    this process stops serving the server. Here the database host's clock was stepped forward
    after it came back (NTP on a host whose clock was behind at boot): its Uptime, read on the
    store's connection, says it has run for a day, not a few seconds."""
    db_server = started(tmp_path / "db")
    store: MariaStore | None = None
    other = None
    try:
        url = db_server.database()
        store = MariaStore(url, on_loop=True)
        claim = store.claim("jail")
        old = store._ids
        old_id = old.server_thread_id[0]
        connect_ids = store._connect_ids

        def stepped_clock():
            db = connect_ids()
            with db.cursor() as cur:
                cur.execute("SET TIMESTAMP = UNIX_TIMESTAMP() + 86400")  # what the session reads of the server's clock
            return db

        store._connect_ids = stepped_clock  # type: ignore[method-assign]
        with store._ids_lock:  # the store's check waits while the server restarts and the other process takes the lock
            db_server.stop()
            db_server.start()
            for _ in range(old_id + 50):  # connections until one is given the old session's number
                candidate = connect(target(url))
                if candidate.server_thread_id[0] == old_id:
                    other = candidate
                    break
                assert candidate.server_thread_id[0] < old_id, "the server numbered past the old session's number"
                candidate.close()
            assert other is not None
            with other.cursor() as cur:
                cur.execute("SELECT GET_LOCK(%s, 0) AS got", (lock_name(url),))
                assert cur.fetchone()["got"] == 1
        deadline = time.monotonic() + 10
        while claim.lost is None and store._ids is old:  # the check finds the session lost and looks at the lock
            assert time.monotonic() < deadline, "the store did not look at the lock again"
            time.sleep(0.1)
        time.sleep(0.3)  # a session ended goes in this
        other.ping(reconnect=False)  # the other process's session was not ended
        assert holder(db_server, url) == old_id
        assert claim.lost is not None and "served by another jailcore process" in claim.lost
    finally:
        if other is not None:
            other.close()
        if store is not None:
            store.close()
        db_server.stop()


def test_a_lock_left_on_a_session_made_again_halfway_is_still_taken_back(db_server):
    """The network cut again while the lock was being taken again: the new session got the lock,
    the answer was lost, and the server keeps that session (and the lock) as it kept the first.
    It is this process's own as much as the first: taken back, not a reason to stop."""
    url = db_server.database()
    store = MariaStore(url, on_loop=True)
    try:
        claim = store.claim("jail")
        with store._ids_lock:
            first = store._ids
            halfway = store._connect_ids()  # made again, as `_reconnect_ids` does, and marked before the locks
            store._marked(halfway)
            first.close()  # that first session is gone (the server ended it): its lock with it
            with halfway.cursor() as cur:
                cur.execute("SELECT GET_LOCK(%s, 5) AS got", (lock_name(url),))  # (the server ends `first` in a moment)
                assert cur.fetchone()["got"] == 1  # ... and its answer never came back: the store knows only `first`, lost
        deadline = time.monotonic() + 10
        while store._ids is first:
            assert time.monotonic() < deadline, "the connection was not made again"
            time.sleep(0.1)
        assert claim.lost is None and "jail" in store._claims
        assert holder(db_server, url) == store._ids.server_thread_id[0]
        with pytest.raises(pymysql.MySQLError):
            halfway.ping(reconnect=False)  # ended: it was this process's
    finally:
        store.close()
