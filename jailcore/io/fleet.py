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

The fleet judges its configs when it is made (nothing opened); `run` opens each server (`Daemon`
is an `async with`: a state database that cannot be opened leaves that server out, in one line),
its ports (`logports.LogPorts`), and one watcher for every config file of the process.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import attrs

from jailcore.config.config import Config, ConfigError
from jailcore.io import ports
from jailcore.io.banrelay import BanRelay
from jailcore.io.daemon import Daemon
from jailcore.io.logports import LogPorts, by_port, on_shared_port
from jailcore.io.logsource import Claim, SharedLog, log_clash
from jailcore.io.loop import Edits, last_word, process_hooks, run_loop, signature, started, stopped_servers, watch
from jailcore.io.parts import ID_BLOCK
from jailcore.io.tasks import ProcessClock, read_config
from jailcore.session.session import Ids
from jailcore.store import DATABASE_ERRORS, StateStore, StoreError, Writer, daemon_store, daemon_writer, errors_or, is_url

log = logging.getLogger("jailcore")


def configs_in(folder: str) -> list[str]:
    """Every `*.toml` of a folder, in name order: one server each."""
    return [str(p) for p in sorted(Path(folder).glob("*.toml")) if p.is_file()]


class Fleet:
    def __init__(self, paths: list[str], load: Callable[[str], Config] = Config.from_toml, watch_interval: float = 1.0,
                 routed: bool = False, foreign: Iterable[Claim] = (), **options: Any):
        self.paths = paths
        self.routed = routed  # a worker of `run --workers`: its parent owns the UDP ports and hands it the records
        self.relayed_drops: dict[str, Counter[str]] = {}  # a worker's: what its parent's shared ports refused, as the parent counts it
        self.opened: Callable[[Daemon], None] | None = None  # a worker's relay follows each server once it is open
        self.watch_interval = watch_interval
        self._load, self._options = load, options
        self._group: asyncio.TaskGroup | None = None
        self.daemons: list[Daemon] = []
        self.refused: dict[str, str] = {}  # config path -> the one line saying why
        self.read_as: dict[str, tuple[int, int, int] | None] = {}  # config path -> its file's signature when it was last read
        self.failed: dict[str, str] = {}  # server -> why it stopped while running
        self.stores: dict[str, StateStore] = {}
        self.writers: dict[str, Writer] = {}
        self.ids: dict[str, Ids] = {}
        self.ports = LogPorts()
        self.stopping = asyncio.Event()
        self.ready = asyncio.Event()
        self.relay, self.ticks = BanRelay(lambda: self.daemons), ProcessClock(self.stopping)  # the ticks: one clock for all, not a timer each
        self.foreign = list(foreign)  # a worker's: the servers of the other workers, as their parent has them
        self.claimed: Callable[[], None] | None = None  # a worker's: tell the parent what its servers hold of the ports now
        self._names: set[str] = set()
        for path in paths:
            self._accept(path)

    @property
    def shared(self) -> dict[str, SharedLog]:
        return self.ports.shared

    # -- start: judged when made, opened when run ------------------------------------------------

    def _accept(self, path: str) -> Daemon | None:
        """A config judged (its own problems, its name, its hold on the shared ports) and its server made, not opened."""
        self.read_as[path] = signature(Path(path))  # before the read: an edit saved after it is the watcher's
        try:
            config = self._load(path)
        except ConfigError as exc:
            self._refuse(path, "config refused: " + "; ".join(exc.problems))
            return None
        except (OSError, ValueError) as exc:
            self._refuse(path, f"config refused: {exc}")
            return None
        if any(d.server == config.server_name for d in self.daemons) or any(c.server_name == config.server_name for c in self.foreign):
            self._refuse(path, f"server name {config.server_name!r} is already served by another config")
            return None
        clash = self._clash(None, config)  # before the daemon takes its lock and its kept messages
        if clash is not None:
            self._refuse(path, f"config refused: {clash}")
            return None
        try:
            daemon = Daemon(config, config_path=path, watch=False, **self._options)  # the fleet watches every config (`_watch`)
        except (OSError, ValueError) as exc:
            self._refuse(path, f"cannot start: {exc}")
            return None
        self.daemons.append(daemon)
        return daemon

    def open(self) -> None:
        """Every server not yet open, with the state database, writer and audit ids it shares with the others of its file."""
        for daemon in [d for d in self.daemons if d.parts is None]:
            self._open(daemon)

    def _open(self, daemon: Daemon) -> bool:
        config, path = daemon.config, daemon.config_path or daemon.server
        where = config.state_where
        key = where if is_url(where) else str(Path(where).resolve()) if where != ":memory:" else f":memory:{path}"
        try:
            store = self.stores.get(key) or daemon_store(config.state_url, config.state_path)
            self.stores[key] = store
            if key not in self.writers:
                self.writers[key] = daemon_writer(config.state_url, config.state_path, self._options.get("checkpoint_interval", 1.0))
                self.ids[key] = Ids(ID_BLOCK // 2)
            daemon.opening = attrs.evolve(daemon.opening, store=store, writer=self.writers[key], ids=self.ids[key])
            daemon.open()
        except StoreError as exc:
            why = str(exc)
        except errors_or(OSError, ValueError) as exc:
            why = f"cannot start: {exc}"
        else:
            return True
        self.daemons.remove(daemon)
        self._refuse(path, why)
        return False

    def _wire(self, daemon: Daemon, phase: float) -> None:
        """An open server into the process: its bans to the others, its turn on the process's clock, the
        fleet's word on its reloads, and the names whose bans its MQTT link leaves to the process."""
        daemon.peers = lambda ban: self.relay(daemon, ban)
        daemon.vet = lambda config: self._clash(daemon, config)
        daemon.ticks = (self.ticks, phase)
        if self.routed:  # a reload's new secret or allow list: the parent routes by it
            daemon.udp.changed = self._claims_changed
        self._names.add(daemon.server)
        if daemon.mqtt is not None:
            daemon.mqtt.local = self._names
        if self.opened is not None:
            self.opened(daemon)

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

    # -- lifetime ------------------------------------------------------------------------------

    async def run(self) -> int:
        async with process_hooks(self.stop, self.hangup, self._loop_error):
            try:
                self.open()
                for i, daemon in enumerate(self.daemons):
                    self._wire(daemon, i / len(self.daemons))
                if not self.routed:
                    await self._listen()
                async with asyncio.TaskGroup() as group:
                    self._group = group
                    group.create_task(self._watch(), name="config files")
                    group.create_task(self.ticks.run(), name="clock")
                    for daemon in self.daemons:
                        group.create_task(self._serve(daemon), name=f"server {daemon.server}")
                    group.create_task(self._all_ready(), name="fleet ready")
            finally:
                self.ports.close()
        await self.close()
        return 1 if self.refused or self.failed else 0

    async def close(self) -> None:
        """The state databases the servers shared: what is queued written, then closed."""
        for writer in self.writers.values():
            await asyncio.get_running_loop().run_in_executor(None, writer.close)
        for store in self.stores.values():
            try:
                store.close()
            except DATABASE_ERRORS:
                pass

    async def _listen(self) -> None:
        """Every named port is a shared one, even with one server on it: a refused config fixed later may join it while it runs."""
        for listen, members in by_port((d.config, d) for d in self.daemons).items():
            try:
                port = await self.ports.open(listen, [d.udp for d in members])
            except OSError as exc:
                for d in members:
                    d.fail(f"the log: {ports.refusal(listen, 'udp', exc, d.log_setting)}")
                continue
            for d in members:
                d.log_port = port

    async def _serve(self, daemon: Daemon) -> None:
        try:
            # a server already failed (its port) still saves and lets go of its lock
            await daemon.serve(listen=not self.routed and not on_shared_port(daemon.config))
        except Exception as exc:  # a server's own bug stops that server, not the process
            log.exception("server %s stopped on an error", daemon.server)
            daemon.fail(f"{exc!r}")
        finally:
            await daemon.close()  # its lock let go now: the other servers go on
            daemon.ready.set()
        if daemon.stop_reason is not None:
            self.failed[daemon.server] = daemon.stop_reason
            log.error("server %s stopped: %s; the other servers go on", daemon.server, daemon.stop_reason)
        if all(d.stopping.is_set() for d in self.daemons):
            self.stopping.set()

    async def _watch(self) -> None:
        """Every config file of the process, one look each `watch_interval`: a running server's edit is read and handed to it whole
        (as SIGHUP does); a config refused at start is read again when its file changes, and once it is right its server joins the running ones."""

        async def changed(path: str) -> None:
            daemon = next((d for d in self.daemons if d.config_path == path), None)
            if daemon is not None:
                if not daemon.stopping.is_set():
                    daemon.inbox.put(read_config(path, "changed", daemon.vet))
            elif path in self.refused:
                await self._join(path)

        await watch(Edits([*(d.config_path for d in self.daemons if d.config_path), *self.refused], self.read_as), self.watch_interval, changed, self.stopping)

    async def _join(self, path: str) -> None:
        del self.refused[path]
        daemon = self._accept(path)
        if daemon is None or not self._open(daemon):
            return  # refused again, and said so
        self._wire(daemon, 0.5)
        self._claims_changed()
        if not self.routed and on_shared_port(daemon.config):
            try:
                daemon.log_port = await self.ports.join(daemon.config.log_listen, daemon.udp)
            except OSError as exc:
                daemon.fail(f"the log: {ports.refusal(daemon.config.log_listen, 'udp', exc, daemon.log_setting)}")
        log.info("%s: accepted after an edit; server %s starts", path, daemon.server)
        assert self._group is not None
        self._group.create_task(self._serve(daemon), name=f"server {daemon.server}")

    async def _all_ready(self) -> None:
        for daemon in self.daemons:
            await daemon.ready.wait()
        started()
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
        out: dict[str, tuple[Counter[str], Sequence[Daemon]]] = {}
        for listen, dropped in self.ports.dropped().items():
            members = self.ports.members(listen)
            out[listen] = (dropped, [d for d in self.daemons if d.udp in members])
        for listen, dropped in self.relayed_drops.items():  # a worker's ports are its parent's
            out[listen] = (dropped, [d for d in self.daemons if not d.config.log_file and d.config.log_listen == listen])
        return out

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
    from jailcore.io.notify.notifier import alongside

    async def main() -> int:
        fleet.open()
        if not fleet.daemons:
            await fleet.close()
            print(f"jailcore run: no server could start ({len(fleet.refused)} refused)", file=sys.stderr)
            return 1
        return await alongside(lambda: fleet.daemons, fleet.run(), lambda: fleet.refused, fleet.port_drops)

    code: int = run_loop(main())
    last_word(stopped_servers(fleet.failed))
    return code
