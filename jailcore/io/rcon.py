"""The daemon's RCON connection: one persistent, authenticated, pipelined session.

Contract: `RconClient.send_all(texts)` writes commands at once, in one write, and returns a
future for each whole reply; `await client.command(text)` is one command with the session
opened first and a timeout, and raises `RconUnavailable` (no session, or it was lost before
the answer) or `RconAuthError`. What to send, in which order, again after a lost session or
not at all (its moment passed) is the session's (`jailcore.session.outbox`); `changed` is set
whenever the link opens, is lost or is rearmed, for the driver's link loop to look again.

A reply that never ends (a server that keeps sending packets for one id) cannot grow memory:
past `MAX_REPLY_BYTES` or `MAX_REPLY_PACKETS` the session is dropped as broken.

Replies are read whole: after each command an empty EXECCOMMAND with the next id is
sent, and packets are read until that id comes back (the way srcds marks the end of a
multi-packet reply). Reconnects back off. A refused password backs off exponentially and
stops after `auth_tries` refusals, far from srcds's failed-login ban
(`sv_rcon_maxfailures` 10, `sv_rcon_minfailures` 5 within 30 s), until `rearm()` (SIGHUP,
or a config change). Each change of the link's state is logged once.

The game's silence (`[rcon] timeout`) is judged on what it sent, not on how soon this process read
it: `caught_up()` returns once every byte that had come when it was called (in the socket's
kernel buffer or the stream's) is read and its replies handed on, so a loop held past a timeout
(a slow query on it) reads the answer that came meanwhile before the clock judges the silence.
"""

from __future__ import annotations

import asyncio
import fcntl
import itertools
import logging
import struct
import termios
from collections.abc import Iterable
from typing import Any, Literal, NoReturn, SupportsIndex

from jailcore.io.rconproto import AUTH, AUTH_RESPONSE, EXECCOMMAND, RESPONSE_VALUE, RconProtocolError, encode, read_packet, take_packet
from jailcore.log.errors import LinkError

# The RCON link as `status`, MQTT and the web page show it.
LinkState = Literal["open", "unreachable", "refused", "stopped", "lost", "closed"]

log = logging.getLogger("jailcore.rcon")

MAX_REPLY_BYTES = 1 << 20  # a jb_status of a full server is a few KB; a megabyte is a broken peer
MAX_REPLY_PACKETS = 512


class RconUnavailable(LinkError):
    """No RCON session with the game server right now."""


class RconAuthError(RconUnavailable):
    """The game server refused the RCON password."""


class CountedReader(asyncio.StreamReader):
    """A stream that counts the bytes fed to it and taken from it: what came and is not read yet is their
    difference, without looking into the stream's buffer."""

    fed = taken = 0

    def feed_data(self, data: Iterable[SupportsIndex]) -> None:
        data = bytes(data)  # the transport's bytes: bytes() of bytes is the same object, nothing copied
        self.fed += len(data)
        super().feed_data(data)

    async def read(self, n: int = -1) -> bytes:
        data = await super().read(n)
        self.taken += len(data)
        return data

    async def readexactly(self, n: int) -> bytes:
        data = await super().readexactly(n)
        self.taken += len(data)
        return data

    def arrived(self, writer: asyncio.StreamWriter) -> int:
        """Every byte that came on the connection so far: fed to this stream, or waiting in the kernel's buffer."""
        return self.fed + unread(writer)


async def connect(host: str, port: int) -> tuple[CountedReader, asyncio.StreamWriter]:
    """`asyncio.open_connection` with a `CountedReader` (its own documentation says to copy it for that)."""
    loop = asyncio.get_running_loop()
    reader = CountedReader(loop=loop)
    protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
    transport, _ = await loop.create_connection(lambda: protocol, host, port)
    return reader, asyncio.StreamWriter(transport, protocol, reader, loop)


def unread(writer: asyncio.StreamWriter) -> int:
    """Bytes that came on the connection and wait in the kernel's buffer (FIONREAD), not yet read by the loop."""
    sock = writer.get_extra_info("socket")
    try:
        return int(struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.FIONREAD, b"\0\0\0\0"))[0])
    except (OSError, AttributeError, ValueError):  # closed meanwhile: nothing more will be read from it
        return 0


def behind(client: RconClient) -> bool:
    """Bytes the game sent on this link are not read yet: `caught_up` would wait for them (a process's clock asks this of each
    server it ticks, and only those behind wait, each by itself)."""
    reader, writer = client._reader, client._writer
    return reader is not None and writer is not None and reader.taken < reader.arrived(writer)


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
        self.changed = asyncio.Event()  # the link opened, was lost or was rearmed
        self._ids = itertools.count(1)
        self._reader: CountedReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._read_task: asyncio.Task[None] | None = None
        self._calls: dict[int, tuple[asyncio.Future[str], list[bytes]]] = {}
        self._markers: dict[int, int] = {}
        self._progress = asyncio.Event()  # the reply reader took what came, or the session ended
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
        self.changed.set()

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
        self._progress.set()  # a `caught_up` waiting on this session: nothing more comes on it
        calls, self._calls, self._markers = self._calls, {}, {}
        for future, _ in calls.values():
            if not future.done():
                future.set_exception(RconUnavailable(f"RCON session lost: {reason}"))
        if writer is not None:
            self.changed.set()

    async def open(self) -> None:
        async with self._lock:
            if self._writer is None:
                await self._connect()

    async def _connect(self) -> None:
        if self.stopped:
            raise RconAuthError(f"{self.host}:{self.port} refused the RCON password {self.auth_failures} times; not trying again")
        loop = asyncio.get_running_loop()
        if not self.password:  # srcds refuses an empty one and counts it towards banning this address: never tried
            self.auth_failures = self.auth_tries  # `stopped` until rearm() (SIGHUP, the config saved) brings one
            self._become("stopped", logging.ERROR, "RCON: no password for %s:%s: set [rcon] password in the server's config or "
                         "JAILCORE_RCON_PASSWORD in the daemon's environment (the game's rcon_password), then send SIGHUP or save the config",
                         self.host, self.port)
            raise RconAuthError(f"no RCON password for {self.host}:{self.port}: [rcon] password or JAILCORE_RCON_PASSWORD")
        wait = self._retry_at - loop.time()
        if wait > 0:
            raise RconUnavailable(f"reconnecting in {wait:.1f}s")
        try:
            async with asyncio.timeout(self.timeout):
                reader, writer = await connect(self.host, self.port)
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
        except BaseException:  # cancelled mid-login (a stop, a reload): the socket is closed, not left to the collector
            writer.close()
            raise
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
        self.changed.set()

    def _unreachable(self, why: str) -> NoReturn:
        self._later(self._delay)
        self._delay = min(self._delay * 2, self.backoff_max)
        self._become("unreachable", logging.WARNING, "RCON: %s; commands wait and go out once it answers (retrying with back-off)", why)
        raise RconUnavailable(why) from None

    def _later(self, delay: float) -> None:
        self._retry_at = asyncio.get_running_loop().time() + delay

    async def _read(self, reader: CountedReader, writer: asyncio.StreamWriter) -> None:
        """Whatever came, taken at once and its whole packets handled in the same step (a packet cut by TCP waits in
        `buffer`), so that `caught_up` can tell from the counts alone that nothing that came is left unread."""
        reason = "the server closed it"
        buffer = bytearray()
        try:
            while True:
                data = await reader.read(1 << 16)
                if not data:
                    raise asyncio.IncompleteReadError(bytes(buffer), None)
                buffer += data
                while (packet := take_packet(buffer)) is not None:
                    self._handle(*packet)
                self._progress.set()
        except asyncio.CancelledError:
            raise  # `_drop` cancels us and has failed the calls itself; the task must end cancelled
        except (OSError, asyncio.IncompleteReadError, RconProtocolError) as exc:
            reason = repr(exc) if not isinstance(exc, asyncio.IncompleteReadError) else reason
        except Exception as exc:  # a bug here must not leave calls waiting forever
            log.exception("RCON: the reply reader failed")
            reason = repr(exc)
        if self._writer is writer:
            self._drop(reason)

    def _handle(self, got_id: int, kind: int, body: bytes) -> None:
        if got_id in self._markers:
            future, parts = self._calls.pop(self._markers.pop(got_id))
            if not future.done():
                future.set_result(b"".join(parts).decode("utf-8", "replace"))
        elif kind == RESPONSE_VALUE and got_id in self._calls:
            parts = self._calls[got_id][1]
            parts.append(body)
            if len(parts) > MAX_REPLY_PACKETS or sum(map(len, parts)) > MAX_REPLY_BYTES:
                raise RconProtocolError(f"a reply of more than {MAX_REPLY_PACKETS} packets or {MAX_REPLY_BYTES} bytes")

    async def caught_up(self) -> None:
        """Returns once every byte the game had sent when called is read and its replies handed on (callbacks run): its
        silence is judged on what it said, however long the loop was held. A link never read (a bug): one timeout."""
        reader, writer = self._reader, self._writer
        if reader is not None and writer is not None:
            came = reader.arrived(writer)
            try:
                async with asyncio.timeout(self.timeout):
                    while self._reader is reader and reader.taken < came:
                        self._progress.clear()
                        await self._progress.wait()
            except TimeoutError:
                log.warning("RCON: what %s:%s sent was not read within %gs", self.host, self.port, self.timeout)
        await asyncio.sleep(0)  # the replies' futures were resolved before now: one turn runs their callbacks, in order

    def send(self, text: str) -> asyncio.Future[str]:  # one command now, on the open session; the future gets its whole reply
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
