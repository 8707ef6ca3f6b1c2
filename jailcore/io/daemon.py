"""The daemon: the thin asyncio driver around one server's `Session`.

It moves bytes and performs effects, and decides nothing: datagrams (already checked for
their secret and sender by `logsource`), RCON replies, the clock, admins' rows and the other
servers' CT bans become the session's inputs, in the order they come, through one inbox;
the effects come back in order and are done in order. Durability is one ordering rule: a
command goes to RCON only once the writer (a thread, `store.writer`) says the rows before it
are durable, so a command that reached the game always has its `pending` row, and its id
(` @<id>`) makes a re-send after kill -9 run once. The loop never waits for the disk.

Nothing fails in silence: each background task runs under a supervisor that logs why it
failed and restarts it, or stops the daemon (exit 1, one line) when it keeps failing; a
state database that cannot be written stops the daemon the same way.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import sys
import weakref
from collections import deque
from collections.abc import Callable
from contextlib import AsyncExitStack
from datetime import datetime
from pathlib import Path
from typing import Any

from jailcore.config.config import Config, ConfigError
from jailcore.engine.actions import Action, AuditStatus
from jailcore.engine.engine import Engine
from jailcore.io import wake
from jailcore.io.lock import LockedError, StateLock
from jailcore.io.logsource import AllowList, UdpLog, follow_file, listen_udp
from jailcore.io.mqtt import CTBANS, MqttLink
from jailcore.io.process import process_hooks, run_loop, signature, until
from jailcore.io.rcon import RconClient, RconUnavailable
from jailcore.io.supervisor import Supervisor
from jailcore.log.errors import AdminRequestError
from jailcore.session import effects as fx
from jailcore.session import inputs as si
from jailcore.session.session import Ids, Session
from jailcore.store.errors import DATABASE_ERRORS, errors_or
from jailcore.store.interface import StateStore
from jailcore.store.location import bridge_for, daemon_store, daemon_writer, shown
from jailcore.store.sqlite import StoreError
from jailcore.store.writer import Writer

log = logging.getLogger("jailcore")
_RESTART_ONLY = ("log_listen", "log_file", "state_path", "mqtt_url", "server_name")  # the RCON ones apply at once
ID_BLOCK, ID_GAP = 1000, 1000  # audit ids reserved at a time; skipped at each start


def sqlite_writer(path: str, checkpoint_interval: float = 1.0) -> Writer:
    return daemon_writer("", path, checkpoint_interval)


def wall() -> str:
    return datetime.now().isoformat(timespec="seconds")


class Inbox:
    """Inputs in the order they came, for the one task that feeds the session."""

    def __init__(self) -> None:
        self.items: deque[Any] = deque()
        self.ready = asyncio.Event()

    def put(self, item: Any) -> None:
        self.items.append(item)
        self.ready.set()

    def record(self, data: bytes) -> None:
        self.items.append(si.LogRecord(data))
        self.ready.set()


class Daemon:
    def __init__(self, config: Config, store: StateStore | None = None, on_action: Callable[[Action, str | None, AuditStatus], None] | None = None,
                 rcon_backoff: tuple[float, float] = (0.5, 15.0), auth_backoff: float = 30.0, config_path: str | None = None,
                 watch_interval: float = 1.0, save_interval: float = 0.5, checkpoint_interval: float = 1.0,
                 writer: Writer | None = None, ids: Ids | None = None):
        self.config, self.config_path, self.watch_interval = config, config_path, watch_interval
        self.server, self.on_action = config.server_name, on_action
        self.store = store or daemon_store(config.state_url, config.state_path)  # reads on the loop; every write goes to the writer
        try:
            # before anything is re-sent or written: one process per server (a file lock, or the database server's named lock)
            self.lock = self.store.claim(self.server) or StateLock(self.store.path, self.server)
        except (LockedError, OSError) as exc:
            raise StoreError(str(exc)) from None
        self.ids = ids or Ids(ID_BLOCK // 2)
        if not self.ids.end:
            self.ids.give(self.store.reserve_ids(ID_BLOCK, ID_GAP), ID_BLOCK)
        try:
            self.session = Session(config, self.store.load_state(self.server), self.ids, save_interval)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise StoreError(f"state database {self.store.path}: the saved state of server {self.server!r} cannot be read "
                             f"({exc!r}); move the file away to start afresh") from None
        self.own_writer = writer is None
        self.writer = writer or daemon_writer(config.state_url, config.state_path, checkpoint_interval)
        self.inbox = Inbox()
        self.sourcebans = bridge_for(config, config.state_where)  # [sourcebans]: its bans beside ours, both ways
        self.client = RconClient(config.rcon_host, config.rcon_port, config.rcon_password, config.rcon_timeout, rcon_backoff, auth_backoff)
        self.udp = UdpLog(self.inbox.record, config.log_secret, config.log_allow)
        self.mqtt = MqttLink(config.mqtt_url, self.server, lambda ban: self.inbox.put(si.PeerBan(ban)), tls=dict(config.mqtt_tls),
                             key=config.network_key, max_age=config.network_max_age) if config.mqtt_url else None
        if self.mqtt is not None:
            self.mqtt.restore(self.store.kept_messages(self.server))  # what the broker never took before the last stop
        self.peers: Callable[[dict[str, Any]], None] | None = None  # the other servers of this process, for CT bans
        self.vet: Callable[[Config], str | None] | None = None  # the fleet's word on a reloaded config
        self.reloads: list[str] = []  # what each config change did, for admins and tests
        self.task_failures: list[str] = []  # "name: why" per failure a supervisor caught
        self.phase, self.restart_delay, self.requests_interval = 0.0, 0.1, 0.5
        self.log_port, self.exit_code = 0, 0
        self.stop_reason: str | None = None
        self.stopping, self.ready, self.idle = asyncio.Event(), asyncio.Event(), asyncio.Event()
        self._held: deque[tuple[int, fx.Send]] = deque()  # commands waiting for their rows to be durable
        self._telling: deque[tuple[int, fx.TellPeers]] = deque()  # CT bans for the network, the same (not dropped with the link)
        self._seq = 0  # the writer's sequence of this daemon's last rows
        self._failures_seen = len(self.writer.failures)
        self._perform(self.session.handle(self.store.resume(self.server), 0.0))

    @property
    def engine(self) -> Engine:
        return self.session.engine

    @property
    def save_interval(self) -> float:
        return self.session.save_interval

    @save_interval.setter
    def save_interval(self, value: float) -> None:
        self.session.save_interval = value

    # -- inputs in, effects out -------------------------------------------------------------

    def feed(self, event: si.Input) -> None:
        self._perform(self.session.handle(event, asyncio.get_running_loop().time()))

    def _perform(self, effects: list[fx.Effect]) -> None:
        if not effects:
            return  # most lines: nothing to do, nothing changed for `idle`
        rows: list[fx.Row] = []
        for e in effects:
            if isinstance(e, fx.Write):
                rows.append(e.row)
                continue
            if rows and isinstance(e, fx.Send | fx.TellPeers):  # the rows before what waits for them: one batch, one commit
                self._seq, rows = self.writer.submit(rows), []
            if isinstance(e, fx.Send):  # after its own row; one with no row (the display, a ban at the door) waits for none
                self._held.append((self._seq if e.audit is not None else 0, e))
            elif isinstance(e, fx.Publish):
                if self.mqtt is not None and e.state:
                    self.mqtt.publish_state(e.payload)
                elif self.mqtt is not None:
                    self.mqtt.publish(e.topic, e.payload)
            elif isinstance(e, fx.TellPeers):  # as a command: only once its row is durable, or a peer holds a ban our log lost
                self._telling.append((self._seq, e))
            elif isinstance(e, fx.DropLink):
                self.client.drop(e.reason)
            elif isinstance(e, fx.AskPardon | fx.AskAnswer):
                self._ask(e)
            elif isinstance(e, fx.Told) and self.on_action is not None:
                self.on_action(e.action, e.command, e.status)
        if rows:
            self._seq = self.writer.submit(rows)
        self._release()

    def _release(self) -> None:
        """The commands whose rows are durable, to RCON in one write; their rows then say `sent`."""
        durable = self._tell_peers()
        batch: list[fx.Send] = []
        while self._held and self._held[0][0] <= durable:
            batch.append(self._held.popleft()[1])
        if batch and self.client.is_open:  # else the link's loss is on its way: the session sends them again
            for send, future in zip(batch, self.client.send_all([s.text for s in batch]), strict=True):
                future.add_done_callback(functools.partial(self._replied, send.ticket))
            sent = tuple(s.audit for s in batch if s.audit is not None)
            if sent:
                self._seq = self.writer.submit([fx.MarkSent(sent)])
        self._settle()

    def _tell_peers(self) -> int:
        """The CT bans whose rows are durable, to the network (MQTT, this process's servers)."""
        durable = self.writer.durable
        while self._telling and self._telling[0][0] <= durable:
            ban = self._telling.popleft()[1].ban
            if self.mqtt is not None:
                self.mqtt.publish(CTBANS, ban, urgent=True)
            if self.peers is not None:
                self.peers(ban)
        return durable

    def _replied(self, ticket: int, future: asyncio.Future[str]) -> None:
        if not future.cancelled() and future.exception() is None:  # a lost session is the link loop's news
            self.inbox.put(si.Reply(ticket, future.result()))

    def _settle(self) -> None:
        (self.idle.set if not self.session.busy and not self._held and not self._telling and self.writer.idle else self.idle.clear)()

    def _written(self, durable: int, error: BaseException | None, note: str | None) -> None:
        """The writer's news, on the loop: rows durable, the disk failed, or the file was written afresh."""
        if note is not None:
            self.store.reopen()
        if len(self.writer.failures) > self._failures_seen:
            self.task_failures += self.writer.failures[self._failures_seen:]
            self._failures_seen = len(self.writer.failures)
        if error is not None:
            self.store_failed(error)
        self._release()

    def _ask(self, ask: fx.AskPardon | fx.AskAnswer) -> None:
        """An admin's word in game: the same row the command line writes, then applied."""
        try:
            if isinstance(ask, fx.AskPardon):
                self.store.request_pardon(ask.action_id, ask.by, ask.reason)
            else:
                self.store.request_answer(ask.action_id, ask.answer, ask.by, ask.reason, server=self.server)  # an admin here answers for here
            self.store.commit()
        except AdminRequestError as exc:
            self.inbox.put(si.Refused(str(exc)))
            return
        self.poll_requests()

    def save(self) -> None:
        """The engine's state to the writer now, not at the next tick."""
        self._perform([self.session.save()])

    def share_ctban(self, ban: dict[str, Any]) -> None:
        """A CT ban for the rest of the network, as the session tells one (MQTT, this process)."""
        self._perform([fx.TellPeers(ban)])

    def poll_requests(self, cheap: bool = False) -> None:
        """The admins' rows for this server, to the session; `cheap`: only if the store says one waits."""
        try:
            if cheap and not self.session.desk.applied and not self.store.waiting(self.server):
                return
            self.inbox.put(self.store.admin_requests(self.server))
        except DATABASE_ERRORS as exc:
            self.store_failed(exc)

    # -- the tasks --------------------------------------------------------------------------

    async def _consume(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self.inbox.ready.wait()
            self.inbox.ready.clear()
            items, handle = self.inbox.items, self.session.handle
            while items:
                self._perform(handle(items.popleft(), loop.time()))
            if self.ids.low:
                try:
                    self.ids.give(self.store.reserve_ids(ID_BLOCK), ID_BLOCK)
                except DATABASE_ERRORS:  # the database server away: the ids in hand go on, the next block when it is back
                    pass

    async def _link(self) -> None:
        """The RCON session, kept open: its openings and losses are the session's news."""
        client = self.client
        while True:
            client.changed.clear()
            if not client.is_open:
                try:
                    await client.open()
                except RconUnavailable:
                    self.inbox.put(si.LinkState(client.state))
                    await until(client.changed, client.next_try())
                    continue
                self.inbox.put(si.LinkOpened())
                continue
            await client.changed.wait()
            if not client.is_open:
                self._held.clear()
                self.inbox.put(si.LinkLost(client.state))

    async def _ticker(self) -> None:
        loop = asyncio.get_running_loop()
        if self.phase:
            await asyncio.sleep(self.session.save_interval * self.phase)
        while True:
            self.inbox.put(si.Tick(loop.time(), wall(), self.drops()))
            await asyncio.sleep(max(0.01, min(self.session.deadline(), loop.time() + self.session.save_interval) - loop.time()))

    def drops(self) -> str:
        """What was dropped at the edge, by cause: log datagrams, and network messages that did not fit."""
        return ", ".join(filter(None, (self.udp.drops(), self.mqtt.refused.summary("mqtt ") if self.mqtt is not None else "")))

    async def _requests(self) -> None:
        while True:
            self.poll_requests(cheap=True)
            await asyncio.sleep(self.requests_interval)

    async def _watch_config(self) -> None:
        """An edit of the config file takes effect at once, or is refused whole; whatever the
        file holds (any bytes), the watcher keeps watching."""
        path = Path(self.config_path or "")
        seen = signature(path)
        while True:
            await asyncio.sleep(self.watch_interval)
            now = signature(path)
            if now != seen and now is not None:
                seen = now
                self.reload()

    # -- configuration ----------------------------------------------------------------------

    def reload(self, why: str = "changed") -> bool:
        """Apply the config file again, all of it or none of it; either way it is logged."""
        if self.config_path is None:
            return False
        path = self.config_path
        try:
            new = Config.from_toml(path)
            allow = AllowList(new.log_allow)
            clash = self.vet(new) if self.vet is not None else None
            if clash is not None:
                raise ValueError(clash)
        except (ConfigError, ValueError, OSError) as exc:
            problems = exc.problems if isinstance(exc, ConfigError) else [f"{path}: {exc}"]
            self.reloads.append(note := f"config {path} refused, the running config stays: " + "; ".join(problems))
            log.error("%s", note)
            return False
        if fixed := [k for k in _RESTART_ONLY if getattr(new, k) != getattr(self.config, k)]:
            log.warning("config %s: %s take effect only after a restart", path, ", ".join(fixed))
        changed = sorted(k for k in new.rules if new.rules[k] != self.config.rules.get(k))
        self.config = new
        self.udp.secret, self.udp.allow = new.log_secret, allow
        self.client.rearm(new.rcon_host, new.rcon_port, new.rcon_password, new.rcon_timeout)
        self.feed(si.ConfigReloaded(new, why))
        self.reloads.append(note := f"config {path} reloaded ({why}): mode {new.mode}, language {new.language}; "
                                    f"rules changed: {', '.join(changed) or 'none'}")
        log.info("%s", note)
        return True

    def hangup(self) -> None:
        """SIGHUP: read the config again and try the RCON password again."""
        log.info("SIGHUP: reloading the config and reopening RCON")
        if not self.reload("SIGHUP"):
            self.client.rearm()
            self.feed(si.ConfigReloaded(self.config, "SIGHUP"))

    # -- lifetime -----------------------------------------------------------------------------

    async def run(self) -> None:
        """One server alone in its process: its signals and the loop's error handler, then `serve`."""
        async with process_hooks(self.stopping.set, self.hangup, self._loop_error):
            await self.serve()

    async def serve(self, listen: bool = True) -> None:
        """This server's part of a process, until `stopping`: the log in (its own UDP port
        unless `listen` is False and the caller routes its datagrams to `self.udp`), the
        tasks under one supervisor, RCON; on the way out the tasks stop first, then the
        session says goodbye, its rows are written, and RCON is closed."""
        readers = _readers(self.writer, asyncio.get_running_loop())
        readers.append(self)
        try:
            async with AsyncExitStack() as stack:
                stack.push_async_callback(self._at_stop, readers)
                if listen and not self.config.log_file:
                    try:
                        transport, self.log_port = await listen_udp(self.config.log_listen, self.udp)
                    except OSError as exc:
                        self.fail(f"cannot listen for the log on {self.config.log_listen}: {exc.strerror or exc}")
                        return
                    stack.callback(transport.close)
                woken = await wake.listen(self.store.path, self.server, self.poll_requests)
                if woken is not None:
                    stack.callback(woken.close)
                tasks = await stack.enter_async_context(Supervisor(self))
                stack.push_async_callback(self._goodbye)  # first on the way out: the MQTT link still runs to drain
                if self.config.log_file:
                    tasks.keep("log file follower", lambda: follow_file(self.config.log_file, self.inbox.record))
                tasks.keep("session", self._consume)
                tasks.keep("RCON outbox", self._link)
                tasks.keep("clock", self._ticker)
                tasks.keep("admin requests", self._requests, essential=False)
                if self.mqtt is not None:
                    tasks.keep("MQTT link", self.mqtt.run, essential=False)
                if self.config_path:
                    tasks.keep("config watcher", self._watch_config, essential=False)
                if self.sourcebans is not None:
                    tasks.keep("SourceBans++ bridge", self._sourcebans, essential=False)
                self.ready.set()
                await self.stopping.wait()
        finally:
            self.ready.set()

    async def _sourcebans(self) -> None:
        """Each pass in a worker thread: the loop never waits for SourceBans++'s database."""
        assert self.sourcebans is not None
        try:
            while True:
                await asyncio.to_thread(self.sourcebans.run_once)
                await asyncio.sleep(self.sourcebans.poll)
        finally:
            await asyncio.to_thread(self.sourcebans.close)

    async def _goodbye(self) -> None:
        """A clean stop says so (the link row and the retained state read `stopped`), and a
        connected broker gets a moment to take what is queued."""
        if self.stop_reason is None:
            while self.inbox.items:  # what came before the stop is handled, not lost
                self.feed(self.inbox.items.popleft())
            self.feed(si.Stopping(wall()))
        if self.mqtt is not None:
            await self.mqtt.drain(1.0)

    async def _at_stop(self, readers: list[Daemon]) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self._finish_writes)
        readers.remove(self)
        self._tell_peers()  # the bans whose rows the last commit made durable: kept below if the broker has not taken them
        self._keep_mqtt()
        await self.client.close()
        self.lock.release()

    def _finish_writes(self) -> None:
        if self.own_writer:
            self.writer.close()
        elif self.writer.error is None:
            self.writer.call(lambda backend: None)  # every row queued before this one is written

    def _keep_mqtt(self) -> None:
        """What the broker has not taken is kept in the state database and published after
        the next start; said in one line, so nothing is dropped without a word."""
        if self.mqtt is None:
            return
        waiting = self.mqtt.waiting_messages()
        try:
            self.store.keep_messages(self.server, waiting)
        except DATABASE_ERRORS as exc:
            log.error("%d MQTT message(s) the broker never took are lost: the state database cannot be written (%s)", len(waiting), exc)
            return
        if waiting:
            log.warning("%d MQTT message(s) the broker never took are kept in %s and published after the next start", len(waiting), self.store.path)

    def stop(self) -> None:
        self.stopping.set()

    # -- failing loudly -----------------------------------------------------------------------

    def fail(self, reason: str) -> None:
        """Stop the daemon with exit status 1; `reason` is the one line an admin reads."""
        self.session.fail()
        if self.stop_reason is None:
            self.stop_reason, self.exit_code = reason, 1
            log.critical("jailcore stops: %s", reason)
        self.stopping.set()

    def store_failed(self, exc: BaseException) -> None:
        self.fail(f"the state database {self.store.path} cannot be written ({exc}); commands are not sent without "
                  "their audit rows. Free the disk or fix the file, then start jailcore again: what was not answered is re-sent")

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """Whatever escapes a callback (a datagram handler, a timer) is logged, never lost."""
        exc = context.get("exception")
        if isinstance(exc, DATABASE_ERRORS):
            self.store_failed(exc)
            return
        self.task_failures.append(f"callback: {exc!r}" if exc else str(context.get("message")))
        log.error("unexpected error: %s", context.get("message"), exc_info=exc)


_READERS: weakref.WeakKeyDictionary[Writer, list[Daemon]] = weakref.WeakKeyDictionary()


def _readers(writer: Writer, loop: asyncio.AbstractEventLoop) -> list[Daemon]:
    """The daemons of this loop that write through `writer`: its thread wakes the loop once a
    commit and the news goes to each of them there (not one wake-up a server)."""
    readers = _READERS.get(writer)
    if readers is None:
        readers = _READERS[writer] = []

        def news(durable: int, error: BaseException | None, note: str | None) -> None:  # on the writer's thread
            loop.call_soon_threadsafe(_tell, readers, durable, error, note)

        writer.listen(news)
    return readers


def _tell(readers: list[Daemon], durable: int, error: BaseException | None, note: str | None) -> None:
    quiet = error is None and note is None
    for daemon in list(readers):
        if quiet and not daemon._held and not daemon._telling and daemon.idle.is_set() and len(daemon.writer.failures) == daemon._failures_seen:
            continue  # nothing of this server waited for the disk: a big fleet's commits wake only those they concern
        daemon._written(durable, error, note)


def main_run(config: Config, config_path: str | None = None) -> int:
    """`jailcore run --config FILE`: one server in this process."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    try:
        store = daemon_store(config.state_url, config.state_path)
    except StoreError as exc:
        print(f"jailcore run: {exc}", file=sys.stderr)
        return 1
    try:
        try:
            daemon = Daemon(config, store, config_path=config_path)
        except StoreError as exc:
            print(f"jailcore run: {exc}", file=sys.stderr)
            return 1
        except errors_or(OSError, ValueError) as exc:  # an MQTT certificate that cannot be read, ...
            print(f"jailcore run: cannot start: {exc}", file=sys.stderr)
            return 1
        log.info("jailcore %s: log %s, RCON %s:%s, state %s, mode %s", config.server_name,
                 config.log_file or config.log_listen, config.rcon_host, config.rcon_port, shown(config.state_where), config.mode)
        run_loop(daemon.run())
        return daemon.exit_code
    finally:
        try:
            store.close()
        except DATABASE_ERRORS:
            pass
