"""A nudge from an admin's command to the running daemon: `jailcore ctban add|lift` and
`jailcore pardon` write their row, then send one empty datagram to the server's wake-up
socket, and the daemon applies the row at once instead of at its next poll of the
database (which stays, for a nudge that is lost or a daemon on another box).

The socket is a Linux abstract Unix datagram socket named after the state database and
the server: no file to clean up, reachable only from this machine (a sender needs to know
the database's path to name it). Elsewhere, or when the name is taken, there is no
socket and the poll does the work.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import socket
from collections.abc import Callable


def address(db_path: str, server: str) -> str:
    where = db_path if "://" in db_path else os.path.realpath(db_path)  # a database server's URL (without its password) as it is
    return "\0jailcore-wake-" + hashlib.sha256(f"{where}\0{server}".encode()).hexdigest()[:32]


class _Wake(asyncio.DatagramProtocol):
    def __init__(self, on_wake: Callable[[], None]):
        self.on_wake = on_wake

    def datagram_received(self, data: bytes, addr: object) -> None:
        self.on_wake()


async def listen(db_path: str, server: str, on_wake: Callable[[], None]) -> asyncio.BaseTransport | None:
    if not hasattr(socket, "AF_UNIX") or db_path == ":memory:":
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        sock.bind(address(db_path, server))
    except OSError:  # not Linux, or another daemon of the same server holds it
        sock.close()
        return None
    sock.setblocking(False)
    transport, _ = await asyncio.get_running_loop().create_datagram_endpoint(lambda: _Wake(on_wake), sock=sock)
    return transport


def nudge(db_path: str, server: str) -> bool:
    """True when a daemon was there to hear it."""
    if not hasattr(socket, "AF_UNIX"):
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.sendto(b"", address(str(db_path), server))
        return True
    except OSError:
        return False
