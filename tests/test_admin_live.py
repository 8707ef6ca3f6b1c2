"""Admins in control, end to end: real UDP, real RCON to the simulated server running the
shim, a real SQLite file, a real mosquitto broker. A pardon made on the command line lifts a
CT ban on the running daemon within a second, and on a second server through MQTT; a banned
player's join to CT is refused by the shim itself; the admin feed reaches admins only."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from jailcore.sim.simserver import SimServer
from jailcore.store.request_kinds import PardonRequest
from tests.audit_rows import entries
from tests.test_live import live, only_a_wake_up, populate, sent, settled, special_days, until
from tests.test_mqtt import broker, daemon_on, needs_broker  # noqa: F401  (the broker fixture)

ROOT = Path(__file__).resolve().parents[1]


def jailcore(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jailcore", *args], capture_output=True, text=True, cwd=ROOT, timeout=60)


async def banned_warden(sim: SimServer, daemon):
    """The warden calls three special days: allowed, a slay, then a CT ban (000 6.5)."""
    warden, ts = await settled(sim, daemon)
    special_days(sim, warden, 3)
    sim.flush()
    await until(lambda: sent(sim, f"jb_ctban_set #{warden.userid}") and daemon.idle.is_set(), timeout=10)
    return warden, ts


async def test_the_shim_refuses_a_banned_join_and_a_cli_pardon_lifts_the_ban_at_once_through_its_wake_up(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        warden, _ = await banned_warden(sim, daemon)
        assert warden.team != "CT" or not sim.join(warden, "CT")
        moves = len(sent(sim, f"jb_teamswap #{warden.userid}"))
        assert sim.join(warden, "CT") is False  # the shim's door: no join line, no daemon fallback needed
        sim.flush()
        await asyncio.sleep(0.2)
        assert len(sent(sim, f"jb_teamswap #{warden.userid}")) == moves
        assert any("КТ" in text or "CT" in text for text in warden.chat)  # he is told why and for how long
        (ctban,) = entries(daemon.store, "action = 'ctban'")
        await only_a_wake_up(daemon)  # within a second on an idle box (docs/benchmarks.md); here: woken, not polled
        done = await asyncio.get_running_loop().run_in_executor(
            None, jailcore, "pardon", str(ctban["id"]), "--reason", "ошибка", "--by", "Админ", "--state-db", str(tmp_path / "state.sqlite3"))
        assert done.returncode == 0, done.stderr
        await until(lambda: sent(sim, f"jb_ctban_clear #{warden.userid}"), timeout=30)
        assert warden.steamid not in daemon.engine.state.ctbans
        assert daemon.engine.state.ladders.get(f"specialday.cooldown|{warden.steamid}") == 1  # the step is taken back
        assert sim.join(warden, "CT") is True
        out = await asyncio.to_thread(jailcore, "tail", "--state-db", str(tmp_path / "state.sqlite3"), "--rule", "specialday")
        assert "pardoned by Админ: ошибка" in out.stdout


async def test_the_admin_feed_reaches_an_admin_and_not_a_player(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        admin = sim.add_player("Смотритель", "T", admin="b")  # not "Админ": 001 general 16 kicks that name
        warden, ts = await banned_warden(sim, daemon)
        await until(lambda: any("!jcpardon" in text for text in admin.chat), timeout=3)
        feed = [text for text in admin.chat if "[jailcore #" in text]
        assert any("Начальник" in text and "specialday.cooldown" in text for text in feed)
        for player in (warden, *ts):
            assert not [text for text in player.chat if "!jcpardon" in text]


async def test_an_admin_pardons_in_game(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        admin = sim.add_player("Смотритель", "T", admin="b")  # not "Админ": 001 general 16 kicks that name
        warden, _ = await banned_warden(sim, daemon)
        (ctban,) = entries(daemon.store, "action = 'ctban'")
        sim.say(admin, f"!jcpardon {ctban['id']} не виноват")
        sim.flush()
        await until(lambda: sent(sim, f"jb_ctban_clear #{warden.userid}"), timeout=3)
        pardon = daemon.store.pardons_for([ctban["id"]])[ctban["id"]]
        assert (pardon["by"], pardon["reason"]) == ("Смотритель", "не виноват") and pardon["applied_at"]


@needs_broker
async def test_a_pardon_lifts_a_network_ct_ban_on_the_other_server(tmp_path, broker):  # noqa: F811
    sim_a, sim_b = SimServer(password="pw"), SimServer(password="pw")
    async with daemon_on(tmp_path, broker, "a", sim_a) as a, daemon_on(tmp_path, broker, "b", sim_b) as b:
        warden_a, _ = populate(sim_a)
        on_b = sim_b.add_player(warden_a.name, "CT", steamid=warden_a.steamid)
        sim_b.round_start()
        sim_b.flush()
        await until(lambda: any(s.steamid == warden_a.steamid for s in b.engine.state.players.values()))
        special_days(sim_a, warden_a, 3)
        sim_a.flush()
        await until(lambda: warden_a.steamid in b.engine.state.ctbans, timeout=10)
        # The ban may cross to b before a's writer has committed its row: wait for the row itself.
        await until(lambda: entries(a.store, "action = 'ctban'"), timeout=5)
        (ctban,) = entries(a.store, "action = 'ctban'")
        a.store.submit(PardonRequest(ctban["id"], "Админ", "ошибка"))
        a.store.commit()
        await until(lambda: warden_a.steamid not in b.engine.state.ctbans, timeout=5)
        await until(lambda: sent(sim_b, f"jb_ctban_clear #{on_b.userid}"), timeout=5)
        assert sim_b.join(on_b, "CT") is True


@pytest.mark.parametrize("lift", [False, True])
async def test_ctban_add_and_lift_from_the_command_line_reach_the_game(tmp_path, lift):
    async with live(tmp_path) as (sim, daemon):
        _, ts = await settled(sim, daemon)
        db = str(tmp_path / "state.sqlite3")
        await until(lambda: daemon.store.load_state("t") is not None)  # the server is known to the file
        done = await asyncio.get_running_loop().run_in_executor(
            None, jailcore, "ctban", "add", ts[0].steamid, "--minutes", "30", "--reason", "грубил", "--by", "Админ", "--state-db", db)
        assert done.returncode == 0, done.stderr
        await until(lambda: sent(sim, f"jb_ctban_set #{ts[0].userid} 1800"), timeout=3)
        assert sim.join(ts[0], "CT") is False
        if lift:
            await until(lambda: ts[0].steamid in str(daemon.store.load_state("t")["ctbans"]))  # saved: the CLI checks it
            done = await asyncio.get_running_loop().run_in_executor(
                None, jailcore, "ctban", "lift", ts[0].steamid, "--by", "Админ", "--state-db", db)
            assert done.returncode == 0, done.stderr
            await until(lambda: sent(sim, f"jb_ctban_clear #{ts[0].userid}"), timeout=3)
            assert sim.join(ts[0], "CT") is True
