"""The daemon: the thin asyncio driver around one server's `Session` (its parts: `parts`).

It moves bytes and performs effects, and decides nothing: datagrams, RCON replies, the clock, the
config file, admins' rows and the other servers' CT bans become the session's inputs, in the order
they come, through one inbox (made by `tasks`, `admins`); the effects are done in their order. A
command goes to RCON only once the writer (a thread, `store.writer`) says the rows before it are
durable, so a command that reached the game always has its `pending` row, and its id (` @<id>`)
makes a re-send after kill -9 run once. The loop never waits for the disk; a task that keeps
failing, or a database that cannot be written, stops the daemon (`fail`)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections import deque
from collections.abc import Callable
from contextlib import AsyncExitStack
from typing import Any

from jailcore.config.config import Config
from jailcore.engine.actions import Action, AuditStatus
from jailcore.io import ports, tasks, wake
from jailcore.io.logsource import AllowList, listen_udp
from jailcore.io.mqtt import CTBANS, keep_unsent
from jailcore.io.parts import ID_BLOCK, Inbox, Parts
from jailcore.io.process import loop_errors, process_hooks
from jailcore.io.supervisor import Supervisor
from jailcore.session import effects as fx
from jailcore.session import inputs as si
from jailcore.session.session import Ids
from jailcore.store import DATABASE_ERRORS, NewsReader, StateStore, Writer, shown

log = logging.getLogger("jailcore")


class Daemon(Parts):
    def __init__(self, config: Config, store: StateStore | None = None, on_action: Callable[[Action, str | None, AuditStatus], None] | None = None,
                 rcon_backoff: tuple[float, float] = (0.5, 15.0), auth_backoff: float = 30.0, config_path: str | None = None,
                 watch_interval: float = 1.0, save_interval: float = 0.5, checkpoint_interval: float = 1.0,
                 writer: Writer | None = None, ids: Ids | None = None, id_block: int = ID_BLOCK):
        self.inbox = Inbox()
        super().__init__(config, store, self.inbox.put, self.record, rcon_backoff, auth_backoff, save_interval,
                         checkpoint_interval, writer, ids, id_block)
        self.config_path, self.watch_interval, self.on_action = config_path, watch_interval, on_action
        self.task_failures: list[str] = []  # "name: why" per failure a supervisor caught
        self.restart_delay, self.log_port, self.exit_code = 0.1, 0, 0
        self.stop_reason: str | None = None
        self.stopping, self.ready, self.idle = asyncio.Event(), asyncio.Event(), asyncio.Event()
        self._held: deque[tuple[int, fx.Send]] = deque()  # commands waiting for their rows to be durable
        self._telling: deque[tuple[int, fx.TellPeers]] = deque()  # CT bans for the network, the same (not dropped with the link)
        self._seq = 0  # the writer's sequence of this daemon's last rows
        self.relayed = False  # fed by a `run --workers` parent: its states' places are followed (`kept`)
        self._saves: deque[tuple[int, int]] = deque()  # (the writer's sequence, the relay's place) of each state saved
        self._kept = 0
        self._failures_seen = len(self.writer.failures)
        self._perform(self.session.handle(self.store.resume(self.server), 0.0))

    # -- inputs in, effects out -------------------------------------------------------------

    def record(self, data: bytes, place: int = 0) -> None:
        """A log line, at once when nothing waits before it (a task woken for each of 10,000 lines a second was a
        tenth of a 200-server process); what it raises goes to the task (`failed`), whose supervisor judges it.
        `place`: its number in a `run --workers` parent's relay (`kept`)."""
        inbox = self.inbox
        if not inbox.serving or inbox.items or inbox.ready.is_set():
            return inbox.put(si.LogRecord(data, place))
        try:
            self.feed(si.LogRecord(data, place))
        except Exception as exc:
            inbox.failed = exc
            inbox.ready.set()

    def feed(self, event: si.Input) -> None:
        self._perform(self.session.handle(event, asyncio.get_running_loop().time()))
        self._more_ids()

    def _perform(self, effects: list[fx.Effect]) -> None:
        if not effects:
            return  # most lines: nothing to do, nothing changed for `idle`
        rows: list[fx.Row] = []
        for e in effects:
            if isinstance(e, fx.Write):
                rows.append(e.row)
                continue
            if rows and isinstance(e, fx.Send | fx.TellPeers):  # the rows before what waits for them: one batch, one commit
                self._submit(rows)
                rows = []
            if isinstance(e, fx.Send):  # after its own row; one with no row (the display, a ban at the door) waits for none
                self._held.append((self._seq if e.audit is not None else 0, e))
            elif isinstance(e, fx.Publish) and self.mqtt is not None:
                self.mqtt.publish_state(e.payload) if e.state else self.mqtt.publish(e.topic, e.payload)
            elif isinstance(e, fx.TellPeers):  # as a command: only once its row is durable, or a peer holds a ban our log lost
                self._telling.append((self._seq, e))
            elif isinstance(e, fx.DropLink):
                self.client.drop(e.reason)
            elif isinstance(e, fx.Rearm):
                self.client.rearm(e.host, e.port, e.password, e.timeout)
            elif isinstance(e, fx.Refilter):
                self.udp.secret, self.udp.allow = e.secret, AllowList(e.allow)
            elif isinstance(e, fx.AskPardon | fx.AskAnswer):
                self.requests.ask(e)
            elif isinstance(e, fx.Told) and self.on_action is not None:
                self.on_action(e.action, e.command, e.status)
        if rows:
            self._submit(rows)
        self._release()

    def _submit(self, rows: list[fx.Row]) -> None:
        self._seq = self.writer.submit(rows)
        if self.relayed and any(type(row) is fx.SaveState for row in rows):
            self._saves.append((self._seq, self.session.place))

    def kept(self) -> int:
        """The last place of a `run --workers` relay whose line this server's state database holds for good:
        a state saved after it is durable, or nothing changed since the last one that is (what came up to it
        need not come again after a crash; what came after it must)."""
        durable = self.writer.durable
        while self._saves and self._saves[0][0] <= durable:
            self._kept = self._saves.popleft()[1]
        if not self._saves and not self.session.unsaved:
            self._kept = self.session.place
        return self._kept

    def _release(self) -> None:  # the commands whose rows are durable, to RCON in one write; their rows then say `sent`
        durable = self._tell_peers()
        batch: list[fx.Send] = []
        if getattr(self.lock, "lost", None) is not None:
            self._held.clear()  # another process serves this server now (`_more_ids` stops this one): its to send
        while self._held and self._held[0][0] <= durable:
            batch.append(self._held.popleft()[1])
        if batch and self.client.is_open:  # else the link's loss is on its way: the session sends them again
            for send, future in zip(batch, self.client.send_all([s.text for s in batch]), strict=True):
                future.add_done_callback(functools.partial(tasks.replied, self.inbox.put, send.ticket))
            self.session.handle(si.Sent(tuple(s.ticket for s in batch)), asyncio.get_running_loop().time())  # its clock starts now
            sent = tuple(s.audit for s in batch if s.audit is not None)
            if sent:
                self._seq = self.writer.submit([fx.MarkSent(sent)])
        idle = not self.session.busy and not self._held and not self._telling and durable >= self._seq  # its own rows
        (self.idle.set if idle else self.idle.clear)()
        # Next awaited: the first held command's rows, the first ban for the peers, else its last rows (`idle`).
        heads = (self._held[0][0] if self._held else 0, self._telling[0][0] if self._telling else 0, self._seq)
        self.inbox.wants = min((seq for seq in heads if seq > durable), default=0)

    def _tell_peers(self) -> int:  # the CT bans whose rows are durable, to the network (MQTT, this process's servers)
        durable = self.writer.durable
        while self._telling and self._telling[0][0] <= durable:
            ban = self._telling.popleft()[1].ban
            if self.mqtt is not None:
                self.mqtt.publish(CTBANS, ban, urgent=True)
            if self.peers is not None:
                self.peers(ban)
        return durable

    def _written(self) -> None:  # the writer's news: rows durable, the disk failed, or the file was written afresh
        news, self.inbox.news = self.inbox.news, []
        if any(note is not None for _, note in news):
            self.store.reopen()
        self.task_failures += self.writer.failures[self._failures_seen:]
        self._failures_seen = len(self.writer.failures)
        if (error := next((e for e, _ in news if e is not None), None)) is not None:
            self.store_failed(error)
        self._release()

    def save(self) -> None:  # the engine's state to the writer now, not at the next tick
        self._perform([self.session.save()])

    def share_ctban(self, ban: dict[str, Any]) -> None:  # a CT ban for the network, as the session tells one
        self._perform([fx.TellPeers(ban)])

    async def _consume(self) -> None:
        loop, inbox = asyncio.get_running_loop(), self.inbox
        inbox.serving = True
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
        if (lost := getattr(self.lock, "lost", None)) is not None:
            self.fail(lost)
        with contextlib.suppress(*DATABASE_ERRORS):  # the database away: the ids in hand go on, the next block later
            if self.ids.low:
                self.ids.give(self.store.reserve_ids(self.id_block), self.id_block)

    def hangup(self) -> None:  # SIGHUP: read the config again and try the RCON password again
        log.info("SIGHUP: reloading the config and reopening RCON")
        self.inbox.put(tasks.read_config(self.config_path, "SIGHUP", self.vet))

    # -- lifetime -----------------------------------------------------------------------------

    async def run(self) -> None:  # one server alone in its process: its signals and the loop's error handler, then `serve`
        async with process_hooks(self.stopping.set, self.hangup, loop_errors(self.task_failures, self.store_failed)):
            await self.serve()

    async def serve(self, listen: bool = True) -> None:
        """This server's part of a process, until `stopping`: the log in (its own UDP port unless the caller routes to
        `self.udp`), the tasks, RCON; on the way out the tasks stop, the session says goodbye, its rows are written."""
        readers = self.writer.readers(asyncio.get_running_loop())
        readers.append(self.inbox)
        config = self.config
        try:
            async with AsyncExitStack() as stack:
                stack.push_async_callback(self._at_stop, readers)
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
                tasks.start(supervisor, self, self.inbox.put, self._held, self.config_path, self.watch_interval)
                self.ready.set()
                if self.stop_reason is None:  # said once the log's port is held, never before a line saying why not
                    log.info("jailcore %s: up: log %s, RCON %s:%s, state %s, mode %s", self.server, config.log_file or
                             f"{config.log_listen.rpartition(':')[0]}:{self.log_port}", config.rcon_host, config.rcon_port,
                             shown(config.state_where), config.mode)
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

    async def _at_stop(self, readers: list[NewsReader]) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.writer.close if self.own_writer else self.writer.settle)
        readers.remove(self.inbox)
        self._tell_peers()  # the bans whose rows the last commit made durable: kept below if the broker has not taken them
        keep_unsent(self.mqtt, self.store, self.server)
        await self.client.close()
        self.lock.release()

    def stop(self) -> None:
        self.stopping.set()

    @property
    def log_setting(self) -> str:
        """Where an admin changes this server's log address, for a line that says it cannot be used."""
        return f"[log] listen of {self.config_path}" if self.config_path else "[log] listen"

    def fail(self, reason: str) -> None:  # stop the daemon with exit status 1; `reason` is the one line an admin reads
        self.session.fail()
        if self.stop_reason is None:
            self.stop_reason, self.exit_code = reason, 1
            log.critical("jailcore stops: %s", reason)
        self.stopping.set()

    def store_failed(self, exc: BaseException) -> None:
        self.fail(f"the state database {self.store.path} cannot be written ({exc}); commands are not sent without "
                  "their audit rows. Free the disk or fix the file, then start jailcore again: what was not answered is re-sent")

