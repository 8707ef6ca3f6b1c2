"""The state database on a real MariaDB server that the tests start themselves (tests/mariadb.py):
the same store interface as the SQLite file, shared by several daemons and read whole by the
command line; refused at start in one line without the password; ids unique across
processes; one process per server; schema versions."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pymysql
import pytest

from jailcore.config.config import load
from jailcore.engine.actions import Action, Target
from jailcore.sim.simserver import SimServer
from jailcore.store.filter import Filter
from jailcore.store.location import open_reader, open_store
from jailcore.store.mariadb import SCHEMA_VERSION, MariaStore, target
from jailcore.store.sqlite import PardonError, StoreError
from tests.mariadb import PASSWORD, mariadb, mariadb_server
from tests.test_live import config_text, populate, running, sent, special_days, until
from tests.test_mqtt import broker, needs_broker

__all__ = ["broker", "mariadb", "mariadb_server"]


def act(n: int, name: str = "Игрок", action: str = "slay", rule: str = "prohibitions.max") -> Action:
    return Action(time=f"2026-12-01T10:00:{n % 60:02d}", round=1 + n // 10, action=action, rule=rule, ref="3.1", reason="за дело",
                  target=Target(userid=n, steamid=f"STEAM_1:0:{n}", name=name))


def jailcore(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    full = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "jailcore", *args], capture_output=True, text=True, timeout=60, env=full)


def test_the_store_keeps_state_audit_and_requests(mariadb):
    store = MariaStore(mariadb)
    try:
        ids = [store.record("a", act(i, "Ёжик Вася" if i == 3 else "Игрок"), 1, f"jb_slay #{i}", "pending") for i in range(1, 6)]
        store.save_state("a", {"round": 7, "ctbans": {}}, "2026-12-01T10:00:05")
        store.mark(ids[0], "delivered", "ok")
        assert [i for i, _ in store.pending("a")] == ids[1:]
        assert store.load_state("a") == {"round": 7, "ctbans": {}}
        pardon = store.request_pardon(ids[0], "Админ", "ошибка")
        with pytest.raises(PardonError, match="already pardoned by Админ"):
            store.request_pardon(ids[0], "Другой", "ещё раз")
        assert store.requests("a")[0][0]["id"] == pardon
    finally:
        store.close()
    reader = open_reader(mariadb)
    try:
        assert [r["id"] for r in reader.entries(Filter(player="ёЖИК"))] == [ids[2]]  # case-blind on Cyrillic, as on SQLite
        assert [r["id"] for r in reader.entries(Filter(player="#4"))] == [ids[3]]
        assert reader.pardons_for(ids)[ids[0]]["by"] == "Админ"
        assert reader.pending("a")[0] == 4 and reader.servers() == ["a"]
        assert [r["id"] for r in reader.window(Filter(server="a"), max(ids), 0, 2)] == ids[:-3:-1]
        assert reader.audit_servers() == {"a"}
    finally:
        reader.close()


def test_audit_ids_are_unique_across_processes_sharing_a_database(mariadb):
    a, b = MariaStore(mariadb), MariaStore(mariadb)
    try:
        got = {"a": [], "b": []}
        for i in range(200):  # interleaved, as two daemons write: each takes blocks of its own
            for name, store in (("a", a), ("b", b)):
                got[name].append(store.record(name, act(i), 1, None, "pending"))
            if i % 50 == 0:
                a.commit()
                b.commit()
        a.commit()
        b.commit()
        everything = got["a"] + got["b"]
        assert len(set(everything)) == 400
        assert got["a"] == sorted(got["a"]) and got["b"] == sorted(got["b"])  # per server, ids only grow (the shim's repeat check)
        a.skip_ids(1000)
        assert a.record("a", act(1), 1, None, "pending") > max(everything) + 999
    finally:
        a.close()
        b.close()


def test_one_process_per_server(mariadb):
    a, b = MariaStore(mariadb), MariaStore(mariadb)
    try:
        claim = a.claim("jail-1")
        with pytest.raises(StoreError, match="served by another jailcore process"):
            b.claim("jail-1")
        b.claim("jail-2").release()
        claim.release()
        b.claim("jail-1").release()
    finally:
        a.close()
        b.close()


def test_a_database_that_refuses_is_one_line_without_the_password(mariadb_server, mariadb):
    wrong = mariadb_server.url(target(mariadb).database, password="not-the-password")
    cases = {
        "refused the user or its password": wrong,
        "no such database": mariadb_server.url("nowhere"),
        "cannot be reached": f"mysql://jailcore:{PASSWORD}@127.0.0.1:1/jailcore",
    }
    for why, url in cases.items():
        with pytest.raises(StoreError) as caught:
            open_store(url)
        line = str(caught.value)
        assert why in line and "\n" not in line and PASSWORD not in line and "not-the-password" not in line
        done = jailcore("status", env={"JAILCORE_STATE_URL": url})
        assert done.returncode == 1 and why in done.stderr and PASSWORD not in done.stderr + done.stdout
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_a_newer_schema_is_refused_and_an_older_one_upgraded(mariadb_server):
    url = mariadb_server.database()
    db = pymysql.connect(**_args(url), autocommit=True)
    with db.cursor() as cur:  # a database of version 0: before the schema was versioned, a link without its daemon columns
        cur.execute("CREATE TABLE audit (id BIGINT PRIMARY KEY, server VARCHAR(191) NOT NULL, time VARCHAR(40) NOT NULL, round INT NOT NULL, "
                    "day INT NOT NULL, action VARCHAR(32) NOT NULL, rule VARCHAR(191) NOT NULL, ref VARCHAR(191) NOT NULL, userid BIGINT, "
                    "steamid VARCHAR(64), name VARCHAR(255), reason TEXT NOT NULL, detail LONGTEXT NOT NULL, command TEXT, "
                    "status VARCHAR(32) NOT NULL, reply TEXT)")
        cur.execute("INSERT INTO audit VALUES (41, 'old', '2026-11-30T20:00:00', 1, 1, 'slay', 'r', '1', 3, 'STEAM_1:0:3', 'Старый', "
                    "'x', '{}', 'jb_slay #3', 'delivered', 'ok')")
        cur.execute("CREATE TABLE link (server VARCHAR(191) PRIMARY KEY, rcon VARCHAR(32) NOT NULL, outbox INT NOT NULL, "
                    "last_line VARCHAR(40), mode VARCHAR(16) NOT NULL, updated VARCHAR(40) NOT NULL)")
    done = jailcore("db", "upgrade", "--state-db", url)
    assert done.returncode == 0, done.stderr
    assert f"version 0 to {SCHEMA_VERSION}" in done.stdout and PASSWORD not in done.stdout
    store = MariaStore(url)
    try:
        store.save_link("old", "open", 0, None, "enforce", "2026-12-01T10:00:00", "running", "")
        assert store.record("old", act(1), 1, None, "pending") > 41  # the id blocks start above the ids there
        store.commit()
    finally:
        store.close()
    assert "up to date" in jailcore("db", "upgrade", "--state-db", url).stdout
    with db.cursor() as cur:
        cur.execute("UPDATE jailcore_schema SET version = %s", (SCHEMA_VERSION + 1,))
    with pytest.raises(StoreError) as caught:
        MariaStore(url)
    assert f"schema version {SCHEMA_VERSION + 1}, newer than this jailcore's {SCHEMA_VERSION}" in str(caught.value)
    done = jailcore("db", "upgrade", "--state-db", url)
    assert done.returncode == 1 and "newer than this jailcore's" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    db.close()


def _args(url: str) -> dict:
    t = target(url)
    return {"host": t.host, "port": t.port, "user": t.user, "password": t.password, "database": t.database}


async def ban_across(configs: dict, sims: dict) -> dict:
    """Daemons a and b on the broker; a's warden, banned from CT on a, is banned at b's door
    too (its jb_ctban_set); returns the wardens. Both daemons stopped, everything written."""
    async with running(configs["a"], sims["a"]) as a, running(configs["b"], sims["b"]) as b:
        for d in (a, b):
            d.mqtt.backoff_min, d.mqtt.backoff_max = 0.1, 0.5
            await asyncio.wait_for(d.mqtt.connected.wait(), 10)
        wardens = {n: populate(s)[0] for n, s in sims.items()}
        for s in sims.values():
            s.flush()
        await until(lambda: a.engine.state.warden == wardens["a"].userid and b.engine.state.warden == wardens["b"].userid)
        special_days(sims["a"], wardens["a"], 3)
        sims["a"].flush()
        await until(lambda: sent(sims["b"], f"jb_ctban_set #{wardens['b'].userid}"), timeout=10)
        await until(lambda: not a.store.pending("a") and not b.store.pending("b"), timeout=10)
    return wardens


@needs_broker
async def test_two_daemons_on_two_databases_of_one_mariadb(tmp_path, mariadb_server, broker):
    """Two state URLs of one server (each machine its own database): the ban crosses by MQTT,
    each database holds its own server's rows."""
    urls = {n: mariadb_server.database() for n in "ab"}
    sims = {n: SimServer(password="pw") for n in "ab"}
    ports = {n: await s.start() for n, s in sims.items()}
    configs = {n: load(config_text(ports[n], tmp_path / f"{n}.sqlite3", rest=f'url = "{urls[n]}"\n[mqtt]\nurl = "mqtt://127.0.0.1:{broker.port}"\n')
                       .replace('name = "t"', f'name = "{n}"'), "<t>", {}) for n in "ab"}
    await ban_across(configs, sims)
    for n, other in (("a", "b"), ("b", "a")):
        reader = open_reader(urls[n])
        try:
            assert reader.servers() == [n] and not reader.entries(Filter(server=other))
        finally:
            reader.close()


@needs_broker
async def test_two_daemons_on_one_mariadb_a_ban_on_one_reaches_the_others_door(tmp_path, mariadb, broker):
    rest = f'url = "{mariadb}"\n[mqtt]\nurl = "mqtt://127.0.0.1:{broker.port}"\n'
    sims = {n: SimServer(password="pw") for n in "ab"}
    ports = {n: await s.start() for n, s in sims.items()}
    configs = {n: load(config_text(ports[n], tmp_path / "unused.sqlite3", rest=rest).replace('name = "t"', f'name = "{n}"'), "<t>", {})
               for n in "ab"}
    wardens = await ban_across(configs, sims)
    assert not (tmp_path / "unused.sqlite3").exists()  # the URL is the state: no file is written
    reader = open_reader(mariadb)
    try:
        rows = reader.entries(Filter())
        assert {r["server"] for r in rows} == {"a", "b"} and len({r["id"] for r in rows}) == len(rows)
        moved = [r for r in rows if r["server"] == "b" and r["action"] == "teamswap"]  # the network's ban, at b's door
        assert len(moved) == 1 and moved[0]["status"] == "delivered" and moved[0]["steamid"] == wardens["a"].steamid
        assert reader.servers() == ["a", "b"]
    finally:
        reader.close()
    # The whole network from the URL alone: status, tail, ctban list.
    env = {"JAILCORE_STATE_URL": mariadb, "JAILCORE_STATE": ""}
    status = jailcore("status", "--json", env=env)
    assert status.returncode == 0, status.stderr
    assert sorted(json.loads(line)["server"] for line in status.stdout.splitlines()) == ["a", "b"]
    tail = jailcore("tail", "--json", "--player", wardens["a"].steamid, env=env)
    assert tail.returncode == 0 and {json.loads(line)["server"] for line in tail.stdout.splitlines()} == {"a", "b"}
    assert {json.loads(line)["action"] for line in jailcore("tail", "--json", "--action", "ctban", env=env).stdout.splitlines()} == {"ctban"}
    bans = jailcore("ctban", "list", "--json", env=env)
    assert bans.returncode == 0, bans.stderr
    assert {json.loads(line)["server"] for line in bans.stdout.splitlines()} == {"a", "b"}
    assert PASSWORD not in status.stdout + tail.stdout + bans.stdout


def test_readers_follow_the_order_rows_arrive_not_their_ids(mariadb):
    """Two processes number from blocks of their own, so a later row may have a lower id:
    `tail -f` and the live page follow the place the server gave each row, and miss none."""
    a, b = MariaStore(mariadb), MariaStore(mariadb)
    reader = open_reader(mariadb)
    try:
        a.record("a", act(1), 1, None, "pending")
        a.commit()
        first_b = b.record("b", act(2), 1, None, "pending")
        b.commit()
        seen = reader.entries(Filter())
        last = seen[-1]["pos"]
        assert seen[-1]["id"] == first_b
        late_a = a.record("a", act(3), 1, None, "pending")  # from a's block: below b's id
        a.commit()
        assert late_a < first_b
        assert [r["id"] for r in reader.entries(Filter(), after=last)] == [late_a]
        assert [r["id"] for r in reader.window(Filter(), reader.max_id(), last, 10, newest_first=False)] == [late_a]
    finally:
        reader.close()
        a.close()
        b.close()


async def test_the_database_stopped_and_started_under_load_loses_and_doubles_nothing(tmp_path, mariadb_server):
    """A server of its own, stopped by its pid in the middle of enforcement: the daemon goes
    on (its commands reach the game), its writes wait in the journal in order (`status` says
    how many), and once the server is back they are there, each once."""
    from tests.mariadb import MariaServer

    server = MariaServer(tmp_path / "db")
    server.install()
    server.start()
    try:
        server.setup_user()
        url = server.database()
        sim = SimServer(password="pw")
        port = await sim.start()
        state = tmp_path / "jail.sqlite3"
        text = config_text(port, state, rest=f'url = "{url}"\n').replace('name = "t"', 'name = "jail"')
        config_file = tmp_path / "jail.toml"
        config_file.write_text(text, encoding="utf-8")
        async with running(load(text, "<t>", {}), sim) as daemon:
            warden, _ = populate(sim)
            sim.flush()
            await until(lambda: daemon.engine.state.warden == warden.userid)
            for i in range(4):  # two are taken, two refused: a warning and a cancel each
                sim.say(warden, f"!prohibit p{i}")
            sim.flush()
            await until(lambda: len(sent(sim, "jb_cancel_prohibition")) == 2, timeout=10)
            await asyncio.to_thread(server.stop)
            for i in range(4, 14):  # under load while the database is away
                sim.say(warden, f"!prohibit p{i}")
                sim.flush()
                await asyncio.sleep(0.05)
            await until(lambda: len(sent(sim, "jb_cancel_prohibition")) == 12, timeout=15)  # enforcement went on
            await until(lambda: daemon.writer.backend.journalled() > 0, timeout=10)
            assert daemon.writer.backend.away is not None
            status = await asyncio.to_thread(jailcore, "status", "--config", str(config_file))
            assert "wait in the journal" in status.stdout + status.stderr and PASSWORD not in status.stdout + status.stderr
            await asyncio.to_thread(server.start)
            await until(lambda: daemon.writer.backend.away is None and daemon.writer.backend.journalled() == 0, timeout=30)
            for i in range(14, 16):  # and after
                sim.say(warden, f"!prohibit p{i}")
            sim.flush()
            await until(lambda: len(sent(sim, "jb_cancel_prohibition")) == 14, timeout=10)
            await until(lambda: not daemon.store.pending("jail"), timeout=10)
        assert len(sent(sim, "jb_cancel_prohibition")) == 14  # each command once
        reader = open_reader(url)
        try:
            rows = [r for r in reader.entries(Filter(server="jail")) if r["rule"] == "prohibitions.max"]
        finally:
            reader.close()
        assert len(rows) == 28 and len({r["id"] for r in rows}) == 28  # a warning and a cancel for each of 14, none doubled
        assert {r["status"] for r in rows} == {"delivered"}
        assert [r["pos"] for r in rows] == sorted(r["pos"] for r in rows)
    finally:
        server.stop()
