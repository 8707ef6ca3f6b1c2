"""One value never stops enforcement (issue 34): every value the store writes fits its column
(log/limits.py: the schema's widths and the doors' checks are one table), a row the database
still refuses is set aside and said, never a stop and never holding the others; and values are
parsed where they enter (a date past the calendar, a SteamID past 32 bits), refused and counted
at the door. A real MariaDB, a real mosquitto, a daemon driven over UDP, RCON and MQTT."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
from contextlib import asynccontextmanager

from jailcore.config.config import load
from jailcore.engine.actions import Action, Target, Warn
from jailcore.engine.engine import Engine
from jailcore.engine.state import dump
from jailcore.io.mqtt import CTBANS
from jailcore.log import limits
from jailcore.log.inbound import seal
from jailcore.session import effects as fx
from jailcore.sim.simserver import SimServer
from jailcore.store.journal import Journal
from jailcore.store.mariadb import MariaStore
from jailcore.store.sqlite import Store
from tests.audit_rows import entries
from tests.mariadb import mariadb, mariadb_server
from tests.test_live import ROOT, config_text, running, sent, settled, until
from tests.test_mqtt import broker, needs_broker
from tests.test_network_trust import KEY, ban, now_ms, publish
from tests.test_sourcebans_own import query as sql

__all__ = ["broker", "mariadb", "mariadb_server"]


@asynccontextmanager
async def keyed(tmp_path, broker, state: str = ""):
    """A daemon on the network's key and broker (its config also in jail.toml), beside a simulated server."""
    sim = SimServer(password="pw")
    port = await sim.start()
    rest = f'{state}[mqtt]\nurl = "mqtt://127.0.0.1:{broker.port}"\n[network]\nkey = "{KEY}"\n'
    text = config_text(port, tmp_path / "jail.sqlite3", rest=rest).replace('name = "t"', 'name = "jail"')
    (tmp_path / "jail.toml").write_text(text, encoding="utf-8")
    try:
        async with running(load(text, "<t>", {}), sim) as daemon:
            await asyncio.wait_for(daemon.mqtt.connected.wait(), 60)
            daemon.mqtt.backoff_min, daemon.mqtt.backoff_max = 0.1, 0.5
            yield sim, daemon
    finally:
        await sim.stop()


def jailcore(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jailcore", *args], capture_output=True, text=True, timeout=60, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "JAILCORE_STATE": "", "JAILCORE_STATE_URL": ""})


@needs_broker
async def test_a_long_ref_a_long_name_and_a_refused_row_never_stop_a_mariadb_daemon(tmp_path, broker, mariadb_server, mariadb):
    """Before: a signed CT ban whose `ref` was 200 characters (the message schema took 200) for
    a guard online stopped the MariaDB-backed daemon (`Data too long for column 'ref'`, exit 1,
    every server of the process); a 300-character name in a forged log line did the same to
    `name`. Now the network takes what the column holds (191), the log refuses a name no game
    writes, and a row the database refuses for a reason of its own (a CHECK here) is set aside
    in the journal and said, while the daemon goes on enforcing."""
    # A rule of the database's own that jailcore cannot know (a CHECK): the row it refuses is
    # set aside. Made before the daemon starts (an ALTER waits for every open transaction).
    MariaStore(mariadb).close()
    sql(mariadb, "ALTER TABLE audit ADD CONSTRAINT no_poison CHECK (ref <> 'Отрава')")
    async with keyed(tmp_path, broker, state=f'url = "{mariadb}"\n') as (sim, daemon):
        warden, _ = await settled(sim, daemon, prisoners=12)  # room for three guards more (001 general 5: one guard a three)
        guards = [sim.add_player(f"Охранник{i}", "CT") for i in range(3)]
        sim.flush()
        await until(lambda: all(any(s.steamid == g.steamid for s in daemon.engine.state.players.values()) for g in guards), timeout=10)
        # A ref as long as the old schema took: refused at the door, counted, never stored.
        await publish(broker.port, CTBANS, [seal(ban(guards[0].steamid, "long", ref="Р" * 200), KEY.encode(), "x", now_ms())])
        await until(lambda: daemon.mqtt.refused.total >= 1, timeout=10)
        assert any("ref" in cause and "191" in cause for cause in daemon.mqtt.refused.counts), daemon.mqtt.refused.counts
        assert guards[0].steamid not in daemon.engine.state.ctbans
        # As long as the column holds, in four-byte letters, with a name of 255: taken and written whole.
        wide, named = "🚫" * limits.KEY, "Н" * limits.NAME
        await publish(broker.port, CTBANS, [seal(ban(guards[1].steamid, "wide", ref=wide, name=named), KEY.encode(), "x", now_ms())])
        await until(lambda: sent(sim, f"jb_teamswap #{guards[1].userid}"), timeout=10)
        # A forged line (it has the server's secret) with a 300-character name: malformed, counted.
        malformed = daemon.session.parser.stats.malformed
        sim.log.add(f'"{"Я" * 300}<99><STEAM_1:0:99><CT>" say "!prohibit x"')
        sim.flush()
        await until(lambda: daemon.session.parser.stats.malformed > malformed, timeout=10)
        # A row the database itself refuses: set aside, said once, and the daemon goes on.
        await publish(broker.port, CTBANS, [seal(ban(guards[2].steamid, "poison", ref="Отрава"), KEY.encode(), "x", now_ms())])
        await until(lambda: sent(sim, f"jb_teamswap #{guards[2].userid}"), timeout=10)
        await until(lambda: daemon.writer.backend.set_aside >= 1, timeout=10)
        # Enforcement goes on: the warden's prohibitions past the limit are still cancelled and written.
        for i in range(4):
            sim.say(warden, f"!prohibit p{i}")
        sim.flush()
        await until(lambda: len(sent(sim, "jb_cancel_prohibition")) == 2, timeout=10)
        await until(lambda: daemon.writer.durable >= daemon.outgoing.seq and daemon.writer.idle, timeout=10)
        assert daemon.writer.error is None and not daemon.stopping.is_set()
        journal = daemon.writer.backend.journal.path
    rows = await asyncio.to_thread(sql, mariadb, "SELECT ref, name, rule, status FROM audit WHERE action = 'teamswap' ORDER BY seq")
    assert [(r["ref"], r["name"]) for r in rows] == [(wide, guards[1].name)]
    cancelled = await asyncio.to_thread(sql, mariadb, "SELECT COUNT(*) AS n FROM audit WHERE rule = 'prohibitions.max'")
    assert cancelled[0]["n"] == 4  # a warning and a cancel for each of the two over the limit
    aside = sqlite3.connect(journal)
    try:
        (why, op), = aside.execute("SELECT why, op FROM aside").fetchall()
    finally:
        aside.close()
    assert "no_poison" in why and "Отрава" in op and "INSERT INTO audit" in op
    status = await asyncio.to_thread(jailcore, "status", "--config", str(tmp_path / "jail.toml"))
    assert "1 row(s) the database refused are set aside in" in status.stdout, status.stdout + status.stderr


def act(n: int, **more) -> Action:
    fields = {"reason": "r", **more}
    return Warn(time=f"2026-12-01T10:00:{n:02d}", round=1, rule="conduct.test", ref="Общие 1",
                target=Target(userid=n, steamid=f"STEAM_1:0:{n}", name=f"Игрок {n}"), **fields)


def test_a_row_the_database_refuses_is_set_aside_and_the_rest_of_its_transaction_written(tmp_path, mariadb):
    """The writer's own transaction, and a journal replayed at start: the row refused (a CHECK
    jailcore cannot know; a duplicate id) is kept in the journal's `aside` table, the others
    are committed, nothing raises. Before, the commit raised and the daemon stopped, and a
    journal holding such a row stopped every start."""
    MariaStore(mariadb).close()  # the tables, and a rule of the database's own (an ALTER waits for every open transaction)
    sql(mariadb, "ALTER TABLE audit ADD CONSTRAINT no_poison CHECK (name IS NULL OR name <> 'Отрава')")
    store = MariaStore(mariadb, str(tmp_path / "state.journal"))
    try:
        poisoned = Warn(time="2026-12-01T10:00:00", round=1, rule="conduct.test", ref="1", reason="r",
                        target=Target(userid=5, steamid="STEAM_1:0:5", name="Отрава"))
        store.write([fx.Record(1, "jail", act(1), 1, "jb_warn #1", "pending"), fx.Record(2, "jail", poisoned, 1, "jb_warn #5", "pending"),
                     fx.Record(3, "jail", act(3, reason="Я" * 70_000), 1, "x" * 70_000, "pending"), fx.Mark(1, "delivered", "ok")])
        store.commit()
        got = sql(mariadb, "SELECT id, status, CHAR_LENGTH(reason) AS r, LENGTH(command) AS c FROM audit ORDER BY id")
        assert [(r["id"], r["status"]) for r in got] == [(1, "delivered"), (3, "pending")]
        assert got[1]["r"] * 2 <= limits.TEXT_BYTES and got[1]["c"] <= limits.TEXT_BYTES  # cut to the TEXT column, not refused
        assert store.set_aside == 1
        # A journal left with the same row (a run before the CHECK was there): replayed at start, the row set aside again.
        left = Journal(tmp_path / "left.journal")
        left.keep(1, [("INSERT INTO audit (id, server, time, round, day, action, rule, ref, userid, steamid, name, reason, detail, command, status) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       [7, "jail", "2026-12-01T10:00:07", 1, 1, "warn", "conduct.test", "1", 7, "STEAM_1:0:7", "Отрава", "r", "{}", None, "pending"],
                       False),
                      ("INSERT INTO audit (id, server, time, round, day, action, rule, ref, userid, steamid, name, reason, detail, command, status) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       [8, "jail", "2026-12-01T10:00:08", 1, 1, "warn", "conduct.test", "1", 8, "STEAM_1:0:8", "Игрок 8", "r", "{}", None, "pending"],
                       False)])
        left.close()
    finally:
        store.close()
    again = MariaStore(mariadb, str(tmp_path / "left.journal"))
    try:
        assert again.journal is not None and again.journal.waiting() == 0 and again.set_aside == 1
    finally:
        again.close()
    assert [r["id"] for r in sql(mariadb, "SELECT id FROM audit ORDER BY id")] == [1, 3, 8]


@needs_broker
async def test_a_ban_with_a_date_past_the_calendar_is_refused_and_one_saved_before_is_left_out(tmp_path, broker):
    """`until "2026-13-45T25:61:61"` has the shape of a time: it was taken, crashed the session
    at every round end, was saved, and `status` and `ctban list` traced back on it. Now it is
    parsed at the door (refused, counted, the daemon goes on), and one saved by an older
    version is left out of the state, `status` and `ctban list` with a line, the rest kept."""
    async with keyed(tmp_path, broker) as (sim, daemon):
        warden, ts = await settled(sim, daemon)
        await publish(broker.port, CTBANS, [
            seal(ban(warden.steamid, "bad-date", until="2026-13-45T25:61:61", rounds=None), KEY.encode(), "x", now_ms()),
            seal(ban("STEAM_1:0:9999999999", "bad-id"), KEY.encode(), "x", now_ms()),  # the shape of a SteamID, past 32 bits
            seal(ban(ts[0].steamid, "fine", until="2026-12-31T23:00:00", rounds=None), KEY.encode(), "x", now_ms()),
        ])
        await until(lambda: ts[0].steamid in daemon.engine.state.ctbans, timeout=10)
        assert set(daemon.engine.state.ctbans) == {ts[0].steamid} and daemon.mqtt.refused.total == 2
        causes = " | ".join(daemon.mqtt.refused.counts)
        assert "until: not a time of the calendar" in causes and "steamid: not a SteamID" in causes
        for _ in range(2):  # the round end's count-down runs
            sim.round_end()
            sim.round_start()
        sim.flush()
        await until(lambda: daemon.engine.state.round >= 4 and daemon.idle.is_set(), timeout=10)
        assert not daemon.stopping.is_set()
    # A state saved by a version that took the bad ban: the daemon, `status` and `ctban list` read it.
    config = load('[server]\nname = "s"\nrulebook = "all"\n', "<t>", {})
    engine = Engine(config)
    engine.import_ctban(ban("STEAM_1:0:9", "fine", until="2026-12-31T23:00:00", rounds=None))
    engine.state.round = 17
    snapshot = dump(engine.state)
    good = snapshot["ctbans"]["STEAM_1:0:9"]
    snapshot["ctbans"]["STEAM_1:0:1"] = {**good, "steamid": "STEAM_1:0:1", "until": "2026-13-45T25:61:61"}
    db = tmp_path / "old.sqlite3"
    store = Store(str(db))
    store.save_state("s", snapshot, "2026-12-01T09:00:00")
    store.save_standing("s", json.dumps({"server": "s", "time": "2026-12-01T09:00:00", "round": 17, "ctbans": [
        {"steamid": s, "name": "N", "until": b["until"], "rounds": None, "rule": "", "ref": "", "reason": "", "by": "", "origin": "",
         "online": False} for s, b in snapshot["ctbans"].items()]}), "2026-12-01T09:00:00")
    store.commit()
    store.close()
    restored = Engine(config, Store(str(db)).load_state("s"))
    assert sorted(restored.state.ctbans) == ["STEAM_1:0:9"] and restored.state.round == 17
    for command in (["status", "--state-db", str(db), "--json"], ["ctban", "list", "--state-db", str(db)]):
        out = await asyncio.to_thread(jailcore, *command)
        assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
        assert "STEAM_1:0:1" not in out.stdout
    listed = await asyncio.to_thread(jailcore, "ctban", "list", "--state-db", str(db))
    assert "STEAM_1:0:9" in listed.stdout and "STEAM_1:0:1" in listed.stderr


@needs_broker
async def test_a_network_ban_past_the_columns_from_an_older_peer_is_refused_not_stored(tmp_path, broker):
    """The network's schema reads its widths from log/limits.py: a name past NAME, an origin past KEY."""
    async with keyed(tmp_path, broker) as (_, daemon):
        await publish(broker.port, CTBANS, [
            seal(ban("STEAM_1:0:11", "n", name="Н" * (limits.NAME + 1)), KEY.encode(), "x", now_ms()),
            seal(ban("STEAM_1:0:12", "ok", name="Н" * limits.NAME), KEY.encode(), "x", now_ms()),
        ])
        await until(lambda: "STEAM_1:0:12" in daemon.engine.state.ctbans, timeout=10)
        assert "STEAM_1:0:11" not in daemon.engine.state.ctbans and daemon.mqtt.refused.total == 1


def test_a_config_with_a_ref_or_a_server_name_past_the_column_is_refused_with_its_line():
    long = "Р" * (limits.KEY + 1)
    try:
        load(f'[server]\nname = "{long}"\nrulebook = "all"\n[conduct.grenade_spam]\nref = "{long}"\n', "jail.toml", {})
    except Exception as exc:  # ConfigError
        text = str(exc)
    else:
        raise AssertionError("a config with a 192-character ref was taken")
    assert "jail.toml:2: server.name: at most 191 characters" in text and "jail.toml:5: conduct.grenade_spam.ref: at most 191" in text


async def test_a_row_the_sqlite_file_refuses_is_skipped_and_said_and_the_daemon_goes_on(tmp_path):
    """The same on the SQLite file: a row the file refuses (a trigger of an operator's; before,
    a constraint stopped the writer and with it the daemon) is skipped, said and counted, and the
    rows before and after it are written and their commands sent."""
    state = tmp_path / "jail.sqlite3"
    Store(str(state)).close()
    db = sqlite3.connect(state)
    db.execute("CREATE TRIGGER no_poison BEFORE INSERT ON audit WHEN NEW.name = 'Отрава' BEGIN SELECT RAISE(ABORT, 'no poison'); END")
    db.commit()
    db.close()
    sim = SimServer(password="pw")
    port = await sim.start()
    async with running(load(config_text(port, state), "<t>", {}), sim) as daemon:
        warden, _ = await settled(sim, daemon)
        poison = sim.add_player("Отрава", "T")
        sim.flush()
        await until(lambda: any(s.name == "Отрава" for s in daemon.engine.state.players.values()), timeout=10)
        for i in range(4):
            sim.say(warden, f"!prohibit p{i}")
        sim.say(poison, "заходите к нам: 212.129.25.133:27015")  # advertising, under the name the file refuses
        sim.flush()
        await until(lambda: len(sent(sim, "jb_cancel_prohibition")) == 2 and daemon.idle.is_set(), timeout=10)
        await until(lambda: daemon.writer.idle, timeout=10)
        assert daemon.writer.error is None and not daemon.stopping.is_set()
        assert any("refused a row" in f for f in daemon.writer.failures)
        assert len(entries(daemon.store, "rule = 'prohibitions.max'")) == 4
