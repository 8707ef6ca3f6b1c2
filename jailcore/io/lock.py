"""One daemon process per state database.

Two daemons on one file would each re-send the other's pending commands after a restart
(to the wrong game server) and overwrite each other's state. `StateLock` holds an
exclusive `flock` on `<state file>.lock` for the daemon's life; the file says who holds
it (pid and server names), so a second daemon is refused with that in its one line. The
lock dies with its process (a crash leaves no stale lock). Within one process the lock is
shared (one process may run several servers on one file); the command line (tail,
pardon, ctban, status, web) never takes it: it only reads, or writes request rows. The
workers of `run --workers` write under their parent's lock (`PARENT_HOLDS`), and hold it
with it (they inherit its descriptor): a parent killed with -9 lets go of it only when its
last worker, which stops on its own (within `WORKERS_STOP_GRACE`), has ended. A daemon
started meanwhile finds the lock held in the name of a process that is gone: it waits for
those workers, not beside them (two processes on one file, each re-sending the other's
pending commands), and is refused only if they outlast their grace.
"""

from __future__ import annotations

import fcntl
import logging
import os
import time

from jailcore.log.errors import StateError

PARENT_HOLDS = "JAILCORE_LOCK_HELD_BY"  # the pid of a `run --workers` parent that holds the lock for its children
WORKERS_STOP_GRACE = 30.0  # seconds a worker whose parent is gone (or told to stop) has before it is ended by force
ORPHANS_WAIT = WORKERS_STOP_GRACE + 15.0  # seconds a start waits for a gone parent's workers to let go of the lock

log = logging.getLogger("jailcore")


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
                if not _outlived(fd, state_path, holder):
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


def _outlived(fd: int, state_path: str, holder: str) -> bool:
    """The lock held in the name of a process that is gone: the workers of a `run --workers` parent
    killed with -9 hold it while they stop. Waited for (True once taken); False at once while the
    process named lives (another daemon: refused), or if they hold it past their grace."""
    words = holder.split(",", 1)[0].split()
    if len(words) != 2 or words[0] != "pid" or not words[1].isdigit() or _alive(int(words[1])):
        return False
    log.warning("state database %s: the workers of a stopped jailcore run (%s) still hold it while they stop; "
                "waiting for them (at most %.0f s)", state_path, holder, ORPHANS_WAIT)
    end = time.monotonic() + ORPHANS_WAIT
    while time.monotonic() < end:
        time.sleep(0.1)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue
        return True
    return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's: alive
        pass
    return True


def _say_who(held: _Held) -> None:
    os.ftruncate(held.fd, 0)
    os.pwrite(held.fd, f"pid {os.getpid()}, server {', '.join(held.servers)}".encode(), 0)
