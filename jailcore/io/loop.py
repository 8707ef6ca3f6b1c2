"""The process around the daemons: its signals and the loop's error handler, the event loop
(uvloop where it builds), and the little waits and file signatures the drivers share."""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from jailcore.store import DATABASE_ERRORS

log = logging.getLogger("jailcore")


async def until(event: asyncio.Event, timeout: float | None) -> bool:
    """Waits for `event` at most `timeout` seconds; True once it is set (a watcher's loop reads
    `while not await until(stopping, interval)`)."""
    try:
        async with asyncio.timeout(timeout):
            await event.wait()
    except TimeoutError:
        pass
    return event.is_set()


def signature(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


class Edits:
    """Which of some files changed since the last look (mtime, size, inode): a daemon's config, a
    fleet's refused ones. A file that is gone has not changed until it is back. `seen`: the files'
    signatures as they were read (taken before the read), where the caller has them: an edit saved
    between the read and the watcher's start is then seen (a first look taken at the start missed
    it, and the server ran the old file, or a fixed config never joined, until the next edit)."""

    def __init__(self, paths: Iterable[str] = (), seen: Mapping[str, tuple[int, int, int] | None] | None = None):
        seen = seen or {}
        self.seen = {path: seen[path] if path in seen else signature(Path(path)) for path in paths}

    def changed(self) -> list[str]:
        out = []
        for path, before in self.seen.items():
            now = signature(Path(path))
            if now is not None and now != before:
                self.seen[path] = now
                out.append(path)
        return out

    def forget(self, path: str) -> None:
        self.seen.pop(path, None)


async def watch(edits: Edits, every: float, changed: Callable[[str], Awaitable[None]], stopping: asyncio.Event | None = None) -> None:
    """The one watcher of config files, a daemon's alone or a fleet's: every `every` seconds, each file that
    changed since the last look, to `changed` in turn, until `stopping`. Whatever a file holds, it goes on."""
    stopping = stopping or asyncio.Event()
    while not await until(stopping, every):
        for path in edits.changed():
            await changed(path)


@asynccontextmanager
async def process_hooks(stop: Callable[[], None], hangup: Callable[[], None],
                        on_error: Callable[[asyncio.AbstractEventLoop, dict[str, Any]], None]) -> AsyncIterator[None]:
    """The process's signals (SIGTERM and SIGINT stop, SIGHUP reloads) and the loop's error
    handler for as long as the block runs; the ones before are put back after it."""
    loop = asyncio.get_running_loop()
    previous_handler = loop.get_exception_handler()
    loop.set_exception_handler(on_error)
    handlers = {signal.SIGTERM: stop, signal.SIGINT: stop, signal.SIGHUP: hangup}
    for sig, handler in handlers.items():
        try:
            loop.add_signal_handler(sig, handler)
        except (NotImplementedError, RuntimeError, ValueError):
            pass
    try:
        yield
    finally:
        for sig in handlers:
            try:
                loop.remove_signal_handler(sig)
            except (NotImplementedError, RuntimeError, ValueError):
                pass
        loop.set_exception_handler(previous_handler)


def loop_errors(failures: list[str], database_failed: Callable[[BaseException], None]) -> Callable[[asyncio.AbstractEventLoop, dict[str, Any]], None]:
    """The loop's handler for whatever escapes a callback (a datagram handler, a timer): logged
    and counted in `failures`, never lost; a database error is `database_failed`'s."""

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if isinstance(exc, DATABASE_ERRORS):
            database_failed(exc)
            return
        failures.append(f"callback: {exc!r}" if exc else str(context.get("message")))
        log.error("unexpected error: %s", context.get("message"), exc_info=exc)

    return handler


class _LastLine(logging.Handler):
    """The newest line jailcore logged (a handler of its logger: one on the root logger would keep
    `logging.basicConfig` from setting up the daemon's own)."""

    def __init__(self) -> None:
        super().__init__()
        self.said = ""

    def emit(self, record: logging.LogRecord) -> None:
        self.said = record.getMessage()


_LAST = _LastLine()
log.addHandler(_LAST)


def last_word(reason: str | None) -> None:
    """Why the process stops, as its very last line (the one `systemctl status` and an alert show): it was
    said when it happened, and the way out (RCON closed, the writer settled, the lock let go) wrote after it;
    not twice when nothing came after it (a refused port at start: its one line)."""
    if reason is not None and _LAST.said != f"jailcore stops: {reason}":
        log.critical("jailcore stopped: %s", reason)


def stopped_servers(failed: dict[str, str]) -> str | None:
    """The servers that stopped on a failure, one reason once (a shared state file fails them all alike)."""
    if not failed:
        return None
    by_reason: dict[str, list[str]] = {}
    for server, why in failed.items():
        by_reason.setdefault(why, []).append(server)
    parts = []
    for why, servers in by_reason.items():
        names = ", ".join(servers[:5]) + (f" and {len(servers) - 5} more" if len(servers) > 5 else "")
        parts.append(f"server{'s' if len(servers) > 1 else ''} {names}: {why}")
    return "; ".join(parts)


GC_YOUNG = 50_000  # allocations between young collections (Python's default: 700)


def started() -> None:
    """The process's servers are up. What start-up made (every server's rules, config, caches) lives as long as
    the process: out of the collector's sight, a full collection no longer walks it, and the loop's longest stall
    (a datagram's and a ban's wait) shrinks with it. Young collections far apart: a busy process makes short-lived
    objects by the thousand a second (inputs, effects, parsed events), and each collection that promotes some makes
    the next full one walk every server's state, a stall in which datagrams pile up."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG, 50, 100)


def run_loop(main: Coroutine[Any, Any, Any]) -> Any:
    """uvloop where it is installed (it halves the loop's own latency), asyncio otherwise."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)
