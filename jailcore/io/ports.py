"""A port this process cannot listen on, said in one line an operator acts on: which address
and port, and what holds it when the kernel's tables say (Linux: /proc/net names the
socket's owner, /proc/PID/fd the process, as far as this user may look).

`bind_tcp` binds the web page's socket before anything says the page is up."""

from __future__ import annotations

import errno
import os
import socket
from pathlib import Path

from jailcore.log.errors import JailcoreError

PROC = Path("/proc")
LISTEN = "0A"  # a TCP socket's state in /proc/net/tcp


class PortError(JailcoreError):
    """The one line: `cannot listen on 127.0.0.1:8080 (tcp): ...`."""


def _sockets(port: int, proto: str) -> dict[str, int]:
    """The inodes of the sockets bound to `port` (TCP: listening), with their owners' uids."""
    found: dict[str, int] = {}
    for name in (proto, f"{proto}6"):
        try:
            lines = (PROC / "net" / name).read_text(encoding="ascii").splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if len(parts) < 10 or int(parts[1].rpartition(":")[2], 16) != port or (proto == "tcp" and parts[3] != LISTEN):
                continue
            found[parts[9]] = int(parts[7])
    return found


def _user(uid: int) -> str:
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def holder(port: int, proto: str) -> str | None:
    """What holds `port`: 'pid 812 (mosquitto, user mosquitto)', or 'a process of user mysql'
    when its process may not be looked into; None when the tables say nothing."""
    sockets = _sockets(port, proto)
    if not sockets:
        return None
    wanted = {f"socket:[{inode}]": uid for inode, uid in sockets.items()}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fds = list((entry / "fd").iterdir())
        except OSError:  # another user's process, or one that ended
            continue
        for fd in fds:
            try:
                link = os.readlink(fd)
            except OSError:
                continue
            if link in wanted:
                try:
                    name = (entry / "comm").read_text(encoding="utf-8", errors="replace").strip()
                except OSError:
                    name = "?"
                return f"pid {entry.name} ({name}, user {_user(wanted[link])})"
    return f"a process of user {_user(next(iter(sockets.values())))}"


def refusal(listen: str, proto: str, exc: OSError, setting: str) -> str:
    """Why `listen` could not be bound, and what to change (`setting`: where the address is set)."""
    host, _, port_text = listen.rpartition(":")
    port = int(port_text) if port_text.isdigit() else 0
    where = f"cannot listen on {listen} ({proto})"
    if exc.errno == errno.EADDRINUSE:
        who = holder(port, proto)
        return f"{where}: port {port} is in use{' by ' + who if who else ''}; stop that, or choose another port in {setting}"
    if exc.errno == errno.EACCES and 0 < port < 1024:
        return f"{where}: a port below 1024 needs root or CAP_NET_BIND_SERVICE; choose a higher one in {setting}"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"{where}: {host.strip('[]')} is not an address of this machine; fix {setting}"
    return f"{where}: {exc.strerror or exc}; check {setting}"


def bind(listen: str, kind: socket.SocketKind) -> socket.socket:
    """A socket bound to host:port (a stream one not yet listening); the OSError of a
    refused bind as the system gave it (its errno for `refusal`)."""
    host, _, port = listen.rpartition(":")
    host = host.strip("[]")
    family, _, proto, _, address = socket.getaddrinfo(host or None, int(port), type=kind, flags=socket.AI_PASSIVE)[0]
    sock = socket.socket(family, kind, proto)
    try:
        if kind == socket.SOCK_STREAM:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: a restart takes its port back at once
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock


def bind_tcp(listen: str, setting: str) -> socket.socket:
    """The web page's socket, bound and listening (a browser's connection waits in its
    backlog until the server takes it), or PortError in one line."""
    try:
        sock = bind(listen, socket.SOCK_STREAM)
    except ValueError as exc:
        raise PortError(f"cannot listen on {listen} (tcp): {exc}; fix {setting}") from None
    except OSError as exc:
        raise PortError(refusal(listen, "tcp", exc, setting)) from None
    sock.listen(2048)  # uvicorn's backlog; it listens again when it serves, which changes nothing
    return sock
