"""Where log records come from: the engine's remote log over UDP, or a growing file.

Contract: both call `on_record(bytes)` once per log record. The UDP side drops, and
counts by reason, every datagram that is not from an allowed address, not in the
remote-log format, or without the configured `sv_logsecret`; it never raises. The first
drop of each reason is logged with its sender, so a mis-set `sv_logsecret` or `[log]
allow` is said at once, not found days later; `status` and `!jcstatus` show the counts.

One UDP port may serve many servers of one process (`SharedLog`), as HLstatsX does with
one `logaddress_add` target for all: a datagram goes to the one server whose
`sv_logsecret` it carries and whose allow list holds its address; one that more than one
server would take is dropped (counted `ambiguous`), never given to the wrong server.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import socket
import sys
from collections import Counter, deque
from collections.abc import Callable, Iterable
from typing import Any, Protocol

import attrs

from jailcore.io import ports

log = logging.getLogger("jailcore")

HEADER = b"\xff\xff\xff\xff"
WHY = {
    "address": "from an address outside [log] allow",
    "secret": "without the configured sv_logsecret (wrong or missing secret)",
    "header": "not in the remote-log format",
    "flood": "its server sends faster than it is handled: its newest lines are dropped, the port's other servers go on",
}
RECEIVE_BUFFER = 4 * 1024 * 1024


CACHED_HOSTS = 4096  # past this many distinct senders the cache starts afresh: forged sources cannot grow it


class AllowList:
    def __init__(self, entries: Iterable[str]):
        self.entries = tuple(entries)
        self.networks = [ipaddress.ip_network(e, strict=False) for e in self.entries]
        self._known: dict[str, bool] = {}

    def __contains__(self, host: str) -> bool:
        # Parsing an address costs as much as parsing the line; a server sends from one address.
        known = self._known.get(host)
        if known is None:
            if len(self._known) >= CACHED_HOSTS:
                self._known.clear()
            known = self._known[host] = self._allows(host)
        return known

    def overlaps(self, other: AllowList) -> bool:
        return any(a.overlaps(b) for a in self.networks for b in other.networks if a.version == b.version)

    def _allows(self, host: str) -> bool:
        try:
            addr = ipaddress.ip_address(host.split("%", 1)[0])
        except ValueError:
            return False
        if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped:
            addr = addr.ipv4_mapped
        return any(addr in net for net in self.networks if net.version == addr.version)


class LogClaim(Protocol):
    """A server's hold on the log: a `Config`, or a `Claim` (its copy in another process of the fleet)."""

    @property
    def server_name(self) -> str: ...
    @property
    def log_listen(self) -> str: ...
    @property
    def log_secret(self) -> str: ...
    @property
    def log_allow(self) -> tuple[str, ...]: ...
    @property
    def log_file(self) -> str: ...


def _entries(entries: Iterable[str]) -> tuple[str, ...]:
    return tuple(str(e) for e in entries)


@attrs.frozen
class Claim:
    """What a server of another worker holds of the shared ports (its config's [log] part)."""

    server_name: str
    log_listen: str
    log_secret: str = attrs.field(repr=False)
    log_allow: tuple[str, ...] = attrs.field(converter=_entries)
    log_file: str = ""

    @classmethod
    def of(cls, config: LogClaim) -> Claim:
        return cls(config.server_name, config.log_listen, config.log_secret, config.log_allow, config.log_file)

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


def same_port(a: LogClaim, b: LogClaim) -> bool:
    # Port 0 is "any free port": each its own, never shared.
    return not a.log_file and not b.log_file and a.log_listen == b.log_listen and not a.log_listen.endswith(":0")


def log_clash(config: LogClaim, others: Iterable[LogClaim]) -> str | None:
    """Why this server cannot take its log port beside `others` (the other servers of the process
    or the folder, whichever process of the fleet serves them), or None: a shared port tells its
    servers apart by sv_logsecret and [log] allow, so two with the same secret and overlapping allow
    lists would each take the other's lines. The one judge at start, at a late join, at a live
    reload (`Fleet`, the workers' parent) and on the web page's config editor."""
    if config.log_file:
        return None
    for other in others:
        if (other.server_name != config.server_name and same_port(other, config) and other.log_secret == config.log_secret
                and AllowList(other.log_allow).overlaps(AllowList(config.log_allow))):
            return (f"[log] shares the log port {config.log_listen} with server {other.server_name!r} with the same sv_logsecret: "
                    "that server's lines would be taken for this one's; give each server its own [log] secret")
    return None


def unwrap(datagram: bytes, secret: str) -> bytes | str:
    """The log record inside a remote-log datagram, or the reason (str) to drop it."""
    if datagram[:4] != HEADER or len(datagram) < 6:
        return "header"
    kind, rest = datagram[4:5], datagram[5:]
    if kind == b"R":
        return "secret" if secret else rest
    if kind == b"S":
        digits = 0
        while digits < len(rest) and 48 <= rest[digits] <= 57:
            digits += 1
        if secret and rest[:digits].decode() != secret:
            return "secret"
        return rest[digits:]
    return "header"


class UdpLog(asyncio.DatagramProtocol):
    def __init__(self, on_record: Callable[[bytes], None], secret: str = "", allow: Iterable[str] = ("127.0.0.1", "::1")):
        self.on_record = on_record
        self._secret = secret
        self._signed = HEADER + b"S" + secret.encode() if secret else b""  # how its datagrams begin
        self._allow = AllowList(allow)
        self.received = 0
        self.dropped: Counter[str] = Counter()
        self.changed: Callable[[], None] | None = None  # a shared port forgets its routes
        # True while what this server's records go to cannot take more (a worker behind): they wait
        # in its own queue of the port (`Intake`), where a flood's excess is dropped at once, not in
        # a queue shared with the other servers of that worker.
        self.hold: Callable[[], bool] | None = None

    @property
    def secret(self) -> str:
        return self._secret

    @secret.setter
    def secret(self, value: str) -> None:
        self._secret = value
        self._signed = HEADER + b"S" + value.encode() if value else b""
        if self.changed is not None:
            self.changed()

    @property
    def allow(self) -> AllowList:
        return self._allow

    @allow.setter
    def allow(self, value: AllowList) -> None:
        self._allow = value
        if self.changed is not None:
            self.changed()

    def datagram_received(self, data: bytes, addr: tuple[Any, ...]) -> None:
        routed = self.route(data, addr)
        if routed is not None:
            self.on_record(routed[1])

    def route(self, data: bytes, addr: tuple[Any, ...]) -> tuple[UdpLog, bytes] | None:
        """This server and the record, if the datagram is its (a port of its own); else counted and None."""
        self.received += 1
        if addr[0] not in self._allow:
            self._drop("address", addr)
            return None
        record = unwrap(data, self._secret)
        if isinstance(record, str):
            self._drop(record, addr)
            return None
        return self, record

    def take(self, data: bytes, addr: tuple[Any, ...]) -> bytes | None:
        """The record if this datagram is this server's (allowed sender, its secret), else None."""
        if addr[0] not in self._allow:
            return None
        signed = self._signed
        if signed:  # `unwrap`'s answer for a secret, in two calls into C: it is asked for every datagram of a port
            if not data.startswith(signed) or data[len(signed):len(signed) + 1].isdigit() or len(data) < 6:
                return None
            return data[len(signed):]
        record = unwrap(data, self._secret)
        return None if isinstance(record, str) else record

    def _drop(self, why: str, addr: tuple[Any, ...]) -> None:
        self.dropped[why] += 1
        if self.dropped[why] == 1:
            log.warning("a log datagram from %s:%s was dropped: %s; such drops are counted (jailcore status, !jcstatus)",
                        addr[0], addr[1], WHY.get(why, why))

    def drops(self) -> str:
        """`secret 3, address 1`, or "" when nothing was dropped."""
        return ", ".join(f"{why} {n}" for why, n in sorted(self.dropped.items()) if n)


class SharedLog(asyncio.DatagramProtocol):
    """One UDP port for several servers' logs, each datagram to the one server it is for."""

    def __init__(self, members: Iterable[UdpLog]):
        # A server with a secret is asked first: a secretless one would take any datagram.
        self.members = sorted(members, key=lambda m: not m.secret)
        self.routes: dict[tuple[Any, ...], UdpLog] = {}  # sender -> its server, learnt from its first datagram
        self.received = 0
        self.dropped: Counter[str] = Counter()
        for member in self.members:
            member.changed = self._changed

    def add(self, member: UdpLog) -> None:
        """A server that joins the port while it runs (its config was fixed)."""
        self.members = [*self.members, member]
        member.changed = self._changed
        self._changed()

    def remove(self, member: UdpLog) -> None:
        """A server that no longer takes its lines here."""
        self.members = [m for m in self.members if m is not member]
        member.changed = None
        self._changed()

    def _changed(self) -> None:
        """A member's secret or allow list changed (a reload): the routes learnt are forgotten."""
        self.members.sort(key=lambda m: not m.secret)
        self.routes.clear()

    def datagram_received(self, data: bytes, addr: tuple[Any, ...]) -> None:
        routed = self.route(data, addr)
        if routed is not None:
            routed[0].on_record(routed[1])

    def route(self, data: bytes, addr: tuple[Any, ...]) -> tuple[UdpLog, bytes] | None:
        """The server this datagram is for and its record; None (counted) if none or more than one would take it."""
        self.received += 1
        member = self.routes.get(addr)
        if member is not None:
            record = member.take(data, addr)
            if record is not None:
                member.received += 1
                return member, record
        takers = [(m, r) for m in self.members if (r := m.take(data, addr)) is not None]
        if len(takers) > 1:  # the server whose secret the datagram carries, over one that asks none
            takers = [t for t in takers if t[0].secret] or takers
        if len(takers) != 1:
            why = "ambiguous" if takers else "unclaimed"
            self.dropped[why] += 1
            if self.dropped[why] == 1:
                log.warning("a log datagram from %s:%s on the shared port was dropped: %s; such drops are counted", addr[0], addr[1],
                            "more than one server would take it" if takers else "no server's sv_logsecret and [log] allow fit it")
            return None
        member, record = takers[0]
        if len(self.routes) >= CACHED_HOSTS:
            self.routes.clear()
        self.routes[addr] = member
        member.received += 1
        return member, record


class Router(Protocol):
    def route(self, data: bytes, addr: tuple[Any, ...]) -> tuple[UdpLog, bytes] | None: ...


READ_AT_ONCE = 4096  # datagrams read from the socket in one go, before the loop runs anything else
SHARE = 64  # records a server is handed in one turn
TURN = 2048  # records handed on in one turn of the loop, whichever servers they are for
HELD = 8192  # records of one server waiting at once: past it, its newest are dropped (counted `flood`)


class Intake:
    """A log port, read as fast as the kernel fills it and handed on fairly.

    The socket's receive buffer is one queue for every sender of the port: a flood fills it and
    the kernel drops whatever comes next, any server's lines (one server flooding with its own
    secret, 72,000 lines a second, cost another of the port one offence in three). So each
    wake-up reads up to `READ_AT_ONCE` datagrams at once and only routes them (the sender and
    the secret: a dictionary lookup and a compare) into their server's own bounded queue;
    the queues are then drained in turns, `SHARE` records of each server a turn: a server that
    sends faster than it is handled fills its own queue, and its newest lines are dropped and
    counted (`flood`), the others' wait one turn at most. What the kernel drops before the read
    (a flood beyond what one core reads) still falls on every sender of the port alike: a port
    of its own is the only wall the kernel keeps (docs/security.md)."""

    def __init__(self, sock: socket.socket, router: Router):
        self.sock, self.router = sock, router
        self.loop = asyncio.get_running_loop()
        self.queues: dict[UdpLog, deque[bytes]] = {}
        self.turns: deque[UdpLog] = deque()  # the servers with records waiting, in turn order
        self.held: list[UdpLog] = []  # ... and those whose records cannot go on now (`UdpLog.hold`), until `wake`
        self.draining = False
        self.loop.add_reader(sock.fileno(), self._read)

    def _read(self) -> None:
        recv, route, queues, turns = self.sock.recvfrom, self.router.route, self.queues, self.turns
        for _ in range(READ_AT_ONCE):
            try:
                data, addr = recv(65535)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:  # an ICMP error reported on the socket: nothing to read now
                break
            routed = route(data, addr)
            if routed is None:
                continue
            member, record = routed
            queue = queues.get(member)
            if queue is None:
                queue = queues[member] = deque()
            if not queue:
                turns.append(member)
            elif len(queue) >= HELD:
                member._drop("flood", addr)
                continue
            queue.append(record)
        if turns and not self.draining:
            self.draining = True
            self.loop.call_soon(self._drain)

    def _drain(self) -> None:
        turns, queues, budget = self.turns, self.queues, TURN
        try:
            # One turn each a call: between two, the loop reads the port again (a server far behind must not keep
            # the reader from it: the kernel would drop at random what it cannot hold meanwhile).
            for _ in range(len(turns)):
                if budget <= 0:
                    break
                member = turns.popleft()
                if member.hold is not None and member.hold():
                    self.held.append(member)
                    continue
                queue = queues[member]
                on_record = member.on_record
                n = min(SHARE, len(queue))
                budget -= n
                for _ in range(n):
                    on_record(queue.popleft())
                if queue:
                    turns.append(member)
                else:
                    del queues[member]
        finally:  # a record that raised (the loop's handler says it) stops no one's turn
            if turns:
                self.loop.call_soon(self._drain)
            else:
                self.draining = False

    def wake(self) -> None:
        """What held its servers' records can take more: their turns come again."""
        if self.held:
            self.turns.extend(self.held)
            self.held.clear()
            if not self.draining:
                self.draining = True
                self.loop.call_soon(self._drain)

    def close(self) -> None:
        if self.sock.fileno() >= 0:
            self.loop.remove_reader(self.sock.fileno())
            self.sock.close()


async def listen_udp(listen: str, router: Router, buffer: int = RECEIVE_BUFFER) -> tuple[Intake, int]:
    host, _, port = listen.rpartition(":")
    # bound here rather than by asyncio, whose refusal loses the errno (`ports.refusal` names the port's holder from it)
    sock = ports.bind(f"{host.strip('[]') or '127.0.0.1'}:{port}", socket.SOCK_DGRAM)
    try:
        sock.setblocking(False)
        # Room for a burst (a round end writes dozens of lines at once) and for the loop's
        # longest stall; the kernel caps it at net.core.rmem_max, except for root (FORCE).
        # Python's socket module does not name SO_RCVBUFFORCE: Linux's number is 33.
        for option in (getattr(socket, "SO_RCVBUFFORCE", 33 if sys.platform.startswith("linux") else None), socket.SO_RCVBUF):
            if option is None:
                continue
            try:
                sock.setsockopt(socket.SOL_SOCKET, option, buffer)
                break
            except OSError:
                continue
    except BaseException:
        sock.close()
        raise
    return Intake(sock, router), sock.getsockname()[1]


async def follow_file(path: str, on_record: Callable[[bytes], None], poll: float = 0.2, from_start: bool = False) -> None:
    """Follow a growing log file across rotation and truncation, like `tail -F`."""
    handle, inode, buffer, first = None, None, b"", True
    try:
        while True:
            try:
                st = os.stat(path)
            except FileNotFoundError:
                await asyncio.sleep(poll)
                continue
            if handle is None or st.st_ino != inode or st.st_size < handle.tell():
                if handle is not None:
                    handle.close()
                handle, inode, buffer = open(path, "rb"), st.st_ino, b""  # noqa: SIM115 - open while following
                if first and not from_start:
                    handle.seek(0, os.SEEK_END)
                first = False
            chunk = handle.read()
            if not chunk:
                await asyncio.sleep(poll)
                continue
            *lines, buffer = (buffer + chunk).split(b"\n")
            for line in lines:
                if line.strip(b"\x00\r"):
                    on_record(line)
    finally:
        if handle is not None:
            handle.close()
