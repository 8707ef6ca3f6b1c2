"""The daemon: the thin loop around the engine.

bytes (UDP or file) -> `LogParser` -> events -> `Engine` -> actions -> audit log and
outbox in SQLite -> `render` -> RCON. The engine decides; this module only moves data and
keeps it durable: every action is written before it is sent, the engine's state is
saved after each decision and at least once a second, and a SIGTERM saves and stops.

Modes (per server): `enforce` sends every command; `advise` turns each punishment into a
warning that says what would have been done; `observe` sends nothing and only logs.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from .. import events as ev
from ..actions import Action, render
from ..actions import kind_name as step_name
from ..config import Config, ConfigError
from ..engine import Engine
from ..parse import LogParser
from .logsource import AllowList, UdpLog, follow_file, listen_udp
from .mqtt import CTBANS, MqttLink
from .rcon import Outbox, RconClient, RconUnavailable
from .store import Store

log = logging.getLogger("jailcore")

# Events after which the state is saved at once: they move the calendar or the warden.
_SAVE_NOW = (ev.RoundStart, ev.RoundEnd, ev.RestartRound, ev.GameCommencing, ev.MapLoading, ev.MapStarted, ev.ShimEvent)
_ADVISORY = ("warn", "say", "hud", "cancel")


def really_given(status: str) -> bool:
    """A CT ban is shared with the network only where it was really given."""
    return status in ("pending", "delivered")


class Daemon:
    def __init__(
        self,
        config: Config,
        store: Store | None = None,
        on_action: Callable[[Action, str | None, str], None] | None = None,
        rcon_backoff: tuple[float, float] = (0.5, 15.0),
        auth_backoff: float = 60.0,
        config_path: str | None = None,
        watch_interval: float = 1.0,
    ):
        self.config = config
        self.config_path = config_path
        self.watch_interval = watch_interval
        self.reloads: list[str] = []  # what each config change did, for admins and tests
        self.server = config.server_name
        self.store = store or Store(config.state_path)
        self.engine = Engine(config, self.store.load_state(self.server))
        self.parser = LogParser()
        self.client = RconClient(config.rcon_host, config.rcon_port, config.rcon_password, config.rcon_timeout, rcon_backoff, auth_backoff)
        self.outbox = Outbox(self.client, on_result=self._answered)
        self.udp = UdpLog(self.feed, config.log_secret, config.log_allow)
        self.on_action = on_action
        self.mqtt = MqttLink(config.mqtt_url, self.server, self.network_ctban, tls=dict(config.mqtt_tls)) if config.mqtt_url else None
        self.log_port = 0
        self.stopping = asyncio.Event()
        self.ready = asyncio.Event()
        self._dirty = self._save_soon = False
        self.engine_errors = 0
        self._resync_task: asyncio.Task | None = None
        for row_id, command in self.store.pending(self.server):
            self.outbox.put(row_id, command)

    # -- the data path -----------------------------------------------------------------------

    def feed(self, record: bytes) -> None:
        """One log record in; whatever the engine decides goes to the outbox."""
        event = self.parser.parse(record)
        if event is None:
            return
        try:
            actions = self.engine.handle(event)
        except Exception:  # an engine bug on one line must not stop enforcement
            self.engine_errors += 1
            log.exception("the engine failed on %r; the line is skipped", record[:300])
            return
        for action in actions:
            self.dispatch(action)
        if event.time:  # kept for the web page's round story ([web] story_days); not the cheap `Noted` lines
            self.store.keep_line(self.server, self.engine.state.round, event.time, record, self.config.web.story_days)
        if actions or isinstance(event, _SAVE_NOW):
            # Saved right after the outbox has had its turn, so a command is not held
            # back by the write; the audit rows were written before anything was sent.
            if not self._save_soon:
                self._save_soon = True
                asyncio.get_running_loop().call_soon(self._save)
        else:
            self._dirty = True
        if self.engine.resync_wanted:
            self.request_resync()

    def dispatch(self, action: Action) -> None:
        if action.action == "hud":
            if self.config.mode != "observe":
                self._queue_hud(action)
            return
        mode = self.config.mode
        command = render(action)
        day = self.engine.day
        if mode == "observe" or command is None:
            status = "observed" if mode == "observe" else "delivered"
            row_id = self.store.record(self.server, action, day, command, status)
            self._tell(action, command, status, row_id)
            return
        if mode == "advise" and action.action not in _ADVISORY:
            row_id = self.store.record(self.server, action, day, command, "advised")
            self._tell(action, command, "advised", row_id)
            if action.target is None:
                return
            would = f"{step_name(self.config.language, action.action)}: {action.reason}"
            warn = Action(action.time, action.round, "warn", action.target, action.rule, action.ref, would)
            command = render(warn)
            action = warn
        row_id = self.store.record(self.server, action, day, command, "pending")
        self._tell(action, command, "pending", row_id)
        self.outbox.put(row_id, command)

    def _queue_hud(self, action: Action) -> None:
        command = render(action)
        if command is not None:
            self.outbox.put(None, command, key="hud")

    def _tell(self, action: Action, command: str | None, status: str, row_id: int) -> None:
        if self.on_action is not None:
            self.on_action(action, command, status)
        if self.mqtt is not None:
            self.mqtt.publish(f"jailcore/{self.server}/actions", {"server": self.server, "id": row_id, "status": status, **action.to_json()})
            if action.action == "ctban" and action.target is not None and really_given(status):
                t = action.target
                ban = self.engine.state.ctbans.get(ev.player_key(t.steamid, t.userid))
                self.mqtt.publish(CTBANS, {
                    "id": f"{self.server}:{row_id}", "origin": self.server, "steamid": t.steamid, "name": t.name,
                    "until": ban.until if ban else None, "rounds": ban.rounds if ban else None, "ref": action.ref, "reason": action.reason,
                })
        t = action.target
        who = f"{t.name} #{t.userid} {t.steamid}" if t else "everyone"
        log.info("%s %s [%s %s] %s: %s (%s)", action.time, action.action, action.rule, action.ref, who, action.reason, status)

    async def _answered(self, tag: object, command: str, reply: str | None) -> None:
        if tag is None:
            return
        status = "failed" if (reply or "").startswith("error") else "delivered"
        self.store.mark(int(tag), status, reply)  # type: ignore[arg-type]

    def _save(self) -> None:
        self.store.save_state(self.server, self.engine.snapshot(), self.engine.state.time or "")
        self._dirty = self._save_soon = False
        if self.mqtt is not None:
            self.mqtt.publish_state(self.engine.public_state())

    def network_ctban(self, ban: dict) -> None:
        """A CT ban another server of the network made (through MQTT)."""
        for action in self.engine.import_ctban(ban):
            self.dispatch(action)
        self._save()

    # -- resync ------------------------------------------------------------------------------

    def request_resync(self) -> None:
        if self._resync_task is None or self._resync_task.done():
            self._resync_task = asyncio.get_running_loop().create_task(self.resync())

    async def resync(self) -> bool:
        """Ask the shim for the truth (`jb_status`) and reconcile players, teams, warden."""
        for _ in range(50):
            try:
                reply = await self.client.command("jb_status")
                status = json.loads(reply)
            except RconUnavailable:
                await asyncio.sleep(0.2)
                continue
            except ValueError:
                log.warning("jb_status answered something that is not JSON: %.80r", reply)
                return False
            for action in self.engine.apply_status(status):
                self.dispatch(action)
            self._save()
            return True
        return False

    # -- lifetime ----------------------------------------------------------------------------

    async def _watch_config(self) -> None:
        """A valid edit of the config file takes effect at once; an invalid one is refused
        with the key and line, and the running config stays."""
        path = Path(self.config_path)  # type: ignore[arg-type]
        seen = path.stat().st_mtime_ns if path.exists() else 0
        while True:
            await asyncio.sleep(self.watch_interval)
            try:
                mtime = path.stat().st_mtime_ns
            except OSError:
                continue
            if mtime == seen:
                continue
            seen = mtime
            try:
                new = Config.from_toml(path)
            except ConfigError as exc:
                note = f"config {path} refused, the running config stays: " + "; ".join(exc.problems)
                log.error("%s", note)
                self.reloads.append(note)
                continue
            except OSError as exc:
                log.error("config %s cannot be read: %s", path, exc)
                continue
            fixed = [k for k in ("rcon_host", "rcon_port", "log_listen", "log_file", "state_path", "mqtt_url", "server_name")
                     if getattr(new, k) != getattr(self.config, k)]
            if fixed:
                log.warning("config %s: %s take effect only after a restart", path, ", ".join(fixed))
            changed = sorted(k for k in new.rules if new.rules[k] != self.config.rules.get(k))
            self.config = new
            self.engine.reconfigure(new)
            self.udp.secret = new.log_secret
            self.udp.allow = AllowList(new.log_allow)
            note = f"config {path} reloaded: mode {new.mode}, language {new.language}; rules changed: {', '.join(changed) or 'none'}"
            log.info("%s", note)
            self.reloads.append(note)

    async def _flusher(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            if self._dirty:
                self._save()

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                loop.add_signal_handler(sig, self.stopping.set)
            except (NotImplementedError, RuntimeError, ValueError):
                pass
        transport = None
        tasks = []
        try:
            if self.config.log_file:
                tasks.append(loop.create_task(follow_file(self.config.log_file, self.feed)))
            else:
                transport, self.log_port = await listen_udp(self.config.log_listen, self.udp)
            tasks += [loop.create_task(self.outbox.run()), loop.create_task(self._flusher())]
            if self.mqtt is not None:
                tasks.append(loop.create_task(self.mqtt.run()))
            if self.config_path:
                tasks.append(loop.create_task(self._watch_config()))
            self.request_resync()
            self.ready.set()
            await self.stopping.wait()
        finally:
            for task in [*tasks, self._resync_task]:
                if task is not None:
                    task.cancel()
            await asyncio.gather(*(t for t in [*tasks, self._resync_task] if t is not None), return_exceptions=True)
            if transport is not None:
                transport.close()
            self._save()
            await self.client.close()
            for sig in (signal.SIGTERM, signal.SIGINT):
                try:
                    loop.remove_signal_handler(sig)
                except (NotImplementedError, RuntimeError, ValueError):
                    pass

    def stop(self) -> None:
        self.stopping.set()


def main_run(config: Config, config_path: str | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    daemon = Daemon(config, config_path=config_path)
    log.info("jailcore %s: log %s, RCON %s:%s, state %s, mode %s", config.server_name,
             config.log_file or config.log_listen, config.rcon_host, config.rcon_port, config.state_path, config.mode)
    try:
        asyncio.run(daemon.run())
    finally:
        daemon.store.close()
    return 0
