"""A daemon's background tasks, each a loop that turns what happens outside into its
session's inputs and hands them to `put` (the daemon's inbox): the RCON link kept open, the
clock, the config file watched. None of them calls the daemon back; the supervisor runs them.
"""

from __future__ import annotations

import asyncio
import functools
import heapq
import itertools
from collections import deque
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

import attrs

from jailcore.config.config import Config, ConfigError
from jailcore.io.admins import Requests
from jailcore.io.logsource import AllowList, UdpLog, follow_file
from jailcore.io.loop import Edits, until, watch
from jailcore.io.mqtt import MqttLink
from jailcore.io.parts import Parts, Put
from jailcore.io.rcon import RconClient, RconUnavailable, behind
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


async def clock(put: Put, session: Session, client: RconClient, dropped: Callable[[], str]) -> None:
    """A server's own clock (a fleet's servers are on its `ProcessClock`): a tick when the session wants
    one (a command's timeout), and at least every save interval. A tick judges the game's
    silence (`[rcon] timeout`), so the time the loop itself was held must not count as silence:
    before each tick, what the game had sent by then is read and its replies are in the inbox
    (`RconClient.caught_up`), and the session judges the timeout at the tick's own time."""
    loop = asyncio.get_running_loop()
    while True:
        now = loop.time()
        await client.caught_up()
        put(si.Tick(now, wall(), dropped()))
        due = next_tick(session, loop.time())
        await asyncio.sleep(due - loop.time())


def next_tick(session: Session, now: float) -> float:
    """When a session that just ticked wants the next: its deadline (a command's timeout), at most one save interval on."""
    return max(now + 0.01, min(session.deadline(), now + session.save_interval))


GRAIN = 0.02  # a process's clock turns at most this often: the servers due in one grain tick in one turn


@attrs.frozen(eq=False)
class Ticked:
    """One server on its process's clock: what it is given (`Daemon.take`), its session, its RCON link, its drops, and its
    clock task's end (a tick that raised; cancelled once the server is off the clock)."""

    deliver: Put
    session: Session
    client: RconClient
    dropped: Callable[[], str]
    done: asyncio.Future[None]


async def first_of(*events: asyncio.Event) -> None:
    waits = [asyncio.ensure_future(e.wait()) for e in events]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waits:
            w.cancel()


class ProcessClock:
    """One clock for all the servers of a process (a fleet), where each had a task of its own: 200
    servers ticking twice a second were 400 timers, 400 task wake-ups and 400 more of their
    sessions' tasks a second, about a tenth of a 200-server process. Each server keeps its own
    times (`next_tick`: its deadline, at most a save interval on; its phase spreads the first);
    the clock wakes at the next grain boundary after the earliest and ticks every server due by
    then, in the order they fell due, each handled in this turn where nothing waits before it.
    A tick is late by less than `GRAIN`. As `clock` does, what the game had sent by the tick's
    time is heard first (`RconClient.caught_up`): the replies already read have their callbacks
    run (one turn of the loop for all), and a server whose link still holds unread bytes ticks
    once they are read, by itself, the others not waiting for it. A server's tick that raises is
    its own clock task's failure (`keep`), for its supervisor to judge."""

    def __init__(self, stopping: asyncio.Event):
        self.stopping = stopping  # the process stops: the clock ends once its last server has left
        self.due: list[tuple[float, int, Ticked]] = []
        self.members = 0
        self.changed = asyncio.Event()
        self._order = itertools.count()
        self._late: set[asyncio.Future[None]] = set()  # ticks waiting for their link's unread bytes

    async def keep(self, deliver: Put, session: Session, client: RconClient, phase: float, dropped: Callable[[], str]) -> None:
        """A server's clock, for as long as this task runs (its supervisor's `clock`)."""
        loop = asyncio.get_running_loop()
        member = Ticked(deliver, session, client, dropped, loop.create_future())
        self._at(loop.time() + session.save_interval * phase, member)
        self.members += 1
        try:
            await member.done  # only its tick's failure ends it
        finally:
            member.done.cancel()  # off the clock: its next turn is skipped
            self.members -= 1
            self.changed.set()

    def _at(self, when: float, member: Ticked) -> None:
        heapq.heappush(self.due, (when, next(self._order), member))
        if self.due[0][2] is member:
            self.changed.set()  # sooner than the clock sleeps for

    async def run(self) -> None:
        loop, due = asyncio.get_running_loop(), self.due
        while True:
            self.changed.clear()
            while due and due[0][2].done.done():
                heapq.heappop(due)
            if not due:
                if self.stopping.is_set() and not self.members:
                    return
                await first_of(self.changed, self.stopping)  # a server joins, or the process stops (its servers may have left first)
                continue
            wake = -(-due[0][0] // GRAIN) * GRAIN  # the grain's end: the servers falling due in it wait for one turn
            delay = wake - loop.time()
            if delay > 0 and await until(self.changed, delay):
                continue  # a sooner server, or one gone
            now, turn = loop.time(), []
            while due and due[0][0] <= now:
                member = heapq.heappop(due)[2]
                if not member.done.done():
                    turn.append(member)
            await asyncio.sleep(0)  # the replies read before now: their callbacks run (`caught_up`'s last step)
            now_wall = wall()
            for member in turn:
                # A session that waits for no answer has nothing a late reply could change (no ioctl for it: 400 a second).
                if member.session.busy and behind(member.client):  # bytes unread on its link: heard first, by itself
                    self._late.add(task := asyncio.ensure_future(self._tick_after(member, now, now_wall)))
                    task.add_done_callback(self._late.discard)
                else:
                    self._tick(member, now, now_wall)

    async def _tick_after(self, member: Ticked, now: float, now_wall: str) -> None:
        await member.client.caught_up()
        self._tick(member, now, now_wall)

    def _tick(self, member: Ticked, now: float, now_wall: str) -> None:
        if member.done.done():
            return  # off the clock meanwhile
        loop = asyncio.get_running_loop()
        try:
            member.deliver(si.Tick(now, now_wall, member.dropped()))
            after = next_tick(member.session, loop.time())
        except Exception as exc:  # its clock task fails (`keep`), as its own clock would have
            member.done.set_exception(exc)
            return
        self._at(after, member)


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
    ticks: tuple[ProcessClock, float] | None

    def take(self, item: si.Input) -> None: ...
    config_path: str | None
    watch_interval: float
    vet: Vet | None

    @property
    def parts(self) -> Parts | None: ...


def start(supervisor: Supervisor, daemon: Served, put: Put, held: deque[Any]) -> None:
    """A server's tasks beside its session's: the log file followed (when it is a file), the
    RCON link, the clock (its own, or its place on the process's `ticks`), the admins' requests, MQTT, the config file (unless the process
    watches it: a fleet's one watcher), SourceBans++."""
    config, udp, mqtt, keep = daemon.config, daemon.udp, daemon.mqtt, supervisor.keep
    if config.log_file:
        keep("log file follower", lambda: follow_file(config.log_file, udp.on_record))
    keep("RCON outbox", lambda: keep_rcon_open(daemon.client, put, held))
    ticks = daemon.ticks
    if ticks is None:
        keep("clock", lambda: clock(put, daemon.session, daemon.client, lambda: dropped(udp, mqtt)))
    else:  # the process's one clock, at this server's phase; its ticks are handled at once where nothing waits (`take`)
        def tick(item: si.Input) -> None:  # and the admins' requests polled at each, not on a timer of their own
            daemon.take(item)
            daemon.requests.tick()

        keep("clock", lambda: ticks[0].keep(tick, daemon.session, daemon.client, ticks[1], lambda: dropped(udp, mqtt)))
    keep("admin requests", functools.partial(daemon.requests.run, on_clock=ticks is not None), essential=False)
    if mqtt is not None:
        keep("MQTT link", mqtt.run, essential=False)
    path, every = daemon.config_path, daemon.watch_interval
    if path and every:
        keep("config watcher", lambda: watch_config(path, every, put, daemon.vet), essential=False)
    sourcebans = daemon.parts.sourcebans if daemon.parts is not None else None
    if sourcebans is not None:
        keep("SourceBans++ bridge", functools.partial(bridge, sourcebans), essential=False)
