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
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from jailcore.io import ports

log = logging.getLogger("jailcore")

HEADER = b"\xff\xff\xff\xff"
WHY = {
    "address": "from an address outside [log] allow",
    "secret": "without the configured sv_logsecret (wrong or missing secret)",
    "header": "not in the remote-log format",
}
RECEIVE_BUFFER = 4 * 1024 * 1024


CACHED_HOSTS = 4096  # past this many distinct senders the cache starts afresh: forged sources cannot grow it


class AllowList:
    def __init__(self, entries: Iterable[str]):
        self.networks = [ipaddress.ip_network(e, strict=False) for e in entries]
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
        self._allow = AllowList(allow)
        self.received = 0
        self.dropped: Counter[str] = Counter()
        self.changed: Callable[[], None] | None = None  # a shared port forgets its routes

    @property
    def secret(self) -> str:
        return self._secret

    @secret.setter
    def secret(self, value: str) -> None:
        self._secret = value
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
        self.received += 1
        if addr[0] not in self._allow:
            self._drop("address", addr)
            return
        record = unwrap(data, self._secret)
        if isinstance(record, str):
            self._drop(record, addr)
            return
        self.on_record(record)

    def take(self, data: bytes, addr: tuple[Any, ...]) -> bytes | None:
        """The record if this datagram is this server's (allowed sender, its secret), else None."""
        if addr[0] not in self._allow:
            return None
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
            member.changed = self.routes.clear

    def add(self, member: UdpLog) -> None:
        """A server that joins the port while it runs (its config was fixed)."""
        self.members = sorted([*self.members, member], key=lambda m: not m.secret)
        member.changed = self.routes.clear
        self.routes.clear()

    def datagram_received(self, data: bytes, addr: tuple[Any, ...]) -> None:
        self.received += 1
        member = self.routes.get(addr)
        if member is not None:
            record = member.take(data, addr)
            if record is not None:
                member.received += 1
                member.on_record(record)
                return
        takers = [(m, r) for m in self.members if (r := m.take(data, addr)) is not None]
        if len(takers) > 1:  # the server whose secret the datagram carries, over one that asks none
            takers = [t for t in takers if t[0].secret] or takers
        if len(takers) != 1:
            why = "ambiguous" if takers else "unclaimed"
            self.dropped[why] += 1
            if self.dropped[why] == 1:
                log.warning("a log datagram from %s:%s on the shared port was dropped: %s; such drops are counted", addr[0], addr[1],
                            "more than one server would take it" if takers else "no server's sv_logsecret and [log] allow fit it")
            return
        member, record = takers[0]
        if len(self.routes) >= CACHED_HOSTS:
            self.routes.clear()
        self.routes[addr] = member
        member.received += 1
        member.on_record(record)


async def listen_udp(listen: str, proto: asyncio.DatagramProtocol, buffer: int = RECEIVE_BUFFER) -> tuple[asyncio.DatagramTransport, int]:
    host, _, port = listen.rpartition(":")
    # bound here rather than by asyncio, whose refusal loses the errno (`ports.refusal` names the port's holder from it)
    bound = ports.bind(f"{host.strip('[]') or '127.0.0.1'}:{port}", socket.SOCK_DGRAM)
    loop = asyncio.get_running_loop()
    transport, _ = await loop.create_datagram_endpoint(lambda: proto, sock=bound)
    sock = transport.get_extra_info("socket")
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
    return transport, transport.get_extra_info("sockname")[1]


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
