"""Lost shim lines end to end (issue 31): real UDP datagrams from the simulated server (its
plugin running in the SourcePawn VM), real RCON, a real SQLite file. A datagram the network
loses is a gap in the plugin's `seq`: counted in `jailcore status`, and the game is asked
for its state (`jb_status`) so that a lost `jb_warden` does not become a punishment (004 4.4
«При отсутствии желающих КТ обязаны взять на себя роль Начальника»)."""

from __future__ import annotations

from tests.audit_rows import entries
from tests.test_admin_live import jailcore
from tests.test_live import live, sent, settled, until


def no_warden_moves(daemon) -> list:
    return entries(daemon.store, "rule = 'teams.no_warden' AND action IN ('teamswap', 'propose')")


async def test_a_warden_whose_line_udp_lost_is_asked_of_the_game_and_not_punished(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        warden, ts = await settled(sim, daemon)
        sim.round_end()
        sim.round_start()
        sim.flush()
        await until(lambda: daemon.engine.state.warden is None and daemon.idle.is_set())
        asked = len(sent(sim, "jb_status"))
        sim.make_warden(warden)
        assert sim.drop_unsent() == 2  # his `!w` and its `jb_warden`, the last shim line for a while: no gap shows it
        sim.log.wait(31)
        sim.say(ts[0], "кто начальник?")
        sim.flush()
        # 004 4.4's question to the guards at 30 s asks the game first: it names the warden.
        await until(lambda: len(sent(sim, "jb_status")) > asked and daemon.engine.state.warden == warden.userid, timeout=5)
        sim.log.wait(40)
        sim.say(ts[0], "понятно")
        sim.flush()
        await until(lambda: daemon.idle.is_set() and daemon.engine.state.time == sim.log.now.isoformat(timespec="seconds"), timeout=5)
        assert no_warden_moves(daemon) == [] and not sent(sim, f"jb_teamswap #{warden.userid}")


async def test_a_gap_in_the_plugins_count_is_counted_in_status_and_the_game_asked(tmp_path):
    db = str(tmp_path / "state.sqlite3")
    async with live(tmp_path) as (sim, daemon):
        warden, _ = await settled(sim, daemon)
        asked = len(sent(sim, "jb_status"))
        sim.say(warden, "!order стоять у стены")
        sim.say(warden, "!order все в клетку")
        assert sim.drop_unsent() == 4  # both orders' lines (the chat and the plugin's) lost on the way
        sim.say(warden, "!order сесть")  # the next one shows the gap
        sim.flush()
        await until(lambda: daemon.engine.state.lost == 2 and len(sent(sim, "jb_status")) > asked, timeout=5)
        assert daemon.engine.state.doubt and daemon.engine.state.warden == warden.userid
        await until(lambda: "lost plugin lines: 2" in jailcore("status", "--state-db", db).stdout, timeout=10)
