"""A daemon's background tasks, each a loop that turns what happens outside into its
session's inputs and hands them to `put` (the daemon's inbox): the RCON link kept open, the
clock, the config file watched. None of them calls the daemon back; the supervisor runs them.
"""

from __future__ import annotations

import asyncio
import functools
from collections import deque
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from jailcore.config.config import Config, ConfigError
from jailcore.io.admins import Requests
from jailcore.io.logsource import AllowList, UdpLog, follow_file
from jailcore.io.loop import Edits, until, watch
from jailcore.io.mqtt import MqttLink
from jailcore.io.parts import Parts, Put
from jailcore.io.rcon import RconClient, RconUnavailable
from jailcore.io.supervisor import Supervisor
from jailcore.session import inputs as si
from jailcore.session.session import Session

if TYPE_CHECKING:  # its database driver is imported only by a server that has the bridge
    from jailcore.store import SourceBans


def replied(put: Put, ticket: int, future: asyncio.Future[str]) -> None:
    """An RCON reply to the session; a lost session is the link loop's news."""
    if not future.cancelled() and future.exception() is None:
        put(si.Reply(ticket, future.result()))


def wall() -> str:
    return datetime.now().isoformat(timespec="seconds")


async def keep_rcon_open(client: RconClient, put: Put, held: deque[Any]) -> None:
    """The RCON session, kept open: its openings and losses are the session's news. A loss
    voids the commands held for the disk: the session sends them again on the next session."""
    while True:
        client.changed.clear()
        if not client.is_open:
            try:
                await client.open()
            except RconUnavailable:
                put(si.LinkState(client.state))
                await until(client.changed, client.next_try())
                continue
            put(si.LinkOpened())
            continue
        await client.changed.wait()
        if not client.is_open:
            held.clear()
            put(si.LinkLost(client.state))


async def clock(put: Put, session: Session, client: RconClient, phase: float, dropped: Callable[[], str]) -> None:
    """A tick when the session wants one (a command's timeout), and at least every save
    interval; `phase` spreads a fleet's servers over that interval. A tick judges the game's
    silence (`[rcon] timeout`), so the time the loop itself was held must not count as silence:
    before each tick, what the game had sent by then is read and its replies are in the inbox
    (`RconClient.caught_up`), and the session judges the timeout at the tick's own time."""
    loop = asyncio.get_running_loop()
    if phase:
        await asyncio.sleep(session.save_interval * phase)
    while True:
        now = loop.time()
        await client.caught_up()
        put(si.Tick(now, wall(), dropped()))
        due = max(loop.time() + 0.01, min(session.deadline(), loop.time() + session.save_interval))
        await asyncio.sleep(due - loop.time())


def dropped(udp: UdpLog, mqtt: MqttLink | None) -> str:
    """What was dropped at the edge, by cause: log datagrams, and network messages that did not fit."""
    return ", ".join(filter(None, (udp.drops(), mqtt.refused.summary("mqtt ") if mqtt is not None else "")))


Vet = Callable[[Config], "str | None"]


def read_config(path: str | None, why: str, vet: Vet | None) -> si.ConfigRead:
    """The config file read whole, as the session's input: the new config, or why it is refused
    (its own problems, a log allow list that is no list of networks, the fleet's `vet`)."""
    if path is None:
        return si.ConfigRead(None, why)
    try:
        new = Config.from_toml(path)
        AllowList(new.log_allow)
        clash = vet(new) if vet is not None else None
        if clash is not None:
            raise ValueError(clash)
    except (ConfigError, ValueError, OSError) as exc:
        return si.ConfigRead(path, why, None, tuple(exc.problems) if isinstance(exc, ConfigError) else (f"{path}: {exc}",))
    return si.ConfigRead(path, why, new)


async def watch_config(path: str, interval: float, put: Put, vet: Vet | None) -> None:
    """An edit of the config file is read at once; whatever the file holds (any bytes), the
    watcher keeps watching."""

    async def changed(path: str) -> None:
        put(read_config(path, "changed", vet))

    await watch(Edits([path]), interval, changed)


async def bridge(sourcebans: SourceBans) -> None:
    """Each pass in a worker thread: the loop never waits for SourceBans++'s database."""
    try:
        while True:
            await asyncio.to_thread(sourcebans.run_once)
            await asyncio.sleep(sourcebans.poll)
    finally:
        await asyncio.to_thread(sourcebans.close)


class Served(Protocol):
    """What the tasks read of the daemon they serve (`io/daemon.py`)."""

    @property
    def config(self) -> Config: ...

    udp: UdpLog
    mqtt: MqttLink | None
    client: RconClient
    session: Session
    requests: Requests
    phase: float
    config_path: str | None
    watch_interval: float
    vet: Vet | None

    @property
    def parts(self) -> Parts | None: ...


def start(supervisor: Supervisor, daemon: Served, put: Put, held: deque[Any]) -> None:
    """A server's tasks beside its session's: the log file followed (when it is a file), the
    RCON link, the clock, the admins' requests, MQTT, the config file (unless the process
    watches it: a fleet's one watcher), SourceBans++."""
    config, udp, mqtt, keep = daemon.config, daemon.udp, daemon.mqtt, supervisor.keep
    if config.log_file:
        keep("log file follower", lambda: follow_file(config.log_file, udp.on_record))
    keep("RCON outbox", lambda: keep_rcon_open(daemon.client, put, held))
    keep("clock", lambda: clock(put, daemon.session, daemon.client, daemon.phase, lambda: dropped(udp, mqtt)))
    keep("admin requests", daemon.requests.run, essential=False)
    if mqtt is not None:
        keep("MQTT link", mqtt.run, essential=False)
    path, every = daemon.config_path, daemon.watch_interval
    if path and every:
        keep("config watcher", lambda: watch_config(path, every, put, daemon.vet), essential=False)
    sourcebans = daemon.parts.sourcebans if daemon.parts is not None else None
    if sourcebans is not None:
        keep("SourceBans++ bridge", functools.partial(bridge, sourcebans), essential=False)
