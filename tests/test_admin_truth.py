"""What an admin is told is what happened (issue 19, items 1-9), end to end: the real
daemon against the simulated server running the plugin over UDP and RCON, the command line
as a subprocess, a real mosquitto where the network is involved."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from jailcore.config.config import load
from jailcore.sim.simserver import SimServer
from jailcore.store.request_kinds import PardonRequest
from tests.audit_rows import entries
from tests.test_live import config_text, live, populate, running, sent, settled, special_days, until
from tests.test_mqtt import broker, daemon_on, needs_broker, watching  # noqa: F401  (the broker fixture)

ROOT = Path(__file__).resolve().parents[1]


def jailcore(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jailcore", *args], capture_output=True, text=True, cwd=ROOT, timeout=60)


async def cli(*args: str) -> subprocess.CompletedProcess:
    return await asyncio.get_running_loop().run_in_executor(None, lambda: jailcore(*args))


# -- 1. a pardoned ban is lifted by steamid, whoever is online --------------------------------------


async def test_a_pardoned_ban_is_lifted_although_the_banned_player_is_gone(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        _, ts = await settled(sim, daemon)
        spammer = ts[0]
        sim.say(spammer, "заходите на www.example.ru")  # 001 general 19: a permanent ban
        sim.flush()
        await until(lambda: [b.steamid for b in sim.world.bans] == [spammer.steamid] and daemon.idle.is_set())
        await until(lambda: spammer.userid not in daemon.engine.state.players)  # kicked with the ban
        (ban,) = entries(daemon.store, "action = 'ban'")
        done = await cli("pardon", str(ban["id"]), "--reason", "не реклама", "--by", "Админ", "--state-db", str(tmp_path / "state.sqlite3"))
        assert done.returncode == 0, done.stderr
        await until(lambda: not sim.world.bans, timeout=5)  # SourceMod's RemoveBan ran, by steamid
        assert sent(sim, f'jb_unban "{spammer.steamid}"')
        await until(lambda: daemon.idle.is_set())
        (unban,) = entries(daemon.store, "action = 'unban'")
        assert (unban["status"], unban["reply"]) == ("delivered", "ok")  # not "expired: ... no longer on the server"


# -- 2. an in-game !unctban is the network's too -----------------------------------------------------


@needs_broker
async def test_an_in_game_unctban_is_lifted_on_every_server(tmp_path, broker):  # noqa: F811
    sim_a, sim_b = SimServer(password="pw"), SimServer(password="pw")
    async with daemon_on(tmp_path, broker, "a", sim_a) as a, daemon_on(tmp_path, broker, "b", sim_b) as b:
        admin = sim_a.add_player("Смотритель", "T", admin="b")
        _, ts = populate(sim_a)
        guard = ts[0]
        on_b = sim_b.add_player(guard.name, "T", steamid=guard.steamid)
        sim_a.flush()
        sim_b.flush()
        await until(lambda: guard.userid in a.engine.state.players and any(s.steamid == guard.steamid for s in b.engine.state.players.values()))
        sim_a.say(admin, f"!ctban #{guard.userid} 30 грубил")
        sim_a.flush()
        await until(lambda: guard.steamid in b.engine.state.ctbans, timeout=10)
        await until(lambda: sim_b.join(on_b, "CT") is False, timeout=5)  # b's door holds it
        sim_a.say(admin, f"!unctban #{guard.userid}")
        sim_a.flush()
        await until(lambda: guard.steamid not in a.engine.state.ctbans)
        await until(lambda: guard.steamid not in b.engine.state.ctbans, timeout=10)
        await until(lambda: sent(sim_b, f"jb_ctban_clear #{on_b.userid}"), timeout=5)
        assert sim_b.join(on_b, "CT") is True


# -- 3. `ctban add` for an offline player: the network at once, his door when he connects ---------------


@needs_broker
async def test_a_ctban_for_an_offline_player_reaches_the_network_and_his_door(tmp_path, broker):  # noqa: F811
    sim_a, sim_b = SimServer(password="pw"), SimServer(password="pw")
    async with daemon_on(tmp_path, broker, "a", sim_a) as a, daemon_on(tmp_path, broker, "b", sim_b) as b:
        populate(sim_a)
        sim_a.flush()
        await until(lambda: a.store.load_state("a") is not None)
        steamid = "STEAM_1:1:4242"
        done = await cli("ctban", "add", steamid, "--minutes", "60", "--reason", "фрикилл", "--by", "Админ",
                         "--state-db", str(tmp_path / "a.sqlite3"))
        assert done.returncode == 0, done.stderr
        await until(lambda: steamid in a.engine.state.ctbans, timeout=5)
        await until(lambda: steamid in b.engine.state.ctbans, timeout=10)  # the network, while he is on no server
        late = sim_b.add_player("Опоздавший", None, steamid=steamid)  # connects, has not picked a team yet
        sim_b.flush()
        await until(lambda: sent(sim_b, f"jb_ctban_set #{late.userid}"), timeout=5)
        assert sim_b.join(late, "CT") is False  # the shim refuses his first pick of CT
        assert not sent(sim_b, f"jb_teamswap #{late.userid}")  # no join slipped through to be undone


# -- 4. lengths are bounded -----------------------------------------------------------------------------


@pytest.mark.parametrize("length", [["--minutes", "99999999999999999999"], ["--minutes", "5000000000"], ["--rounds", "99999999999"],
                                    ["--minutes", "²"]])
def test_a_ctban_length_past_its_bound_is_refused_in_one_line(tmp_path, length):
    db = tmp_path / "s.sqlite3"
    jailcore("ctban", "add", "STEAM_1:0:1", "--minutes", "5", "--server", "x", "--state-db", str(db))  # nothing yet: refused
    from jailcore.store.sqlite import Store

    store = Store(db)
    store.save_state("x", {}, "")
    store.close()
    result = jailcore("ctban", "add", "STEAM_1:0:1", *length, "--server", "x", "--state-db", str(db))
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    if "²" not in length:
        assert ("525600" if "--minutes" in length else "10000") in result.stderr
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM ctban_requests").fetchone()[0] == 0


# -- 5. status says stopped, stale or lost ----------------------------------------------------------------


async def test_status_says_a_stopped_daemon_stopped_and_a_silent_one_stale(tmp_path):
    db = tmp_path / "state.sqlite3"
    async with live(tmp_path) as (sim, daemon):
        await settled(sim, daemon)
        await until(lambda: daemon.session.saver._link_row is not None)  # the link row is written
        running_now = await cli("status", "--state-db", str(db))
        assert running_now.returncode == 0 and "daemon" not in running_now.stdout.splitlines()[0]
    stopped = jailcore("status", "--state-db", str(db))
    first = stopped.stdout.splitlines()[0]
    assert first.startswith("t  daemon stopped: stopped at "), first
    # A daemon that died without a word: its link row (rewritten every 5 s) only grows old.
    with sqlite3.connect(db) as con:
        con.execute("UPDATE link SET daemon = 'running', updated = '2020-01-01T00:00:00'")
    stale = jailcore("status", "--state-db", str(db), "--json")
    assert json.loads(stale.stdout)["daemon"]["word"] == "stale"
    assert "daemon stale: no word from its daemon for" in jailcore("status", "--state-db", str(db)).stdout


@needs_broker
def test_status_over_mqtt_says_a_killed_daemon_is_lost_and_a_stopped_one_stopped(tmp_path, broker):  # noqa: F811
    import os
    import signal
    import time

    cfg = tmp_path / "run.toml"
    cfg.write_text('[server]\nname = "run"\n[rcon]\nport = 1\n[log]\nlisten = "127.0.0.1:0"\n', encoding="utf-8")
    url = f"mqtt://127.0.0.1:{broker.port}"
    env = {**os.environ, "JAILCORE_STATE": str(tmp_path / "run.sqlite3"), "JAILCORE_MQTT_URL": url}

    def start() -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "jailcore", "run", "--config", str(cfg)], cwd=ROOT, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def status() -> str:
        return jailcore("status", "--mqtt", url).stdout

    def wait_for(check, seconds=15.0):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            out = status()
            if check(out):
                return out
            time.sleep(0.2)
        raise AssertionError(status())

    proc = start()
    try:
        wait_for(lambda out: out.startswith("run  rcon"))
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        out = wait_for(lambda out: "lost" in out)
        assert out.startswith("run  daemon lost: the broker says its session died")
        proc = start()
        wait_for(lambda out: out.startswith("run  rcon"))  # back: its state replaces the will
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
        out = wait_for(lambda out: "stopped" in out)
        assert out.startswith("run  daemon stopped: stopped at ")
    finally:
        proc.kill()
        proc.wait(10)


# -- 6. `tail -f --mqtt` shows each status change -------------------------------------------------------


@needs_broker
async def test_each_status_change_is_published(tmp_path, broker):  # noqa: F811
    sim = SimServer(password="pw")
    async with watching(broker.port, "jailcore/a/actions", "status-watcher") as got, daemon_on(tmp_path, broker, "a", sim) as daemon:
        warden, _ = populate(sim)
        special_days(sim, warden, 3)
        sim.flush()
        await until(lambda: entries(daemon.store, "action = 'ctban'") and daemon.idle.is_set(), timeout=10)
        (ctban,) = entries(daemon.store, "action = 'ctban'")
        daemon.store.submit(PardonRequest(ctban["id"], "Админ", "ошибка"))
        daemon.store.commit()
        await until(lambda: {m.get("status") for m in got if m.get("id") == ctban["id"]} >= {"pending", "delivered", "pardoned"}, timeout=10)
        slay = entries(daemon.store, "action = 'slay'")[0]
        await until(lambda: [m["status"] for m in got if m.get("id") == slay["id"]] == ["pending", "delivered"], timeout=10)
        delivered = next(m for m in got if m.get("id") == slay["id"] and m["status"] == "delivered")
        assert delivered["reply"] == "ok" and delivered["action"] == "slay" and delivered["target"]["userid"] == warden.userid


# -- 7. a pardon is its own kind -----------------------------------------------------------------------------


async def test_a_pardon_is_written_as_a_pardon_not_a_warning(tmp_path):
    db = str(tmp_path / "state.sqlite3")
    async with live(tmp_path) as (sim, daemon):
        warden, _ = await settled(sim, daemon)
        special_days(sim, warden, 3)
        sim.flush()
        await until(lambda: entries(daemon.store, "action = 'ctban'") and daemon.idle.is_set(), timeout=10)
        (ctban,) = entries(daemon.store, "action = 'ctban'")
        assert (await cli("pardon", str(ctban["id"]), "--reason", "ошибка", "--by", "Админ", "--state-db", db)).returncode == 0
        await until(lambda: entries(daemon.store, "rule = 'pardon'") and daemon.idle.is_set())
        rows = entries(daemon.store, "rule = 'pardon'")
        assert sorted(r["action"] for r in rows) == ["pardon", "unctban"]
        told = next(r for r in rows if r["action"] == "pardon")
        assert told["status"] == "delivered" and told["command"].startswith(f"jb_warn #{warden.userid} ")
    again = jailcore("pardon", str(told["id"]), "--state-db", db)  # nothing to pardon in a pardon
    assert again.returncode == 1 and "not a punishment" in again.stderr
    warnings = jailcore("tail", "--action", "warn", "--json", "--state-db", db).stdout
    assert "pardon" not in [json.loads(line)["rule"] for line in warnings.splitlines()]


# -- 8. [ctban] ref, and the admin's name -----------------------------------------------------------------------


async def banned_in_game(sim: SimServer, daemon):
    """An admin online bans the first prisoner from CT for 30 minutes with `!ctban`."""
    admin = sim.add_player("Смотритель", "T", admin="b")
    _, ts = populate(sim)
    sim.flush()
    await until(lambda: ts[0].userid in daemon.engine.state.players and daemon.idle.is_set())
    sim.say(admin, f"!ctban #{ts[0].userid} 30 грубил")
    sim.flush()
    await until(lambda: sent(sim, f"jb_ctban_set #{ts[0].userid}") and daemon.idle.is_set())
    return admin, ts


async def test_the_ctban_ref_and_the_admins_name_are_shown(tmp_path):
    sim = SimServer(password="pw")
    port = await sim.start()
    text = config_text(port, tmp_path / "s.sqlite3", rest='[ctban]\nref = "К1"\n')
    async with running(load(text, "<test>", {}), sim) as daemon:
        admin, ts = await banned_in_game(sim, daemon)
        assert sim.join(ts[0], "CT") is False
        (ban,) = entries(daemon.store, "action = 'ctban'")
        assert ban["ref"] == "К1"
        await until(lambda: any("[jailcore #" in text for text in admin.chat))
        feed = [text for text in admin.chat if f"[jailcore #{ban['id']}]" in text]
        assert feed and "(К1 admin Смотритель)" in feed[0] and "( admin)" not in feed[0]
    # the door's reason quotes the server's number, never an empty «[Правило ]»
    assert not [c for c in sim.received if "Правило ]" in c]


async def test_an_in_game_ctban_and_its_lift_are_in_the_web_pages_activity(tmp_path):
    """Issue 28: the activity said who gave CT bans from the command line and the page, not in game."""
    pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
    from jailcore.web.data import activity
    from jailcore.web.serve import build

    sim = SimServer(password="pw")
    port = await sim.start()
    config = load(config_text(port, tmp_path / "s.sqlite3"), "<test>", {})
    async with running(config, sim) as daemon:
        admin, ts = await banned_in_game(sim, daemon)
        sim.say(admin, f"!unctban #{ts[0].userid}")
        sim.flush()
        await until(lambda: sent(sim, f"jb_ctban_clear #{ts[0].userid}") and daemon.idle.is_set())
        await asyncio.sleep(0.6)  # a request poll: nothing is applied twice
        assert len(sent(sim, f"jb_ctban_set #{ts[0].userid}")) == 1
        page = build([config])
        try:
            rows = activity(page.sources)
        finally:
            page.sources.close()
    assert [(r["kind"], r["by"], r["steamid"]) for r in rows] == [("ctban.lift", "Смотритель", ts[0].steamid),
                                                                   ("ctban.give", "Смотритель", ts[0].steamid)]
    assert (rows[1]["minutes"], rows[1]["reason"]) == (30, "грубил") and all(r["applied_at"] for r in rows)
    listed = jailcore("ctban", "list", "--state-db", str(tmp_path / "s.sqlite3"))
    assert listed.returncode == 0 and "requested" not in listed.stdout  # applied in game: nothing waits


# -- 9. one account, one ban, across CS:S and CS:GO --------------------------------------------------------


@needs_broker
async def test_a_css_ban_holds_the_same_account_on_a_csgo_server(tmp_path, broker):  # noqa: F811
    sim_a, sim_b = SimServer(password="pw"), SimServer(password="pw")
    async with daemon_on(tmp_path, broker, "a", sim_a) as a, daemon_on(tmp_path, broker, "b", sim_b) as b:
        admin = sim_a.add_player("Смотритель", "T", admin="b")
        guard = sim_a.add_player("Охранник", "CT", steamid="STEAM_0:1:777")  # CS:S writes STEAM_0
        populate(sim_a)
        on_b = sim_b.add_player("Охранник", "CT", steamid="STEAM_1:1:777")  # CS:GO writes STEAM_1
        sim_b.round_start()
        sim_a.flush()
        sim_b.flush()
        await until(lambda: guard.userid in a.engine.state.players and on_b.userid in b.engine.state.players)
        sim_a.say(admin, f"!ctban #{guard.userid} 30 фрикилл")
        sim_a.flush()
        await until(lambda: sent(sim_b, f"jb_teamswap #{on_b.userid} T"), timeout=10)  # moved off CT on the other game
        await until(lambda: sent(sim_b, f"jb_ctban_set #{on_b.userid}"), timeout=5)
        assert sim_b.join(on_b, "CT") is False
        assert list(b.engine.state.ctbans) == ["STEAM_1:1:777"]  # kept as CS:GO writes him
        assert b.engine.state.ctbans["STEAM_1:1:777"].steamid == "STEAM_1:1:777"


async def test_a_ctban_given_as_another_form_of_the_steamid_holds_the_player_online(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        await settled(sim, daemon, prisoners=6)  # room for a second guard (1 to 3)
        guard = sim.add_player("Охранник", "CT", steamid="STEAM_1:0:5150")
        sim.flush()
        await until(lambda: guard.userid in daemon.engine.state.players and daemon.store.load_state("t") is not None)
        for form in ("STEAM_0:0:5150", "[U:1:10300]", "76561197960276028"):
            assert jailcore("ctban", "lift", form, "--state-db", str(tmp_path / "state.sqlite3")).returncode == 1  # nothing yet
        done = await cli("ctban", "add", "76561197960276028", "--minutes", "30", "--by", "Админ", "--state-db", str(tmp_path / "state.sqlite3"))
        assert done.returncode == 0, done.stderr
        await until(lambda: sent(sim, f"jb_teamswap #{guard.userid} T") and sent(sim, f"jb_ctban_set #{guard.userid}"), timeout=5)
        assert list(daemon.engine.state.ctbans) == ["STEAM_1:0:5150"]
        await until(lambda: "STEAM_1:0:5150" in str(daemon.store.load_state("t")["ctbans"]))
        lift = await cli("ctban", "lift", "STEAM_0:0:5150", "--by", "Админ", "--state-db", str(tmp_path / "state.sqlite3"))
        assert lift.returncode == 0, lift.stderr
        await until(lambda: sent(sim, f"jb_ctban_clear #{guard.userid}"), timeout=5)
        assert not daemon.engine.state.ctbans


@needs_broker
async def test_tail_f_mqtt_shows_an_entry_again_as_it_is_delivered(tmp_path, broker):  # noqa: F811
    from tests.test_network_cli import line, tail

    sim = SimServer(password="pw")
    async with tail(broker.port, "--json", "--rule", "specialday", "--action", "slay") as proc, daemon_on(tmp_path, broker, "a", sim):
        warden, _ = populate(sim)
        special_days(sim, warden, 2)
        sim.flush()
        first, second = json.loads(await line(proc.stdout)), json.loads(await line(proc.stdout))
    assert (first["id"], first["status"]) == (second["id"], "pending")
    assert (second["status"], second["reply"], second["server"]) == ("delivered", "ok", "a")
