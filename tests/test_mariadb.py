"""The state database on a real MariaDB server that the tests start themselves (tests/mariadb.py):
the same store interface as the SQLite file, shared by several daemons and read whole by the
command line; refused at start in one line without the password; ids unique across
processes; one process per server; schema versions."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys

import pymysql
import pytest

from jailcore.config.config import load
from jailcore.engine.actions import Action, Ban, Say, Slay, Target
from jailcore.sim.simserver import SimServer
from jailcore.store import PardonError, StoreError
from jailcore.store.filter import Filter
from jailcore.store.location import open_reader, open_store
from jailcore.store.mariadb import SCHEMA_VERSION, MariaStore, target
from jailcore.store.request_kinds import ActRequest, PardonRequest
from tests.mariadb import PASSWORD, mariadb, mariadb_server
from tests.test_live import config_text, populate, running, sent, special_days, until
from tests.test_mqtt import broker, needs_broker

__all__ = ["broker", "mariadb", "mariadb_server"]


def act(n: int, name: str = "Игрок", action: str = "slay", rule: str = "prohibitions.max") -> Action:
    kind, own = (Ban, {"minutes": 0}) if action == "ban" else (Slay, {})
    return kind(time=f"2026-12-01T10:00:{n % 60:02d}", round=1 + n // 10, rule=rule, ref="3.1", reason="за дело",
                target=Target(userid=n, steamid=f"STEAM_1:0:{n}", name=name), **own)


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
        pardon = store.submit(PardonRequest(ids[0], "Админ", "ошибка"))
        with pytest.raises(PardonError, match="already pardoned by Админ"):
            store.submit(PardonRequest(ids[0], "Другой", "ещё раз"))
        assert store.admin_requests("a").pardons[0].id == pardon
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
            await asyncio.wait_for(d.mqtt.connected.wait(), 60)
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
    status = await asyncio.to_thread(jailcore, "status", "--json", env=env)
    assert status.returncode == 0, status.stderr
    assert sorted(json.loads(line)["server"] for line in status.stdout.splitlines()) == ["a", "b"]
    tail = await asyncio.to_thread(jailcore, "tail", "--json", "--player", wardens["a"].steamid, env=env)
    assert tail.returncode == 0 and {json.loads(line)["server"] for line in tail.stdout.splitlines()} == {"a", "b"}
    bans_told = await asyncio.to_thread(jailcore, "tail", "--json", "--action", "ctban", env=env)
    assert {json.loads(line)["action"] for line in bans_told.stdout.splitlines()} == {"ctban"}
    bans = await asyncio.to_thread(jailcore, "ctban", "list", "--json", env=env)
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
    from tests.mariadb import started

    server = started(tmp_path / "db")
    try:
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


def _served_ids(sim: SimServer) -> list[int]:
    """The audit ids of the commands a server ran (each command carries ` @<id>`)."""
    return [int(c.rsplit(" @", 1)[1].split()[0]) for c in sim.received if " @" in c and c.rsplit(" @", 1)[1].split()[0].isdigit()]


async def test_two_workers_on_one_mariadb_lose_and_double_nothing(tmp_path, mariadb):
    """`jailcore run --workers 2` with every server's state on one MariaDB URL (and one
    `[state] path` beside it for the journal, as an admin writes the configs): each server's
    lines reach its worker, a CT ban crosses from one worker's server to the other's, every
    command is run once and its row is in the database once, and `status` from the URL
    alone shows every server."""
    from tests.test_fleet import free_udp_port, server_config
    from tests.test_workers import ROOT, children, shown_until

    listen = f"127.0.0.1:{free_udp_port()}"
    names = ("a", "b", "c", "d")
    sims = {n: SimServer(password="pw", secret=str(1111 * (i + 1))) for i, n in enumerate(names)}
    journal = tmp_path / "network.sqlite3"  # one path for all: each worker keeps a journal of its own beside it
    paths = []
    for n, sim in sims.items():
        path = tmp_path / f"{n}.toml"
        server_config(path, n, await sim.start(), journal, listen, sim.secret)
        path.write_text(path.read_text(encoding="utf-8").replace("[state]\n", f'[state]\nurl = "{mariadb}"\n'), encoding="utf-8")
        paths.append(str(path))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JAILCORE_STATE_URL": mariadb, "JAILCORE_STATE": ""}
    err = (tmp_path / "err.txt").open("w")
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "jailcore", "run", "--workers", "2",
                                                *[a for p in paths for a in ("--config", p)], cwd=ROOT, env=env, stderr=err)

    try:
        await until(lambda: len(children(proc.pid)) == 2, timeout=60)
        await shown_until(lambda shown: set(shown) == set(names), env=env)  # each worker wrote its servers' link rows
        host, port = listen.rsplit(":", 1)
        wardens = {}
        for n, sim in sims.items():
            await sim.log_to_daemon((host, int(port)))
            wardens[n], _ = populate(sim, prisoners=9)
            sim.say(wardens[n], "!game Король")  # too many prisoners: a warning, on that server only
            sim.flush()
        for n in names:
            await until(lambda n=n: sent(sims[n], f"jb_warn #{wardens[n].userid}"), timeout=60)
        # a's warden banned from CT on a (the first worker's) reaches every door, b and d on the other worker
        special_days(sims["a"], wardens["a"], 3)
        sims["a"].flush()
        await until(lambda: sent(sims["a"], f"jb_teamswap #{wardens['a'].userid} T"), timeout=60)
        for n in "bcd":
            await until(lambda n=n: sent(sims[n], f"jb_ctban_set #{wardens[n].userid}"), timeout=60)
        await shown_until(lambda shown: all(not (s["link"] or {}).get("outbox") for s in shown.values()), env=env)
    finally:
        proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(proc.wait(), 30)
        err.close()
        for sim in sims.values():
            await sim.stop()
    assert code == 0, (tmp_path / "err.txt").read_text()
    reader = open_reader(mariadb)
    try:
        rows = reader.entries(Filter())
    finally:
        reader.close()
    assert len({r["id"] for r in rows}) == len(rows)  # no id given twice by the two workers
    for n, sim in sims.items():
        ran = _served_ids(sim)
        assert len(ran) == len(set(ran)), (n, sim.received)  # each command once at its door
        delivered = {r["id"] for r in rows if r["server"] == n and r["status"] == "delivered"}
        assert set(ran) == delivered, (n, set(ran) ^ delivered)  # every command run has its row, every delivered row's command was run
        assert [r["action"] for r in rows if r["server"] == n].count("warn") == 1
        assert not [r for r in rows if r["server"] == n and r["status"] == "pending"]  # none left waiting
    moved = [r for r in rows if r["action"] == "teamswap" and r["server"] != "a"]
    assert sorted(r["server"] for r in moved) == ["b", "c", "d"]  # the ban at every other door, once
    assert "Traceback" not in (tmp_path / "err.txt").read_text()


def test_each_process_keeps_a_journal_of_its_own_and_none_is_left_unreplayed(tmp_path, mariadb):
    """Workers started from configs naming one `[state] path` each take a journal of their own
    (two in one would number their transactions alike, and the replay would skip one's as
    the other's); a journal left by a process not started again is replayed by the next."""
    from jailcore.store.journal import Journal, waiting_in

    path = str(tmp_path / "network.journal")
    a, b = MariaStore(mariadb, path), MariaStore(mariadb, path)
    try:
        assert a.journal.path == path and b.journal.path == f"{path}-2"
        assert a.journal.origin != b.journal.origin
    finally:
        a.close()
        b.close()
    link = ("INSERT INTO link (server, rcon, outbox, last_line, mode, updated, daemon, dropped) VALUES (?, 'open', 0, NULL, 'enforce', "
            "'2026-12-01T10:00:00', 'running', '')")
    for name, server in ((path, "one"), (f"{path}-2", "two")):  # as if the database had gone away under both, and they stopped
        left = Journal(name, exact=True)
        left.keep(left.newest() + 1, [(link, [server], False)])
        left.close()
    assert waiting_in(path, beside=True) == 2
    c = MariaStore(mariadb, path)  # the first free journal is its own; the other is left and replayed too
    try:
        assert c.journal.path == path and waiting_in(path, beside=True) == 0
    finally:
        c.close()
    reader = open_reader(mariadb)
    try:
        assert reader.link("one") is not None and reader.link("two") is not None
    finally:
        reader.close()


def test_the_names_table_is_kept_by_the_writer_and_searched_case_blind(mariadb):
    """The players search over the whole log: every audit row's name counted per server and
    steamid, in the transaction that writes the row, two spellings two names."""
    store = MariaStore(mariadb)
    try:
        for _ in range(5):
            store.record("a", act(7, "Ёжик Вася"), 1, None, "delivered")
        store.record("b", act(7, "ЁЖИК ВАСЯ"), 1, None, "delivered")
        store.record("a", act(8, "Другой"), 1, None, "delivered")
        store.record("a", Say(time="2026-12-01T10:00:59", round=1, rule="r", ref="1", reason="всем"), 1, None, "delivered")
        reader = open_reader(mariadb)
        try:
            assert reader.names_with("ёжик", 10) == []  # not committed yet: nothing of the transaction is seen
            store.commit()
            found = reader.names_with("ёжик в", 10)
            assert sorted((r["server"], r["name"], r["n"]) for r in found) == [("a", "Ёжик Вася", 5), ("b", "ЁЖИК ВАСЯ", 1)]
            assert {r["steamid"] for r in found} == {"STEAM_1:0:7"}
            assert [r["name"] for r in reader.names_with("ДРУГ", 10)] == ["Другой"]
            assert reader.names_with("100%", 10) == []  # no wildcard in a name's part
        finally:
            reader.close()
    finally:
        store.close()


def test_version_1_gets_the_names_and_the_indexes_and_is_read_before_it(mariadb_server):
    """A database of schema version 1 (no names table, no index of the actions): read as it
    is, the page's queries name no index it lacks; `jailcore db upgrade` builds them, counts
    the names of the whole log once, and the pages' queries then read on them (EXPLAIN)."""
    url = mariadb_server.database()
    store = MariaStore(url)
    try:
        ids = [store.record("old", act(3, "Старый" if i % 2 else "старый"), 1, None, "delivered") for i in range(1, 7)]  # one player, two spellings
        store.record("old", act(9, "Бан"), 1, None, "delivered")
        store.record("old", act(10, "Бан", action="ban"), 1, None, "delivered")
        store.commit()
    finally:
        store.close()
    db = pymysql.connect(**_args(url), autocommit=True)
    with db.cursor() as cur:
        cur.execute("DROP TABLE names")
        cur.execute("ALTER TABLE audit DROP KEY audit_action, DROP KEY audit_seq_name")
        cur.execute("UPDATE jailcore_schema SET version = 1")
    old = open_reader(url)
    try:
        assert old.names_with("стар", 10) is None  # the caller looks among the newest entries instead
        assert [r["action"] for r in old.window(Filter(action="ban"), old.max_id(), 0, 10)] == ["ban"]
        assert [r["id"] for r in old.bans_after(0)] == [ids[-1] + 2]
        assert len(old.window(Filter(player="СТАР"), old.max_id(), 0, 10)) == 6
    finally:
        old.close()
    done = jailcore("db", "upgrade", "--state-db", url)
    assert done.returncode == 0 and f"version 1 to {SCHEMA_VERSION}" in done.stdout, done.stderr
    reader = open_reader(url)
    try:
        found = sorted((r["name"], r["n"]) for r in reader.names_with("стар", 10))
        assert found == [("Старый", 3), ("старый", 3)]  # each spelling, counted from the whole log
        assert [r["action"] for r in reader.window(Filter(action="ban"), reader.max_id(), 0, 10)] == ["ban"]
        assert len(reader.window(Filter(player="СТАР"), reader.max_id(), 0, 10)) == 6
        assert [r["id"] for r in reader.bans_after(0)] == [ids[-1] + 2]
    finally:
        reader.close()
    with db.cursor() as cur:
        cur.execute("EXPLAIN SELECT seq FROM audit FORCE INDEX (audit_action) WHERE seq > 0 AND action = 'ban'")
        assert cur.fetchone()[5] == "audit_action"
        cur.execute("EXPLAIN SELECT seq FROM audit FORCE INDEX (audit_seq_name) WHERE seq <= 100 AND seq > 0 AND LOCATE('x', name) > 0")
        plan = cur.fetchone()
        assert plan[5] == "audit_seq_name" and "Using index" in plan[9]  # the name's part tested in the narrow index alone
    db.close()


def test_version_4_gets_the_admins_warnings_and_bans(mariadb_server):
    """Version 5 added `act_requests` (an admin's warning or ban from the web page): a version 4
    database is read as it is, then upgraded at the next open and takes them."""
    url = mariadb_server.database()
    MariaStore(url).close()
    db = pymysql.connect(**_args(url), autocommit=True)
    with db.cursor() as cur:
        cur.execute("DROP TABLE act_requests")
        cur.execute("UPDATE jailcore_schema SET version = 4")
    old = open_reader(url)
    try:
        assert old.act_requests() == []  # read before the upgrade: nothing, no error
    finally:
        old.close()
    store = MariaStore(url)  # upgraded as it opens
    try:
        row = store.submit(ActRequest("a", "STEAM_1:0:3", "Вася", "warn", None, "мат", "boss"))
        assert [(r.id, r.act, r.reason) for r in store.admin_requests("a").acts] == [(row, "warn", "мат")]
        assert store.waiting("a", fresh=0)
        store.applied("act_requests", row, "2026-12-01T10:00:00")
        store.commit()
        assert store.admin_requests("a").acts == ()
    finally:
        store.close()
    with db.cursor() as cur:
        cur.execute("SELECT version FROM jailcore_schema")
        assert cur.fetchall() == ((SCHEMA_VERSION,),)
    db.close()
