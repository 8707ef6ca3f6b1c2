"""The state database's writer as the daemons of one event loop share it (a fleet's servers
of one file): its thread commits whatever is queued, wakes the loop once, and each daemon
that waits for the disk (commands held for their rows, rows not yet durable) hears it in its
inbox; a disk that failed, a file written afresh or a row the writer skipped is told to all.
A commit that no server of a big fleet waited for wakes none of them.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Protocol

from jailcore.store.writer import Writer


class Reader(Protocol):
    waiting: bool

    def written(self, error: BaseException | None, note: str | None) -> None: ...


_READERS: weakref.WeakKeyDictionary[Writer, list[Reader]] = weakref.WeakKeyDictionary()


def readers(writer: Writer, loop: asyncio.AbstractEventLoop) -> list[Reader]:
    """Whom `writer`'s news goes to on this loop: a daemon adds its inbox while it serves."""
    found = _READERS.get(writer)
    if found is None:
        found = _READERS[writer] = []
        failures = [len(writer.failures)]

        def news(durable: int, error: BaseException | None, note: str | None) -> None:  # on the writer's thread
            loop.call_soon_threadsafe(_tell, found, writer, failures, error, note)

        writer.listen(news)
    return found


def _tell(readers: list[Reader], writer: Writer, failures: list[int], error: BaseException | None, note: str | None) -> None:
    quiet = error is None and note is None and len(writer.failures) == failures[0]
    failures[0] = len(writer.failures)
    for reader in list(readers):
        if not quiet or reader.waiting:
            reader.written(error, note)


def finish(writer: Writer, own: bool) -> None:
    """At a stop, off the loop: every row queued is written (and a writer of this daemon's own closed)."""
    if own:
        writer.close()
    elif writer.error is None:
        writer.call(lambda backend: None)
