"""Where log records come from: the engine's remote log over UDP, or a growing file.

Contract: both call `on_record(bytes)` once per log record. The UDP side drops, and
counts by reason, every datagram that is not from an allowed address, not in the
remote-log format, or without the configured `sv_logsecret`; it never raises. The first
drop of each reason is logged with its sender, so a mis-set `sv_logsecret` or `[log]
allow` is said at once, not found days later; `status` and `!jcstatus` show the counts.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import socket
from collections import Counter
from collections.abc import Callable, Iterable

log = logging.getLogger("jailcore")

HEADER = b"\xff\xff\xff\xff"
WHY = {
    "address": "from an address outside [log] allow",
    "secret": "without the configured sv_logsecret (wrong or missing secret)",
    "header": "not in the remote-log format",
}
RECEIVE_BUFFER = 4 * 1024 * 1024


class AllowList:
    def __init__(self, entries: Iterable[str]):
        self.networks = [ipaddress.ip_network(e, strict=False) for e in entries]

    def __contains__(self, host: str) -> bool:
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
        self.secret = secret
        self.allow = AllowList(allow)
        self.received = 0
        self.dropped: Counter[str] = Counter()

    def datagram_received(self, data: bytes, addr: tuple) -> None:
        self.received += 1
        if addr[0] not in self.allow:
            self._drop("address", addr)
            return
        record = unwrap(data, self.secret)
        if isinstance(record, str):
            self._drop(record, addr)
            return
        self.on_record(record)

    def _drop(self, why: str, addr: tuple) -> None:
        self.dropped[why] += 1
        if self.dropped[why] == 1:
            log.warning("a log datagram from %s:%s was dropped: %s; such drops are counted (jailcore status, !jcstatus)",
                        addr[0], addr[1], WHY.get(why, why))

    def drops(self) -> str:
        """`secret 3, address 1`, or "" when nothing was dropped."""
        return ", ".join(f"{why} {n}" for why, n in sorted(self.dropped.items()) if n)


async def listen_udp(listen: str, proto: UdpLog) -> tuple[asyncio.DatagramTransport, int]:
    host, _, port = listen.rpartition(":")
    loop = asyncio.get_running_loop()
    transport, _ = await loop.create_datagram_endpoint(lambda: proto, local_addr=(host.strip("[]") or "127.0.0.1", int(port)))
    sock = transport.get_extra_info("socket")
    try:  # room for a burst (a round end writes dozens of lines at once); the kernel caps it
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)
    except OSError:
        pass
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
