"""End to end over loopback: real UDP datagrams, real Source RCON, a real SQLite file, and
the real plugin's bytecode answering in the simulated server (the Python stand-in when
pysmx is not installed). Players act by chat (`!game`, `!sd`...), as on a server."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sqlite3
import struct
import subprocess
import sys
import threading
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from jailcore.config.config import Config, load
from jailcore.io.daemon import Daemon
from jailcore.io.rcon import RconAuthError, RconClient, RconUnavailable
from jailcore.io.rconproto import encode
from jailcore.sim.simserver import SimServer, split_commands
from tests.audit_rows import entries

ROOT = Path(__file__).resolve().parents[1]


WIDE = 30.0  # seconds no wait gives up before (CI is a loaded 2-core box)


async def until(check, timeout: float = WIDE) -> None:
    """Returns as soon as `check()` holds. `timeout` says how long the test expects it may take; none
    gives up before `WIDE` seconds, since a loaded box stalls a process (and the simulated servers on
    this loop) for seconds at a time: a passing test never waits longer for it, a failing one fails
    later. What must happen within a time of its own is made structural (a poll slowed to a minute,
    a deadline far past the product's), never a tight wait."""
    loop = asyncio.get_running_loop()
    end = loop.time() + max(timeout, WIDE)
    while not check():
        if loop.time() > end:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.01)


async def only_a_wake_up(daemon: Daemon) -> None:
    """The admins' rows polled once a minute from now on (the poll waiting with the old interval is woken
    and its turn taken first), so an admin's request applied within the half minute `until` gives it can
    only have come through the wake-up socket, however slow a loaded box is: no stopwatch needed."""
    daemon.requests_interval = 60.0
    daemon.requests.woken.set()
    await until(lambda: not daemon.requests.woken.is_set(), timeout=30)  # taken: the next wait is the minute


def config_text(port: int, state: Path, server: str = "", log: str = "", rest: str = "", password: str = "pw") -> str:
    return (
        f'[server]\nname = "t"\nrulebook = "all"\n{server}[rcon]\nport = {port}\npassword = "{password}"\ntimeout = 1.0\n'
        f'[log]\nlisten = "127.0.0.1:0"\n{log}[state]\npath = "{state}"\n{rest}'
    )


async def never_answering(tmp_path: Path, prefix: str, timeout: float) -> tuple[SimServer, str]:
    """A started server that never answers the commands starting with `prefix`, and the
    config text of a daemon that waits `timeout` seconds for an answer."""
    sim = SimServer(password="pw")
    sim.never_answer = lambda c: c.startswith(prefix)
    port = await sim.start()
    return sim, config_text(port, tmp_path / "s.sqlite3").replace("timeout = 1.0", f"timeout = {timeout}")


@asynccontextmanager
async def running(config, sim: SimServer, stop_sim: bool = True, settle: bool = True, **options):
    """A daemon with this config beside this (started) simulated server; stops both (the
    server stays up with stop_sim False, for a daemon restart). `settle` False: stopped with its
    command in flight, as a test of what a restart finds needs (waiting would see it fail)."""
    daemon = Daemon(config, **{"rcon_backoff": (0.05, 0.2), "auth_backoff": 0.5, **options})
    task = asyncio.create_task(daemon.run())
    await daemon.ready.wait()
    await sim.log_to_daemon(("127.0.0.1", daemon.log_port))
    try:
        yield daemon
    finally:
        if settle and sim.port and not daemon.idle.is_set():
            # Python 3.11's wait_for can swallow a cancel that lands as a reply arrives (the
            # daemon's Outbox then never ends): let a command in flight finish first.
            idle = asyncio.ensure_future(daemon.idle.wait())
            await asyncio.wait([idle], timeout=WIDE)
            idle.cancel()
        daemon.stop()
        await task
        daemon.store.close()
        if stop_sim:
            await sim.stop()


@asynccontextmanager
async def live(tmp_path, sim: SimServer | None = None, server: str = "", log: str = "", state: str = "state.sqlite3",
               stop_sim: bool = True):
    sim = sim or SimServer(password="pw", secret="4242" if "secret" in log else "")
    port = sim.port or await sim.start()
    async with running(load(config_text(port, tmp_path / state, server, log), "<test>", {}), sim, stop_sim) as daemon:
        yield sim, daemon
    assert not sim.shim.errors, sim.shim.errors


def populate(sim: SimServer, prisoners: int = 3):
    warden = sim.add_player("Начальник", "CT")
    ts = [sim.add_player(f"Зек{i}", "T") for i in range(prisoners)]
    sim.round_start()  # Monday
    sim.round_end()
    sim.round_start()  # Tuesday
    sim.make_warden(warden)
    return warden, ts


def special_days(sim: SimServer, warden, n: int) -> None:
    """The warden calls a special day on each of `n` rounds running (000 6.5 «раз в 3
    раунда»: the second is a slay, the third a CT ban); the same day called twice in one
    round is one day."""
    for i in range(n):
        if i:
            sim.round_end()
            sim.round_start()
            sim.make_warden(warden)
        sim.say(warden, "!sd Прятки")


def specialday_too_soon(sim: SimServer, warden) -> None:
    """A special day, and the next round another (000 6.5 «раз в 3 раунда»): the warden's
    ladder's first step. (The same day announced twice in one round is one day.) Through
    the plugin's own command: a line written beside it would break its count (`seq`), a lost line."""
    sim.say(warden, "!sd Прятки")
    sim.round_end()
    sim.round_start()
    sim.make_warden(warden)
    sim.say(warden, "!sd Прятки")


async def settled(sim: SimServer, daemon: Daemon, prisoners: int = 3):
    """`populate`, and wait until the daemon knows the warden and has sent everything."""
    warden, ts = populate(sim, prisoners)
    sim.flush()
    await until(lambda: daemon.engine.state.warden == warden.userid and daemon.idle.is_set())
    return warden, ts


def sent(sim: SimServer, prefix: str) -> list[str]:
    return [c for c in sim.received if c.startswith(prefix)]


async def test_forbidden_game_is_answered_over_rcon(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        warden, _ = populate(sim, prisoners=9)
        sim.say(warden, "!game Король")
        sim.flush()
        await until(lambda: sent(sim, f"jb_warn #{warden.userid}"))
        (command,) = sent(sim, f"jb_warn #{warden.userid}")
        assert "5.17" in command and "Король" in command
        await until(lambda: daemon.idle.is_set())
        rows = entries(daemon.store, "rule = ?", ("games.online_limit",))
        assert [(r["action"], r["status"], r["reply"]) for r in rows] == [("warn", "delivered", "ok")]


async def test_forged_and_foreign_datagrams_are_dropped_and_counted(tmp_path):
    async with live(tmp_path, log='secret = "4242"\n') as (sim, daemon):
        warden, _ = populate(sim)
        sim.flush()
        await until(lambda: daemon.engine.state.warden == warden.userid)
        line = b'L 11/30/2026 - 20:00:00: World triggered "Round_Start"\n\x00'
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.sendto(b"\xff\xff\xff\xffR" + line, ("127.0.0.1", daemon.log_port))  # no secret
            s.sendto(b"\xff\xff\xff\xffS1111" + line, ("127.0.0.1", daemon.log_port))  # wrong secret
            s.sendto(b"garbage", ("127.0.0.1", daemon.log_port))
        await until(lambda: sum(daemon.udp.dropped.values()) == 3)
        assert daemon.udp.dropped == {"secret": 2, "header": 1}
        assert daemon.engine.state.round == 2  # no forged round start got through


async def test_datagrams_from_outside_the_allow_list_are_dropped(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        daemon.udp.allow.networks = []  # nobody allowed
        sim.round_start()
        sim.flush()
        await until(lambda: daemon.udp.dropped["address"] >= 1)
        assert daemon.engine.state.round == 0


async def test_hostile_text_never_splits_a_command(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        warden, _ = populate(sim)
        evil = 'x"; quit; sm_ban #1 0 "//\nrcon_password hacked'
        for said in (f"!game {evil}", f"!order {evil}", "!prohibit a", "!prohibit b", f"!prohibit {evil}"):
            sim.say(warden, said)
        sim.flush()
        await until(lambda: len(sent(sim, "jb_cancel_prohibition")) == 1)
        await until(lambda: daemon.idle.is_set())
        assert not [c for c in sim.received if not c.startswith("jb_")]
        for command in sim.received:
            assert len(split_commands(command)) == 1 and "quit" not in command.split()[0]
        enforcement = [c for c in sim.received if not c.startswith(("jb_hud", "jb_status", "jb_adminfeed"))]
        # (the unknown game is put to an admin since issue 31: a row, and no command to the game; a burst's lines are
        # handled as a burst: the first round's announcement may expire with its round, unsent)
        rows = [r for r in entries(daemon.store, "action <> ?", ("propose",)) if r["status"] != "expired"]
        assert len(enforcement) == len(rows) and entries(daemon.store, "action = ?", ("propose",))


async def test_rcon_outage_queues_and_delivers_once(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        warden, _ = await settled(sim, daemon)
        await sim.stop_rcon()
        for text in "abc":
            sim.say(warden, f"!prohibit {text}")
        sim.flush()
        await until(lambda: len(daemon.store.pending("t")) == 2)
        await asyncio.sleep(0.3)
        assert not sent(sim, "jb_cancel_prohibition")
        await sim.start(sim.port)
        await until(lambda: not daemon.store.pending("t"), timeout=8)
        assert len(sent(sim, "jb_cancel_prohibition 3")) == 1
        assert len(sent(sim, f"jb_warn #{warden.userid}")) == 1
        assert daemon.client.connects >= 2


async def test_restart_keeps_cooldown_and_ladders(tmp_path):
    sim = SimServer(password="pw")
    async with live(tmp_path, sim, stop_sim=False) as (_, daemon):
        warden, _ = populate(sim)
        special_days(sim, warden, 2)  # allowed, then slay (ladder step 1)
        sim.flush()
        await until(lambda: sent(sim, f"jb_slay #{warden.userid}") and daemon.idle.is_set())
    # a new daemon on the same state file, beside the same server
    async with live(tmp_path, sim) as (_, daemon2):
        assert daemon2.engine.state.specialday == 3 and daemon2.engine.state.round == 3
        sim.round_end()
        sim.round_start()  # round 4 = R+1: still cooling down
        sim.make_warden(warden)
        sim.say(warden, "!sd Прятки")
        sim.flush()
        await until(lambda: sent(sim, f"jb_teamswap #{warden.userid} T"))
        rows = entries(daemon2.store, "rule = ?", ("specialday.cooldown",))
        assert [r["action"] for r in rows] == ["slay", "ctban", "teamswap"]


async def test_seq_jump_asks_status_and_reconciles_a_large_server(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        warden, _ = populate(sim, prisoners=60)  # jb_status runs over several packets
        assert len(json.dumps(sim.status()).encode()) > 4096
        sim.flush()
        await until(lambda: daemon.engine.state.warden == warden.userid)
        newbie = sim.add_player("Новенький", "T")  # joins while UDP loses his lines and the warden's
        sim.say(warden, "!order a")
        sim.say(warden, "!order b")
        assert sim.drop_unsent() > 0
        sim.say(warden, "!order стоять")
        sim.flush()
        await until(lambda: newbie.userid in daemon.engine.state.players)
        assert daemon.engine.state.players[newbie.userid].team == "TERRORIST"
        assert len(daemon.engine.state.players) == 62


async def test_rcon_client_reads_coalesced_and_split_packets():
    async def server(reader, writer):
        await reader.readexactly(4 + 10 + 2)  # auth
        writer.write(encode(1, 0, b"") + encode(1, 2, b""))  # both in one write
        await writer.drain()
        data = await reader.read(1000)
        cmd_id, marker = struct.unpack("<i", data[4:8])[0], struct.unpack("<i", data[22:26])[0]
        blob = encode(cmd_id, 0, b"A" * 4096) + encode(cmd_id, 0, b"A" * 904 + b"B" * 10) + encode(marker, 0, b"")
        for i in range(0, len(blob), 7):  # dribbled out in 7-byte pieces
            writer.write(blob[i : i + 7])
            await writer.drain()
        await reader.read()
        writer.close()

    srv = await asyncio.start_server(server, "127.0.0.1", 0)
    port = srv.sockets[0].getsockname()[1]
    client = RconClient("127.0.0.1", port, "pw")
    reply = await client.command("jb_x")
    assert reply == "A" * 5000 + "B" * 10
    await client.close()
    await asyncio.sleep(0.05)
    srv.close()
    await srv.wait_closed()


async def test_a_reply_that_never_ends_is_cut_not_kept_in_memory(caplog):
    sent_packets = []

    async def server(reader, writer):
        await reader.readexactly(4 + 10 + 2)  # auth
        writer.write(encode(1, 0, b"") + encode(1, 2, b""))
        await writer.drain()
        data = await reader.read(1000)
        cmd_id = struct.unpack("<i", data[4:8])[0]
        try:
            while True:  # packets for the command's id, and never the end marker
                writer.write(encode(cmd_id, 0, b"X" * 4000))
                sent_packets.append(1)
                await writer.drain()
        except (ConnectionError, OSError):
            pass

    srv = await asyncio.start_server(server, "127.0.0.1", 0)
    client = RconClient("127.0.0.1", srv.sockets[0].getsockname()[1], "pw", timeout=120.0)
    started = asyncio.get_running_loop().time()
    with pytest.raises(RconUnavailable):
        await client.command("jb_status")
    assert asyncio.get_running_loop().time() - started < 60  # cut at the cap, not kept growing for the 120 s timeout
    assert not client.is_open  # given up as broken: the next command opens a new session
    assert any("a reply of more than" in r.getMessage() for r in caplog.records) and len(sent_packets) > 512
    await client.close()
    srv.close()
    await srv.wait_closed()


async def test_bad_password_backs_off_instead_of_getting_banned(tmp_path):
    sim = SimServer(password="right", max_failures=5)
    port = await sim.start()
    client = RconClient("127.0.0.1", port, "wrong", timeout=1.0, auth_backoff=60)
    with pytest.raises(RconAuthError):
        await client.command("jb_status")
    for _ in range(20):
        with pytest.raises(RconUnavailable):
            await client.command("jb_status")
    assert sim.auth_packets == 1 and not sim.banned
    await sim.stop()


async def test_simulated_server_speaks_to_an_independent_client():
    from rcon.source import rcon

    sim = SimServer(password="pw")
    port = await sim.start()
    for i in range(50):
        sim.add_player(f"Игрок номер {i}", "T")
    assert await rcon("jb_say", '"привет"', host="127.0.0.1", port=port, passwd="pw") == "ok"
    assert (await rcon("jb_warn", "#999", '"x"', host="127.0.0.1", port=port, passwd="pw")).startswith("error:")
    # an oversize packet is a failed login and closes the socket
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(encode(1, 3, "x" * 2000))
    await writer.drain()
    assert await reader.read() == b""
    writer.close()
    assert sim.failures
    await sim.stop()


@pytest.mark.parametrize(("mode", "expected"), [("observe", []), ("advise", ["jb_warn"])])
async def test_observe_and_advise_modes(tmp_path, mode, expected):
    async with live(tmp_path, server=f'mode = "{mode}"\n') as (sim, daemon):
        warden, _ = populate(sim)
        special_days(sim, warden, 2)  # would be a slay
        sim.flush()
        await until(lambda: entries(daemon.store, "rule = 'specialday.cooldown'"))
        await asyncio.sleep(0.2)
        await until(lambda: daemon.idle.is_set())
        sent_cmds = [c.split()[0] for c in sim.received if not c.startswith(("jb_hud", "jb_status", "jb_say", "jb_adminfeed"))]
        assert sent_cmds == expected
        rows = [(r["action"], r["status"]) for r in entries(daemon.store, "rule = 'specialday.cooldown'")]
        if mode == "observe":
            assert rows == [("slay", "observed")]
        else:  # the decision, and the warning that told the warden what would have been done
            assert rows == [("slay", "advised"), ("warn", "delivered")]


def test_jailcore_run_stops_cleanly_on_sigterm_and_keeps_state(tmp_path):
    state = tmp_path / "run.sqlite3"
    cfg = tmp_path / "run.toml"
    cfg.write_text('[server]\nname = "run"\n[rcon]\nport = 1\n[log]\nlisten = "127.0.0.1:0"\n', encoding="utf-8")
    env = {**os.environ, "JAILCORE_STATE": str(state), "JAILCORE_LOG_LISTEN": "127.0.0.1:0"}
    proc = subprocess.Popen([sys.executable, "-m", "jailcore", "run", "--config", str(cfg)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    said: list[str] = []
    up = threading.Event()

    def read() -> None:  # its "up" line is logged once its signal handlers are in place: SIGTERM before it would kill it
        for line in proc.stderr:
            said.append(line)
            if ": up: " in line:
                up.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert up.wait(60), "".join(said)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
        reader.join(10)
    finally:
        proc.kill()
        proc.wait()
        proc.stderr.close()
    assert proc.returncode == 0, "".join(said)
    rows = sqlite3.connect(state).execute("SELECT server FROM state").fetchall()
    assert rows == [("run",)]


async def test_live_config_edit_valid_then_invalid(tmp_path):
    sim = SimServer(password="pw")
    port = await sim.start()
    path = tmp_path / "server.toml"

    def write(rounds: str) -> None:
        text = config_text(port, tmp_path / "r.sqlite3", rest=f"[specialday.cooldown]\nrounds = {rounds}\n")
        path.write_text(text, encoding="utf-8")

    write("3")
    async with running(Config.from_toml(path, env={}), sim, config_path=str(path), watch_interval=0.05) as daemon:
        warden, _ = populate(sim)
        sim.say(warden, "!sd Прятки")
        sim.flush()
        await until(lambda: daemon.engine.state.specialday == 2)
        await asyncio.sleep(0.1)
        write("1")  # the admin allows a special day every round
        await until(lambda: len(daemon.reloads) == 1)
        assert "specialday.cooldown" in daemon.reloads[0]
        sim.round_end()
        sim.round_start()
        sim.make_warden(warden)
        sim.say(warden, "!sd Прятки")
        sim.flush()
        await until(lambda: daemon.engine.state.specialday == 3)
        assert not entries(daemon.store, "rule = 'specialday.cooldown'")
        await asyncio.sleep(0.1)
        write('"often"')  # a mistake: refused with the key and the line
        await until(lambda: len(daemon.reloads) == 2)
        assert "refused" in daemon.reloads[1] and "server.toml:13: specialday.cooldown.rounds" in daemon.reloads[1]
        assert daemon.engine.config.rules["specialday.cooldown"].rounds == 1


async def test_following_a_growing_log_file(tmp_path):
    from jailcore.io.logsource import follow_file

    path = tmp_path / "console.log"
    path.write_text('L 11/30/2026 - 20:00:00: World triggered "Round_Start"\n', encoding="utf-8")
    got: list[bytes] = []
    task = asyncio.create_task(follow_file(str(path), got.append, poll=0.02))
    await asyncio.sleep(0.1)
    with path.open("a", encoding="utf-8") as fh:
        fh.write('L 11/30/2026 - 20:00:01: World triggered "Round_End"\nL 11/30/2026 - 20:00:02: World trig')
        fh.flush()
        await until(lambda: len(got) == 1)
        fh.write('gered "Round_Start"\n')
    await until(lambda: len(got) == 2)
    path.write_text('L 11/30/2026 - 20:00:03: World triggered "Round_End"\n', encoding="utf-8")  # rotated
    await until(lambda: len(got) == 3)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert [g.split(b'"')[1] for g in got] == [b"Round_End", b"Round_Start", b"Round_End"]
