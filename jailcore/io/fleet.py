"""One process, many servers: `jailcore run --config a.toml --config b.toml ...`.

One config per server stays the unit: each server is a whole `Daemon` (its engine, RCON
link, state, reload, mode) served side by side in one event loop. One bad server never
stops the others: a config refused at start, a state database that cannot be opened or a
log port that cannot be bound leaves that server out (one line each; a refused config is
read again when its file changes, and joins once it is right), a server that
fails while running stops alone, and RCON refused or lost waits as it does for a daemon
alone. The process ends when every server has stopped (SIGTERM stops them all); its exit
status is 1 when any server was refused or failed.

Servers whose configs name the same `[log] listen` share one UDP port (`SharedLog`): the
servers of one port must each have their own `sv_logsecret` (or allow lists that do not
overlap), or the later one is refused. Servers whose configs name the same state file
share one reading connection, one writer (its thread commits the rows of all of them in
groups) and one block of audit ids. A CT ban given on one server goes into the others'
inboxes at once, behind what each is doing; MQTT carries it to the rest of the network, whose
copy the servers of this process then ignore. A live reload that would give a server the
`sv_logsecret` and port of another is refused, as it would be at start.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from jailcore.config.config import Config, ConfigError
from jailcore.io import ports
from jailcore.io.daemon import Daemon
from jailcore.io.logsource import RECEIVE_BUFFER, Claim, SharedLog, listen_udp, log_clash
from jailcore.io.parts import ID_BLOCK
from jailcore.io.process import Edits, last_word, process_hooks, run_loop, stopped_servers, until
from jailcore.log.inbound import Refusals, ctban_message
from jailcore.session.inputs import PeerBan
from jailcore.session.session import Ids
from jailcore.store import DATABASE_ERRORS, StateStore, StoreError, Writer, daemon_store, daemon_writer, errors_or, is_url

log = logging.getLogger("jailcore")
GC_YOUNG = 50_000  # allocations between young collections (Python's default: 700)


def configs_in(folder: str) -> list[str]:
    """Every `*.toml` of a folder, in name order: one server each."""
    return [str(p) for p in sorted(Path(folder).glob("*.toml")) if p.is_file()]


class Fleet:
    def __init__(self, paths: list[str], load: Callable[[str], Config] = Config.from_toml, watch_interval: float = 1.0,
                 routed: bool = False, foreign: Iterable[Claim] = (), **options: Any):
        self.paths = paths
        self.routed = routed  # a worker of `run --workers`: its parent owns the UDP ports and hands it the records
        self.relayed_drops: dict[str, Counter[str]] = {}  # a worker's: what its parent's shared ports refused, as the parent counts it
        self.outward: Callable[[dict[str, Any]], None] | None = None  # CT bans for the servers of the other workers
        self.watch_interval = watch_interval
        self._load, self._options = load, options
        self._group: asyncio.TaskGroup | None = None
        self.daemons: list[Daemon] = []
        self.refused: dict[str, str] = {}  # config path -> the one line saying why
        self.failed: dict[str, str] = {}  # server -> why it stopped while running
        self.stores: dict[str, StateStore] = {}
        self.writers: dict[str, Writer] = {}
        self.ids: dict[str, Ids] = {}
        self.shared: dict[str, SharedLog] = {}  # listen address -> the servers' shared port
        self.stopping = asyncio.Event()
        self.ready = asyncio.Event()
        self.relay_refused = Refusals("a CT ban between this process's servers")  # our own: a bug, said once
        self.foreign = list(foreign)  # a worker's: the servers of the other workers, as their parent has them
        self.claimed: Callable[[], None] | None = None  # a worker's: tell the parent what its servers hold of the ports now
        for path in paths:
            self._add(path, load, options)
        self._names: set[str] = set()
        for i, daemon in enumerate(self.daemons):
            self._wire(daemon, i / len(self.daemons))

    def _wire(self, daemon: Daemon, phase: float) -> None:
        """A server into the process: its bans to the others, its turn for the timers, the
        fleet's word on its reloads, and the names whose bans its MQTT link leaves to the process."""
        daemon.peers = lambda ban: self._relay(daemon, ban)
        daemon.vet = lambda config: self._clash(daemon, config)
        daemon.phase = phase
        if self.routed:  # a reload's new secret or allow list: the parent routes by it
            daemon.udp.changed = self._claims_changed
        self._names.add(daemon.server)
        if daemon.mqtt is not None:
            daemon.mqtt.local = self._names

    # -- start ---------------------------------------------------------------------------------

    def _add(self, path: str, load: Callable[[str], Config], options: dict[str, Any]) -> None:
        try:
            config = load(path)
        except ConfigError as exc:
            return self._refuse(path, "config refused: " + "; ".join(exc.problems))
        except (OSError, ValueError) as exc:
            return self._refuse(path, f"config refused: {exc}")
        if any(d.server == config.server_name for d in self.daemons) or any(c.server_name == config.server_name for c in self.foreign):
            return self._refuse(path, f"server name {config.server_name!r} is already served by another config")
        clash = self._clash(None, config)  # before the daemon takes its lock and its kept messages
        if clash is not None:
            return self._refuse(path, f"config refused: {clash}")
        where = config.state_where
        key = where if is_url(where) else str(Path(where).resolve()) if where != ":memory:" else f":memory:{path}"
        try:
            store = self.stores.get(key) or daemon_store(config.state_url, config.state_path)
        except StoreError as exc:
            return self._refuse(path, str(exc))
        self.stores[key] = store
        if key not in self.writers:
            try:
                self.writers[key] = daemon_writer(config.state_url, config.state_path, options.get("checkpoint_interval", 1.0))
            except StoreError as exc:
                return self._refuse(path, str(exc))
            self.ids[key] = Ids(ID_BLOCK // 2)
        try:
            daemon = Daemon(config, store, config_path=path, writer=self.writers[key], ids=self.ids[key], **options)
        except StoreError as exc:
            return self._refuse(path, str(exc))
        except errors_or(OSError, ValueError) as exc:
            return self._refuse(path, f"cannot start: {exc}")
        self.daemons.append(daemon)

    def _refuse(self, path: str, why: str) -> None:
        self.refused[path] = why
        log.error("%s: %s; the other servers go on", path, why)

    def _clash(self, daemon: Daemon | None, config: Config) -> str | None:
        """Why this config cannot share the fleet's ports as it stands (beside this process's other
        servers and, in a worker, the other workers' ones), or None: at start, at a late join and at
        a live reload alike."""
        claim = Claim.of(config) if daemon is None else claim_of(daemon, config)
        return log_clash(claim, [*(claim_of(d) for d in self.daemons if d is not daemon), *self.foreign])

    def claims(self) -> list[Claim]:
        """What this process's servers hold of the log ports now."""
        return [claim_of(d) for d in self.daemons]

    def _claims_changed(self) -> None:
        if self.claimed is not None:
            self.claimed()

    # -- the in-process network ----------------------------------------------------------------

    def _relay(self, origin: Daemon, ban: dict[str, Any]) -> None:
        """Into every other server's inbox, typed once for all of them (not once a server): each
        takes it after what it is doing now."""
        typed = ctban_message(ban, self.relay_refused, "a CT ban of this process")
        if typed is not None:
            for daemon in self.daemons:
                if daemon is not origin and not daemon.stopping.is_set():
                    daemon.inbox.put(PeerBan(typed))
        if self.outward is not None:
            self.outward(ban)

    # -- lifetime ------------------------------------------------------------------------------

    async def run(self) -> int:
        async with process_hooks(self.stop, self.hangup, self._loop_error), AsyncExitStack() as stack:
            groups: dict[str, list[Daemon]] = {}
            for daemon in self.daemons:
                if not daemon.config.log_file and not daemon.config.log_listen.endswith(":0") and not self.routed:
                    groups.setdefault(daemon.config.log_listen, []).append(daemon)
            own = {id(d) for d in self.daemons if not self.routed}
            # Every named port is a shared one, even with one server on it: a refused config
            # fixed later may join it while it runs.
            for listen, members in groups.items():
                shared = SharedLog(d.udp for d in members)
                try:
                    # Each server's share of room for a stall, up to 64 MB (used only while it fills).
                    transport, port = await listen_udp(listen, shared, RECEIVE_BUFFER * min(len(members), 16))
                except OSError as exc:
                    for d in members:
                        d.fail(f"the log: {ports.refusal(listen, 'udp', exc, d.log_setting)}")
                    continue
                stack.callback(transport.close)
                self.shared[listen] = shared
                for d in members:
                    d.log_port = port
                    own.discard(id(d))
            async with asyncio.TaskGroup() as group:
                self._group = group
                group.create_task(self._watch_refused(), name="refused configs")
                for daemon in self.daemons:
                    group.create_task(self._serve(daemon, id(daemon) in own), name=f"server {daemon.server}")
                group.create_task(self._all_ready(), name="fleet ready")
        for writer in self.writers.values():
            await asyncio.get_running_loop().run_in_executor(None, writer.close)
        for store in self.stores.values():
            try:
                store.close()
            except DATABASE_ERRORS:
                pass
        return 1 if self.refused or self.failed else 0

    async def _serve(self, daemon: Daemon, listen: bool) -> None:
        try:
            await daemon.serve(listen=listen)  # a server already failed (its port) still saves and lets go of its lock
        except Exception as exc:  # a server's own bug stops that server, not the process
            log.exception("server %s stopped on an error", daemon.server)
            daemon.fail(f"{exc!r}")
        finally:
            daemon.ready.set()
        if daemon.stop_reason is not None:
            self.failed[daemon.server] = daemon.stop_reason
            log.error("server %s stopped: %s; the other servers go on", daemon.server, daemon.stop_reason)
        if all(d.stopping.is_set() for d in self.daemons):
            self.stopping.set()

    async def _watch_refused(self) -> None:
        """A config refused at start is read again when its file changes: once it is right,
        its server joins the running ones (the same as a reload for a running server)."""
        edits = Edits(self.refused)
        while not await until(self.stopping, self.watch_interval):
            for path in edits.changed():
                del self.refused[path]
                count = len(self.daemons)
                self._add(path, self._load, self._options)
                if len(self.daemons) == count:
                    continue  # refused again, and said so
                edits.forget(path)  # its daemon watches it from now on
                daemon = self.daemons[-1]
                self._wire(daemon, 0.5)
                self._claims_changed()
                shared = self.shared.get(daemon.config.log_listen) if not daemon.config.log_file else None
                if shared is not None:
                    shared.add(daemon.udp)
                    daemon.log_port = next(iter(d.log_port for d in self.daemons if d is not daemon and d.udp in shared.members))
                log.info("%s: accepted after an edit; server %s starts", path, daemon.server)
                assert self._group is not None
                self._group.create_task(self._serve(daemon, shared is None and not self.routed), name=f"server {daemon.server}")

    async def _all_ready(self) -> None:
        for daemon in self.daemons:
            await daemon.ready.wait()
        # What start-up made (every server's rules, config, caches) lives as long as the
        # process: out of the collector's sight, a full collection no longer walks it, and
        # the loop's longest stall (a datagram's and a ban's wait) shrinks with it.
        gc.collect()
        gc.freeze()
        # Young collections far apart: a busy fleet makes short-lived objects by the thousand a
        # second (inputs, effects, parsed events), and each collection that promotes some makes
        # the next full one walk every server's state, a stall in which datagrams pile up.
        gc.set_threshold(GC_YOUNG, 50, 100)
        up = sum(1 for d in self.daemons if d.stop_reason is None)  # said once the ports are held: never "up" before a port's refusal
        log.info("jailcore: %d server(s) in one process, %d refused%s", up, len(self.refused),
                 f", {len(self.daemons) - up} stopped at start" if up < len(self.daemons) else "")
        self.ready.set()

    def stop(self) -> None:
        """Every server stops, those that joined late included (a fleet that began with none, its
        configs all refused, once waited for nothing and let a late one run on after the stop)."""
        self.stopping.set()
        for daemon in self.daemons:
            daemon.stop()

    def port_drops(self) -> dict[str, tuple[Counter[str], Sequence[Daemon]]]:
        """Each shared log port's datagrams that no server on it took, by cause, and its servers
        (the notifier's `drops`: no one server counts them)."""
        ports: dict[str, tuple[Counter[str], Sequence[Daemon]]] = {}
        for listen, shared in self.shared.items():
            ports[listen] = (shared.dropped, [d for d in self.daemons if d.udp in shared.members])
        for listen, dropped in self.relayed_drops.items():  # a worker's ports are its parent's
            ports[listen] = (dropped, [d for d in self.daemons if not d.config.log_file and d.config.log_listen == listen])
        return ports

    def hangup(self) -> None:
        for daemon in self.daemons:
            if not daemon.stopping.is_set():
                daemon.hangup()

    def daemon(self, server: str) -> Daemon:
        return next(d for d in self.daemons if d.server == server)

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """Whatever escapes a callback is logged, never lost. A database error here is not
        pinned on every server: the failing one's next write (the saver's, within a second)
        stops that server alone."""
        exc = context.get("exception")
        log.error("unexpected error: %s", context.get("message"), exc_info=exc)


def claim_of(daemon: Daemon, config: Config | None = None) -> Claim:
    """A server's hold on the log ports: its secret and allow list as `config` (by default the one in
    force) has them, its port as it started (a reload moves it only at a restart)."""
    config = config or daemon.config
    listen, file = daemon.log_at
    return Claim(config.server_name, listen, config.log_secret, config.log_allow, file)


def main_fleet(paths: list[str]) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    fleet = Fleet(paths)
    if not fleet.daemons:
        print(f"jailcore run: no server could start ({len(fleet.refused)} refused)", file=sys.stderr)
        return 1
    from jailcore.io.notify.notifier import alongside

    code: int = run_loop(alongside(lambda: fleet.daemons, fleet.run(), lambda: fleet.refused, fleet.port_drops))
    last_word(stopped_servers(fleet.failed))
    return code
