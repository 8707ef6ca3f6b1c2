"""The daemon's RCON connection: one persistent, authenticated session.

Contract: `await client.command(text)` returns the server's whole reply, or raises
`RconUnavailable` (no session could be had within the timeout) or `RconAuthError`.
`Outbox` is the ordered delivery on top: commands wait in it while the server is
unreachable and go out in order once it returns; one is taken off only when its reply
came back, so nothing is lost.

Replies are read whole: after each command an empty EXECCOMMAND with the next id is
sent, and packets are read until that id comes back (the way srcds marks the end of a
multi-packet reply). Reconnects back off; a wrong password backs off far longer, so the
daemon never walks into srcds's failed-login ban (`sv_rcon_maxfailures`, 10, or
`sv_rcon_minfailures`, 5 within 30 s).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections import deque
from collections.abc import Awaitable, Callable

from .rconproto import AUTH, AUTH_RESPONSE, EXECCOMMAND, RESPONSE_VALUE, RconProtocolError, encode, read_packet

log = logging.getLogger("jailcore.rcon")


class RconUnavailable(Exception):
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
    ):
        self.host, self.port, self.password = host, port, password
        self.timeout = timeout
        self.backoff_min, self.backoff_max = backoff
        self.auth_backoff = auth_backoff
        self.connected = asyncio.Event()
        self.connects = 0
        self._ids = itertools.count(1)
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._lock = asyncio.Lock()
        self._retry_at = 0.0
        self._delay = self.backoff_min

    async def close(self) -> None:
        self._drop()

    def _drop(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None
        self.connected.clear()

    async def _connect(self) -> None:
        loop = asyncio.get_running_loop()
        wait = self._retry_at - loop.time()
        if wait > 0:
            raise RconUnavailable(f"reconnecting in {wait:.1f}s")
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(self.host, self.port), self.timeout)
        except (TimeoutError, OSError) as exc:
            self._later(self._delay)
            self._delay = min(self._delay * 2, self.backoff_max)
            raise RconUnavailable(f"cannot reach {self.host}:{self.port}: {exc or 'timeout'}") from None
        request_id = next(self._ids)
        try:
            writer.write(encode(request_id, AUTH, self.password))
            await writer.drain()
            while True:
                got_id, kind, _ = await asyncio.wait_for(read_packet(reader), self.timeout)
                if kind == AUTH_RESPONSE:
                    break
        except (TimeoutError, OSError, asyncio.IncompleteReadError, RconProtocolError) as exc:
            writer.close()
            self._later(self._delay)
            self._delay = min(self._delay * 2, self.backoff_max)
            raise RconUnavailable(f"login to {self.host}:{self.port} failed: {exc!r}") from None
        if got_id == -1:
            writer.close()
            self._later(self.auth_backoff)
            raise RconAuthError(f"{self.host}:{self.port} refused the RCON password; next try in {self.auth_backoff:.0f}s")
        self._reader, self._writer = reader, writer
        self._delay = self.backoff_min
        self.connects += 1
        self.connected.set()
        log.info("RCON session open with %s:%s", self.host, self.port)

    def _later(self, delay: float) -> None:
        self._retry_at = asyncio.get_running_loop().time() + delay

    async def command(self, text: str) -> str:
        async with self._lock:
            if self._writer is None:
                await self._connect()
            assert self._reader is not None and self._writer is not None
            request_id, marker = next(self._ids), next(self._ids)
            try:
                self._writer.write(encode(request_id, EXECCOMMAND, text) + encode(marker, EXECCOMMAND, ""))
                await self._writer.drain()
                return await asyncio.wait_for(self._reply(request_id, marker), self.timeout)
            except (TimeoutError, OSError, asyncio.IncompleteReadError, RconProtocolError) as exc:
                self._drop()
                raise RconUnavailable(f"RCON session lost: {exc!r}") from None

    async def _reply(self, request_id: int, marker: int) -> str:
        assert self._reader is not None
        parts: list[bytes] = []
        while True:
            got_id, kind, body = await read_packet(self._reader)
            if got_id == marker:
                return b"".join(parts).decode("utf-8", "replace")
            if got_id == request_id and kind == RESPONSE_VALUE:
                parts.append(body)


class Outbox:
    """Commands in decision order, delivered in that order, each once it is answered."""

    def __init__(
        self,
        client: RconClient,
        on_result: Callable[[object, str, str | None], Awaitable[None] | None] | None = None,
        retry: float = 0.5,
    ):
        self.client = client
        self.on_result = on_result
        self.retry = retry
        self._queue: deque[list] = deque()  # [tag, command, key]
        self._wake = asyncio.Event()
        self.idle = asyncio.Event()
        self.idle.set()

    def put(self, tag: object, command: str, key: str | None = None) -> None:
        """Queue a command; one with a `key` replaces a queued one with the same key
        (only the newest display line is worth sending)."""
        if key is not None:
            for item in list(self._queue)[1:]:  # the head may be in flight
                if item[2] == key:
                    item[0], item[1] = tag, command
                    return
        self._queue.append([tag, command, key])
        self.idle.clear()
        self._wake.set()

    def __len__(self) -> int:
        return len(self._queue)

    async def run(self) -> None:
        while True:
            if not self._queue:
                self.idle.set()
                self._wake.clear()
                await self._wake.wait()
                continue
            tag, command, _ = self._queue[0]
            try:
                reply = await self.client.command(command)
            except RconUnavailable as exc:
                log.warning("%s; %d command(s) waiting", exc, len(self._queue))
                await asyncio.sleep(self.retry)
                continue
            self._queue.popleft()
            if self.on_result is not None:
                result = self.on_result(tag, command, reply)
                if asyncio.iscoroutine(result):
                    await result
