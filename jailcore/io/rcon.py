"""The daemon's RCON connection: one persistent, authenticated, pipelined session.

Contract: `RconClient.send(text)` writes a command at once and returns a future for its
whole reply; `await client.command(text)` is the same with the session opened first and
a timeout, and raises `RconUnavailable` (no session, or it was lost before the answer) or
`RconAuthError`. `Outbox` is the ordered delivery on top: commands go out in decision
order without waiting for each other's replies (each carries its audit id, so one sent
again after a lost session runs once: the shim answers the repeat `ok dup`); one that is
not answered is sent again on a new session, a bounded number of times; one whose moment
has passed is dropped as expired instead of being sent late.

Replies are read whole: after each command an empty EXECCOMMAND with the next id is
sent, and packets are read until that id comes back (the way srcds marks the end of a
multi-packet reply). Reconnects back off. A refused password backs off exponentially and
stops after `auth_tries` refusals, far from srcds's failed-login ban
(`sv_rcon_maxfailures` 10, `sv_rcon_minfailures` 5 within 30 s), until `rearm()` (SIGHUP,
or a config change). Each change of the link's state is logged once.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
from collections import deque
from collections.abc import Callable
from typing import Any, Literal

from jailcore.engine.actions import AuditStatus
from jailcore.io.rconproto import AUTH, AUTH_RESPONSE, EXECCOMMAND, RESPONSE_VALUE, RconProtocolError, encode, read_packet
from jailcore.log.errors import LinkError

# The RCON link as `status`, MQTT and the web page show it.
LinkState = Literal["open", "unreachable", "refused", "stopped", "lost", "closed"]

log = logging.getLogger("jailcore.rcon")


class RconUnavailable(LinkError):
    """No RCON session with the game server right now."""


class RconAuthError(RconUnavailable):
    """The game server refused the RCON password."""


class RconClient:
    def __init__(
        self,
        host: str,
        port: int,
        password: str,
        timeout: float = 3.0,
        backoff: tuple[float, float] = (0.5, 15.0),
        auth_backoff: float = 60.0,
        auth_tries: int = 3,
    ):
        self.host, self.port, self.password = host, port, password
        self.timeout = timeout
        self.backoff_min, self.backoff_max = backoff
        self.auth_backoff = auth_backoff
        self.auth_tries = auth_tries
        self.auth_failures = 0
        self.connected = asyncio.Event()
        self.connects = 0
        self.state: LinkState = "closed"
        self.on_change: Callable[[], None] | None = None  # the link opened, was lost or was rearmed
        self._ids = itertools.count(1)
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._read_task: asyncio.Task | None = None
        self._calls: dict[int, tuple[asyncio.Future, list[bytes]]] = {}
        self._markers: dict[int, int] = {}
        self._lock = asyncio.Lock()
        self._retry_at = 0.0
        self._refused_at = 0.0
        self._delay = self.backoff_min

    # -- state -------------------------------------------------------------------------------

    @property
    def is_open(self) -> bool:
        return self._writer is not None

    @property
    def stopped(self) -> bool:
        return self.auth_failures >= self.auth_tries

    def next_try(self) -> float | None:
        """Seconds until a connection may be tried, None while stopped by refusals."""
        if self.stopped:
            return None
        return max(0.01, self._retry_at - asyncio.get_running_loop().time())

    def _become(self, state: LinkState, level: int, message: str, *args: Any) -> None:
        if state != self.state:
            self.state = state
            log.log(level, message, *args)

    def rearm(self, host: str | None = None, port: int | None = None, password: str | None = None, timeout: float | None = None) -> None:
        """After SIGHUP or a config change: take the new settings and try the password
        again (not sooner than `auth_backoff`, at most 10 s, after the last refusal)."""
        new = (host or self.host, port or self.port, self.password if password is None else password)
        if new != (self.host, self.port, self.password):
            self.host, self.port, self.password = new
            self._drop("the RCON settings changed")
            self._delay = self.backoff_min
            self._retry_at = self._refused_at + min(self.auth_backoff, 10.0) if self.auth_failures else 0.0
        if timeout is not None:
            self.timeout = timeout
        if self.auth_failures:
            log.info("RCON: the password will be tried again")
            self.auth_failures = 0
            self._retry_at = max(self._retry_at, self._refused_at + min(self.auth_backoff, 10.0))
            self.state = "closed"
        if self.on_change is not None:
            self.on_change()

    # -- the session ---------------------------------------------------------------------------

    async def close(self) -> None:
        self._drop("jailcore is stopping", "closed")

    def drop(self, reason: str) -> None:
        """Give the session up (a command went unanswered); every call in flight fails."""
        self._drop(reason)

    def _drop(self, reason: str, state: LinkState = "lost") -> None:
        writer, self._writer, self._reader = self._writer, None, None
        if writer is not None:
            writer.close()
            if self._read_task is not None and self._read_task is not asyncio.current_task():
                self._read_task.cancel()
            self._read_task = None
            self._become(state, logging.WARNING if state == "lost" else logging.INFO, "RCON session with %s:%s %s: %s",
                         self.host, self.port, state, reason)
        self.connected.clear()
        calls, self._calls, self._markers = self._calls, {}, {}
        for future, _ in calls.values():
            if not future.done():
                future.set_exception(RconUnavailable(f"RCON session lost: {reason}"))
        if writer is not None and self.on_change is not None:
            self.on_change()

    async def open(self) -> None:
        async with self._lock:
            if self._writer is None:
                await self._connect()

    async def _connect(self) -> None:
        if self.stopped:
            raise RconAuthError(f"{self.host}:{self.port} refused the RCON password {self.auth_failures} times; not trying again")
        loop = asyncio.get_running_loop()
        wait = self._retry_at - loop.time()
        if wait > 0:
            raise RconUnavailable(f"reconnecting in {wait:.1f}s")
        try:
            async with asyncio.timeout(self.timeout):
                reader, writer = await asyncio.open_connection(self.host, self.port)
        except (TimeoutError, OSError) as exc:
            self._unreachable(f"cannot reach {self.host}:{self.port}: {exc or 'timeout'}")
        request_id = next(self._ids)
        try:
            writer.write(encode(request_id, AUTH, self.password))
            await writer.drain()
            async with asyncio.timeout(self.timeout):
                while True:
                    got_id, kind, _ = await read_packet(reader)
                    if kind == AUTH_RESPONSE:
                        break
        except (TimeoutError, OSError, asyncio.IncompleteReadError, RconProtocolError) as exc:
            writer.close()
            self._unreachable(f"login to {self.host}:{self.port} failed: {exc!r}")
        if got_id == -1:
            writer.close()
            self.auth_failures += 1
            self._refused_at = loop.time()
            if self.stopped:
                self._become("stopped", logging.ERROR,
                             "RCON: %s:%s refused the password %d times; stopped trying, so that srcds does not ban this address "
                             "(sv_rcon_maxfailures). Fix [rcon] password or JAILCORE_RCON_PASSWORD, then send SIGHUP or save the config",
                             self.host, self.port, self.auth_failures)
                raise RconAuthError(f"{self.host}:{self.port} refused the RCON password; stopped trying")
            delay = self.auth_backoff * 2 ** (self.auth_failures - 1)
            self._later(delay)
            self.state = "refused"
            log.warning("RCON: %s:%s refused the password (%d of %d tries); next try in %.0fs",
                        self.host, self.port, self.auth_failures, self.auth_tries, delay)
            raise RconAuthError(f"{self.host}:{self.port} refused the RCON password; next try in {delay:.0f}s")
        self._reader, self._writer = reader, writer
        self._delay = self.backoff_min
        self.auth_failures = 0
        self.connects += 1
        self.connected.set()
        self._read_task = loop.create_task(self._read(reader, writer))
        self._become("open", logging.INFO, "RCON session open with %s:%s", self.host, self.port)
        if self.on_change is not None:
            self.on_change()

    def _unreachable(self, why: str):
        self._later(self._delay)
        self._delay = min(self._delay * 2, self.backoff_max)
        self._become("unreachable", logging.WARNING, "RCON: %s; commands wait and go out once it answers (retrying with back-off)", why)
        raise RconUnavailable(why) from None

    def _later(self, delay: float) -> None:
        self._retry_at = asyncio.get_running_loop().time() + delay

    async def _read(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        reason = "the server closed it"
        try:
            while True:
                got_id, kind, body = await read_packet(reader)
                if got_id in self._markers:
                    future, parts = self._calls.pop(self._markers.pop(got_id))
                    if not future.done():
                        future.set_result(b"".join(parts).decode("utf-8", "replace"))
                elif kind == RESPONSE_VALUE and got_id in self._calls:
                    self._calls[got_id][1].append(body)
        except asyncio.CancelledError:
            raise  # `_drop` cancels us and has failed the calls itself; the task must end cancelled
        except (OSError, asyncio.IncompleteReadError, RconProtocolError) as exc:
            reason = repr(exc) if not isinstance(exc, asyncio.IncompleteReadError) else reason
        except Exception as exc:  # a bug here must not leave calls waiting forever
            log.exception("RCON: the reply reader failed")
            reason = repr(exc)
        if self._writer is writer:
            self._drop(reason)

    def send(self, text: str) -> asyncio.Future[str]:
        """Write one command now, on the open session; the future gets its whole reply."""
        return self.send_all([text])[0]

    def send_all(self, texts: list[str]) -> list[asyncio.Future[str]]:
        """Write these commands now, in one write (one TCP segment where they fit)."""
        if self._writer is None:
            raise RconUnavailable("no RCON session")
        loop = asyncio.get_running_loop()
        futures: list[asyncio.Future[str]] = []
        packets: list[bytes] = []
        for text in texts:
            request_id, marker = next(self._ids), next(self._ids)
            future: asyncio.Future[str] = loop.create_future()
            self._calls[request_id] = (future, [])
            self._markers[marker] = request_id
            packets += (encode(request_id, EXECCOMMAND, text), encode(marker, EXECCOMMAND, ""))
            futures.append(future)
        self._writer.write(b"".join(packets))
        return futures

    async def command(self, text: str) -> str:
        await self.open()
        future = self.send(text)
        try:
            async with asyncio.timeout(self.timeout):
                return await future
        except TimeoutError:
            self._drop(f"no answer to {text.split()[0]!r} in {self.timeout:g}s")
            raise RconUnavailable("no answer") from None


# -- delivery ------------------------------------------------------------------------------------


def is_shim_reply(reply: str) -> bool:
    """The shim answers every command `ok`, `ok dup` (an id it has run) or `error: why`."""
    return reply in ("ok", "ok dup") or reply.startswith("error:")


class Item:
    __slots__ = ("attempts", "command", "future", "key", "meta", "sent_at", "tag")

    def __init__(self, tag: int | None, command: str, key: str | None, meta: Any):
        self.tag, self.command, self.key, self.meta = tag, command, key, meta
        self.attempts = 0
        self.future: asyncio.Future | None = None
        self.sent_at = 0.0


def _lapsed(item: Item) -> AuditStatus:
    """A command whose moment passed: `expired` if it never left, `unanswered` if it was
    sent and its answer never came (the server may have run it; the shim's id memory made
    a re-send safe, but it is not re-sent late)."""
    return "unanswered" if item.sent_at else "expired"


class Outbox:
    """Commands in decision order, sent in that order without waiting for each reply.

    `on_result(item, status, reply)` is called once per command: status `delivered` (the
    shim's `ok` / `ok dup`), `failed` (`error:`, an answer that is not the shim's, or no
    answer after `tries` sendings), `expired` (`expired(item)` gave a reason before it
    was sent) or `unanswered` (it gave one after the command was sent and its answer was
    lost with the session). `after_send(batch)` runs right after each batch is written, in the same step (the
    daemon commits the audit rows there: the disk never delays a command)."""

    def __init__(
        self,
        client: RconClient,
        on_result: Callable[[Item, str, str | None], None] | None = None,
        expired: Callable[[Item], str | None] | None = None,
        after_send: Callable[[list[Item]], None] | None = None,
        tries: int = 3,
        window: int = 64,
    ):
        self.client = client
        self.on_result = on_result
        self.expired = expired
        self.after_send = after_send
        self.tries = tries
        self.window = window
        self.shim_missing = False
        self._queue: deque[Item] = deque()
        self._wake = asyncio.Event()
        self.idle = asyncio.Event()
        self.idle.set()
        client.on_change = self.wake

    def put(self, tag: int | None, command: str, key: str | None = None, meta: Any = None) -> None:
        """Queue a command; one with a `key` replaces a queued, unsent one with the same key
        (only the newest display line is worth sending)."""
        if key is not None:
            for item in self._queue:
                if item.key == key and item.future is None and not item.attempts:
                    item.tag, item.command, item.meta = tag, command, meta
                    return
        self._queue.append(Item(tag, command, key, meta))
        self.idle.clear()
        self._wake.set()

    def wake(self) -> None:
        self._wake.set()

    def last(self) -> Item:
        return self._queue[-1]

    def __len__(self) -> int:
        return len(self._queue)

    @property
    def in_flight(self) -> int:
        return sum(1 for item in self._queue if item.future is not None)

    # -- sending (synchronous: called right after a decision, no loop turn in between) ------

    def flush(self) -> None:
        if not self.client.is_open:
            return
        flying = self.in_flight
        batch: list[Item] = []
        for item in list(self._queue):
            if flying + len(batch) >= self.window:
                break
            if item.future is not None:
                continue
            reason = self.expired(item) if self.expired is not None else None
            if reason is not None:
                self._finish(item, _lapsed(item), reason)
                continue
            batch.append(item)
        if not batch:
            return
        now = asyncio.get_running_loop().time()
        for item, future in zip(batch, self.client.send_all([item.command for item in batch]), strict=True):
            item.future, item.sent_at = future, now
            future.add_done_callback(functools.partial(self._answered, item))
        if self.after_send is not None:
            self.after_send(batch)

    def sweep(self) -> None:
        """Drop the waiting commands whose moment has passed (a round ended, a player left)."""
        if self.expired is None:
            return
        for item in list(self._queue):
            if item.future is None:
                reason = self.expired(item)
                if reason is not None:
                    self._finish(item, _lapsed(item), reason)

    def drop(self, why: Callable[[Item], str | None], status: AuditStatus = "dropped") -> int:
        """Take out the waiting commands `why` gives a reason for (the config changed under
        them); each is reported with that status and reason. Those in flight stay."""
        dropped = 0
        for item in list(self._queue):
            if item.future is None:
                reason = why(item)
                if reason is not None:
                    self._finish(item, status, reason)
                    dropped += 1
        return dropped

    def _answered(self, item: Item, future: asyncio.Future) -> None:
        if item.future is not future or future.cancelled():
            return
        if future.exception() is not None:  # the session was lost: sent again on the next one
            self._wake.set()
            return
        reply = future.result().strip()
        if is_shim_reply(reply):
            if self.shim_missing:
                self.shim_missing = False
                log.info("the jailcore shim answers again")
            self._finish(item, "delivered" if reply.startswith("ok") else "failed", reply)
        else:
            if not self.shim_missing:
                self.shim_missing = True
                log.error("the server answered %r to %r: the jailcore shim (sourcemod_bridge) is not loaded; "
                          "commands fail until it is loaded and says jb_hello", reply[:120], item.command.split()[0])
            self._finish(item, "failed", reply)
        if any(i.future is None for i in self._queue):
            self._wake.set()  # the window has room again

    def _finish(self, item: Item, status: AuditStatus, reply: str | None) -> None:
        try:
            self._queue.remove(item)
        except ValueError:
            return
        if not self._queue:
            self.idle.set()
        if self.on_result is not None:
            self.on_result(item, status, reply)

    def _requeue_lost(self) -> None:
        """After a lost session the oldest command in flight is the one whose answer never
        came: it counts a try, and after `tries` it fails so it cannot block the rest."""
        lost = [i for i in self._queue if i.future is not None and i.future.done() and i.future.exception() is not None]
        for item in lost:
            item.future = None
        if lost:
            head = lost[0]
            head.attempts += 1
            if head.attempts >= self.tries:
                log.error("RCON: no answer to %r after %d tries; marked failed", head.command[:80], head.attempts)
                self._finish(head, "failed", f"no answer after {head.attempts} tries")

    # -- the loop: keeps the session, times out the unanswered ------------------------------

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            self._wake.clear()
            self._requeue_lost()
            if not self.client.is_open:
                try:
                    await self.client.open()
                except RconUnavailable:
                    await self._sleep(self.client.next_try())
                    continue
            self.flush()
            if not self._queue:
                self.idle.set()
            flying = [item for item in self._queue if item.future is not None]
            timeout = None
            if flying:
                timeout = max(0.0, flying[0].sent_at + self.client.timeout - loop.time())
            if not await self._sleep(timeout) and flying and flying[0].future is not None and not flying[0].future.done():
                self.client.drop(f"no answer to {flying[0].command.split()[0]!r} in {self.client.timeout:g}s")

    async def _sleep(self, timeout: float | None) -> bool:
        """Until woken (True) or the timeout passed (False). `asyncio.timeout`, not
        `wait_for`: on 3.11 wait_for can swallow a cancel that meets a wake-up."""
        try:
            async with asyncio.timeout(timeout):
                await self._wake.wait()
            return True
        except TimeoutError:
            return False
