"""A flood on a shared log port: what it costs the other servers of the port.

Two servers, F and V, log to one UDP port of one `jailcore run` (each its own `sv_logsecret`). A
flooder process sends F's datagrams (with F's secret: a compromised or broken game server, or a
forger who has read F's secret) as fast as it can up to `--rate` a second, for `--seconds`. All
the while V's game (a simulated srcds with the shim's stand-in, real RCON) plays a round every
0.2 s in which the warden sets a third prohibition: an offence, decided (its `cancel` row in V's
audit log) only if every one of the round's lines reached V's daemon. Printed: the flood
sent and taken, V's offences enforced of those made, the kernel's receive-buffer drops on the box
(`RcvbufErrors`, every socket's) and the jailcore processes' CPU.

`--ports` gives each server its own port (the control: the kernel keeps F's flood in F's socket).
`--workers W` is `jailcore run --workers W` (default 1: one process).

`--cost` prints instead what one flood datagram costs the process, in CPU microseconds, which
the box's load does not change as it changes the run above: handled (parsed, judged by the
engine: what a single process did with every datagram of the port before issue 34), and read,
routed and dropped at its server's full queue (`logsource.Intake`: what a flood's excess costs
now). One core reads about 1e6 / that many datagrams a second.

`--priority N` runs jailcore at `nice -N` (as root): on a box shared with other loads, so that
it has the CPU it would have on a box of its own, and the figures show the design, not the
neighbours.

Usage: python3 bench/flood_bench.py [--rate 72000] [--seconds 10] [--workers W] [--ports] [--priority N] [--cost]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # measure the checkout this file is in, not an installed copy

from bench.net_bench import free_port, udp_receive_errors  # noqa: E402
from jailcore.sim.simserver import SimServer  # noqa: E402

FLOODER = r"""
import socket, sys, time
host, port, rate, seconds, secret = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.connect((host, port))
lines = [(b"\xff\xff\xff\xffS" + secret.encode() + ("L 12/01/2026 - 20:00:00: \"Flood<7><STEAM_1:0:7><TERRORIST>\" say \"flood %d\"\n" % i).encode())
         for i in range(1000)]
sent, start, chunk = 0, time.perf_counter(), max(1, rate // 200)
while True:
    now = time.perf_counter() - start
    if now >= seconds:
        break
    if sent > rate * now:
        time.sleep(0.001)
        continue
    for i in range(chunk):
        try:
            s.send(lines[(sent + i) % 1000])
        except OSError:
            pass
    sent += chunk
print(sent, time.perf_counter() - start)
"""


def config(path: Path, name: str, rcon: int, listen: str, secret: str, state: Path) -> str:
    path.write_text(f'[server]\nname = "{name}"\nrulebook = "all"\n[rcon]\nport = {rcon}\npassword = "pw"\ntimeout = 3.0\n'
                    f'[log]\nlisten = "{listen}"\nsecret = "{secret}"\n[state]\npath = "{state}"\n', encoding="utf-8")
    return str(path)


def port_drops(port: int) -> int:
    """What the kernel dropped for want of room in the receive buffer of the socket on 127.0.0.1:`port`."""
    for line in Path("/proc/net/udp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1] == f"0100007F:{port:04X}":
            return int(fields[-1])
    return 0


def tree_cpu(pid: int) -> float:
    """User and system seconds of a process and its children (alive ones: the workers)."""
    total = 0.0
    pids = [pid]
    try:
        pids += [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        pass
    for p in pids:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


async def main(rate: int, seconds: float, workers: int, ports: bool, priority: int = 0) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        shared = f"127.0.0.1:{free_port(socket.SOCK_DGRAM)}"
        listens = {"f": shared, "v": f"127.0.0.1:{free_port(socket.SOCK_DGRAM)}" if ports else shared}
        sim = SimServer(password="pw", secret="2222", shim="standin")
        rcon = await sim.start()
        paths = [config(folder / "f.toml", "f", 1, listens["f"], "1111", folder / "f.sqlite3"),
                 config(folder / "v.toml", "v", rcon, listens["v"], "2222", folder / "v.sqlite3")]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        first = ["nice", "-n", str(-priority)] if priority else []
        proc = subprocess.Popen([*first, sys.executable, "-m", "jailcore", "run", "--workers", str(workers), *[a for p in paths for a in ("--config", p)]],
                                cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while not any(c.startswith("jb_status") for c in sim.received):  # V's daemon is up: it asked its server
                if time.monotonic() > deadline:
                    raise SystemExit("V's daemon did not come up")
                await asyncio.sleep(0.1)
            host, port = listens["v"].rsplit(":", 1)
            await sim.log_to_daemon((host, int(port)))
            warden = sim.add_player("Начальник", "CT")
            for i in range(3):
                sim.add_player(f"Зек{i}", "T")
            sim.round_start()
            sim.make_warden(warden)
            sim.flush()
            await asyncio.sleep(2.0)
            fhost, fport = listens["f"].rsplit(":", 1)
            errors, cpu, drops = udp_receive_errors(), tree_cpu(proc.pid), port_drops(int(fport))
            flooder = await asyncio.create_subprocess_exec(sys.executable, "-c", FLOODER, fhost, fport, str(rate), str(seconds), "1111",
                                                           stdout=subprocess.PIPE)
            rounds, made, t0 = 0, 0, time.monotonic()
            while time.monotonic() - t0 < seconds:
                sim.round_end()
                sim.round_start()
                sim.make_warden(warden)
                for p in ("a", "b", "c"):
                    sim.say(warden, f"!prohibit {p}{rounds}")
                sim.flush()
                rounds += 1
                made += rounds % 7 != 0  # every 7th round is a Monday, the rulebook's free day: no prohibitions
                await asyncio.sleep(0.2)
            out, _ = await flooder.communicate()
            flood_sent, flood_time = out.split()
            await asyncio.sleep(5.0)  # what the daemons still hold is handled
            cpu, errors, drops = tree_cpu(proc.pid) - cpu, udp_receive_errors() - errors, port_drops(int(fport)) - drops
        finally:
            proc.terminate()
            proc.wait(30)
            await sim.stop()
        db = sqlite3.connect(folder / "v.sqlite3")
        enforced = db.execute("SELECT count(*) FROM audit WHERE server = 'v' AND action = 'cancel'").fetchone()[0]
        db.close()
        mode = f"{'a port each' if ports else 'one shared port'}, {workers} process{'es' if workers > 1 else ''}"
        flood_rate = int(flood_sent) / float(flood_time)
        print(f"flood on F ({mode}): {int(flood_sent):,} datagrams in {float(flood_time):.1f} s ({flood_rate:,.0f}/s asked {rate:,}/s)")
        print(f"  V's offences decided: {enforced} of {made} ({100 * enforced / max(made, 1):.0f}%)")
        print(f"  dropped by the kernel at F's port: {drops:,} (the box's receive-buffer errors: {errors:,}); "
              f"jailcore CPU {cpu:.1f} s in {seconds + 5:.0f} s; load average {os.getloadavg()[0]:.1f}")


async def cost(n: int = 100_000) -> None:
    import logging
    from collections import deque

    from jailcore.config.config import load
    from jailcore.io.logsource import HELD, Intake, SharedLog, UdpLog
    from jailcore.session.inputs import LogRecord
    from jailcore.session.session import Ids, Session

    logging.getLogger("jailcore").setLevel(logging.ERROR)  # the first drop is said once: not the figure
    line = 'L 12/01/2026 - 20:00:00: "Flood<7><STEAM_1:0:7><TERRORIST>" say "flood %d"'
    ids = Ids()
    ids.give(1, 1000)
    session = Session(load('[server]\nname = "f"\nrulebook = "all"\n', "<bench>", {}), None, ids)
    records = [(line % i).encode() for i in range(n)]
    t = time.process_time()
    for i, record in enumerate(records):
        session.handle(LogRecord(record), float(i))
    handled = (time.process_time() - t) / n * 1e6

    f, v = UdpLog(lambda r: None, "1111"), UdpLog(lambda r: None, "2222")
    f.hold = lambda: True  # what f's lines go to is behind: its queue is full, its excess dropped
    shared = SharedLog([f, v])
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    sock.bind(("127.0.0.1", 0))
    sock.setblocking(False)
    intake = Intake(sock, shared)
    intake.queues[f] = deque([b"x"] * HELD)
    intake.held.append(f)
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    datagram = b"\xff\xff\xff\xffS1111" + (line % 0).encode() + b"\n"
    spent, chunk = 0.0, 2000
    for _ in range(n // chunk):
        for _ in range(chunk):
            sender.sendto(datagram, sock.getsockname())
        t = time.process_time()
        intake._read()
        spent += time.process_time() - t
    dropped = f.dropped["flood"]
    intake.close()
    sender.close()
    print(f"one flood datagram: handled {handled:.1f} us (about {1e6 / handled:,.0f} a second on one core); "
          f"read, routed and dropped at its full queue {spent / max(dropped, 1) * 1e6:.1f} us ({dropped:,} of {n:,} dropped; "
          f"about {dropped / spent:,.0f} a second on one core)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=int, default=72_000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--ports", action="store_true")
    parser.add_argument("--cost", action="store_true")
    parser.add_argument("--priority", type=int, default=0, help="run jailcore at nice -N (root): as on a box whose cores it has")
    args = parser.parse_args()
    asyncio.run(cost() if args.cost else main(args.rate, args.seconds, args.workers, args.ports, args.priority))
