"""A jail network on one box: N simulated game servers (default 50; `200` as the argument),
one jailcore process serving all of them, one mosquitto.

Each server is a simulated srcds in this process (real RCON over TCP, the shim's stand-in)
with its own config, `sv_logsecret` and state; all log to one UDP port of the jailcore
process. Each is fed real lines of shared/corpus at ~50 lines/s (the timestamp made now,
player ids moved past the simulated players', map changes left out: they would take the
players off the server), while an admin gives in-game CT bans (`!ctban #uid 30`) on one
server after another. Printed:

- the time from the ban's datagram to every other server's door (`jb_ctban_set` reaching
  that server's RCON), p50 / p99 / max;
- the jailcore process's resident memory and CPU, and the lines lost (sent - received);
- the same run's floor: a bare relay (a process that takes a message from the broker and
  writes one RCON command), from the publish to the command's arrival.

With `--mariadb` every server's state is on one MariaDB (a mariadbd of the bench's own, in a
temporary folder, on a free port) instead of one SQLite file.

With `--workers 2` the servers are served by `jailcore run --workers 2`: two processes (the
parent routes the datagrams), and with `--mariadb` both on the one MariaDB: the issue's aim
"two processes, 100 servers, one MariaDB" is `net_bench.py 100 --mariadb --workers 2`.

Usage: python3 bench/net_bench.py [N] [--seconds S] [--bans B] [--mariadb] [--workers W | --as-run]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # measure the checkout this file is in, not an installed copy

from jailcore.io.loop import run_loop  # noqa: E402
from jailcore.sim.simserver import SimServer  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
RATE = 50  # lines per second per server
NETWORK_KEY = "bench-network-key-0123456789abcdef"  # every server signs its network messages, as in production
_STAMP = re.compile(r"^(?:L )?\d\d/\d\d/\d{4} - \d\d:\d\d:\d\d: ")
_UID = re.compile(r"<(\d{1,6})><")
_SKIP = ("Loading map", "Started map", "server_cvar", "Log file")


def corpus_lines(limit: int = 60_000) -> list[str]:
    """Bodies of real engine-log lines, their player ids moved out of the simulated players' way."""
    out: list[str] = []
    for path in sorted(CORPUS.glob("*.log")):
        for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
            m = _STAMP.match(raw)
            if m is None or any(s in raw for s in _SKIP):
                continue
            out.append(_UID.sub(lambda u: f"<{int(u[1]) + 1000}><", raw[m.end():]))
            if len(out) >= limit:
                return out
    return out


def free_port(kind: int = socket.SOCK_STREAM) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def udp_receive_errors() -> int:
    with open("/proc/net/snmp") as fh:
        head, values = [line.split() for line in fh if line.startswith("Udp:")][:2]
    return int(values[head.index("RcvbufErrors")])


def cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


# -- the jailcore process -------------------------------------------------------------------------


def fleet_process(conn, paths: list[str]) -> None:
    import logging

    from jailcore.io.fleet import Fleet

    logging.basicConfig(level=logging.WARNING)

    async def main() -> None:
        fleet = Fleet(paths)
        task = asyncio.create_task(fleet.run())
        await fleet.ready.wait()
        mqtt = [d.mqtt.connected.wait() for d in fleet.daemons if d.mqtt is not None]
        await asyncio.wait_for(asyncio.gather(*mqtt), 60)
        conn.send((fleet.daemons[0].log_port, len(fleet.daemons), sorted(fleet.refused)))
        loop = asyncio.get_running_loop()
        stalls: list[float] = []
        gcs: list[float] = []

        async def watch() -> None:  # the loop's longest stalls: what a datagram or a ban waits behind
            while True:
                t = loop.time()
                await asyncio.sleep(0.005)
                stalls.append(loop.time() - t - 0.005)

        import gc

        started = [0.0]

        def timed(phase: str, info: dict) -> None:
            if phase == "start":
                started[0] = time.perf_counter()
            else:
                gcs.append((time.perf_counter() - started[0], info.get("generation")))

        gc.callbacks.append(timed)
        watcher = asyncio.create_task(watch())
        while True:
            query = await loop.run_in_executor(None, conn.recv)
            if query == "stop":
                break
            if query == "stalls":
                worst = sorted(stalls)[-5:]
                conn.send((worst, sorted(gcs)[-5:], len(gcs)))
                continue
            received = sum(d.udp.received for d in fleet.daemons)
            dropped = sum(fleet.shared[k].dropped.total() for k in fleet.shared)
            conn.send((received, dropped, rss_mb(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, cpu_seconds()))
        watcher.cancel()
        fleet.stop()
        await task

    run_loop(main())


# -- the floor: broker -> one RCON write ---------------------------------------------------------


def relay_process(conn, broker_port: int, rcon_port: int) -> None:
    import aiomqtt

    from jailcore.io.rcon import RconClient

    async def main() -> None:
        client = RconClient("127.0.0.1", rcon_port, "pw", 5.0, (0.05, 0.5), 1.0)
        async with aiomqtt.Client("127.0.0.1", broker_port, identifier="floor-relay") as mqtt:
            await mqtt.subscribe("bench/floor", qos=1)
            conn.send("ready")
            async for message in mqtt.messages:
                if message.payload == b"stop":
                    break
                await client.command(f"jb_ctban_set #{int(message.payload)} 60 \"floor\" \"bench\"")
        await client.close()

    run_loop(main())


# -- the run --------------------------------------------------------------------------------------


def ran(sim: SimServer, prefix: str) -> bool:
    return any(c.startswith(prefix) for c in sim.received)


def percentile(samples: list[float], pct: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(len(ordered) * pct / 100) - 1))] * 1000


class WorkersRun:
    """`jailcore run --workers W` as an admin starts it: a process tree, measured from /proc."""

    def __init__(self, folder: str, workers: int | None, state: Path, n: int, url: str = ""):
        self.state, self.n, self.url = state, n, url
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        placement = [] if workers is None else ["--workers", str(workers)]  # None: the command's own default
        self.proc = subprocess.Popen([sys.executable, "-m", "jailcore", "run", *placement, "--config-dir", folder],
                                     cwd=ROOT, env=env, stderr=subprocess.DEVNULL)

    def ready(self) -> bool:
        """Every server's link row written (each worker writes its servers' when they serve)."""
        if self.url:
            import pymysql

            from jailcore.store.mariadb import StoreError, connect, target

            try:
                db = connect(target(self.url))
            except StoreError:
                return False
            try:
                with db.cursor() as cur:
                    cur.execute("SELECT COUNT(*) AS n FROM link")
                    return int(cur.fetchone()["n"]) >= self.n
            except pymysql.MySQLError:
                return False
            finally:
                db.close()
        import sqlite3

        try:
            with sqlite3.connect(f"file:{self.state}?mode=ro", uri=True) as db:
                return db.execute("SELECT COUNT(*) FROM link").fetchone()[0] >= self.n
        except sqlite3.Error:
            return False

    def pids(self) -> list[int]:
        out = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True).stdout
        return [self.proc.pid, *map(int, out.split())]

    def stats(self) -> tuple:
        """(received: unknown here, dropped at the port: unknown, RSS MB, peak RSS MB, CPU seconds) of the whole tree."""
        rss = cpu = 0.0
        tick = os.sysconf("SC_CLK_TCK")
        for pid in self.pids():
            try:
                with open(f"/proc/{pid}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                cpu += (int(fields[11]) + int(fields[12])) / tick
                with open(f"/proc/{pid}/statm") as fh:
                    rss += int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
            except OSError:
                continue
        return (None, 0, rss, rss, cpu)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


def replay_cost(lines: list[str]) -> float:
    """Seconds of CPU a line costs the parser and the engine alone, as `jailcore replay` runs them."""
    from jailcore.config.config import load
    from jailcore.engine.engine import Engine
    from jailcore.log.parse import LogParser

    config = load('[server]\nname = "r"\nrulebook = "all"\n', "<bench>", {})
    parser, engine = LogParser(), Engine(config)
    records = [datetime.now().strftime("L %m/%d/%Y - %H:%M:%S: ").encode() + line.encode() for line in lines]
    t0 = time.process_time()
    for record in records:
        event = parser.parse(record)
        if event is not None:
            engine.handle(event)
    return (time.process_time() - t0) / len(records)


async def main(n: int, seconds: float, bans: int, workers: int | None = 1, rate: int = RATE, mqtt: bool = True, mariadb: bool = False,
               outside: bool = False) -> None:
    mosquitto = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    lines = corpus_lines()
    with tempfile.TemporaryDirectory() as tmp:
        database = None
        url = ""
        state = f'path = "{tmp}/network.sqlite3"\n'
        if mariadb:
            from tests.mariadb import MariaServer

            database = MariaServer(Path(tmp) / "mariadb")
            database.install()
            database.start()
            database.setup_user()
            url = database.database("jailcore")
            state = f'url = "{url}"\npath = "{tmp}/journal.sqlite3"\n'
            print(f"state: one MariaDB (its own mariadbd on 127.0.0.1:{database.port})")
        broker_port = free_port()
        conf = Path(tmp) / "mosquitto.conf"
        conf.write_text(f"listener {broker_port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 100000\n", encoding="utf-8")
        broker = subprocess.Popen([mosquitto, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        sims: list[SimServer] = []
        procs: list[mp.Process] = []
        try:
            await _wait_port(broker_port)
            listen = f"127.0.0.1:{free_port(socket.SOCK_DGRAM)}"
            paths = []
            for i in range(n):
                sim = SimServer(password="pw", secret=f"{1000 + i}", shim="stand-in")
                port = await sim.start()
                sims.append(sim)
                path = Path(tmp) / f"s{i:03d}.toml"
                path.write_text(
                    f'[server]\nname = "s{i:03d}"\nrulebook = "all"\n[rcon]\nport = {port}\npassword = "pw"\n'
                    f'[log]\nlisten = "{listen}"\nsecret = "{1000 + i}"\n[state]\n{state}'
                    + (f'[mqtt]\nurl = "mqtt://127.0.0.1:{broker_port}"\n' if mqtt else "")
                    + f'[network]\nkey = "{NETWORK_KEY}"\n',  # signed, as production should run
                    encoding="utf-8",
                )
                paths.append(str(path))
            spawn = mp.get_context("spawn")
            loop = asyncio.get_running_loop()
            t_start = time.perf_counter()
            tree: WorkersRun | None = None
            if outside or workers is None or workers > 1:
                tree = WorkersRun(tmp, workers, Path(tmp) / "network.sqlite3", n, url)
                while not tree.ready():
                    await asyncio.sleep(0.2)
                log_port = int(listen.rsplit(":", 1)[1])
                placed = "as an operator starts it (its default placement)" if workers is None else f"over {workers} worker processes"
                print(f"{n} servers, jailcore run {placed}: {len(tree.pids())} process(es), up in {time.perf_counter() - t_start:.1f} s")
                stats = tree.stats
            else:
                parent, child = spawn.Pipe()
                proc = spawn.Process(target=fleet_process, args=(child, paths), daemon=True)
                proc.start()
                procs.append(proc)
                log_port, served, refused = await loop.run_in_executor(None, parent.recv)
                print(f"{served} servers in one jailcore process ({len(refused)} refused), up and on the broker in "
                      f"{time.perf_counter() - t_start:.1f} s")

                def stats() -> tuple:
                    parent.send("stats")
                    return parent.recv()

            # Everyone on every server, in the same order: the simulated servers number players alike.
            admins, guards = [], []
            for sim in sims:
                await sim.log_to_daemon(("127.0.0.1", log_port))
                admins.append(sim.add_player("Админ", "T", admin="b"))
                guards.append([sim.add_player(f"Охранник {k}", "CT") for k in range(bans)])
                sim.round_start()
                sim.flush()
            arrivals: dict[tuple[int, int], float] = {}
            for i, sim in enumerate(sims):
                def seen(command: str, i: int = i) -> None:
                    if command.startswith("jb_ctban_set #") and "тест сети" in command:  # not a rule's return block
                        uid = int(command.split()[1][1:])
                        arrivals.setdefault((i, uid), time.perf_counter())
                sim.on_command = seen
            await asyncio.sleep(2.0)

            # Real lines at RATE per server, all servers interleaved, paced every 20 ms.
            outs = [sim._udp for sim in sims]
            heads = [b"\xff\xff\xff\xffS" + sim.secret.encode() for sim in sims]
            # each server plays its own stretch of the corpus: the same line on 200 servers in the same
            # 20 ms would make them all decide at once, which no real network does
            starts = [i * len(lines) // n for i in range(n)]
            sent = 0
            stop_feed = asyncio.Event()

            async def feed() -> None:
                nonlocal sent
                start, cursor = loop.time(), 0
                while not stop_feed.is_set():
                    due = int((loop.time() - start) * rate)
                    stamp = datetime.now().strftime("L %m/%d/%Y - %H:%M:%S: ").encode()
                    while cursor < due:
                        for head, out, at in zip(heads, outs, starts, strict=True):
                            out.sendto(head + stamp + lines[(at + cursor) % len(lines)].encode() + b"\n\x00")
                            sent += 1
                        cursor += 1
                    await asyncio.sleep(0.02)

            kernel_before = udp_receive_errors()
            before, own_before = stats(), sum(sim._sent for sim in sims)  # the simulated servers' own lines count too
            t0_wall, bench_cpu, feeding = time.perf_counter(), cpu_seconds(), asyncio.create_task(feed())
            await asyncio.sleep(min(3.0, seconds / 3))
            samples: list[float] = []
            lost_bans: list[str] = []
            per_ban: list[str] = []  # each ban's slowest door: one slow ban and a slow door at every ban are different faults
            missing = 0
            gap = max(0.5, (seconds - 4) / max(bans, 1))
            for k in range(bans):
                origin = k % n
                sim, target = sims[origin], guards[origin][k]
                sim.say(admins[origin], f"!ctban #{target.userid} 30 тест сети")
                t0 = time.perf_counter()
                sim.flush()
                others = [i for i in range(n) if i != origin]
                deadline = t0 + 5.0
                while time.perf_counter() < deadline and not all((i, guards[i][k].userid) in arrivals for i in others):
                    await asyncio.sleep(0.002)
                got = [arrivals[(i, guards[i][k].userid)] - t0 for i in others if (i, guards[i][k].userid) in arrivals]
                missing += len(others) - len(got)
                if not got:
                    lost_bans.append(f"#{k} on s{origin:03d}" + ("" if ran(sim, f"jb_ctban_set #{target.userid}") else ", not even at its own door"))
                samples += got
                per_ban.append(f"{max(got) * 1000:.0f}" if got else "-")
                await asyncio.sleep(gap)
            stop_feed.set()
            await feeding
            wall = time.perf_counter() - t0_wall
            await asyncio.sleep(1.5)
            after, extra = stats(), sum(sim._sent for sim in sims) - own_before
            kernel_drops = udp_receive_errors() - kernel_before
            fed = sent + extra
            received = after[0] - before[0] if after[0] is not None else fed - kernel_drops
            lost = fed - received
            print(f"fed {fed:,} real lines ({rate}/s per server, {n * rate:,}/s in all) over {wall:.1f} s; "
                  f"received {received:,}, lost {max(0, lost):,}; dropped at the shared port {after[1] - before[1]}; "
                  f"the kernel's UDP receive-buffer errors meanwhile (the whole box): {kernel_drops}"
                  + ("" if tree is None else " (with workers, lost is what the kernel dropped: the parent keeps what a worker cannot take yet)"))
            if samples:
                print(f"CT ban -> every other server's door ({bans} bans x {n - 1} servers = {len(samples)} doors, {missing} missed): "
                      f"p50 {percentile(samples, 50):.1f} ms, p99 {percentile(samples, 99):.1f} ms, max {max(samples) * 1000:.1f} ms; "
                      f"each ban's slowest door: {', '.join(per_ban)} ms")
            if tree is None:
                parent.send("stalls")
                worst, gcs, ngc = parent.recv()
                print(f"the jailcore loop's longest stalls: {', '.join(f'{w * 1000:.0f}' for w in worst)} ms; "
                      f"longest garbage collections: {', '.join(f'{g * 1000:.0f} (gen {n})' for g, n in gcs)} ms of {ngc}")
            if lost_bans:
                print(f"bans that reached no other door: {', '.join(lost_bans)}")
            cpu = (after[4] - before[4]) / wall
            print(f"this process (the {n} simulated servers and the feed): CPU {(cpu_seconds() - bench_cpu) / wall * 100:.0f}% of one core")
            print(f"jailcore {'process' if tree is None else 'processes (parent and workers)'}: RSS {after[2]:.0f} MB (peak {after[3]:.0f} MB), "
                  f"{after[2] / n:.2f} MB per server; CPU {cpu * 100:.0f}% of one core")
            live = (after[4] - before[4]) / max(received, 1)
            replay = replay_cost(lines[:20_000])
            print(f"cost per line: live {live * 1e6:.1f} us of CPU (everything the process does, over the lines it took), "
                  f"replay {replay * 1e6:.1f} us (parser and engine alone): {live / replay:.1f}x")
            if tree is not None:
                tree.stop()
                parent = None
                print("(the floor is measured in the one-process run)")
                return

            # The floor, in the same run: broker -> a bare relay -> one RCON write.
            floor_sim = SimServer(password="pw", shim="stand-in")
            rport = await floor_sim.start()
            sims.append(floor_sim)
            floor_guard = floor_sim.add_player("Охранник", "CT")
            got_floor: list[float] = []
            hit = asyncio.Event()
            floor_sim.on_command = lambda c: (got_floor.append(time.perf_counter()), hit.set()) if c.startswith("jb_ctban_set") else None
            parent2, child2 = spawn.Pipe()
            relay = spawn.Process(target=relay_process, args=(child2, broker_port, rport), daemon=True)
            relay.start()
            procs.append(relay)
            await loop.run_in_executor(None, parent2.recv)
            import aiomqtt

            floor: list[float] = []
            async with aiomqtt.Client("127.0.0.1", broker_port, identifier="floor-publisher") as pub:
                for attempt in range(33):  # the first three open the relay's RCON session: not counted
                    hit.clear()
                    t0 = time.perf_counter()
                    await pub.publish("bench/floor", str(floor_guard.userid), qos=1)
                    try:
                        async with asyncio.timeout(2):
                            await hit.wait()
                        if attempt >= 3:
                            floor.append(got_floor[-1] - t0)
                    except TimeoutError:
                        pass
                    await asyncio.sleep(0.02)
                await pub.publish("bench/floor", "stop", qos=1)
            if floor:
                print(f"floor (broker -> bare relay -> one RCON write, n={len(floor)}): p50 {percentile(floor, 50):.1f} ms, "
                      f"p99 {percentile(floor, 99):.1f} ms")
            parent.send("stop")
        finally:
            for proc in procs:
                proc.join(15)
                if proc.is_alive():
                    proc.terminate()
            for sim in sims:
                await sim.stop()
            broker.terminate()
            broker.wait(10)
            if database is not None:
                database.stop()


async def _wait_port(port: int) -> None:
    for _ in range(200):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            await asyncio.sleep(0.05)
    raise RuntimeError("mosquitto did not start")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("servers", nargs="?", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the feed runs")
    parser.add_argument("--bans", type=int, default=8, help="in-game CT bans, each on the next server")
    parser.add_argument("--workers", type=int, help="jailcore run --workers N (without it: one process, measured from inside)")
    parser.add_argument("--as-run", action="store_true", help="jailcore run --config-dir as an operator starts it (without --workers: its "
                        "default placement), measured from outside (/proc) as --workers is")
    parser.add_argument("--rate", type=int, default=RATE, help="lines per second per server")
    parser.add_argument("--no-mqtt", action="store_true", help="no broker for the servers (a fleet's bans cross by the process, or the parent)")
    parser.add_argument("--mariadb", action="store_true", help="the state on one MariaDB of the bench's own")
    args = parser.parse_args()
    if args.mariadb:
        from tests.mariadb import INSTALL, MARIADBD

        if MARIADBD is None or INSTALL is None:
            print("net_bench --mariadb: mariadbd is not installed (apt-get install mariadb-server): skipped")
            sys.exit(0)
    workers = args.workers if args.workers is not None or args.as_run else 1
    run_loop(main(args.servers, args.seconds, args.bans, workers, args.rate, not args.no_mqtt, args.mariadb, args.as_run))
