"""The daemon's writes, off the event loop: one thread, its own connection, group commits.

Contract: `submit(rows)` queues rows and returns their sequence number at once; the thread
writes every queued batch in one transaction, commits, and then tells each listener the
highest sequence now durable (`listen(fn)`: fn runs on the thread; `readers(loop)`: the
daemons of one event loop, woken once a commit there, each that waits for the disk told in its
inbox, a failure or a note told to all). A row the backend refuses for a bug of ours (not the
database) is logged, counted in `failures` and skipped, the rest are written; a database
error (a full disk, a file that cannot be written) stops the writer and is told to every
listener with the sequence it reached: from then on nothing is durable, so nothing is sent.
Between batches the thread checkpoints the WAL (`checkpoint_interval`) and sees to a state
file deleted under it (`Backend.still_there`). `call(fn)` runs fn(backend) on the thread.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from jailcore.session.effects import Row
from jailcore.store.base import Backend
from jailcore.store.errors import ROW_ERRORS

log = logging.getLogger("jailcore")

Listener = Callable[[int, "BaseException | None", "str | None"], None]  # (durable seq, database error, a note to say)
_STOP = object()


class Loop(Protocol):
    """An event loop, as far as the writer's thread hands it news (asyncio stays in `io`)."""

    def call_soon_threadsafe(self, callback: Callable[..., object], *args: Any) -> Any: ...


class NewsReader(Protocol):
    """A daemon's inbox as the writer tells it its news, on its loop."""

    wants: int  # the sequence whose durability is news to it (0: none): a commit short of it wakes nothing

    def written(self, error: BaseException | None, note: str | None) -> None: ...


class Writer:
    def __init__(self, open_backend: Callable[[], Backend], checkpoint_interval: float = 1.0, database_errors: tuple[type[BaseException], ...] = ()):
        self._open = open_backend
        self.checkpoint_interval = checkpoint_interval
        self.database_errors = database_errors
        self.failures: list[str] = []
        self.error: BaseException | None = None
        self.durable = 0
        self.batches = 0
        self._seq = 0
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._started = threading.Event()
        self.backend: Backend | None = None
        self._readers: dict[Loop, list[NewsReader]] = {}

    def listen(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def readers(self, loop: Loop) -> list[NewsReader]:
        """Whom the news goes to on `loop`: a daemon adds its inbox while it serves. The thread
        wakes the loop once a commit, not once a server; a commit that no server of a big fleet
        waited for wakes none of them."""
        found = self._readers.get(loop)
        if found is None:
            found = self._readers[loop] = []
            failures = [len(self.failures)]

            def tell(error: BaseException | None, note: str | None) -> None:  # on the loop
                quiet = error is None and note is None and len(self.failures) == failures[0]
                failures[0] = len(self.failures)
                durable = self.durable  # as it stands now: the commits since the call are news too
                for reader in list(found):
                    # Only the readers this commit releases something for: with a fleet fanning one CT
                    # ban out to 200 servers, the writer commits many times while they wait, and waking
                    # every waiting server at every commit cost ~12 wake-ups a server a ban.
                    if not quiet or 0 < reader.wants <= durable:
                        reader.written(error, note)

            self.listen(lambda durable, error, note: loop.call_soon_threadsafe(tell, error, note))
        return found

    def settle(self) -> None:
        """Blocks until every row queued before now is written (at once if the writer failed)."""
        if self.error is None:
            self.call(lambda backend: None)

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="jailcore-writer", daemon=True)
            self._thread.start()
            self._started.wait()

    @property
    def idle(self) -> bool:
        return self.durable >= self._seq

    def submit(self, rows: Sequence[Row]) -> int:
        with self._lock:
            self._seq += 1
            seq = self._seq
        self._queue.put((seq, rows))
        return seq

    def call(self, fn: Callable[[Backend], Any]) -> Any:
        """fn(backend) on the writer's thread, its result back (blocking: for tests and the end)."""
        done = threading.Event()
        box: list[Any] = []
        self._queue.put((fn, box, done))
        done.wait()
        if isinstance(box[0], BaseException):
            raise box[0]
        return box[0]

    def close(self) -> None:
        """Writes what is queued, then stops the thread and closes its connection."""
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join()
            self._thread = None

    # -- the thread -----------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            self.backend = self._open()
        except BaseException as exc:
            self.error = exc
            self._started.set()
            return
        self._started.set()
        backend = self.backend
        next_checkpoint = time.monotonic() + self.checkpoint_interval
        try:
            while True:
                wait = max(0.0, next_checkpoint - time.monotonic())
                try:
                    first = self._queue.get(timeout=wait)
                except queue.Empty:
                    first = None
                items = [] if first is None else [first]
                while True:
                    try:
                        items.append(self._queue.get_nowait())
                    except queue.Empty:
                        break
                stop = any(item is _STOP for item in items)
                self._batch(backend, [item for item in items if item is not _STOP])
                if stop:
                    return
                if time.monotonic() >= next_checkpoint:
                    next_checkpoint = time.monotonic() + self.checkpoint_interval
                    self._housekeeping(backend)
        finally:
            try:
                backend.close()
            except Exception as exc:  # closing after a database error: said, nothing more to lose
                log.error("the state database could not be closed cleanly: %s", exc)

    def _batch(self, backend: Backend, items: list[Any]) -> None:
        top = None
        for item in items:
            if len(item) == 3:  # a call
                fn, box, done = item
                try:
                    box.append(fn(backend))
                except BaseException as exc:
                    box.append(exc)
                done.set()
                continue
            seq, rows = item
            if self.error is None:
                for row in rows:
                    try:
                        backend.write([row])
                    except ROW_ERRORS as exc:  # the database refused this row's values (a constraint): said, counted, the others written
                        self.failures.append(f"state writer: the database refused a row: {exc}")
                        log.error("the state database refused a row, which is skipped (the others are written): %s: %r", exc, row)
                    except self.database_errors as exc:
                        self.error = exc
                        break
                    except Exception as exc:  # our bug on one row: said and counted, the others are written
                        self.failures.append(f"state writer: {exc!r}")
                        log.error("a row could not be written and was skipped: %r", exc, exc_info=exc)
            top = seq
        if top is None:
            return
        if self.error is None:
            try:
                backend.commit()
                self.durable = top
                self.batches += 1
            except self.database_errors as exc:
                self.error = exc
        self._tell(None)

    def _housekeeping(self, backend: Backend) -> None:
        if self.error is not None:
            return
        note = None
        try:
            note = backend.still_there()
            backend.checkpoint()
        except self.database_errors as exc:
            self.error = exc
        if note is not None:
            log.error("%s", note)
        if note is not None or self.error is not None:
            self._tell(note)

    def _tell(self, note: str | None) -> None:
        for listener in list(self._listeners):
            try:
                listener(self.durable, self.error, note)
            except Exception:  # a listener's bug must not stop the writer
                log.exception("a writer listener failed")
