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
started again by the parent (after `RESTART_DELAY`), and its state, pending commands and
ladders come back from the state database as after any restart. Nothing that reached the
parent is lost with it: the parent numbers what it relays to a worker (its place) and holds
each message until the worker says its servers' state database holds it (`KEPT`, every
`KEPT_EVERY`: a state saved after it is durable); the next worker gets what was not kept,
first, then what came meanwhile (up to `BACKLOG` messages a worker, held and waiting
together), and skips what its saved state holds (the place is saved with the state, under
the parent's run), so each line is handled once. The
state files are locked by the parent for its children. `jailcore status` reads the database
and shows every server whichever worker has it.

The servers of one port must each keep their own `sv_logsecret`, across workers too: each
worker judges its configs (at start, a late join, a reload) with `logsource.log_clash` against
its own servers and the other workers' ones (`--others`, then `F` messages), and tells the
parent what its servers hold of the ports (`C`), by which the parent routes; the parent judges
the configs at start with the same function, in the same order.

A worker ends with its parent, however the parent ends: the kernel sends it SIGTERM
(`PR_SET_PDEATHSIG`, Linux), and its lifeline (a pipe whose other end only the parent holds)
reads its end; one that has not stopped `STOP_GRACE` later ends by force. A stop stops every
server of a worker, those that joined late (a config fixed or created after the start) included,
and the parent ends by force a worker that has not stopped within `STOP_GRACE` of its SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jailcore.config.config import Config, ConfigError
from jailcore.io import ports
from jailcore.io.lock import PARENT_HOLDS, WORKERS_STOP_GRACE, LockedError, StateLock
from jailcore.io.logports import LogPorts, by_port
from jailcore.io.logsource import RECEIVE_BUFFER, AllowList, Claim, UdpLog, log_clash
from jailcore.io.loop import process_hooks, run_loop, until

if TYPE_CHECKING:  # the parent never imports a daemon: only its workers run them
    from jailcore.io.daemon import Daemon

log = logging.getLogger("jailcore")

RESTART_DELAY = 0.2
STOP_GRACE = WORKERS_STOP_GRACE  # seconds a worker told to stop (or whose parent is gone) has before it is ended by force
PR_SET_PDEATHSIG = 1  # Linux's prctl option: a signal for this process when its parent ends
BACKLOG = 100_000
READ_AT_ONCE = 256  # messages from the parent a worker takes before it lets the loop run the rest
LINE, BAN = b"L", b"B"  # parent -> worker: a log record for a server, a CT ban (each with its place); worker -> parent: a CT ban
KEPT = b"K"  # worker -> parent: its servers' state holds every place up to this one
KEPT_EVERY = 0.2  # seconds between a worker's words on what it keeps
CLAIMS, FOREIGN = b"C", b"F"  # worker -> parent: its servers' holds on the log ports; parent -> worker: the other workers'
DROPS = b"D"  # parent -> worker: a shared port's datagrams that no server took, by cause (its notifier says a burst)
DROPS_EVERY = 1.0  # seconds between two such words


class Worker:
    """One child process and its socket. What is relayed to it (a log record, a CT ban) is numbered
    (its place) and held until the worker says its servers' state database holds it (`keep`): what a
    worker that died had not made durable, in its socket, its inboxes or its writer's queue, goes to
    the next one first (`requeue`), which skips what its saved state already holds. What comes while
    it is down waits in `backlog`. Both together hold at most `BACKLOG` messages."""

    def __init__(self, index: int, paths: list[str]):
        self.index, self.paths = index, paths
        self.sock: socket.socket | None = None
        self.proc: asyncio.subprocess.Process | None = None
        self.backlog: deque[tuple[int, bytes]] = deque()  # (place, message) to send; place 0: not relayed, not held
        self.unkept: deque[tuple[int, bytes]] = deque()  # (place, message) sent, not yet held by the worker's database
        self.place = 0  # the last place given
        self.kept = 0  # every place up to this one is held, as the worker said
        self.lost = 0  # messages let go past BACKLOG
        self.starts = 0
        self.up = asyncio.Event()
        self.waiting = False  # for the socket to take more (`flush` when it does)
        self.drained: Callable[[], None] | None = None  # the socket took all that waited: the ports' held records may come

    def terminate(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)

    def relay(self, kind: bytes, body: bytes) -> None:
        """A log record or a CT ban for this worker, numbered and held until it is kept."""
        self.place += 1
        self.send(kind + self.place.to_bytes(8, "big") + body, self.place)

    def send(self, message: bytes, place: int = 0) -> None:
        if len(self.backlog) + len(self.unkept) >= BACKLOG:
            self._let_go()
        if not self.backlog and self.sock is not None and self.up.is_set():
            try:
                self.sock.send(message)
            except OSError:  # the worker is behind (or gone): kept, in order, for the next flush
                pass
            else:
                if place:
                    self.unkept.append((place, message))
                return
        self.backlog.append((place, message))
        self._wait_writable()

    def flush(self) -> None:
        while self.backlog and self.sock is not None and self.up.is_set():
            place, message = self.backlog[0]
            try:
                self.sock.send(message)
            except OSError:
                self._wait_writable()
                return
            self.backlog.popleft()
            if place:
                self.unkept.append((place, message))
        if self.sock is not None and not self.backlog and self.waiting:
            self.waiting = False
            asyncio.get_running_loop().remove_writer(self.sock.fileno())
            if self.drained is not None:
                self.drained()

    def keep(self, upto: int) -> None:
        """The worker's word: its servers' state holds every place up to `upto`."""
        self.kept = max(self.kept, upto)
        while self.unkept and self.unkept[0][0] <= self.kept:
            self.unkept.popleft()

    def requeue(self) -> None:
        """The worker died: what it had not kept goes to the next one, before what waits."""
        again = [held for held in self.unkept if held[0] > self.kept]
        self.unkept.clear()
        self.backlog.extendleft(reversed(again))

    def _let_go(self) -> None:
        # The oldest first: one sent long ago is the likeliest to be kept already.
        (self.unkept if self.unkept else self.backlog).popleft()
        self.lost += 1
        if self.lost == 1:
            log.error("worker %d: more than %d messages wait or are not yet kept; the oldest are let go (counted)", self.index, BACKLOG)

    def _wait_writable(self) -> None:
        if self.sock is not None and self.up.is_set() and not self.waiting:
            self.waiting = True  # once: a flood would ask the kernel again for every line it sends
            asyncio.get_running_loop().add_writer(self.sock.fileno(), self.flush)


class Parent:
    def __init__(self, paths: list[str], workers: int):
        ordered = sorted(paths)
        count = max(1, min(workers, len(ordered)))
        self.workers = [Worker(k, ordered[k::count]) for k in range(count)]
        self.owner = {path: w for w in self.workers for path in w.paths}
        self.stopping = asyncio.Event()
        self.ready = asyncio.Event()
        self.ports = LogPorts()
        self.members: dict[str, UdpLog] = {}  # server -> its routing member on a shared port
        # server -> its worker and its hold on the ports: judged here at start (as each worker judges its
        # own share, told the others'), then as each worker says after a join or a reload
        self.claims: dict[str, tuple[Worker, Claim]] = {}
        self.configs: dict[str, Config] = {}  # path -> the config taken at start (its port opened, its state file locked)
        self.told_drops: dict[str, Counter[str]] = {}  # listen address -> the refused datagrams told to its worker so far
        self.locks: list[StateLock] = []
        self.names: list[str] = []
        self.relay_run = f"{os.getpid()}.{time.time_ns()}"  # the relay's places count afresh in each run of the parent
        self._group: asyncio.TaskGroup | None = None
        for path in ordered:
            self._judge(path)

    def _judge(self, path: str) -> None:
        """A config at start, judged as its worker will judge it (which is told the other workers' claims)."""
        try:
            config = Config.from_toml(path)
        except (ConfigError, OSError, ValueError):
            return  # the worker refuses it, says why, and watches it
        if config.server_name in self.claims or log_clash(config, [claim for _, claim in self.claims.values()]) is not None:
            return  # the same: refused by the worker, with the line
        self.configs[path] = config
        self.claims[config.server_name] = (self.owner[path], Claim.of(config))
        self.names.append(config.server_name)

    def others(self, worker: Worker) -> list[dict[str, Any]]:
        """The claims of the servers that are not this worker's, for its own judgement."""
        return [claim.to_json() for owner, claim in self.claims.values() if owner is not worker]

    def _member(self, worker: Worker, claim: Claim) -> UdpLog:
        head = claim.server_name.encode() + b"\0"
        member = UdpLog(lambda record: worker.relay(LINE, head + record), claim.log_secret, claim.log_allow)
        member.hold = lambda: worker.waiting  # its worker is behind: its lines wait in its own queue of the port
        worker.drained = self.ports.wake
        return member

    async def run(self) -> int:
        async with process_hooks(self.stop, self.hangup, lambda loop, context: log.error("unexpected error: %s", context.get("message"))):
            try:
                for config in self.configs.values():  # the children write under the parent's lock
                    if config.state_path != ":memory:" and all(lock.path != os.path.abspath(f"{config.state_path}.lock") for lock in self.locks):
                        self.locks.append(StateLock(config.state_path, "workers"))
            except (LockedError, OSError) as exc:
                print(f"jailcore run: {exc}", file=sys.stderr)
                return 1
            # Every port its configs name, `...:0` too (the parent's own, which its servers' logs are sent to).
            routed = ((claim, server) for server, (_, claim) in self.claims.items() if not claim.log_file)
            for listen, servers in by_port(routed, any_port=True).items():
                members = [self._member(*self.claims[server]) for server in servers]
                self.members.update(zip(servers, members, strict=True))
                try:
                    await self.ports.open(listen, members)
                except OSError as exc:  # before any worker starts: one line, and the locks let go
                    where = "[log] listen of " + ", ".join(p for p, c in self.configs.items() if c.server_name in servers)
                    print(f"jailcore run: the log: {ports.refusal(listen, 'udp', exc, where)}", file=sys.stderr)
                    self.ports.close()
                    for lock in self.locks:
                        lock.release()
                    return 1
            try:
                async with asyncio.TaskGroup() as group:
                    self._group = group
                    for worker in self.workers:
                        group.create_task(self._keep(worker), name=f"worker {worker.index}")
                    group.create_task(self._all_up(), name="ready")
                    group.create_task(self._stop_workers(), name="stop")
                    group.create_task(self._drops(), name="drops")
            finally:
                self.ports.close()
                for lock in self.locks:
                    lock.release()
        return max((w.proc.returncode or 0 for w in self.workers if w.proc is not None), default=0)

    async def _all_up(self) -> None:
        """Every worker serving: said once. A stop before that ends the wait, or the parent would wait for
        ever (and never end) for a worker that its SIGTERM ended while it was starting, before it could
        say it serves."""
        stop = asyncio.ensure_future(self.stopping.wait())
        try:
            for worker in self.workers:
                up = asyncio.ensure_future(worker.up.wait())
                await asyncio.wait([up, stop], return_when=asyncio.FIRST_COMPLETED)
                if not up.done():
                    up.cancel()
                    return
        finally:
            stop.cancel()
        log.info("jailcore: %d server(s) over %d worker process(es), %d refused", len(self.configs), len(self.workers),
                 len(self.owner) - len(self.configs))
        self.ready.set()

    async def _stop_workers(self) -> None:
        """At the parent's stop, each worker is told, whether or not it has come up yet (one
        still starting its servers would otherwise be waited for without end); one still
        running `STOP_GRACE` later is ended by force, so a stop never leaves a worker behind."""
        await self.stopping.wait()
        for worker in self.workers:
            worker.terminate()
        asyncio.get_running_loop().call_later(STOP_GRACE, self._kill_left)

    def _kill_left(self) -> None:
        for worker in self.workers:
            if worker.proc is not None and worker.proc.returncode is None:
                log.error("worker %d did not stop within %.0fs of SIGTERM; ending it (SIGKILL)", worker.index, STOP_GRACE)
                worker.proc.kill()

    async def _keep(self, worker: Worker) -> None:
        """The worker's process, started again each time it dies until the parent stops."""
        loop = asyncio.get_running_loop()
        while not self.stopping.is_set():
            mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
            for s in (mine, theirs):
                s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, RECEIVE_BUFFER)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)
            mine.setblocking(False)
            # The worker's lifeline: the parent holds the writing end and never writes; when the parent
            # ends, however it ends, the kernel closes it and the worker reads its end.
            lifeline, held = os.pipe()
            env = {**os.environ, PARENT_HOLDS: str(os.getpid())}
            args = [sys.executable, "-m", "jailcore.io.workers", "--fd", str(theirs.fileno()), "--lifeline", str(lifeline), "--run", self.relay_run,
                    "--names", json.dumps(self.names), "--others", json.dumps(self.others(worker)), *worker.paths]
            # The state files' locks go with it (the same open file, so the same flock): a parent killed with -9
            # lets go of them only once this worker, stopping on its own, has ended too (io/lock.py).
            locks = [lock.held.fd for lock in self.locks if lock.held is not None]
            try:
                worker.proc = await asyncio.create_subprocess_exec(*args, pass_fds=[theirs.fileno(), lifeline, *locks], env=env)
            finally:
                theirs.close()
                os.close(lifeline)
            if self.stopping.is_set():  # the stop came while it was being started
                worker.terminate()
            worker.sock, worker.starts = mine, worker.starts + 1
            loop.add_reader(mine.fileno(), self._heard, worker)
            try:
                code = await worker.proc.wait()
            finally:
                os.close(held)
            loop.remove_reader(mine.fileno())
            loop.remove_writer(mine.fileno())
            worker.waiting = False
            self.ports.wake()  # its servers' lines wait in its backlog now, for the next one
            worker.up.clear()
            worker.sock = None
            mine.close()
            worker.requeue()
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
            elif message[:1] == KEPT:
                worker.keep(int.from_bytes(message[1:9], "big"))
            elif message[:1] == BAN:  # a CT ban given on one of its servers: every other worker, now
                for other in self.workers:
                    if other is not worker:
                        other.relay(BAN, message[1:])
            elif message[:1] == CLAIMS:
                self._claimed(worker, [Claim(**c) for c in json.loads(message[1:])])

    def _claimed(self, worker: Worker, claims: list[Claim]) -> None:
        """What a worker's servers hold of the ports now (at its start, after a join or a reload): its
        datagrams follow them, and the other workers are told, to judge their own joins and reloads."""
        mine = {claim.server_name: claim for claim in claims}
        for server, (owner, claim) in list(self.claims.items()):
            if owner is worker and server not in mine:  # refused by the worker after all: it takes nothing here
                del self.claims[server]
                self._unroute(server, claim)
        for server, claim in mine.items():
            before = self.claims.get(server)
            if before is not None and before[0] is not worker:
                log.error("server %r is served by workers %d and %d; its lines go to the first", server, before[0].index, worker.index)
                continue
            clash = log_clash(claim, [c for s, (_, c) in self.claims.items() if s != server])
            if clash is not None:  # two workers took one secret at once (a race of their edits): neither is given the other's lines
                log.error("server %r: %s", server, clash)
            self.claims[server] = (worker, claim)
            self._route(worker, claim)
        for other in self.workers:
            if other is not worker:
                other.send(FOREIGN + json.dumps(self.others(other)).encode())

    def _route(self, worker: Worker, claim: Claim) -> None:
        if claim.log_file:
            return
        member = self.members.get(claim.server_name)
        if member is not None:
            if (member.secret, member.allow.entries) != (claim.log_secret, claim.log_allow):
                member.secret, member.allow = claim.log_secret, AllowList(claim.log_allow)
            return
        member = self.members[claim.server_name] = self._member(worker, claim)
        if self.ports.add(claim.log_listen, member) and self._group is not None:  # a port no config had at start: opened now
            self._group.create_task(self._listen(claim.log_listen), name=f"port {claim.log_listen}")

    def _unroute(self, server: str, claim: Claim) -> None:
        member = self.members.pop(server, None)
        if member is not None:
            self.ports.leave(claim.log_listen, member)

    async def _listen(self, listen: str) -> None:
        try:
            await self.ports.bind(listen)
        except OSError as exc:
            log.error("cannot listen for the log on %s: %s", listen, exc.strerror or exc)

    def _tell_drops(self) -> None:
        """Each shared port's datagrams refused since the last time, to the worker of its first
        server: the parent counts them, that worker's notifier says a burst."""
        for listen, shared in self.ports.shared.items():
            told = self.told_drops.setdefault(listen, Counter())
            new = shared.dropped - told
            servers = sorted(s for s, m in self.members.items() if m in shared.members)
            if new and servers:
                told.update(new)
                self.claims[servers[0]][0].send(DROPS + json.dumps({"listen": listen, "dropped": dict(new)}).encode())

    async def _drops(self) -> None:
        while not await until(self.stopping, DROPS_EVERY):
            self._tell_drops()

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
    parser.add_argument("--lifeline", type=int, default=-1)
    parser.add_argument("--names", default="[]")
    parser.add_argument("--others", default="[]")
    parser.add_argument("--run", default="")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    parent = int(os.environ.get(PARENT_HOLDS) or os.getppid())
    if not die_with_parent(parent):
        log.error("worker: its parent (pid %d) ended before it started; not starting", parent)
        return 1
    sock = socket.socket(fileno=args.fd)
    sock.setblocking(False)
    fleet = Fleet(args.paths, routed=True, foreign=[Claim(**c) for c in json.loads(args.others)])
    names = set(json.loads(args.names))
    relay = Relay(args.run, names)
    fleet.opened = relay.follow  # each server as it opens, those that join later too

    def outward(ban: dict[str, Any]) -> None:
        try:
            sock.send(BAN + json.dumps(ban, ensure_ascii=False).encode())
        except OSError as exc:
            log.error("a CT ban could not be handed to the other workers: %s", exc)

    fleet.relay.outward = outward
    told: list[bytes] = []

    def claimed() -> None:
        """What this worker's servers hold of the log ports, to the parent, whenever it changes."""
        message = CLAIMS + json.dumps([claim.to_json() for claim in fleet.claims()], ensure_ascii=False).encode()
        if told and told[-1] == message:
            return
        try:
            sock.send(message)
            told[:] = [message]
        except OSError as exc:
            log.error("the servers' log ports could not be told to the parent: %s", exc)

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
                place = int.from_bytes(message[1:9], "big")
                relay.top = place
                name, _, record = message[9:].partition(b"\0")
                daemon = relay.servers.get(name)
                if daemon is not None and place > relay.skip[name]:
                    daemon.udp.received += 1
                    relay.given[name] = place
                    daemon.record(record, place)
            elif kind == DROPS:
                told = json.loads(message[1:])  # the parent's refusals since it last told: counted from this worker's start
                fleet.relayed_drops.setdefault(str(told["listen"]), Counter()).update({str(k): int(v) for k, v in told["dropped"].items()})
            elif kind == BAN:
                place = int.from_bytes(message[1:9], "big")
                relay.top = place
                ban = ctban_message(json.loads(message[9:]), fleet.relay.refused, "a CT ban of another worker")
                if ban is not None:  # typed once for all of them
                    for name, daemon in relay.servers.items():
                        if place > relay.skip[name]:
                            relay.given[name] = place
                            daemon.inbox.put(PeerBan(ban, place))
            elif kind == FOREIGN:
                fleet.foreign = [Claim(**c) for c in json.loads(message[1:])]

    async def tell_kept() -> None:
        said = 0
        while True:
            await asyncio.sleep(KEPT_EVERY)
            kept = relay.kept()
            if kept > said:
                try:
                    sock.send(KEPT + kept.to_bytes(8, "big"))
                except OSError:
                    continue  # full: said next time; the parent gone: its lifeline says so
                said = kept

    def orphaned() -> None:
        """The lifeline's end: the parent is gone (a kill -9 tells no one). A worker left running
        would serve its servers beside the next parent's workers, twice: it stops as at a SIGTERM,
        and is ended by force if that stop does not end it within `STOP_GRACE`."""
        loop = asyncio.get_running_loop()
        try:
            if os.read(args.lifeline, 1):
                return  # never written; read for its end only
        except BlockingIOError:
            return
        except OSError:
            pass
        loop.remove_reader(args.lifeline)
        log.error("worker: its parent (pid %d) is gone; stopping", parent)
        stop_or_end(fleet.stop)

    async def main() -> int:
        loop = asyncio.get_running_loop()
        loop.add_reader(sock.fileno(), heard)
        if args.lifeline >= 0:
            os.set_blocking(args.lifeline, False)
            loop.add_reader(args.lifeline, orphaned)
        from jailcore.io.notify.notifier import alongside

        task = asyncio.create_task(alongside(lambda: fleet.daemons, fleet.run(), lambda: fleet.refused, fleet.port_drops))
        kept = asyncio.create_task(tell_kept())
        task.add_done_callback(lambda _: kept.cancel())
        ready = asyncio.create_task(fleet.ready.wait())
        await asyncio.wait([ready, task], return_when=asyncio.FIRST_COMPLETED)  # a fleet that ends first is not waited for
        if ready.done():
            try:
                sock.send(b"R")
            except OSError:
                pass  # the parent is gone: its lifeline says so
            claimed()
            fleet.claimed = claimed
        else:
            ready.cancel()
        return await task

    return int(run_loop(main()))


def die_with_parent(parent: int) -> bool:
    """Linux: the kernel sends this worker SIGTERM when its parent ends, however it ends (kill -9
    included; `prctl(PR_SET_PDEATHSIG)`). False if the parent had already ended."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the lifeline still tells it
    return os.getppid() == parent


def stop_or_end(stop: Any) -> None:
    """`stop()`, and the process's end by force `STOP_GRACE` later if the stop has not ended it (a
    thread's timer: it fires even if the loop is stuck)."""
    timer = threading.Timer(STOP_GRACE, lambda: os._exit(1))
    timer.daemon = True
    timer.start()
    stop()


class Relay:
    """A worker's side of its parent's relay: which server each numbered message is for, what
    each server's saved state already holds (skipped when the parent sends it again after a
    restart), and what all of them hold for good (`kept`, told to the parent)."""

    def __init__(self, run: str, names: set[str]):
        self.run, self.names = run, names
        self.servers: dict[bytes, Daemon] = {}  # the server's name as the relay's messages carry it -> its daemon
        self.skip: dict[bytes, int] = {}  # the last place its saved state holds, as it started here
        self.given: dict[bytes, int] = {}  # the last place handed to it
        self.top = 0  # the last place heard

    def follow(self, daemon: Daemon) -> None:
        """A server of this worker, once it is open (at the start, or when its fixed config joins)."""
        name = daemon.server.encode()
        daemon.outgoing.relayed = True
        self.skip[name] = daemon.session.relayed_by(self.run)
        self.servers[name] = daemon
        if daemon.mqtt is not None:
            daemon.mqtt.local |= self.names  # the servers of the other workers get their bans from the parent

    def kept(self) -> int:
        """Every place up to this one is held by its server's state database (or went to no server)."""
        floor = self.top
        for name, daemon in self.servers.items():
            given = self.given.get(name, 0)
            if given and not daemon.stopping.is_set():
                kept = daemon.outgoing.kept()
                if kept < given:
                    floor = min(floor, kept)
        return floor


def main_workers(paths: list[str], workers: int) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    parent = Parent(paths, workers)
    code: int = run_loop(parent.run())
    return code


if __name__ == "__main__":
    sys.exit(worker_main(sys.argv[1:]))
