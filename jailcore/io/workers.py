"""`jailcore run --workers N`: one fleet spread over N processes, one core each.

The parent owns the UDP ports and nothing else of the servers: it reads each datagram only
far enough to know its server (the sender and the `sv_logsecret` after the header, as a
shared port does: `logsource.SharedLog`) and forwards the record to the worker that owns that
server, over a Unix datagram socket. A server's lines are so always handled in one place and
in the order they came. Each worker is a `Fleet` of its share of the configs (every N-th, in
name order), with its own writer and RCON links; it takes no UDP port of its own.

Why the parent routes, rather than SO_REUSEPORT on every worker: the kernel spreads a port's
datagrams by a hash of the sender, not by the server a config names, so a worker would get
lines of servers it does not own; the parent's look at a datagram is a dictionary lookup on
its sender (cached), far cheaper than the parse and the engine that follow in the worker.

A CT ban given on a server goes to the other servers of its worker at once and to the
parent, which hands it to every other worker on the same loop turn. A worker that dies is
started again by the parent (after `RESTART_DELAY`); what came for its servers meanwhile is
kept (up to `BACKLOG` records a worker) and handed over once it is back, and its state,
pending commands and ladders come back from the state database as after any restart. The
state files are locked by the parent for its children. `jailcore status` reads the database
and shows every server whichever worker has it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import socket
import sys
from collections import Counter, deque
from pathlib import Path
from typing import Any

from jailcore.config.config import Config, ConfigError
from jailcore.io.lock import PARENT_HOLDS, LockedError, StateLock
from jailcore.io.logsource import RECEIVE_BUFFER, SharedLog, UdpLog, listen_udp
from jailcore.io.process import process_hooks, run_loop, signature, until

log = logging.getLogger("jailcore")

RESTART_DELAY = 0.2
PARENT_CHECK = 0.5  # seconds between a worker's looks at whether its parent still lives
BACKLOG = 100_000
READ_AT_ONCE = 256  # messages from the parent a worker takes before it lets the loop run the rest
LINE, BAN = b"L", b"B"  # parent -> worker: a log record for a server, a CT ban; worker -> parent: a CT ban
DROPS = b"D"  # parent -> worker: a shared port's datagrams that no server took, by cause (its notifier says a burst)


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class Worker:
    """One child process and its socket; what comes while it is down waits in `backlog`."""

    def __init__(self, index: int, paths: list[str]):
        self.index, self.paths = index, paths
        self.sock: socket.socket | None = None
        self.proc: asyncio.subprocess.Process | None = None
        self.backlog: deque[bytes] = deque(maxlen=BACKLOG)
        self.starts = 0
        self.up = asyncio.Event()

    def terminate(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)

    def send(self, message: bytes) -> None:
        if not self.backlog and self.sock is not None and self.up.is_set():
            try:
                self.sock.send(message)
                return
            except OSError:  # the worker is behind (or gone): kept, in order, for the next flush
                pass
        self.backlog.append(message)
        self._wait_writable()

    def flush(self) -> None:
        while self.backlog and self.sock is not None and self.up.is_set():
            try:
                self.sock.send(self.backlog[0])
            except OSError:
                self._wait_writable()
                return
            self.backlog.popleft()
        if self.sock is not None and not self.backlog:
            asyncio.get_running_loop().remove_writer(self.sock.fileno())

    def _wait_writable(self) -> None:
        if self.sock is not None and self.up.is_set():
            asyncio.get_running_loop().add_writer(self.sock.fileno(), self.flush)


class Parent:
    def __init__(self, paths: list[str], workers: int, watch_interval: float = 1.0):
        ordered = sorted(paths)
        count = max(1, min(workers, len(ordered)))
        self.workers = [Worker(k, ordered[k::count]) for k in range(count)]
        self.owner = {path: w for w in self.workers for path in w.paths}
        self.watch_interval = watch_interval
        self.stopping = asyncio.Event()
        self.ready = asyncio.Event()
        self.shared: dict[str, SharedLog] = {}
        self.members: dict[str, UdpLog] = {}  # config path -> its routing member on a shared port
        self.told_drops: dict[str, Counter[str]] = {}  # listen address -> the refused datagrams told to its worker so far
        self.configs: dict[str, Config] = {}
        self.seen: dict[str, tuple[int, int, int] | None] = {}
        self.locks: list[StateLock] = []
        self.names: list[str] = []
        for path in ordered:
            self._read(path)

    def _read(self, path: str) -> Config | None:
        self.seen[path] = signature(Path(path))
        try:
            config = Config.from_toml(path)
        except (ConfigError, OSError, ValueError):
            return None  # the worker refuses it, says why, and watches it
        self.configs[path] = config
        if config.server_name not in self.names:
            self.names.append(config.server_name)
        return config

    def _member(self, path: str, config: Config) -> UdpLog:
        worker = self.owner[path]
        head = LINE + config.server_name.encode() + b"\0"
        return UdpLog(lambda record: worker.send(head + record), config.log_secret, config.log_allow)

    async def run(self) -> int:
        async with process_hooks(self.stop, self.hangup, lambda loop, context: log.error("unexpected error: %s", context.get("message"))):
            try:
                for config in self.configs.values():  # the children write under the parent's lock
                    if config.state_path != ":memory:" and all(lock.path != os.path.abspath(f"{config.state_path}.lock") for lock in self.locks):
                        self.locks.append(StateLock(config.state_path, "workers"))
            except (LockedError, OSError) as exc:
                print(f"jailcore run: {exc}", file=sys.stderr)
                return 1
            transports = []
            groups: dict[str, list[str]] = {}
            for path, config in self.configs.items():
                if not config.log_file:
                    groups.setdefault(config.log_listen, []).append(path)
            for listen, paths in groups.items():
                members = [self._member(p, self.configs[p]) for p in paths]
                self.members.update(zip(paths, members, strict=True))
                shared = SharedLog(members)
                transport, _ = await listen_udp(listen, shared, RECEIVE_BUFFER * min(len(members), 16))
                transports.append(transport)
                self.shared[listen] = shared
            try:
                async with asyncio.TaskGroup() as group:
                    for worker in self.workers:
                        group.create_task(self._keep(worker), name=f"worker {worker.index}")
                    group.create_task(self._watch(), name="configs")
                    group.create_task(self._all_up(), name="ready")
                    group.create_task(self._stop_workers(), name="stop")
            finally:
                for transport in transports:
                    transport.close()
                for lock in self.locks:
                    lock.release()
        return max((w.proc.returncode or 0 for w in self.workers if w.proc is not None), default=0)

    async def _all_up(self) -> None:
        for worker in self.workers:
            await worker.up.wait()
        self.ready.set()

    async def _stop_workers(self) -> None:
        """At the parent's stop, each worker is told, whether or not it has come up yet (one
        still starting its servers would otherwise be waited for without end)."""
        await self.stopping.wait()
        for worker in self.workers:
            worker.terminate()

    async def _keep(self, worker: Worker) -> None:
        """The worker's process, started again each time it dies until the parent stops."""
        loop = asyncio.get_running_loop()
        while not self.stopping.is_set():
            mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
            for s in (mine, theirs):
                s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, RECEIVE_BUFFER)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)
            mine.setblocking(False)
            env = {**os.environ, PARENT_HOLDS: str(os.getpid())}
            args = [sys.executable, "-m", "jailcore.io.workers", "--fd", str(theirs.fileno()), "--names", json.dumps(self.names), *worker.paths]
            worker.proc = await asyncio.create_subprocess_exec(*args, pass_fds=[theirs.fileno()], env=env)
            theirs.close()
            if self.stopping.is_set():  # the stop came while it was being started
                worker.terminate()
            worker.sock, worker.starts = mine, worker.starts + 1
            loop.add_reader(mine.fileno(), self._heard, worker)
            code = await worker.proc.wait()
            loop.remove_reader(mine.fileno())
            loop.remove_writer(mine.fileno())
            worker.up.clear()
            worker.sock = None
            mine.close()
            if self.stopping.is_set():
                return
            log.error("worker %d (%s) ended with %s; starting it again", worker.index, ", ".join(Path(p).stem for p in worker.paths), code)
            await asyncio.sleep(RESTART_DELAY)

    def _heard(self, worker: Worker) -> None:
        while worker.sock is not None:
            try:
                message = worker.sock.recv(65536)
            except (BlockingIOError, OSError):
                return
            if message == b"R":  # the worker serves: what waited goes to it now
                worker.up.set()
                worker.flush()
            elif message[:1] == BAN:  # a CT ban given on one of its servers: every other worker, now
                for other in self.workers:
                    if other is not worker:
                        other.send(message)

    def _tell_drops(self) -> None:
        """Each shared port's datagrams refused since the last time, to the worker of its first
        server: the parent counts them, that worker's notifier says a burst."""
        for listen, shared in self.shared.items():
            told = self.told_drops.setdefault(listen, Counter())
            new = shared.dropped - told
            paths = sorted(p for p, m in self.members.items() if m in shared.members)
            if new and paths:
                told.update(new)
                self.owner[paths[0]].send(DROPS + json.dumps({"listen": listen, "dropped": dict(new)}).encode())

    async def _watch(self) -> None:
        """A config edited (or fixed) is read again, so its datagrams follow its new secret."""
        while not await until(self.stopping, self.watch_interval):
            self._tell_drops()
            for path in self.owner:
                if signature(Path(path)) == self.seen.get(path):
                    continue
                config = self._read(path)
                member = self.members.get(path)
                if config is None:
                    continue
                if member is not None:
                    member.secret, member.allow = config.log_secret, type(member.allow)(config.log_allow)
                elif not config.log_file and config.log_listen in self.shared:
                    self.members[path] = self._member(path, config)
                    self.shared[config.log_listen].add(self.members[path])

    def stop(self) -> None:
        self.stopping.set()

    def hangup(self) -> None:
        for worker in self.workers:
            if worker.proc is not None and worker.proc.returncode is None:
                worker.proc.send_signal(signal.SIGHUP)


# -- the worker's side ----------------------------------------------------------------------------


def worker_main(argv: list[str]) -> int:
    from jailcore.io.fleet import Fleet
    from jailcore.log.inbound import ctban_message
    from jailcore.session.inputs import PeerBan

    parser = argparse.ArgumentParser(prog="jailcore worker")
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("--names", default="[]")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    sock = socket.socket(fileno=args.fd)
    sock.setblocking(False)
    fleet = Fleet(args.paths, routed=True)
    names = set(json.loads(args.names))
    by_name = {d.server: d for d in fleet.daemons}

    def outward(ban: dict[str, Any]) -> None:
        try:
            sock.send(BAN + json.dumps(ban, ensure_ascii=False).encode())
        except OSError as exc:
            log.error("a CT ban could not be handed to the other workers: %s", exc)

    fleet.outward = outward
    for daemon in fleet.daemons:
        if daemon.mqtt is not None:
            daemon.mqtt.local |= names  # the servers of the other workers get their bans from the parent

    def heard() -> None:
        # At most READ_AT_ONCE messages a call: a line is handled in this very call when its server
        # is idle, and a backlog drained in one go would hold the loop (a CT ban's doors, RCON's
        # answers, the writer's news) for all of it; the socket stays readable, so the rest follow.
        for _ in range(READ_AT_ONCE):
            try:
                message = sock.recv(65536)
            except (BlockingIOError, OSError):
                return
            kind = message[:1]
            if kind == LINE:
                name, _, record = message[1:].partition(b"\0")
                daemon = by_name.get(name.decode()) or _joined(fleet, by_name, name.decode())
                if daemon is not None:
                    daemon.udp.received += 1
                    daemon.record(record)
            elif kind == DROPS:
                told = json.loads(message[1:])  # the parent's refusals since it last told: counted from this worker's start
                fleet.relayed_drops.setdefault(str(told["listen"]), Counter()).update({str(k): int(v) for k, v in told["dropped"].items()})
            elif kind == BAN:
                ban = ctban_message(json.loads(message[1:]), fleet.relay_refused, "a CT ban of another worker")
                if ban is not None:  # typed once for all of them
                    for daemon in fleet.daemons:
                        daemon.inbox.put(PeerBan(ban))

    parent = os.getppid()

    async def orphaned() -> None:
        """A parent killed (-9) cannot tell its workers; one left running would serve its
        servers beside the next parent's workers, twice. It stops as at a SIGTERM."""
        while os.getppid() == parent:
            await asyncio.sleep(PARENT_CHECK)
        log.error("worker: its parent (pid %d) is gone; stopping", parent)
        fleet.stop()

    async def main() -> int:
        loop = asyncio.get_running_loop()
        loop.add_reader(sock.fileno(), heard)
        from jailcore.io.notify.notifier import alongside

        task = asyncio.create_task(alongside(lambda: fleet.daemons, fleet.run(), lambda: fleet.refused, fleet.port_drops))
        watch = asyncio.create_task(orphaned())
        try:
            ready = asyncio.create_task(fleet.ready.wait())
            await asyncio.wait([ready, task], return_when=asyncio.FIRST_COMPLETED)  # a fleet that ends first is not waited for
            if ready.done():
                sock.send(b"R")
            else:
                ready.cancel()
            return await task
        finally:
            watch.cancel()

    return int(run_loop(main()))


def _joined(fleet: Any, by_name: dict[str, Any], name: str) -> Any:
    """A server whose config was fixed after the start: found once it has joined."""
    for daemon in fleet.daemons:
        by_name.setdefault(daemon.server, daemon)
    return by_name.get(name)


def main_workers(paths: list[str], workers: int) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    parent = Parent(paths, workers)
    log.info("jailcore: %d server(s) over %d worker process(es), %d refused", len(parent.configs), len(parent.workers),
             len(paths) - len(parent.configs))
    code: int = run_loop(parent.run())
    return code


if __name__ == "__main__":
    sys.exit(worker_main(sys.argv[1:]))
