"""A database server that hangs under the daemon's writer: stopped (SIGSTOP) or cut off by the
network, it answers nothing and closes nothing, and the driver would wait out its read timeout
(30 s) in the group commit, with every command of the daemon waiting for its rows. A short
timeout would not do: a commit may be slow and still land (a big prune, a busy disk).

So a thread looks at the commit in flight: past `after` seconds, a fresh connection asks the
server `SELECT 1` (`probe`, with the loop's short timeout). A server that answers is only slow,
and the commit goes on. One that does not is hung: the commit's socket is shut, its wait ends
as a lost connection, and the store takes the server for away (the transaction to the journal,
the commands released from there; the replay asks the database whether it landed).
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

log = logging.getLogger("jailcore")

HANG = 2.0  # seconds a commit may take before the server is asked whether it is still there


class HangWatch:
    def __init__(self, probe: Callable[[], bool], where: str, after: float = HANG):
        self.probe, self.where, self.after = probe, where, after
        self._lock = threading.Lock()
        self._inflight: tuple[float, Any] | None = None  # (since when, the connection) of the commit in flight
        self._closing = threading.Event()
        self._thread: threading.Thread | None = None
        self.cut = 0  # commits cut off as hung, for the tests and the log

    @contextmanager
    def watching(self, conn: Any) -> Iterator[None]:
        """Around one commit on `conn`: two assignments when it is quick (the writer commits many times a second)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._watch, name="jailcore database hang watch", daemon=True)
            self._thread.start()
        with self._lock:
            self._inflight = (time.monotonic(), conn)
        try:
            yield
        finally:
            with self._lock:
                self._inflight = None

    def _watch(self) -> None:
        looked: tuple[float, Any] | None = None
        while not self._closing.wait(self.after / 4):
            inflight = self._inflight
            if inflight is None or inflight is looked or time.monotonic() - inflight[0] < self.after:
                continue
            looked = inflight  # one question a commit: a slow one that the server answers for is let be
            if self.probe():
                continue
            with self._lock:
                if self._inflight is not inflight:
                    continue  # it ended meanwhile
                sock = getattr(inflight[1], "_sock", None)
                if sock is None:
                    continue
                try:
                    sock.shutdown(socket.SHUT_RDWR)  # the writer's read returns now, as a lost connection
                except OSError:
                    continue
                self.cut += 1
            log.warning("state database %s does not answer (a commit waited %.1f s, a fresh connection got no answer): "
                        "taken for away", self.where, time.monotonic() - inflight[0])

    def close(self) -> None:
        self._closing.set()
