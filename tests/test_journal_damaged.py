"""A damaged MariaDB journal (issue 34): its header overwritten and its last third cut off.
Before, the daemon started without a word, its writer dead: no row ever became durable, every
command was held and then marked `failed` ("no answer after 3 tries") though none reached the
game, and the journal's CT ban never reached the database. Now it is found at start, said in
one line with what it holds, put aside (renamed) for an operator, and what can be read of it
(store/salvage.py reads SQLite's pages itself) is replayed. A real MariaDB the test starts and
stops by its pid, a daemon driven over UDP and RCON."""

from __future__ import annotations

import asyncio
import logging
import os

import pymysql

from jailcore.config.config import load
from jailcore.sim.simserver import SimServer
from jailcore.store.journal import DAMAGED, Journal
from jailcore.store.mariadb import MariaStore, target
from tests.mariadb import mariadb, mariadb_server, started
from tests.test_live import config_text, running, sent, settled, special_days, until
from tests.test_sourcebans_own import query as rows
from tests.test_store_values import act

__all__ = ["mariadb", "mariadb_server"]


def damage(path: os.PathLike | str) -> int:
    """The first 100 bytes (SQLite's header) overwritten, the last third cut off; the size left."""
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.write(bytes(range(7, 107)))
        f.truncate(size * 2 // 3)
    return size * 2 // 3


def damaged_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if "was damaged" in r.getMessage()]


async def test_a_damaged_journal_is_said_put_aside_and_its_ctban_replayed(tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    server = started(tmp_path / "db")
    sim = SimServer(password="pw")
    try:
        url = server.database()
        port = await sim.start()
        text = config_text(port, tmp_path / "jail.sqlite3", rest=f'url = "{url}"\n').replace('name = "t"', 'name = "jail"')
        async with running(load(text, "<t>", {}), sim, stop_sim=False) as daemon:
            warden, _ = await settled(sim, daemon)
            await asyncio.to_thread(server.stop)
            special_days(sim, warden, 3)  # the third is a CT ban: its row waits in the journal
            sim.flush()
            await until(lambda: sent(sim, f"jb_ctban_set #{warden.userid}") and daemon.idle.is_set(), timeout=20)
            guard = sim.add_player("Второй", "CT")
            sim.round_end()
            sim.round_start()
            sim.make_warden(guard)
            sim.flush()
            await until(lambda: daemon.engine.state.warden == guard.userid, timeout=10)
            for i in range(30):  # more transactions after the CT ban's: the file grows past it
                sim.say(guard, f"!prohibit запрет{i}")
                sim.flush()
                await until(lambda i=i: len(sent(sim, "jb_cancel_prohibition")) >= i - 1, timeout=10)
            await until(lambda: daemon.idle.is_set() and daemon.writer.backend.journalled() > 10, timeout=20)
        journal = tmp_path / "jail.journal"
        left = damage(journal)
        assert left > 8192
        await asyncio.to_thread(server.start)
        caplog.clear()
        async with running(load(text, "<t>", {}), sim, stop_sim=False) as daemon:
            (line,) = damaged_lines(caplog)
            assert str(journal) in line and "kept aside as" in line and "replayed now" in line and "CT ban" in line, line
            # The daemon works: its writes reach the database, its commands the game, and they are answered.
            sim.round_end()
            sim.round_start()
            sim.make_warden(guard)
            for i in range(3):
                sim.say(guard, f"!prohibit новый{i}")
            sim.flush()
            before = len(sent(sim, "jb_cancel_prohibition"))
            await until(lambda: len(sent(sim, "jb_cancel_prohibition")) > before - 1 and daemon.idle.is_set(), timeout=10)
            await until(lambda: not daemon.store.pending("jail"), timeout=10)
            assert daemon.writer.error is None
        failed = rows(url, "SELECT id, reply FROM audit WHERE status = 'failed'")
        assert not failed, failed  # nothing marked failed that never reached the game
        (ctban,) = rows(url, "SELECT steamid, status FROM audit WHERE action = 'ctban'")
        assert ctban["steamid"] == warden.steamid
        put = [f for f in os.listdir(tmp_path) if DAMAGED in f]
        assert put and all(f.startswith("jail.journal" + DAMAGED) and f.endswith(".replayed") for f in put), put
        assert Journal(journal, exact=True).waiting() == 0  # a fresh journal in its place, empty
    finally:
        await sim.stop()
        server.stop()


def _op(n: int, name: str = "") -> tuple:
    return ("INSERT INTO audit (id, server, time, round, day, action, rule, ref, userid, steamid, name, reason, detail, command, status) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [n, "jail", f"2026-12-01T10:{n // 60:02d}:{n % 60:02d}", 1, 1, "ctban" if n == 2 else "warn", "r", "1", n, f"STEAM_1:0:{n}",
             name or f"Игрок {n}", "r" * (4000 if n % 3 else 20), "{}", None, "pending"], False)


def test_what_can_be_read_of_a_damaged_journal_is_replayed_once_and_the_rest_said(tmp_path, mariadb, caplog):
    """A journal of 60 transactions: its header overwritten, its last third cut off. What is
    read is replayed, in order; a transaction the database had applied before (a commit that
    landed before the crash) is not applied again; the file is kept, marked `.replayed`, and a
    second start replays nothing."""
    caplog.set_level(logging.WARNING)
    path = tmp_path / "state.journal"
    MariaStore(mariadb).close()
    first = Journal(path)
    for n in range(1, 61):
        first.keep(n, [_op(n)])
    origin = first.origin
    first.close()
    t = target(mariadb)
    db = pymysql.connect(host=t.host, port=t.port, user=t.user, password=t.password, database=t.database, autocommit=True)
    with db.cursor() as cur:  # the first transaction had landed before the crash (its number recorded with it)
        cur.execute("INSERT INTO journal_applied (origin, seq) VALUES (%s, 1)", (origin,))
    db.close()
    damage(path)
    store = MariaStore(mariadb, str(path))
    try:
        (line,) = damaged_lines(caplog)
        assert "transaction(s) of it could be read" in line and "audit" in line and "1 CT ban" in line
        got = [r["id"] for r in rows(mariadb, "SELECT id FROM audit ORDER BY id")]
        assert 1 not in got and 2 in got and len(got) >= 20  # the first was applied before: not twice
        assert got == sorted(got) and got == list(range(2, 2 + len(got)))  # what is read is the front, in order
        assert store.journal is not None and store.journal.damaged is not None
        assert os.path.exists(f"{store.journal.damaged[0]}.replayed")
        store.record("jail", act(61), 1, None, "pending", 1000)
        store.commit()
    finally:
        store.close()
    caplog.clear()
    again = MariaStore(mariadb, str(path))
    try:
        assert damaged_lines(caplog) == [] and again.journal is not None and again.journal.damaged is None
    finally:
        again.close()
    assert len(rows(mariadb, "SELECT id FROM audit")) == len(got) + 1
