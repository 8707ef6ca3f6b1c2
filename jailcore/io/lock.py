"""One daemon process per state database.

Two daemons on one file would each re-send the other's pending commands after a restart
(to the wrong game server) and overwrite each other's state. `StateLock` holds an
exclusive `flock` on `<state file>.lock` for the daemon's life; the file says who holds
it (pid and server names), so a second daemon is refused with that in its one line. The
lock dies with its process (a crash leaves no stale lock). Within one process the lock is
shared (one process may run several servers on one file); the command line (tail,
pardon, ctban, status, web) never takes it: it only reads, or writes request rows. The
workers of `run --workers` write under their parent's lock (`PARENT_HOLDS`).
"""

from __future__ import annotations

import fcntl
import os

from jailcore.log.errors import StateError

PARENT_HOLDS = "JAILCORE_LOCK_HELD_BY"  # the pid of a `run --workers` parent that holds the lock for its children


class LockedError(StateError):
    """Another daemon holds the state database; the message says which."""


class _Held:
    def __init__(self, fd: int):
        self.fd = fd
        self.servers: list[str] = []


_HELD: dict[str, _Held] = {}  # lock path -> this process's hold on it


class StateLock:
    lost: str | None = None  # a file lock is never lost while the process lives (a database server's is: `store.locks.Claim`)

    def __init__(self, state_path: str, server: str):
        self.path = os.path.abspath(f"{state_path}.lock")
        self.server = server
        self.held: _Held | None = None
        if state_path == ":memory:" or os.environ.get(PARENT_HOLDS) == str(os.getppid()):
            return  # nothing to lock, or the parent of these workers holds it for them
        held = _HELD.get(self.path)
        if held is None:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 512, 0).decode("utf-8", "replace").strip() or "another process"
                os.close(fd)
                raise LockedError(f"state database {state_path} is in use by another jailcore daemon ({holder}); "
                                  "one daemon per state file: give this server its own [state] path or JAILCORE_STATE") from None
            held = _HELD[self.path] = _Held(fd)
        held.servers.append(server)
        self.held = held
        _say_who(held)

    def release(self) -> None:
        held, self.held = self.held, None
        if held is None:
            return
        if self.server in held.servers:
            held.servers.remove(self.server)
        if held.servers:
            _say_who(held)
            return
        _HELD.pop(self.path, None)
        os.ftruncate(held.fd, 0)
        fcntl.flock(held.fd, fcntl.LOCK_UN)
        os.close(held.fd)

    def __del__(self) -> None:  # a daemon that was made but never run leaves no lock behind
        try:
            self.release()
        except OSError:
            pass


def _say_who(held: _Held) -> None:
    os.ftruncate(held.fd, 0)
    os.pwrite(held.fd, f"pid {os.getpid()}, server {', '.join(held.servers)}".encode(), 0)
