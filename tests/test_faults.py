"""Faults that lost or misplaced work (issue 19, items 10-18), driven from outside: the real
daemon against the simulated server over UDP and RCON, a real mosquitto, the command line."""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import os
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jailcore.config.config import Config, load
from jailcore.engine.rules.conduct import GrenadeSpam
from jailcore.sim.simserver import SimServer
from tests.audit_rows import entries
from tests.test_live import config_text, live, never_answering, populate, running, sent, settled, special_days, until
from tests.test_mqtt import broker, daemon_on, needs_broker, watching  # noqa: F401  (the broker fixture)

ROOT = Path(__file__).resolve().parents[1]


def jailcore(*args: str, env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jailcore", *args], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, **(env or {})}, timeout=timeout)


def one_line(result: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def statuses(daemon, where: str) -> list[tuple[str, str, str]]:
    return [(r["action"], r["status"], r["reply"] or "") for r in entries(daemon.store, where)]


async def refused_special_day(sim: SimServer, warden) -> None:
    """The warden's second special day in a row: 000 6.5 slays him (a pending slay while RCON is down)."""
    special_days(sim, warden, 2)
    sim.flush()


# -- 10. pending commands judged again under the config in force ------------------------------------------


async def test_pending_commands_are_dropped_after_a_restart_in_observe_mode(tmp_path):
    sim = SimServer(password="pw")
    async with live(tmp_path, sim=sim, stop_sim=False) as (sim, daemon):
        warden, _ = await settled(sim, daemon)
        await sim.stop_rcon()
        await refused_special_day(sim, warden)
        await until(lambda: ("slay", "pending", "") in statuses(daemon, "rule = 'specialday.cooldown'"))
    await sim.start(sim.port)
    async with live(tmp_path, sim=sim, server='mode = "observe"\n') as (sim, daemon):
        await until(lambda: daemon.client.connects >= 1)
        await asyncio.sleep(0.3)
        (slay,) = [r for r in statuses(daemon, "action = 'slay'")]
        assert slay[1] == "dropped" and "observe mode" in slay[2]
        assert not sent(sim, "jb_slay")


async def test_pending_commands_of_a_rule_switched_off_live_are_dropped(tmp_path):
    sim = SimServer(password="pw")
    port = await sim.start()
    path = tmp_path / "server.toml"
    path.write_text(config_text(port, tmp_path / "r.sqlite3"), encoding="utf-8")
    async with running(Config.from_toml(path, env={}), sim, config_path=str(path), watch_interval=0.05) as daemon:
        warden, _ = await settled(sim, daemon)
        await sim.stop_rcon()
        await refused_special_day(sim, warden)
        await until(lambda: ("slay", "pending", "") in statuses(daemon, "rule = 'specialday.cooldown'"))
        await asyncio.sleep(0.1)
        path.write_text(config_text(port, tmp_path / "r.sqlite3", rest="[specialday.cooldown]\nenabled = false\n"), encoding="utf-8")
        await until(lambda: len(daemon.reloads) == 1)
        await sim.start(sim.port)
        await until(lambda: daemon.client.connects >= 2 and daemon.idle.is_set(), timeout=8)
        rows = statuses(daemon, "rule = 'specialday.cooldown'")
        assert rows and all(status == "dropped" and "rule specialday.cooldown is off" in reply for _, status, reply in rows), rows
        assert not sent(sim, "jb_slay")


# -- 11. one daemon per state file ----------------------------------------------------------------------------


async def test_a_second_daemon_on_the_same_state_file_is_refused(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        cfg = tmp_path / "second.toml"
        cfg.write_text('[server]\nname = "second"\n[rcon]\nport = 1\n[log]\nlisten = "127.0.0.1:0"\n', encoding="utf-8")
        result = await asyncio.get_running_loop().run_in_executor(
            None, lambda: jailcore("run", "--config", str(cfg), env={"JAILCORE_STATE": str(tmp_path / "state.sqlite3")}))
        assert result.returncode == 1
        line = [x for x in result.stderr.splitlines() if "in use by another jailcore daemon" in x]
        assert line and f"pid {os.getpid()}, server t" in line[0]
        warden, _ = populate(sim)  # the first goes on as before
        sim.flush()
        await until(lambda: daemon.engine.state.warden == warden.userid)


# -- 12. sent but never answered ---------------------------------------------------------------------------


async def test_a_command_sent_and_never_answered_before_its_round_ended_says_so(tmp_path):
    sim, text = await never_answering(tmp_path, "jb_warn", 0.3)
    async with running(load(text, "<t>", {}), sim) as daemon:
        warden, _ = populate(sim, prisoners=9)
        sim.flush()
        await until(lambda: daemon.engine.state.warden == warden.userid and daemon.idle.is_set())
        sim.say(warden, "!game Король")  # too many prisoners: a warning (004 5.17)
        sim.flush()
        await until(lambda: any(i.sent_at and i.command.startswith("jb_warn") for i in daemon.session.outbox))  # on the wire, unanswered
        sim.round_end()
        sim.round_start()
        sim.flush()
        await until(lambda: daemon.idle.is_set(), timeout=8)
        ((_, status, reply),) = statuses(daemon, "rule = 'games.online_limit'")
        assert status == "unanswered" and "answer never came" in reply and "before it could be sent" not in reply


async def test_a_command_sent_before_a_restart_and_never_answered_says_so_after_it(tmp_path):
    from jailcore.store.rows import SENT

    sim, text = await never_answering(tmp_path, "jb_warn", 5.0)
    async with running(load(text, "<t>", {}), sim, stop_sim=False, settle=False) as daemon:  # stopped with the warning unanswered
        warden, _ = populate(sim, prisoners=9)
        sim.flush()
        await until(lambda: daemon.engine.state.warden == warden.userid and daemon.idle.is_set())
        sim.say(warden, "!game Король")
        sim.flush()
        await until(lambda: statuses(daemon, "rule = 'games.online_limit'") == [("warn", "pending", SENT)])
    await sim.stop_rcon()  # the server is away when the daemon comes back
    async with running(load(text, "<t>", {}), sim) as daemon:
        sim.round_end()
        sim.round_start()
        sim.flush()
        await until(lambda: statuses(daemon, "rule = 'games.online_limit'")[0][1] != "pending")
        ((_, status, reply),) = statuses(daemon, "rule = 'games.online_limit'")
        assert status == "unanswered" and reply.startswith("sent before the restart, its answer never came"), reply


# -- 13. MQTT messages survive a stop while the broker is down --------------------------------------------------


@needs_broker
async def test_mqtt_messages_queued_at_sigterm_are_published_after_the_restart(tmp_path, broker, caplog):  # noqa: F811
    caplog.set_level(logging.INFO)
    sim = SimServer(password="pw")
    async with watching(broker.port, "jailcore/a/actions", "keep-watcher") as got:
        async with daemon_on(tmp_path, broker, "a", sim) as daemon:
            warden, _ = populate(sim)
            sim.flush()
            await until(lambda: daemon.engine.state.warden == warden.userid)
            await asyncio.sleep(1.5)  # the broker saves the watcher's session
            broker.stop()
            await until(lambda: not daemon.mqtt.connected.is_set())
            await refused_special_day(sim, warden)
            await until(lambda: entries(daemon.store, "action = 'slay' AND status = 'delivered'"))
            (slay,) = entries(daemon.store, "action = 'slay'")
        kept = sqlite3.connect(tmp_path / "a.sqlite3").execute("SELECT COUNT(*) FROM mqtt_outbox").fetchone()[0]
        assert kept >= 2
        assert any("kept in" in r.getMessage() and "published after the next start" in r.getMessage() for r in caplog.records)
        assert not [m for m in got if m.get("id") == slay["id"]]
        await broker.start()
        sim2 = SimServer(password="pw")
        async with daemon_on(tmp_path, broker, "a", sim2):
            await until(lambda: {m.get("status") for m in got if m.get("id") == slay["id"]} == {"pending", "delivered"}, timeout=15)


# -- 14. dropped datagrams are counted, said and shown -------------------------------------------------------------


async def test_forged_datagrams_are_said_and_shown_in_status_and_jcstatus(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    async with live(tmp_path, log='secret = "4242"\n') as (sim, daemon):
        admin = sim.add_player("Смотритель", "T", admin="b")
        populate(sim)
        sim.flush()
        await until(lambda: daemon.engine.state.round == 2)
        line = b'L 11/30/2026 - 20:00:00: World triggered "Round_Start"\n\x00'
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            for _ in range(3):
                s.sendto(b"\xff\xff\xff\xffS1111" + line, ("127.0.0.1", daemon.log_port))  # a mis-set sv_logsecret
        await until(lambda: daemon.udp.dropped["secret"] == 3)
        said = [r.getMessage() for r in caplog.records if "was dropped" in r.getMessage()]
        assert len(said) == 1 and "sv_logsecret" in said[0]  # the first of its cause, not every one
        await until(lambda: daemon.session.drops == "secret 3" and daemon.idle.is_set())
        result = await asyncio.get_running_loop().run_in_executor(None, lambda: jailcore("status", "--state-db", str(tmp_path / "state.sqlite3")))
        assert "dropped datagrams: secret 3" in result.stdout.splitlines()[0]
        sim.say(admin, "!jcstatus")
        sim.flush()
        await until(lambda: any("отброшено датаграмм лога: secret 3" in text for text in admin.chat + admin.console))


# -- 15. the state file deleted under the running daemon ------------------------------------------------------------


async def test_a_state_file_deleted_while_running_is_written_afresh(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    db = tmp_path / "state.sqlite3"
    async with live(tmp_path) as (sim, daemon):
        warden, ts = await settled(sim, daemon)
        await refused_special_day(sim, warden)
        await until(lambda: entries(daemon.store, "action = 'slay' AND status = 'delivered'"))
        db.unlink()
        said = lambda: any("was deleted while running" in r.getMessage() for r in caplog.records)  # noqa: E731
        await until(lambda: db.exists() and said(), timeout=3)  # written afresh on the writer's thread, then said
        assert said()
        sim.say(ts[0], "заходите на www.example.ru")  # a decision after the new file: written there too
        sim.flush()
        await until(lambda: entries(daemon.store, "action = 'ban'") and daemon.idle.is_set())
    rows = sqlite3.connect(db).execute("SELECT action, status FROM audit ORDER BY id").fetchall()
    assert ("slay", "delivered") in rows and ("ban", "delivered") in rows
    assert oct(db.stat().st_mode & 0o777) == "0o600"


# -- 16. numbers: ASCII digits, bounded ---------------------------------------------------------------------------


@pytest.mark.parametrize("body,env", [
    ('[log]\nsecret = "²"\n', {}),
    ('[log]\nsecret = "99999999999999999999999"\n', {}),
    ('[log]\nlisten = "127.0.0.1:²"\n', {}),
    ('[log]\nlisten = "127.0.0.1:99999999999999999999999"\n', {}),
    ("", {"JAILCORE_RCON_PORT": "²"}),
    ("", {"JAILCORE_RCON_PORT": "9" * 5000}),
    ('[conduct.grenade_spam]\nladder = ["ban ' + "9" * 5000 + 'm"]\n', {}),
])
def test_odd_numbers_in_the_config_are_one_line_each(tmp_path, body, env):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[server]\nname = "x"\n' + body, encoding="utf-8")
    checked = jailcore("check-config", str(cfg), env=env)
    assert checked.returncode == 1 and "Traceback" not in checked.stderr, checked.stderr
    assert any(key in checked.stderr for key in ("secret", "listen", "JAILCORE_RCON_PORT", "ladder")), checked.stderr
    ran = jailcore("run", "--config", str(cfg), env={**env, "JAILCORE_STATE": str(tmp_path / "s.sqlite3")})
    assert ran.returncode == 1 and "Traceback" not in ran.stderr, ran.stderr
    assert not (tmp_path / "s.sqlite3").exists()


def test_odd_numbers_on_the_command_line_are_one_line_each(tmp_path):
    db = tmp_path / "s.sqlite3"
    from jailcore.store.sqlite import Store

    Store(db).close()
    since = jailcore("tail", "--since", "99999999999d", "--state-db", str(db))
    assert since.returncode == 0 and "Traceback" not in since.stderr, since.stderr
    assert "--since takes" in one_line(jailcore("tail", "--since", "9" * 40 + "d", "--state-db", str(db)))
    assert "--since takes" in one_line(jailcore("tail", "--since", "²d", "--state-db", str(db)))
    huge = jailcore("pardon", "99999999999999999999999", "--state-db", str(db))
    assert huge.returncode == 1 and "no enforcement with id" in one_line(huge)
    sup = jailcore("pardon", "²", "--state-db", str(db))
    assert sup.returncode == 2 and "digits 0-9" in one_line(sup)
    player = jailcore("tail", "--player", "#99999999999999999999999", "--state-db", str(db))
    assert player.returncode == 0 and "Traceback" not in player.stderr, player.stderr


# -- 17. replay: gzip, binary, directories, and linear on a stray quote -------------------------------------------


LOG = (
    'L 11/30/2026 - 20:00:00: "Начальник<2><STEAM_1:0:42><CT>" say "!sd Прятки"\n'
    'L 11/30/2026 - 20:00:01: World triggered "Round_Start"\n'
)


def _rounds_log(rounds: int):
    for r in range(rounds):
        at = f"L 11/30/2026 - {20 + r // 30:02d}:{(2 * r) % 60:02d}"
        yield f'{at}:00: World triggered "Round_Start"\n'
        yield f'{at}:05: "Начальник<2><STEAM_1:0:42><CT>" say "!sd Прятки"\n'
        yield f'{at}:10: "Зек<3><STEAM_1:0:7><TERRORIST>" say "раунд {r}; привет"\n'
        yield f'{at}:20: "Начальник<2><STEAM_1:0:42><CT>" killed "Зек<3><STEAM_1:0:7><TERRORIST>" with "ak47"\n'
        yield f'{at}:30: World triggered "Round_End"\n'


def test_replay_reads_gzip_and_refuses_binary_and_directories(tmp_path):
    plain = tmp_path / "L1130.log"  # a log of its own: forty rounds with chat, a kill and a special day each
    plain.write_text("".join(_rounds_log(40)), encoding="utf-8")
    packed = tmp_path / "L1130.log.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    config = str(ROOT / "configs" / "example.toml")
    a = jailcore("replay", "--config", config, "--stats", str(plain))
    b = jailcore("replay", "--config", config, "--stats", str(packed))
    assert a.returncode == b.returncode == 0 and a.stdout == b.stdout
    assert json.loads(b.stdout.splitlines()[-1])["stats"]["lines"] > 100
    binary = tmp_path / "core"
    binary.write_bytes(os.urandom(200_000))
    refused = jailcore("replay", "--config", config, str(binary))
    assert refused.returncode == 2 and "not a text log" in one_line(refused) and not refused.stdout
    folder = jailcore("replay", "--config", config, str(tmp_path))
    assert folder.returncode == 2 and "is a directory" in one_line(folder)
    missing = jailcore("replay", "--config", config, str(tmp_path / "nope.log"))
    assert missing.returncode == 2 and "no such log file" in one_line(missing)


def _stray_quote_log(path: Path, megabytes: int) -> None:
    body = 'L 11/30/2026 - 20:00:00: "Зек<3><STEAM_1:0:7><TERRORIST>" say "он сказал "привет"\n'  # five quotes: one stays open
    filler = "строка без времени, просто текст из чата\n"
    count = megabytes * 1024 * 1024 // len(filler.encode())
    path.write_text(body + filler * count + LOG, encoding="utf-8")


def test_replay_of_a_stray_quote_with_megabytes_after_it_is_linear(tmp_path):
    config = str(ROOT / "configs" / "example.toml")
    times = {}
    for mb in (1, 4):
        path = tmp_path / f"stray{mb}.log"
        _stray_quote_log(path, mb)
        t0 = time.monotonic()
        result = jailcore("replay", "--config", config, "--stats", str(path), timeout=120)
        times[mb] = time.monotonic() - t0
        assert result.returncode == 0, result.stderr
        stats = json.loads(result.stdout.splitlines()[-1])["stats"]
        assert stats["events"].get("round_start") == 1  # the lines after the junk are still read
    # Linear: four times the input, about four times the work (quadratic was 32x: 15 s, then 480 s).
    assert times[4] < 8 * times[1] + 1.0, times


# -- 18. a player's short-lived state goes with him -----------------------------------------------------------------


async def test_a_players_grenade_window_is_forgotten_when_he_leaves(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        _, ts = await settled(sim, daemon)
        for who in ts:
            sim.log.add(f"{who.ident()} threw hegrenade [1 2 3]")
        sim.flush()
        window = lambda: daemon.engine.state.rule(GrenadeSpam).thrown  # noqa: E731
        await until(lambda: len(window()) == len(ts))
        sim.disconnect(ts[0])
        sim.flush()
        await until(lambda: ts[0].userid not in daemon.engine.state.players)
        assert set(window()) == {t.steamid for t in ts[1:]}
