"""The daemon never fails quietly (issue 11): faults of the server, the disk and the config,
over real sockets, a real SQLite file and the simulated server's fault modes."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from jailcore.config.config import Config, load
from jailcore.io.daemon import Daemon
from jailcore.sim.simserver import SimServer
from jailcore.store.sqlite import Store
from tests.audit_rows import entries
from tests.test_live import ROOT, config_text, live, never_answering, populate, running, sent, settled, specialday_too_soon, until


def pending_ids(daemon: Daemon) -> list[int]:
    return [row_id for row_id, _ in daemon.store.pending("t")]


def rows(daemon: Daemon, where: str = "1") -> list[tuple]:
    daemon.store.commit()
    return [(r["action"], r["status"], r["reply"]) for r in entries(daemon.store, where)]


def third_prohibition(sim: SimServer, warden) -> None:
    """An offence with two commands: the warning, then the cancelled prohibition."""
    for text in "abc":  # through the plugin's command: its count of lines (seq) stays whole
        sim.say(warden, f"!prohibit {text}")
    sim.flush()


# -- 1. nothing dies in silence ----------------------------------------------------------------


async def test_a_failure_while_recording_an_answer_is_logged_and_delivery_goes_on(tmp_path, caplog):
    async with live(tmp_path) as (sim, daemon):
        warden, _ = await settled(sim, daemon)
        backend = daemon.writer.backend  # the writer's own connection: the daemon writes nowhere else
        real_mark, calls = backend.mark, []

        def mark_once_broken(row_id, status, reply):
            calls.append(row_id)
            if len(calls) == 1:
                raise RuntimeError("mark broke")
            real_mark(row_id, status, reply)

        backend.mark = mark_once_broken
        third_prohibition(sim, warden)
        await until(lambda: len(calls) >= 2)
        sim.say(warden, "!prohibit d")
        sim.flush()
        await until(lambda: len(sent(sim, "jb_cancel_prohibition")) == 2 and daemon.idle.is_set())
        assert any("mark broke" in f for f in daemon.task_failures)
        assert any("mark broke" in (r.exc_text or "") + r.getMessage() or (r.exc_info and "mark broke" in str(r.exc_info[1]))
                   for r in caplog.records if r.levelno >= logging.ERROR)
        assert len(pending_ids(daemon)) == 1  # the row whose answer could not be written stays pending: re-sent at restart


async def test_a_task_that_keeps_failing_stops_the_daemon_with_one_line(tmp_path):
    sim = SimServer(password="pw")
    port = await sim.start()
    daemon = Daemon(load(config_text(port, tmp_path / "s.sqlite3"), "<t>", {}), rcon_backoff=(0.05, 0.2))

    async def broken():
        raise OSError("outbox broken")

    daemon.client.open = broken  # the RCON outbox task fails at once, every time
    daemon.restart_delay = 0.01
    await asyncio.wait_for(daemon.run(), 60)
    daemon.store.close()
    await sim.stop()
    assert daemon.exit_code == 1
    assert daemon.stop_reason.startswith("RCON outbox failed 5 times within a minute") and "outbox broken" in daemon.stop_reason
    assert len(daemon.task_failures) == 5


async def test_a_full_disk_stops_the_daemon_with_one_line(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        warden, _ = await settled(sim, daemon)
        def fill(backend):  # on the writer's own connection, where every write of the daemon goes
            backend.db.execute(f"PRAGMA max_page_count = {backend.db.execute('PRAGMA page_count').fetchone()[0]}")

        daemon.writer.call(fill)
        for i in range(40):  # offences until the audit log needs a page the "disk" does not have
            sim.say(warden, f"!prohibit p{i}")
            sim.flush()
            if daemon.stopping.is_set():
                break
            await asyncio.sleep(0.01)
        await until(lambda: daemon.stopping.is_set())
        assert daemon.exit_code == 1
        assert "state database" in daemon.stop_reason and "full" in daemon.stop_reason


@contextmanager
def immutable(path: Path):
    if os.geteuid() != 0 or not shutil.which("chattr") or subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode:
        pytest.skip("needs root and chattr on this filesystem")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def run_cli(*args: str, env: dict | None = None, timeout: float = 30) -> subprocess.CompletedProcess:
    env = {**os.environ, **(env or {})}
    env.pop("JAILCORE_STATE", None)
    return subprocess.run([sys.executable, "-m", "jailcore", *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=timeout)


def one_clear_line(result: subprocess.CompletedProcess, *needles: str) -> None:
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def write_config(tmp_path: Path, state: Path, rcon_port: int = 1) -> Path:
    cfg = tmp_path / "run.toml"
    cfg.write_text(f'[server]\nname = "run"\n[rcon]\nport = {rcon_port}\n[log]\nlisten = "127.0.0.1:0"\n[state]\npath = "{state}"\n',
                   encoding="utf-8")
    return cfg


@pytest.mark.parametrize("what", ["directory", "file"])
def test_run_with_an_unwritable_state_database_exits_with_one_line(tmp_path, what):
    folder = tmp_path / "var"
    folder.mkdir()
    state = folder / "state.sqlite3"
    if what == "file":
        Store(state).close()
    cfg = write_config(tmp_path, state)
    with immutable(folder if what == "directory" else state):
        result = run_cli("run", "--config", str(cfg))
    one_clear_line(result, "jailcore run: state database", str(state))


@pytest.mark.parametrize("servers", [1, 2])
async def test_a_state_file_made_unwritable_while_running_stops_with_the_reason_as_the_last_line(tmp_path, servers):
    """systemd shows a unit's last lines: the reason must be the last, not the way out's `RCON
    session ... closed: jailcore is stopping` (one server alone, and a fleet in one process on one state file)."""
    if os.geteuid() != 0 or not shutil.which("chattr"):
        pytest.skip("needs root and chattr")
    sim = SimServer(password="pw")
    port = await sim.start()
    state = tmp_path / "state.sqlite3"
    configs = []
    for k in range(servers):
        cfg = tmp_path / f"s{k}.toml"
        cfg.write_text(config_text(port, state).replace('name = "t"', f'name = "s{k}"'), encoding="utf-8")
        configs += ["--config", str(cfg)]
    if servers > 1:
        configs += ["--workers", "1"]
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "jailcore", "run", *configs, cwd=ROOT,
                                                stderr=subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.stderr is not None
    lines: list[str] = []
    frozen: list[Path] = []
    try:
        while sum("RCON session open" in line for line in lines) < servers:
            line = await asyncio.wait_for(proc.stderr.readline(), 60)
            assert line, lines
            lines.append(line.decode().rstrip())
        for path in (state, Path(f"{state}-wal")):  # not -shm: SQLite maps it, and a mapped page it cannot write is SIGBUS
            if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode:
                pytest.skip("chattr +i does not work on this filesystem")
            frozen.append(path)
        rest = await asyncio.wait_for(proc.stderr.read(), 60)  # the link rows are written every 2 s: the next fails
        code = await asyncio.wait_for(proc.wait(), 60)
    finally:
        for path in frozen:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        await sim.stop()
    lines += [line for line in rest.decode().splitlines() if line.strip()]
    assert code == 1, lines
    assert "cannot be written" in lines[-1] and str(state) in lines[-1] and "jailcore stopped" in lines[-1], lines[-3:]
    assert "Traceback" not in "\n".join(lines)


def test_state_file_is_created_private(tmp_path):
    Store(tmp_path / "new.sqlite3").close()
    assert stat.S_IMODE((tmp_path / "new.sqlite3").stat().st_mode) == 0o600


async def test_rcon_unreachable_at_start_is_logged_once(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    with socketless_port() as port:
        daemon = Daemon(load(config_text(port, tmp_path / "s.sqlite3"), "<t>", {}), rcon_backoff=(0.02, 0.05))
        task = asyncio.create_task(daemon.run())
        await daemon.ready.wait()
        await asyncio.sleep(0.5)  # a dozen reconnects
        daemon.stop()
        await task
        daemon.store.close()
    said = [r.getMessage() for r in caplog.records if "cannot reach" in r.getMessage()]
    assert len(said) == 1 and f"127.0.0.1:{port}" in said[0]


@contextmanager
def socketless_port():
    import socket

    with socket.socket() as s:  # bound, never listening: connections are refused
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


# -- 2. each command runs once, and only while it makes sense ----------------------------------


async def test_every_command_carries_its_audit_id(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        warden, _ = populate(sim)
        third_prohibition(sim, warden)
        await until(lambda: sent(sim, "jb_cancel_prohibition") and daemon.idle.is_set())
        ids = {r["id"] for r in entries(daemon.store, "status = 'delivered' AND command IS NOT NULL")}
        carried = {int(c.rsplit("@", 1)[1]) for c in sim.received if c.startswith(("jb_warn", "jb_cancel", "jb_say"))}
        assert ids and carried == ids


async def test_a_session_lost_after_the_server_ran_a_command_runs_it_once(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        warden, _ = await settled(sim, daemon)
        sim.drop_after = {"jb_slay"}
        specialday_too_soon(sim, warden)  # a slay
        sim.flush()
        await until(lambda: daemon.idle.is_set() and not pending_ids(daemon) and sim.dups)
        # sent twice (the first answer was lost), run once: the shim answered the repeat `ok dup`
        assert len(sent(sim, f"jb_slay #{warden.userid}")) == 2 and sim.dups == 1
        assert [line for line in sim.log.lines if "committed suicide" in line and warden.name in line][1:] == []
        assert rows(daemon, "action = 'slay'") == [("slay", "delivered", "ok dup")]
        assert daemon.client.connects >= 2


async def test_a_restart_between_execution_and_answer_runs_it_once(tmp_path):
    sim = SimServer(password="pw")
    async with live(tmp_path, sim) as (_, daemon):
        warden, _ = await settled(sim, daemon)
        sim.drop_after = {"jb_slay"}
        sim.on_command = lambda c: asyncio.get_running_loop().create_task(sim.stop_rcon()) if c.startswith("jb_slay") else None
        specialday_too_soon(sim, warden)
        sim.flush()
        await until(lambda: sent(sim, "jb_slay") and sim._server is None)
        assert len(pending_ids(daemon)) == 1  # the daemon goes down not knowing the slay ran
    sim2 = sim
    sim2.on_command = None
    await sim2.start(sim.port)
    async with running(load(config_text(sim.port, tmp_path / "state.sqlite3"), "<t>", {}), sim2) as daemon2:
        await until(lambda: not pending_ids(daemon2) and daemon2.idle.is_set())
        assert len(sent(sim2, "jb_slay")) == 2 and sim2.dups == 1  # re-sent after the restart, run once
        assert rows(daemon2, "action = 'slay'") == [("slay", "delivered", "ok dup")]


async def test_unknown_command_is_a_failure_and_hello_resyncs(tmp_path, caplog):
    async with live(tmp_path) as (sim, daemon):
        warden, _ = await settled(sim, daemon)
        sim.plugin_loaded = False
        third_prohibition(sim, warden)
        await until(lambda: len(rows(daemon, "rule = 'prohibitions.max'")) == 2 and not pending_ids(daemon))
        got = rows(daemon, "rule = 'prohibitions.max'")
        assert got == [("warn", "failed", 'Unknown command "jb_warn"'), ("cancel", "failed", 'Unknown command "jb_cancel_prohibition"')]
        assert len([r for r in caplog.records if "shim (sourcemod_bridge) is not loaded" in r.getMessage()]) == 1
        status_before = len(sent(sim, "jb_status"))
        sim.hello()
        sim.flush()
        await until(lambda: len(sent(sim, "jb_status")) > status_before)


async def test_a_round_bound_command_expires_with_its_round(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        warden, _ = await settled(sim, daemon)
        await sim.stop_rcon()
        specialday_too_soon(sim, warden)  # a slay, decided in round 3
        sim.round_end()
        sim.round_start()
        sim.flush()
        await until(lambda: daemon.engine.state.round == 4)
        await until(lambda: ("slay", "expired") in [r[:2] for r in rows(daemon)])
        await sim.start(sim.port)
        await until(lambda: daemon.client.connects >= 2 and daemon.idle.is_set(), timeout=8)
        assert not sent(sim, "jb_slay")
        slay = entries(daemon.store, "action = 'slay'")[0]
        assert slay["reply"] == "round 3 ended before it could be sent"
    from jailcore.cli.tail import human

    assert human(slay, colour=False).endswith("expired (round 3 ended before it could be sent)")


async def test_a_state_bound_command_expires_when_its_target_left(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        populate(sim)
        sim.flush()
        await until(lambda: daemon.engine.state.round == 2 and daemon.idle.is_set())
        await sim.stop_rcon()
        impostor = sim.add_player("[ADMIN] Вася", "T")  # kicked for the name
        sim.flush()
        await until(lambda: pending_ids(daemon))
        sim.log.disconnect(sim.players.pop(impostor.userid))
        sim.flush()
        await until(lambda: impostor.userid not in daemon.engine.state.players)
        await sim.start(sim.port)
        await until(lambda: not pending_ids(daemon) and daemon.client.connects >= 2, timeout=8)
        assert not sent(sim, "jb_kick")
        (kick,) = entries(daemon.store, "action = 'kick'")
        assert kick["status"] == "expired" and "no longer on the server" in kick["reply"]


async def test_a_command_never_answered_does_not_block_the_rest(tmp_path):
    sim, text = await never_answering(tmp_path, "jb_slay", 0.2)
    async with running(load(text, "<t>", {}), sim) as daemon:
        warden, _ = populate(sim)
        specialday_too_soon(sim, warden)  # a slay, never answered
        third_prohibition(sim, warden)  # then a warning and a cancel behind it
        await until(lambda: len(sent(sim, "jb_cancel_prohibition")) == 1 and not pending_ids(daemon), timeout=10)
        got = dict((a, (s, r)) for a, s, r in rows(daemon, "action IN ('slay', 'cancel')"))
        assert got["slay"] == ("failed", "no answer after 3 tries")
        assert got["cancel"] == ("delivered", "ok")


async def test_pipelined_commands_do_not_wait_for_each_other(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        warden, _ = await settled(sim, daemon)
        sim.hold_replies = True
        third_prohibition(sim, warden)
        await until(lambda: sent(sim, "jb_warn") and sent(sim, "jb_cancel_prohibition"))  # both ran, neither answered
        assert len(pending_ids(daemon)) == 2
        sim.release()
        await until(lambda: not pending_ids(daemon))


async def test_wrong_password_backs_off_stops_and_retries_on_sighup(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    sim = SimServer(password="right", max_failures=5)
    port = await sim.start()
    config = load(config_text(port, tmp_path / "s.sqlite3", password="wrong"), "<t>", {})
    daemon = Daemon(config, rcon_backoff=(0.05, 0.2), auth_backoff=0.05)
    task = asyncio.create_task(daemon.run())
    await daemon.ready.wait()
    await until(lambda: daemon.client.stopped)
    await asyncio.sleep(0.5)
    assert sim.auth_packets == 3 and not sim.banned
    stops = [r.getMessage() for r in caplog.records if "stopped trying" in r.getMessage()]
    assert len(stops) == 1 and "SIGHUP" in stops[0] and "wrong" not in stops[0]
    sim.password = "wrong"  # the admin fixed it on the server's side
    os.kill(os.getpid(), signal.SIGHUP)
    await until(lambda: daemon.client.is_open)
    assert sim.auth_packets == 4
    daemon.stop()
    await task
    daemon.store.close()
    await sim.stop()


async def test_a_new_password_in_the_config_is_tried_at_once(tmp_path):
    sim = SimServer(password="right")
    port = await sim.start()
    path = tmp_path / "server.toml"
    path.write_text(config_text(port, tmp_path / "s.sqlite3", password="wrong"), encoding="utf-8")
    async with running(Config.from_toml(path, env={}), sim, config_path=str(path), watch_interval=0.05, auth_backoff=0.05) as daemon:
        await until(lambda: daemon.client.stopped)
        path.write_text(config_text(port, tmp_path / "s.sqlite3", password="right"), encoding="utf-8")
        await until(lambda: daemon.client.is_open)
        assert sim.auth_packets == 4 and not sim.banned


# -- 3. bad config and files --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[rcon]\nport = 70000\n", "f.toml:2: rcon.port: must be a port number from 1 to 65535"),
        ('[log]\nlisten = "nonsense"\n', "f.toml:2: log.listen: expected host:port"),
        ('[log]\nlisten = "0.0.0.0:99999"\n', "f.toml:2: log.listen: the port must be a number from 0 to 65535"),
        ('[log]\nallow = ["127.0.0.1", "not-an-ip"]\n', "f.toml:2: log.allow: 'not-an-ip' is not an IP address"),
        ("[rcon]\ntimeout = -1\n", "f.toml:2: rcon.timeout: must be a number of seconds above 0"),
        ("[rcon]\ntimeout = 0\n", "f.toml:2: rcon.timeout: must be a number of seconds above 0"),
        ("[rcon]\ntimeout = inf\n", "f.toml:2: rcon.timeout: must be a number of seconds above 0"),
        ('[mqtt]\nurl = "http://jail:hunter2@broker:1883"\n', "f.toml:2: mqtt.url: unknown scheme 'http'"),
    ],
)
def test_settings_that_would_break_run_are_refused(text, problem):
    from jailcore.config.config import ConfigError

    with pytest.raises(ConfigError) as err:
        load(text, "f.toml", {})
    assert err.value.problems[0].startswith(problem), err.value.problems
    assert "hunter2" not in str(err.value)


def test_environment_overrides_are_validated_without_printing_secrets():
    from jailcore.config.config import ConfigError

    with pytest.raises(ConfigError) as err:
        load('[server]\nname = "x"\n', "f.toml", {"JAILCORE_RCON_PORT": "99999", "JAILCORE_MQTT_URL": "ftp://u:hunter2@h"})
    assert err.value.problems == [
        "environment: JAILCORE_RCON_PORT: must be a port number from 1 to 65535, got 99999",
        "environment: JAILCORE_MQTT_URL: unknown scheme 'ftp': use mqtt:// or mqtts:// (TLS)",
    ]


def test_empty_and_non_utf8_configs_are_refused(tmp_path):
    from jailcore.config.config import ConfigError

    empty = tmp_path / "empty.toml"
    empty.write_text("# all commented out\n\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"empty\.toml:1: config: the file sets nothing"):
        Config.from_toml(empty, env={})
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b'[server]\nname = "\xff"\n')
    with pytest.raises(ConfigError, match=r"bin.toml:2: not UTF-8 text \(byte 0xff\)"):
        Config.from_toml(binary, env={})


async def test_live_reload_is_all_or_nothing_and_the_watcher_survives_any_bytes(tmp_path):
    sim = SimServer(password="pw")
    port = await sim.start()
    path = tmp_path / "server.toml"
    base = config_text(port, tmp_path / "r.sqlite3", server='mode = "observe"\n')

    def write(extra: str = "", log: str = "") -> None:
        path.write_text(base.replace('[log]\n', f'[log]\n{log}') + extra, encoding="utf-8")

    write()
    async with running(Config.from_toml(path, env={}), sim, config_path=str(path), watch_interval=0.05) as daemon:
        await asyncio.sleep(0.1)
        path.write_bytes(b"\xff\xfe\x00garbage")
        await until(lambda: len(daemon.reloads) == 1)
        assert "refused" in daemon.reloads[0] and "not UTF-8" in daemon.reloads[0]
        await asyncio.sleep(0.1)
        path.write_text("", encoding="utf-8")  # emptied: must not switch observe to enforce
        await until(lambda: len(daemon.reloads) == 2)
        assert "refused" in daemon.reloads[1] and daemon.config.mode == "observe"
        await asyncio.sleep(0.1)
        write("[specialday.cooldown]\nrounds = 1\n", log='allow = ["nope"]\n')  # half good, half bad
        await until(lambda: len(daemon.reloads) == 3)
        assert "refused" in daemon.reloads[2] and "log.allow" in daemon.reloads[2]
        assert daemon.engine.config.rules["specialday.cooldown"].rounds == 3
        await asyncio.sleep(0.1)
        write("[specialday.cooldown]\nrounds = 1\n")  # the watcher is still there
        await until(lambda: len(daemon.reloads) == 4)
        assert "reloaded" in daemon.reloads[3] and daemon.engine.config.rules["specialday.cooldown"].rounds == 1


@pytest.fixture
def bad_files(tmp_path) -> dict[str, Path]:
    corrupt = tmp_path / "corrupt.sqlite3"
    corrupt.write_bytes(b"SQLite format 3\x00" + b"\xde\xad" * 3000)
    foreign = tmp_path / "foreign.sqlite3"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE cookies (host TEXT, value TEXT)")
    db.close()
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b'[server]\nname = "\xc0\xc1"\n')
    log = tmp_path / "round.log"
    log.write_text('L 11/30/2026 - 20:00:00: World triggered "Round_Start"\n', encoding="utf-8")
    return {"corrupt": corrupt, "foreign": foreign, "binary": binary, "missing": tmp_path / "missing.toml", "log": log}


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["run", "--config", "{missing}"], "cannot read the config"),
        (["run", "--config", "{binary}"], "not UTF-8"),
        (["replay", "--config", "{binary}", "{log}"], "not UTF-8"),
        (["replay", "--config", "{missing}", "{log}"], "cannot read the config"),
        (["tail", "--state-db", "{corrupt}"], "jailcore tail:"),
        (["tail", "--state-db", "{foreign}"], "not a jailcore state database"),
        (["history", "x", "--state-db", "{corrupt}"], "jailcore history:"),
        (["history", "x", "--state-db", "{foreign}"], "not a jailcore state database"),
    ],
)
def test_bad_files_are_one_clear_line(bad_files, args, needle, capsys):
    from jailcore.cli.cli import main

    code = main([a.format(**bad_files) for a in args])  # a traceback would be an exception here
    err = capsys.readouterr().err
    one_clear_line(subprocess.CompletedProcess(args, code, "", err), needle)


@pytest.mark.parametrize("kind", ["corrupt", "foreign"])
def test_run_refuses_a_bad_state_file_untouched(tmp_path, bad_files, kind):
    before = bad_files[kind].read_bytes()
    result = run_cli("run", "--config", str(write_config(tmp_path, bad_files[kind])))
    one_clear_line(result, "jailcore run: state database")
    assert bad_files[kind].read_bytes() == before


def test_tail_and_history_escape_control_characters(tmp_path, capsys):
    from jailcore.engine.actions import Slay, Target

    db = tmp_path / "audit.sqlite3"
    store = Store(db)
    evil = Target(5, "STEAM_1:0:5", "\x1b]0;PWNED\x07\x1b[2JВася\x9b31m")
    store.record("srv", Slay("2026-11-30T20:00:00", 2, "r", "1", "reason \x1b[31mred", evil), 1, "c", "failed")
    store.commit()
    store.close()
    result = run_cli("tail", "--state-db", str(db), env={"NO_COLOR": "1"})  # one real process, the rest in this one
    outputs = [result.stdout]
    assert result.returncode == 0, result.stderr
    from jailcore.cli.cli import main

    for args in (["history", "Вася", "--state-db", str(db)], ["tail", "--json", "--state-db", str(db)], ["history", "5", "--json", "--state-db", str(db)]):
        assert main(args) == 0
        outputs.append(capsys.readouterr().out)
    for out in outputs:
        assert not any(ch in out for ch in "\x1b\x07\x9b"), out
        assert ("\\x1b]0;PWNED\\x07" in out) or ("\\u001b]0;PWNED\\u0007" in out), out


# -- 4. fast: what keeps the p99 down (the figures are in `make bench`) ----------------------


async def test_the_wal_is_checkpointed_off_the_loop_and_rows_commit_with_the_send(tmp_path):
    state = tmp_path / "state.sqlite3"
    seen: list[tuple] = []

    def look(command: str) -> None:
        if "@" in command:  # the audit row is committed in the step that sent its command
            row_id = int(command.rsplit("@", 1)[1])
            with sqlite3.connect(state) as db:
                seen.append(db.execute("SELECT status FROM audit WHERE id = ?", (row_id,)).fetchone())
            db.close()

    def rows_in_the_file() -> int:
        """The database file alone, the WAL ignored: what a checkpoint has copied into it. `immutable`
        takes no lock, so a read while the daemon's checkpoint copies pages sees the file half
        written ("database disk image is malformed", "no such table"): not yet, asked again."""
        db = sqlite3.connect(f"file:{state}?immutable=1", uri=True)
        try:
            return db.execute("SELECT COUNT(*) FROM audit").fetchone()[0]
        except sqlite3.DatabaseError:  # not even the tables yet, or a page caught mid-checkpoint
            return -1
        finally:
            db.close()

    sim = SimServer(password="pw")
    sim.on_command = look
    async with live(tmp_path, sim) as (_, daemon):
        assert daemon.store.db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
        warden, _ = populate(sim)
        third_prohibition(sim, warden)
        await until(lambda: not pending_ids(daemon) and len(seen) >= 2 and daemon.idle.is_set(), timeout=30)
        assert all(s == ("pending",) for s in seen)
        daemon.store.commit()
        total = len(entries(daemon.store))
        await until(lambda: rows_in_the_file() == total, timeout=30)  # the worker thread's checkpoint (every second)


async def test_the_state_is_saved_on_a_timer_only_when_it_changed(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        saves: list[str] = []
        daemon.writer.call(lambda backend: backend.db.set_trace_callback(
            lambda sql: saves.append(sql) if sql.startswith("INSERT INTO state") else None))
        daemon.session.save_interval = 0.1
        populate(sim)
        for _ in range(10):  # twenty events that each used to save at once
            sim.round_end()
            sim.round_start()
        sim.flush()
        await until(lambda: daemon.engine.state.round == 12)
        session = daemon.session
        # everything handed to the writer (a plain line after the last save may wait SNAPSHOT_EVERY)
        await until(lambda: saves and not (session.saver.dirty or session.saver.drift or session.saver.decided), timeout=10)
        await asyncio.sleep(0.05)  # the driver hands the last save to the writer
        daemon.writer.call(lambda backend: None)  # the writer has done what it was given before this
        assert 1 <= len(saves) <= 10  # twenty events, far fewer saves (a loaded box spreads them over more ticks)
        quiet = len(saves)
        await asyncio.sleep(0.5)
        assert len(saves) == quiet  # nothing changed, nothing written
    with sqlite3.connect(tmp_path / "state.sqlite3") as db:
        assert json.loads(db.execute("SELECT snapshot FROM state").fetchone()[0])["round"] == 12  # and a stop saves
    db.close()


def test_run_refuses_a_saved_state_it_cannot_read_with_one_line(tmp_path):
    state = tmp_path / "state.sqlite3"
    store = Store(state)
    store.save_state("run", "{not json", "")
    store.close()
    one_clear_line(run_cli("run", "--config", str(write_config(tmp_path, state))), "the saved state of server 'run' cannot be read")
