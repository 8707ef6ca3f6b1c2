"""The daemon: the thin asyncio driver around one server's `Session` (its parts: `parts`).

`async with Daemon(config) as daemon:` opens what the server is made of (its state database and
lock, its audit ids, the session from the saved state, the writer, MQTT); `serve()` runs it until
`stop()`; leaving the block writes what is queued, keeps what the broker never took, closes RCON
and lets go of the lock. `run()` is the three for a server alone in its process.

It moves bytes and performs effects, and decides nothing: datagrams, RCON replies, the clock, the
config file, admins' rows and the other servers' CT bans become the session's inputs, in the order
they come, through one inbox (made by `tasks`, `admins`); the effects are done in their order. A
command goes to RCON only once the writer (a thread, `store.writer`) says the rows before it are
durable, so a command that reached the game always has its `pending` row, and its id (` @<id>`)
makes a re-send after kill -9 run once. The loop never waits for the disk; a task that keeps
failing, or a database that cannot be written, stops the daemon (`fail`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AsyncExitStack
from typing import Any

from jailcore.config.config import Config
from jailcore.engine.actions import Action, AuditStatus
from jailcore.engine.engine import Engine
from jailcore.io import ports, tasks, wake
from jailcore.io.logsource import AllowList, UdpLog, listen_udp
from jailcore.io.loop import loop_errors, process_hooks
from jailcore.io.mqtt import keep_unsent
from jailcore.io.outgoing import Outgoing
from jailcore.io.parts import ID_BLOCK, Inbox, Opening, Parts, open_parts
from jailcore.io.rcon import RconClient
from jailcore.io.supervisor import Supervisor
from jailcore.session import effects as fx
from jailcore.session import inputs as si
from jailcore.session.session import Ids
from jailcore.store import DATABASE_ERRORS, StateStore, Writer, shown

log = logging.getLogger("jailcore")


class Daemon:
    def __init__(self, config: Config, store: StateStore | None = None, on_action: Callable[[Action, str | None, AuditStatus], None] | None = None,
                 rcon_backoff: tuple[float, float] = (0.5, 15.0), auth_backoff: float = 30.0, config_path: str | None = None,
                 watch_interval: float = 1.0, save_interval: float = 0.5, checkpoint_interval: float = 1.0,
                 writer: Writer | None = None, ids: Ids | None = None, id_block: int = ID_BLOCK, watch: bool = True):
        """Nothing is opened here (`open`, or the `async with`): the config, how to open, and the parts that touch nothing yet."""
        self.server, self.first_config = config.server_name, config
        self.opening = Opening(store, writer, ids, id_block, save_interval, checkpoint_interval)
        self.inbox = Inbox()
        self.client = RconClient(config.rcon_host, config.rcon_port, config.rcon_password, config.rcon_timeout, rcon_backoff, auth_backoff)
        self.udp = UdpLog(self.record, config.log_secret, config.log_allow)
        self.log_at = (config.log_listen, config.log_file)  # the log's place as it started: a reload changes it only at a restart
        self.config_path, self.on_action = config_path, on_action
        self.watch_interval = watch_interval if watch else 0.0  # 0: the process watches its configs (a fleet's one watcher)
        self.peers: Callable[[dict[str, Any]], None] | None = None  # the other servers of this process, for CT bans
        self.vet: Callable[[Config], str | None] | None = None  # the fleet's word on a reloaded config
        self.ticks: tuple[tasks.ProcessClock, float] | None = None  # the process's one clock, and when in the save interval on it, or its own
        self.task_failures: list[str] = []  # "name: why" per failure a supervisor caught
        self.restart_delay, self.log_port, self.exit_code = 0.1, 0, 0
        self.stop_reason: str | None = None
        self.stopping, self.ready, self.idle = asyncio.Event(), asyncio.Event(), asyncio.Event()
        self.parts: Parts | None = None
        self.closed = False

    # -- entry and exit: the I/O of opening and closing ---------------------------------------

    async def __aenter__(self) -> Daemon:
        self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def open(self) -> None:
        """The server's parts (a StoreError, or the OSError of a certificate, says what could not be opened),
        then what the last process left pending, judged again. Once: the `async with` of a daemon opened before is its run."""
        if self.parts is not None:
            return
        parts = self.parts = open_parts(self.first_config, self.opening, self.inbox.put)
        # Read only once the daemon is open (inside its `async with`):
        self.store, self.lock, self.ids, self.session, self.writer = parts.store, parts.lock, parts.ids, parts.session, parts.writer
        self.mqtt, self.requests = parts.mqtt, parts.requests
        self.outgoing = Outgoing(self.writer, self.session, self.client, self.mqtt, self.inbox, self.idle, self.lock, self._tell)
        self._failures_seen = len(self.writer.failures)
        self._perform(self.session.handle(self.store.resume(self.server), 0.0))

    async def close(self) -> None:
        """What is queued written (a fleet's shared writer settled), the bans the last commit made durable told, what the
        broker never took kept, RCON closed, the lock let go."""
        if self.parts is None or self.closed:
            return
        self.closed = True
        await asyncio.get_running_loop().run_in_executor(None, self.writer.close if self.parts.own_writer else self.writer.settle)
        self.outgoing.tell_peers()  # kept below if the broker has not taken them
        keep_unsent(self.mqtt, self.store, self.server)
        await self.client.close()
        self.lock.release()

    @property
    def engine(self) -> Engine:
        return self.session.engine

    @property
    def config(self) -> Config:
        """The config in force: a reload replaces it (the first one until the daemon is open)."""
        return self.session.config if self.parts is not None else self.first_config

    @property
    def reloads(self) -> list[str]:
        """What each reading of the config file did, for admins and tests."""
        return self.session.reloads

    # -- inputs in, effects out -------------------------------------------------------------

    def record(self, data: bytes, place: int = 0) -> None:
        """A log line. `place`: its number in a `run --workers` parent's relay (`Outgoing.kept`)."""
        self.take(si.LogRecord(data, place))

    def take(self, item: si.Input) -> None:
        """An input handled at once when nothing waits before it (`Inbox.waits`), else queued behind what does (a task
        woken for each of 10,000 lines a second was a tenth of a 200-server process; a CT ban relayed to 199 servers
        reaches every door in one turn of the loop). What it raises goes to the task (`failed`), for its supervisor."""
        inbox = self.inbox
        if not inbox.serving or inbox.waits:
            return inbox.put(item)
        try:
            self.feed(item)
        except Exception as exc:
            inbox.failed = exc
            inbox.ready.set()

    def feed(self, event: si.Input) -> None:
        self._perform(self.session.handle(event, self.inbox.clock()))
        self._more_ids()

    def _perform(self, effects: list[fx.Effect]) -> None:
        if not effects:
            return  # most lines: nothing to do, nothing changed for `idle`
        rows: list[fx.Row] = []
        out = self.outgoing
        for e in effects:
            if isinstance(e, fx.Write):
                rows.append(e.row)
                continue
            if rows and isinstance(e, fx.Send | fx.TellPeers):  # the rows before what waits for them: one batch, one commit
                out.submit(rows)
                rows = []
            if isinstance(e, fx.Send):
                out.hold(e)
            elif isinstance(e, fx.Publish) and self.mqtt is not None:
                self.mqtt.publish_state(e.payload) if e.state else self.mqtt.publish(e.topic, e.payload)
            elif isinstance(e, fx.TellPeers):
                out.tell(e)
            elif isinstance(e, fx.DropLink):
                self.client.drop(e.reason)
            elif isinstance(e, fx.Rearm):
                self.client.rearm(e.host, e.port, e.password, e.timeout)
            elif isinstance(e, fx.Refilter):
                self.udp.secret, self.udp.allow = e.secret, AllowList(e.allow)
            elif isinstance(e, fx.AskedInGame):
                self.requests.ask(e)
            elif isinstance(e, fx.Told) and self.on_action is not None:
                self.on_action(e.action, e.command, e.status)
        if rows:
            out.submit(rows)
        out.release()

    def _tell(self, ban: dict[str, Any]) -> None:  # a CT ban whose row is durable, to this process's other servers
        if self.peers is not None:
            self.peers(ban)

    def _written(self) -> None:  # the writer's news: rows durable, the disk failed, or the file was written afresh
        news, self.inbox.news = self.inbox.news, []
        if any(n.note is not None for n in news):
            self.store.reopen()
        self.task_failures += self.writer.failures[self._failures_seen:]
        self._failures_seen = len(self.writer.failures)
        if (error := next((n.error for n in news if n.error is not None), None)) is not None:
            self.store_failed(error)
        self.outgoing.release()

    def save(self) -> None:  # the engine's state to the writer now, not at the next tick (a ban's decisions settled save it with their rows)
        self._perform(self.session.handle(si.Settle(), self.inbox.clock()) or [self.session.save()])

    def share_ctban(self, ban: dict[str, Any]) -> None:  # a CT ban for the network, as the session tells one
        self._perform([fx.TellPeers(ban)])

    async def _consume(self) -> None:
        loop, inbox = asyncio.get_running_loop(), self.inbox
        inbox.serving, inbox.clock = True, loop.time
        try:
            while True:
                await inbox.ready.wait()
                inbox.ready.clear()
                if inbox.failed is not None:
                    failed, inbox.failed = inbox.failed, None
                    raise failed  # a line handled at once failed: the supervisor's to judge, as if here
                items, handle = inbox.items, self.session.handle
                while items:
                    self._perform(handle(items.popleft(), loop.time()))
                if inbox.news:
                    self._written()
                self._more_ids()
        finally:
            inbox.serving = False  # no task to hand a failure to: lines wait for the next one

    def _more_ids(self) -> None:
        """After each turn: the next block of ids while this one runs low; and the server's lock, which on a database
        server goes with the connection and is taken again when it is back, or this daemon stops (`lost`, exit 1)."""
        if (lost := self.lock.lost) is not None:
            self.fail(lost)
        if self.ids.low:  # most turns: nothing to ask (a context entered at each of 10,000 lines a second was 2% of a fleet)
            try:
                self.ids.give(self.store.reserve_ids(self.opening.id_block), self.opening.id_block)
            except DATABASE_ERRORS:  # the database away: the ids in hand go on, the next block later
                pass

    def hangup(self) -> None:  # SIGHUP: read the config again and try the RCON password again
        log.info("SIGHUP: reloading the config and reopening RCON")
        self.inbox.put(tasks.read_config(self.config_path, "SIGHUP", self.vet))

    # -- lifetime -----------------------------------------------------------------------------

    async def run(self) -> None:
        """One server alone in its process: its signals and the loop's error handler, its parts, then `serve`."""
        try:
            async with process_hooks(self.stopping.set, self.hangup, loop_errors(self.task_failures, self.store_failed)), self:
                await self.serve()
        finally:
            self.stopping.set()  # a daemon that could not open raised here: never waited for in vain
            self.ready.set()

    async def serve(self, listen: bool = True) -> None:
        """This server's part of a process, until `stopping`: the log in (its own UDP port unless the caller routes to
        `self.udp`), the tasks, RCON; on the way out the tasks stop, the session says goodbye, its rows are written."""
        readers = self.writer.readers(asyncio.get_running_loop())
        readers.append(self.inbox)
        config = self.config
        try:
            async with AsyncExitStack() as stack:
                stack.callback(readers.remove, self.inbox)
                if listen and not config.log_file:
                    try:
                        transport, self.log_port = await listen_udp(config.log_listen, self.udp)
                    except OSError as exc:
                        self.fail(f"the log: {ports.refusal(config.log_listen, 'udp', exc, self.log_setting)}")
                        return
                    stack.callback(transport.close)
                woken = await wake.listen(self.store.path, self.server, self.requests.woken.set)
                if woken is not None:
                    stack.callback(woken.close)
                supervisor = await stack.enter_async_context(Supervisor(self))
                stack.push_async_callback(self._goodbye)  # first on the way out: the MQTT link still runs to drain
                supervisor.keep("session", self._consume)
                tasks.start(supervisor, self, self.inbox.put, self.outgoing.held)
                self.ready.set()
                if self.stop_reason is None:  # said once the log's port is held, never before a line saying why not
                    say_up(config, self.log_port)
                await self.stopping.wait()
        finally:
            self.ready.set()

    async def _goodbye(self) -> None:
        """A clean stop says so (the link row and retained state read `stopped`); the broker gets a moment to drain."""
        if self.stop_reason is None:
            while self.inbox.items:  # what came before the stop is handled, not lost
                self.feed(self.inbox.items.popleft())
            self.feed(si.Stopping(tasks.wall()))
        if self.mqtt is not None:
            await self.mqtt.drain(1.0)

    def stop(self) -> None:
        self.stopping.set()

    @property
    def log_setting(self) -> str:
        """Where an admin changes this server's log address, for a line that says it cannot be used."""
        return f"[log] listen of {self.config_path}" if self.config_path else "[log] listen"

    def fail(self, reason: str) -> None:  # stop the daemon with exit status 1; `reason` is the one line an admin reads
        if self.parts is not None:
            self.session.fail()
        if self.stop_reason is None:
            self.stop_reason, self.exit_code = reason, 1
            log.critical("jailcore stops: %s", reason)
        self.stopping.set()

    def store_failed(self, exc: BaseException) -> None:
        self.fail(f"the state database {self.store.path} cannot be written ({exc}); commands are not sent without "
                  "their audit rows. Free the disk or fix the file, then start jailcore again: what was not answered is re-sent")


def say_up(config: Config, port: int) -> None:
    log.info("jailcore %s: up: log %s, RCON %s:%s, state %s, mode %s", config.server_name, config.log_file or
             f"{config.log_listen.rpartition(':')[0]}:{port}", config.rcon_host, config.rcon_port, shown(config.state_where), config.mode)
