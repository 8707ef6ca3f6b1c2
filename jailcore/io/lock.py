"""One daemon per state database.

Two daemons on one file would each re-send the other's pending commands after a restart
(to the wrong game server) and overwrite each other's state. `StateLock` holds an
exclusive `flock` on `<state file>.lock` for the daemon's life; the file says who holds
it (pid and server name), so a second daemon is refused with that in its one line. The
lock dies with its process (a crash leaves no stale lock), and the command line (tail,
pardon, ctban, status, web) never takes it: it only reads, or writes request rows.
"""

from __future__ import annotations

import fcntl
import os


class LockedError(Exception):
    """Another daemon holds the state database; the message says which."""


class StateLock:
    def __init__(self, state_path: str, server: str):
        self.path = f"{state_path}.lock"
        self.fd: int | None = None
        if state_path == ":memory:":
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 512, 0).decode("utf-8", "replace").strip() or "another process"
            os.close(fd)
            raise LockedError(f"state database {state_path} is in use by another jailcore daemon ({holder}); "
                              "one daemon per state file: give this server its own [state] path or JAILCORE_STATE") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}, server {server}".encode(), 0)
        self.fd = fd

    def release(self) -> None:
        if self.fd is not None:
            os.ftruncate(self.fd, 0)
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None

    def __del__(self) -> None:  # a daemon that was made but never run leaves no lock behind
        try:
            self.release()
        except OSError:
            pass
