"""Observe mode end to end (issue 31): a daemon started as docs/install.md starts one
(`mode = "observe"`), beside the simulated server with its plugin, real UDP and RCON, a real
SQLite file. Its warden hosts a special day three rounds running (000 6.5 «Особый день
проводится не чаще, чем раз в N раундов»): observed, never sent. Switched to enforce by a
reload of its config file, then restarted, the game receives nothing of what was observed
(no `jb_ctban_set` for a warden who was never moved), and his next offence is his first."""

from __future__ import annotations

import asyncio

from jailcore.config.config import Config
from jailcore.sim.simserver import SimServer
from tests.audit_rows import entries
from tests.test_live import config_text, populate, running, sent, until

LADDER = '[specialday.cooldown]\nladder = ["teamswap", "ctban 30m"]\n'


def punishing(sim: SimServer) -> list[str]:
    return [c for c in sim.received if c.split()[0] in ("jb_teamswap", "jb_ctban_set", "jb_warn", "jb_slay")]


async def test_observed_for_a_while_then_enforced_by_a_reload_and_a_restart_leaves_nothing_to_send(tmp_path):
    sim = SimServer(password="pw")
    port = await sim.start()
    path = tmp_path / "server.toml"
    text = config_text(port, tmp_path / "state.sqlite3", server='mode = "observe"\n', rest=LADDER)
    path.write_text(text, encoding="utf-8")
    async with running(Config.from_toml(path, env={}), sim, stop_sim=False, config_path=str(path), watch_interval=0.05) as daemon:
        warden, _ = populate(sim)
        for day in range(3):
            if day:
                sim.round_end()
                sim.round_start()
                sim.make_warden(warden)
            sim.say(warden, "!sd Прятки")
        sim.flush()
        await until(lambda: len(entries(daemon.store, "rule = 'specialday.cooldown'")) == 3 and daemon.idle.is_set())
        observed = [(r["action"], r["status"]) for r in entries(daemon.store, "rule = 'specialday.cooldown'")]
        assert observed == [("teamswap", "observed"), ("ctban", "observed"), ("teamswap", "observed")]
        assert punishing(sim) == [] and daemon.engine.state.ctbans == {} and daemon.engine.state.warden == warden.userid
        asked = len(sent(sim, "jb_status"))
        await asyncio.sleep(0.1)
        path.write_text(text.replace('mode = "observe"', 'mode = "enforce"'), encoding="utf-8")
        await until(lambda: daemon.config.mode == "enforce" and len(sent(sim, "jb_status")) > asked and daemon.idle.is_set())
        assert punishing(sim) == [] and daemon.engine.state.ladders == {}
    async with running(Config.from_toml(path, env={}), sim, config_path=str(path)) as daemon:
        await until(lambda: daemon.client.connects >= 1 and len(sent(sim, "jb_status")) > asked + 1 and daemon.idle.is_set())
        assert punishing(sim) == []
        sim.round_end()
        sim.round_start()
        sim.make_warden(warden)
        sim.say(warden, "!sd Прятки")
        sim.flush()
        await until(lambda: sent(sim, f"jb_teamswap #{warden.userid}"))
        # His first step (and its return block at the door after it), nothing observed before it.
        assert punishing(sim)[0].startswith(f"jb_teamswap #{warden.userid} T ")
