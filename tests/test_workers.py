"""`jailcore run --workers 2`: one fleet over two processes, driven from outside over real
UDP and RCON: each server's lines reach its own worker, a CT ban crosses workers at once, a
worker killed with SIGKILL is started again by its parent and goes on with nothing lost, and
`jailcore status` shows every server whichever worker has it."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from jailcore.sim.simserver import SimServer
from tests.test_fleet import free_udp_port, server_config
from tests.test_live import WIDE, populate, sent, special_days, until

ROOT = Path(__file__).resolve().parents[1]


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid`, from /proc (no `pgrep` forked: a wait asks this a hundred times a second)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # ended meanwhile
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:  # after the name, which may hold anything: state, then ppid
                out.append(int(entry.name))
    return sorted(out)


def alive(pid: int) -> bool:
    """A worker process still running (not a zombie, not a reused pid)."""
    try:
        return b"jailcore.io.workers" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def serving(parent: int, path: str) -> list[int]:
    """The parent's workers that serve this config."""
    def cmdline(pid: int) -> bytes:
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:  # ended meanwhile
            return b""

    return [pid for pid in children(parent) if path.encode() in cmdline(pid)]


async def status(db: Path | None = None, env: dict[str, str] | None = None) -> dict[str, dict]:
    """`jailcore status --json` (of this state file, or of the environment's store), by server. Awaited, never
    run blocking: the simulated servers live on this test's loop, and one that cannot answer RCON for the
    seconds a loaded box takes to start a Python made the daemons drop their sessions (`[rcon] timeout = 1.0`),
    back off up to 15 s and send the unanswered commands again."""
    where = ["--state-db", str(db)] if db is not None else []
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "jailcore", "status", *where, "--json", cwd=ROOT,
                                                env=env or {**os.environ, "PYTHONPATH": str(ROOT)},
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    return {s["server"]: s for s in (json.loads(line) for line in out.decode().splitlines() if line.strip())}


async def shown_until(check: Callable[[dict[str, dict]], object], db: Path | None = None, env: dict[str, str] | None = None,
                      timeout: float = 60) -> dict[str, dict]:
    """`status` asked again until `check` holds for what it shows (which is returned)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check(shown := await status(db, env)):
        if loop.time() > end:
            raise AssertionError(f"status never showed what was awaited: {shown}")
        await asyncio.sleep(0.05)
    return shown


async def test_two_workers_split_a_fleet_share_a_ban_and_survive_a_killed_worker(tmp_path):
    listen = f"127.0.0.1:{free_udp_port()}"
    sims = {name: SimServer(password="pw", secret=secret) for name, secret in (("a", "1111"), ("b", "2222"))}
    db = tmp_path / "ab.sqlite3"
    paths = [server_config(tmp_path / f"{n}.toml", n, await sim.start(), db, listen, sim.secret) for n, sim in sims.items()]
    err = (tmp_path / "err.txt").open("w")
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "jailcore", "run", "--workers", "2", *[a for p in paths for a in ("--config", p)],
                                                cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stderr=err)
    try:
        await until(lambda: len(children(proc.pid)) == 2, timeout=60)
        await shown_until(lambda shown: set(shown) == {"a", "b"}, db)  # each worker wrote its server's link row
        host, port = listen.rsplit(":", 1)
        wardens = {}
        for name, sim in sims.items():
            await sim.log_to_daemon((host, int(port)))
            wardens[name], _ = populate(sim, prisoners=9)
            sim.say(wardens[name], "!game Король")  # too many prisoners: a warning, on that server only
            sim.flush()
        for name in "ab":
            await until(lambda n=name: sent(sims[n], f"jb_warn #{wardens[n].userid}"), timeout=60)

        # A CT ban given in game on a (its worker) reaches b's door (the other worker).
        guard, on_b = wardens["a"], wardens["b"]
        special_days(sims["a"], guard, 3)  # allowed, slay, CT ban
        sims["a"].flush()
        await until(lambda: sent(sims["a"], f"jb_teamswap #{guard.userid} T"), timeout=60)
        await until(lambda: sent(sims["b"], f"jb_ctban_set #{on_b.userid}"), timeout=60)

        # The worker of b is killed: its parent starts it again, and b goes on where it was.
        rounds = (await shown_until(lambda shown: shown["b"]["ctbans"], db))["b"]["round"]  # saved: the kill may come any time now
        before = children(proc.pid)
        os.kill(before[-1], signal.SIGKILL)
        await until(lambda: len(children(proc.pid)) == 2 and children(proc.pid) != before, timeout=60)
        commands = len(sims["b"].received)
        sims["b"].round_end()
        sims["b"].round_start()
        sims["b"].flush()
        await shown_until(lambda shown: shown["b"]["round"] == rounds + 1, db)  # not a round lost, nor one started afresh
        await until(lambda: len(sims["b"].received) > commands, timeout=60)  # and it speaks to its server again
        shown = await status(db)
        assert set(shown) == {"a", "b"} and shown["b"]["ctbans"], shown  # the ban b holds came back from the state file
    finally:
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(proc.wait(), 20) == 0
        err.close()
        for sim in sims.values():
            await sim.stop()


async def test_a_stop_reaches_every_worker_while_another_cannot_come_up(tmp_path):
    """Server b's database takes the connection and never answers, so its worker never comes
    up (it fails and is started again); a stop must still reach a's worker, which is up, and
    the parent must end."""
    import socket

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)  # connections wait in the backlog: accepted by the kernel, never answered
    listen = f"127.0.0.1:{free_udp_port()}"
    sim = SimServer(password="pw", secret="1111")
    db = tmp_path / "a.sqlite3"
    a = server_config(tmp_path / "a.toml", "a", await sim.start(), db, listen, "1111")
    b_path = tmp_path / "b.toml"
    other = SimServer(password="pw", secret="2222")
    server_config(b_path, "b", await other.start(), tmp_path / "b.sqlite3", listen, "2222")
    b = str(b_path)
    b_text = b_path.read_text(encoding="utf-8")
    b_path.write_text(b_text.replace("[state]\n", f'[state]\nurl = "mysql://u:p@127.0.0.1:{silent.getsockname()[1]}/j"\n', 1), encoding="utf-8")
    err = (tmp_path / "err.txt").open("w")
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "jailcore", "run", "--workers", "2", "--config", a, "--config", b,
                                                cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stderr=err)
    try:
        await shown_until(lambda shown: "a" in shown, db)  # a's worker is up and wrote its link row
        assert serving(proc.pid, a)
        proc.send_signal(signal.SIGTERM)
        await until(lambda: not serving(proc.pid, a), timeout=60)  # told to stop, and stopped, while b's worker is still stuck
        assert "worker 0 did not stop" not in (tmp_path / "err.txt").read_text(encoding="utf-8")  # by its own stop, not ended by force
        await asyncio.wait_for(proc.wait(), 60)  # and the parent ends: it waited for ever for b's worker to say it serves
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        err.close()
        silent.close()
        await sim.stop()
        await other.stop()


async def test_workers_stop_when_their_parent_is_killed(tmp_path):
    """A parent killed with SIGKILL tells no one: its workers see it gone and stop, so the
    next `jailcore run` is the only one serving its servers."""
    listen = f"127.0.0.1:{free_udp_port()}"
    sims = {name: SimServer(password="pw", secret=secret) for name, secret in (("a", "1111"), ("b", "2222"))}
    db = tmp_path / "ab.sqlite3"
    paths = [server_config(tmp_path / f"{n}.toml", n, await sim.start(), db, listen, sim.secret) for n, sim in sims.items()]
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "jailcore", "run", "--workers", "2", *[a for p in paths for a in ("--config", p)],
                                                cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stderr=subprocess.DEVNULL)
    workers: list[int] = []
    try:
        await shown_until(lambda shown: set(shown) == {"a", "b"}, db)
        workers = children(proc.pid)
        assert len(workers) == 2
        proc.kill()
        await proc.wait()
        await until(lambda: not any(alive(pid) for pid in workers), timeout=60)
    finally:
        for pid in workers:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for sim in sims.values():
            await sim.stop()


async def test_a_run_started_after_a_kill_9_waits_for_the_old_workers_before_it_serves(tmp_path):
    """The parent held the state file's lock for its workers; killed with -9 it let go of it at once
    while its workers were still stopping (saving, marking answers), and a run started meanwhile took
    the file beside them: two processes on one database, each re-sending the other's pending commands.
    The workers hold the lock with their parent now, and the new run waits for them (one is stopped
    here, so its stop takes as long as the test wants)."""
    listen = f"127.0.0.1:{free_udp_port()}"
    sims = {name: SimServer(password="pw", secret=secret) for name, secret in (("a", "1111"), ("b", "2222"))}
    db = tmp_path / "ab.sqlite3"
    paths = [server_config(tmp_path / f"{n}.toml", n, await sim.start(), db, listen, sim.secret) for n, sim in sims.items()]
    configs = [a for p in paths for a in ("--config", p)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    first = await asyncio.create_subprocess_exec(sys.executable, "-m", "jailcore", "run", "--workers", "2", *configs,
                                                 cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
    err_path = tmp_path / "second.txt"
    err = err_path.open("w")
    second = None
    workers: list[int] = []
    try:
        await shown_until(lambda shown: set(shown) == {"a", "b"} and len(children(first.pid)) == 2, db)
        workers = children(first.pid)
        os.kill(workers[0], signal.SIGSTOP)  # a worker that is slow to stop
        first.kill()
        await first.wait()
        second = await asyncio.create_subprocess_exec(sys.executable, "-m", "jailcore", "run", "--workers", "2", *configs,
                                                      cwd=ROOT, env=env, stderr=err)
        await until(lambda: said(err_path, "still hold it", "waiting for them"), timeout=60)
        assert alive(workers[0]) and second.returncode is None and not children(second.pid)  # it waits, and serves nothing yet
        os.kill(workers[0], signal.SIGCONT)  # it reads that its parent is gone, and stops
        await until(lambda: len(children(second.pid)) == 2, timeout=90)
        assert not any(alive(pid) for pid in workers)  # the old ones were gone first
        await until(lambda: said(err_path, "2 server(s) over 2 worker process(es)"), timeout=90)  # and it serves
    finally:
        for pid in workers:
            if alive(pid):
                os.kill(pid, signal.SIGCONT)
                os.kill(pid, signal.SIGKILL)
        if second is not None and second.returncode is None:
            second.send_signal(signal.SIGTERM)
            await asyncio.wait_for(second.wait(), 60)
        err.close()
        for sim in sims.values():
            await sim.stop()


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
async def test_a_worker_serving_a_config_that_joined_late_ends_with_its_parent(tmp_path, how):
    """b's config is refused at start (its worker serves nothing yet) and joins once fixed; then the
    parent is stopped (SIGTERM) or killed (-9). Its worker, too, ends: a worker left with parent 1
    held b's state database, reloaded its config and retried RCON for ever, and ignored SIGTERM."""
    listen = f"127.0.0.1:{free_udp_port()}"
    sims = {name: SimServer(password="pw", secret=secret) for name, secret in (("a", "1111"), ("b", "2222"))}
    ports = {name: await sim.start() for name, sim in sims.items()}
    db = tmp_path / "ab.sqlite3"
    a = server_config(tmp_path / "a.toml", "a", ports["a"], db, listen, "1111")
    b = tmp_path / "b.toml"
    b.write_text("[server\n", encoding="utf-8")
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "jailcore", "run", "--workers", "2", "--config", a, "--config", str(b),
                                                cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stderr=subprocess.DEVNULL)
    workers: list[int] = []
    try:
        await shown_until(lambda shown: "a" in shown and len(children(proc.pid)) == 2, db)
        workers = children(proc.pid)
        server_config(b, "b", ports["b"], db, listen, "2222")  # fixed: it joins its worker
        await shown_until(lambda shown: "b" in shown, db)
        assert children(proc.pid) == workers  # the same workers: b joined the one that watched it
        if how == "SIGTERM":
            proc.send_signal(signal.SIGTERM)
            await asyncio.wait_for(proc.wait(), 60)
        else:
            proc.kill()
            await proc.wait()
        await until(lambda: not any(alive(pid) for pid in workers), timeout=60)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        for pid in workers:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        for sim in sims.values():
            await sim.stop()


def said(path: Path, *needles: str) -> bool:
    return any(all(n in line for n in needles) for line in path.read_text(encoding="utf-8").splitlines())


async def offence_on(sim: SimServer, warden=None):
    """Too many prisoners for the game the warden names: a warning on this server (its lines reached
    its own daemon, and only it)."""
    if warden is None:
        warden, _ = populate(sim, prisoners=9)
    else:  # the next round: a game again
        sim.round_end()
        sim.round_start()
        sim.make_warden(warden)

    def punished() -> int:
        return len([c for c in sim.received if c.startswith(("jb_warn", "jb_teamswap", "jb_slay")) and f"#{warden.userid} " in c])

    before = punished()
    sim.say(warden, "!game Король")
    sim.flush()
    await until(lambda: punished() > before, timeout=60)
    return warden


@pytest.mark.parametrize("late", [True, False])
async def test_a_config_that_takes_another_workers_secret_on_a_shared_port_is_refused(tmp_path, late):
    """Servers a and b on one port, in two workers. b's config, refused at start (late) or running
    with its own secret, is saved with a's secret: each worker saw only its own servers, so b joined
    (or reloaded) beside a with one sv_logsecret, a's lines were taken as ambiguous or b's, and a's
    offences went unenforced. It is refused as at start, and a and b go on, each with its own lines."""
    listen = f"127.0.0.1:{free_udp_port()}"
    host, port = listen.rsplit(":", 1)
    sims = {name: SimServer(password="pw", secret=secret) for name, secret in (("a", "1111"), ("b", "2222"))}
    ports = {name: await sim.start() for name, sim in sims.items()}
    db = tmp_path / "ab.sqlite3"
    a = server_config(tmp_path / "a.toml", "a", ports["a"], db, listen, "1111")
    b = tmp_path / "b.toml"
    if late:
        b.write_text("[server\n", encoding="utf-8")
    else:
        server_config(b, "b", ports["b"], db, listen, "2222")
    err_path = tmp_path / "err.txt"
    err = err_path.open("w")
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "jailcore", "run", "--workers", "2", "--config", a, "--config", str(b),
                                                cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stderr=err)
    try:
        await shown_until(lambda shown: set(shown) == ({"a"} if late else {"a", "b"}) and len(children(proc.pid)) == 2, db)
        for sim in sims.values():
            await sim.log_to_daemon((host, int(port)))
        warden_a = await offence_on(sims["a"])
        warden_b = None if late else await offence_on(sims["b"])
        server_config(b, "b", ports["b"], db, listen, "1111")  # a's secret
        await until(lambda: said(err_path, "b.toml", "refused", "shares the log port", "with server 'a'"), timeout=60)
        await offence_on(sims["a"], warden_a)  # a's lines still reach a
        if late:
            assert set(await status(db)) == {"a"}  # b never joined
        else:
            await offence_on(sims["b"], warden_b)  # and b's, with the secret b runs with
    finally:
        proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(proc.wait(), 60)
        err.close()
        for sim in sims.values():
            await sim.stop()


async def test_what_a_worker_had_not_made_durable_when_it_died_goes_to_the_next_one_once(tmp_path):
    """b's worker stops reading (SIGSTOP) while b's lines keep coming, then is killed (-9): what the
    parent had passed on sat in the worker's socket, and was lost with it (15 of 616 lines, and every
    offence line, in 2 of 4 tries). The parent holds what it passed on until the worker's state
    database holds it, and gives it to the next worker, which handles each line once.

    The warning is counted as sent, so no RCON session may be given up meanwhile: the simulated
    servers answer on this test's loop, which a loaded box stalls past a 1 s `[rcon] timeout`, and
    a worker that gives up a session sends its unanswered commands again (with their ids: the shim
    runs them once, docs/guarantees.md), which counted the one warning twice. The servers here wait
    `WIDE` for an answer: the relay is what is tested, not the game's silence."""
    listen = f"127.0.0.1:{free_udp_port()}"
    host, port = listen.rsplit(":", 1)
    sims = {name: SimServer(password="pw", secret=secret) for name, secret in (("a", "1111"), ("b", "2222"))}
    paths = {n: server_config(tmp_path / f"{n}.toml", n, await sim.start(), tmp_path / f"{n}.sqlite3", listen, sim.secret)
             for n, sim in sims.items()}
    for path in paths.values():
        Path(path).write_text(Path(path).read_text(encoding="utf-8").replace("timeout = 1.0", f"timeout = {WIDE}"), encoding="utf-8")
    configs = [a for p in paths.values() for a in ("--config", p)]
    said = tmp_path / "run.log"  # what the parent and its workers said
    with said.open("wb") as out:
        proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "jailcore", "run", "--workers", "2", *configs,
                                                    cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stderr=out)
    b, db = sims["b"], tmp_path / "b.sqlite3"
    try:
        await shown_until(lambda shown: "a" in shown, tmp_path / "a.sqlite3")
        await shown_until(lambda shown: "b" in shown and len(children(proc.pid)) == 2, db)
        await b.log_to_daemon((host, int(port)))
        warden, _ = populate(b, prisoners=9)
        b.flush()
        await shown_until(lambda shown: shown["b"]["round"] == 2, db)
        (worker,) = serving(proc.pid, paths["b"])
        os.kill(worker, signal.SIGSTOP)
        rounds = 20
        for _ in range(rounds):
            b.round_end()
            b.round_start()
        b.make_warden(warden)
        b.say(warden, "!game Король")  # 9 prisoners: a warning
        b.flush()
        os.kill(worker, signal.SIGKILL)
        await until(lambda: serving(proc.pid, paths["b"]) not in ([], [worker]), timeout=60)
        await until(lambda: sent(b, f"jb_warn #{warden.userid}"), timeout=60)
        shown = await shown_until(lambda shown: shown["b"]["round"] >= 2 + rounds, db)
        assert shown["b"]["round"] == 2 + rounds  # each round once
        assert len(sent(b, f"jb_warn #{warden.userid}")) == 1
        assert b"no answer to" not in said.read_bytes()  # what the count stands on: no session was given up
    finally:
        proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(proc.wait(), 60)
        for sim in sims.values():
            await sim.stop()


def kernel_queue(port: int) -> tuple[int, int]:
    """The bytes waiting in the receive queue of the UDP socket on 127.0.0.1:`port`, and its drops."""
    for line in Path("/proc/net/udp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1] == f"0100007F:{port:04X}":
            return int(fields[4].split(":")[1], 16), int(fields[-1])
    raise AssertionError(f"no UDP socket on 127.0.0.1:{port}")


async def test_a_flood_costs_the_flooded_server_its_own_lines_not_a_neighbours_on_its_port_and_worker(tmp_path):
    """f and v share a port and a worker; the worker falls behind (stopped here) while f floods with
    its own secret: 130,000 lines, more than the parent holds for a worker. The one queue the parent
    kept for the worker let go of the oldest, whichever server's: v's offence among them. Each
    server's lines now wait in a queue of its own, and only f's excess is dropped (counted)."""
    listen = f"127.0.0.1:{free_udp_port()}"
    host, port = listen.rsplit(":", 1)
    v = SimServer(password="pw", secret="2222")
    paths = {"f": server_config(tmp_path / "f.toml", "f", 1, tmp_path / "f.sqlite3", listen, "1111"),
             "g": server_config(tmp_path / "g.toml", "g", 1, tmp_path / "g.sqlite3", listen, "3333"),
             "v": server_config(tmp_path / "v.toml", "v", await v.start(), tmp_path / "v.sqlite3", listen, "2222")}
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "jailcore", "run", "--workers", "2",
                                                *[a for p in paths.values() for a in ("--config", p)],
                                                cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stderr=subprocess.DEVNULL)
    flood = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    worker = 0
    try:
        for n in paths:
            await shown_until(lambda shown, n=n: n in shown, tmp_path / f"{n}.sqlite3")
        await until(lambda: len(children(proc.pid)) == 2, timeout=60)
        (worker,) = serving(proc.pid, paths["v"])
        assert serving(proc.pid, paths["f"]) == [worker]  # f and v in one worker, g in the other
        await v.log_to_daemon((host, int(port)))
        warden, _ = populate(v, prisoners=3)
        v.flush()
        await shown_until(lambda shown: shown["v"]["round"] == 2, tmp_path / "v.sqlite3")
        _, drops = kernel_queue(int(port))
        os.kill(worker, signal.SIGSTOP)

        async def flood_lines(count: int) -> None:
            line = b'\xff\xff\xff\xffS1111L 12/01/2026 - 20:00:00: "Flood<7><STEAM_1:0:7><TERRORIST>" say "flood"\n'
            for _ in range(count // 1000):
                for _datagram in range(1000):
                    flood.sendto(line, (host, int(port)))
                await until(lambda: kernel_queue(int(port))[0] < 256 * 1024, timeout=30)  # the parent read them: none dropped for want of room

        await flood_lines(20_000)  # the worker's socket is full: what follows waits in the parent
        v.round_end()
        v.round_start()
        v.make_warden(warden)
        for p in ("a", "b", "c"):
            v.say(warden, f"!prohibit {p}")  # the third: an offence
        v.flush()
        await flood_lines(110_000)
        assert kernel_queue(int(port))[1] == drops  # the kernel dropped nothing: all of it reached jailcore
        os.kill(worker, signal.SIGCONT)
        await until(lambda: sent(v, "jb_cancel_prohibition"), timeout=60)
    finally:
        if worker:
            os.kill(worker, signal.SIGCONT)
        flood.close()
        proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(proc.wait(), 60)
        await v.stop()
