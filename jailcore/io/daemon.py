"""The daemon: the thin loop around the engine.

bytes (UDP or file) -> `LogParser` -> events -> `Engine` -> actions -> audit log and
outbox in SQLite -> `render` -> RCON. The engine decides; this module only moves data and
keeps it durable: every action is written before its command is sent and committed in the
same step, each command carries its audit row id (` @<id>`) so the shim runs it once
however often it arrives (ids skip ahead at each start, so the id of a row whose commit a
crash lost is never given to another command), and the engine's state is saved on a short timer whenever it changed, and on
SIGTERM.

A command has a moment: one for a round (slay, warn, teamswap, money, respawn, say, the
display line, a cancelled prohibition) expires when that round ends; every targeted one
expires when its player has left. An expired command is never sent late: its audit row
says `expired`.

Nothing fails in silence: each background task runs under a supervisor that logs why it
failed and restarts it, or stops the daemon (exit 1, one line) when it keeps failing; a
state database that cannot be written stops the daemon the same way, because commands
sent without their audit rows could neither be counted once nor re-sent after a restart.

Modes (per server): `enforce` sends every command; `advise` turns each punishment into a
warning that says what would have been done; `observe` sends nothing and only logs.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import sqlite3
import sys
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from jailcore.config.config import Config, ConfigError
from jailcore.engine.actions import Action, AuditStatus, clean_text, kinds_that, render, with_id
from jailcore.engine.actions import kind_name as step_name
from jailcore.engine.engine import Engine
from jailcore.engine.rules.specialday import SpecialDayCooldown
from jailcore.io import wake
from jailcore.io.answers import KINDS as PROPOSALS
from jailcore.io.lock import LockedError, StateLock
from jailcore.io.logsource import AllowList, UdpLog, follow_file, listen_udp
from jailcore.io.mqtt import CTBANS, MqttLink
from jailcore.io.rcon import Item, Outbox, RconClient, RconUnavailable
from jailcore.io.requests import Requests
from jailcore.io.supervisor import Supervisor
from jailcore.log import events as ev
from jailcore.log import inbound, shapes
from jailcore.log.errors import LimitError
from jailcore.log.parse import LogParser
from jailcore.store.sqlite import SENT, Store, StoreError

log = logging.getLogger("jailcore")

_ADVISORY = kinds_that("advisory")
_RECORDED = kinds_that("audited")
# Commands for one round: sent late they would punish for another day's doing.
ROUND_BOUND = kinds_that("round")
_OFFLINE = kinds_that("offline")  # by steamid: whoever is online
LINK_HEARTBEAT = 5.0  # seconds between link rows while nothing changes: `status` reads their age
# Settings the running daemon cannot change; the RCON ones apply at once.
_RESTART_ONLY = ("log_listen", "log_file", "state_path", "mqtt_url", "server_name")


def really_given(status: str) -> bool:
    """A CT ban is shared with the network only where it was really given."""
    return status in ("pending", "delivered")


def saved_standing(engine: Engine, config: Config) -> dict:
    """The public state as `jailcore status` shows it, under this server's own config, with
    what `ctban list` and `history` read from it so that they load no rule: each ban's
    reason, giver and origin, and each ladder's steps."""
    state = engine.public_state()
    online = {seat.key for seat in engine.state.players.values()}
    bans = engine.state.ctbans
    for ban in state["ctbans"]:
        ban["online"] = ban["key"] in online
        kept = bans.get(ban["key"])
        if kept is not None:
            ban.update(reason=kept.reason, by=kept.by, origin=kept.origin)
    state["time"] = engine.state.time or None
    state["cooldown_rounds"] = cooldown_rounds(config)
    ladders = {key: getattr(rule, "ladder", None) for key, rule in config.rules.items() if rule.enabled}
    state["ladder_steps"] = {key: [str(step) for step in ladder] for key, ladder in ladders.items() if ladder}
    return state


def cooldown_rounds(config: Config) -> int | None:
    """The special-day cooldown this server's config sets, for `status` without its config."""
    rule = config.settings_of(SpecialDayCooldown)
    return rule.rounds if rule.enabled else None


class Daemon:
    def __init__(
        self,
        config: Config,
        store: Store | None = None,
        on_action: Callable[[Action, str | None, str], None] | None = None,
        rcon_backoff: tuple[float, float] = (0.5, 15.0),
        auth_backoff: float = 30.0,
        config_path: str | None = None,
        watch_interval: float = 1.0,
        save_interval: float = 0.5,
        checkpoint_interval: float = 1.0,
    ):
        self.config = config
        self.config_path = config_path
        self.watch_interval = watch_interval
        self.save_interval = save_interval
        self.checkpoint_interval = checkpoint_interval
        self.reloads: list[str] = []  # what each config change did, for admins and tests
        self.server = config.server_name
        self.store = store or Store(config.state_path)
        try:
            self.lock = StateLock(self.store.path, self.server)  # before anything is re-sent or written
        except (LockedError, OSError) as exc:
            raise StoreError(str(exc)) from None
        try:
            self.engine = Engine(config, self.store.load_state(self.server))
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise StoreError(f"state database {self.store.path}: the saved state of server {self.server!r} cannot be read "
                             f"({exc!r}); move the file away to start afresh") from None
        self.parser = LogParser(self._needed())  # lines no enabled rule reads are only counted
        self.requests = Requests(self)
        self.client = RconClient(config.rcon_host, config.rcon_port, config.rcon_password, config.rcon_timeout, rcon_backoff, auth_backoff)
        self.outbox = Outbox(self.client, on_result=self._answered, expired=self._expired, after_send=self._sent)
        self.udp = UdpLog(self.feed, config.log_secret, config.log_allow)
        self.on_action = on_action
        self.siblings: Callable[[dict], None] | None = None  # the other servers of this process, for CT bans
        self.phase = 0.0  # 0..1: where in each interval this server's timers fire (`_phased`)
        self.checkpoints = True  # False where another server of the process checkpoints the same file
        self.mqtt = MqttLink(config.mqtt_url, self.server, self.network_ctban, tls=dict(config.mqtt_tls), key=config.network_key,
                             max_age=config.network_max_age) if config.mqtt_url else None
        if self.mqtt is not None:
            self.mqtt.restore(self.store.kept_messages(self.server))  # what the broker never took before the last stop
        self.log_port = 0
        self.stopping = asyncio.Event()
        self.ready = asyncio.Event()
        self.exit_code = 0
        self.stop_reason: str | None = None
        self.task_failures: list[str] = []  # "name: why" per failure a supervisor caught
        self.restart_delay = 0.1  # doubled at each failure of the same task within a minute
        self._dirty = False
        self._saved = ""
        self._link: tuple[str, int, str | None, str] | None = None  # rcon, outbox, last line, mode
        self._link_written = 0.0  # monotonic time of the last link row
        self._stopped_said = False
        self._drops = ""
        self._commit_due = False
        self._resync_task: asyncio.Task | None = None
        self._tasks: Supervisor | None = None  # while serving
        self.store.skip_ids(1000)
        # Round ends this process has seen: a round-bound command expires once one passed.
        self.epoch = 0
        self._round = (self.engine.state.round, self.engine.state.round_open)
        for row in self.store.pending_rows(self.server):
            action = Action.from_json(json.loads(row["detail"]))
            why = self._not_allowed(action)
            if why is not None:  # the config in force no longer wants it sent
                self.store.mark(row["id"], "dropped", why)
                log.info("command #%s dropped: %s", row["id"], why)
                if self.mqtt is not None:
                    self.mqtt.publish(f"jailcore/{self.server}/actions",
                                      {"server": self.server, "id": row["id"], "status": "dropped", "reply": why, **action.to_json()})
                continue
            # After a restart only the round the engine stands in is still the same round.
            epoch = 0 if action.round == self.engine.state.round else -1
            self.outbox.put(row["id"], with_id(row["command"], row["id"]), meta=(action, epoch))
            if row["reply"] == SENT:  # sent by the last process, never answered
                self.outbox.last().sent_at = -1.0
        self.store.commit()

    # -- the data path -----------------------------------------------------------------------

    def _needed(self) -> frozenset[str]:
        return self.engine.needed_kinds() | {ev.PardonAsked.kind, ev.ConfirmAsked.kind, ev.DismissAsked.kind}

    def feed(self, record: bytes) -> None:
        """One log record in; whatever the engine decides goes to the outbox and out."""
        if self.stop_reason is not None:
            return  # stopping on a failure: decide nothing that could not be recorded
        event = self.parser.parse(record)
        if event is None:
            return
        if type(event) is ev.PardonAsked:
            self.requests.asked_in_game(event)
            return
        if isinstance(event, (ev.ConfirmAsked, ev.DismissAsked)):
            self.requests.answers.asked_in_game(event)
            return
        try:
            actions = self.engine.handle(event)
        except Exception:  # an engine bug on one line must not stop enforcement
            log.exception("the engine failed on %r; the line is skipped", record[:300])
            return
        self._dirty = True
        s = self.engine.state
        ended = self._round[1] and (not s.round_open or s.round != self._round[0])
        self._round = (s.round, s.round_open)
        if ended:
            self.epoch += 1
        self._carry_out(actions, sweep=ended)
        self.requests.after_event(event, actions)
        if event.time:  # kept for the web page's round story ([web] story_days); not the cheap `Noted` lines
            self.store.keep_line(self.server, self.engine.state.round, event.time, record, self.config.web.story_days)
        if self.engine.resync_wanted:
            self.request_resync()

    def _carry_out(self, actions: list[Action], sweep: bool = False) -> None:
        """Record the decisions, send them, commit them: in one go, no loop turn between, so
        a command never waits for the disk and its row is durable before anything else runs."""
        try:
            for action in actions:
                self.dispatch(action)
            if sweep:
                self.outbox.sweep()
            if actions or sweep:
                self.outbox.flush()
            self.store.commit()
        except sqlite3.Error as exc:
            self.store_failed(exc)
            return

    def dispatch(self, action: Action) -> None:
        if action.action in PROPOSALS:  # waits for an admin: nothing goes to the game
            self.requests.answers.decided(action)
            return
        try:
            command = render(action)
        except LimitError as exc:  # a template bug, not a player's text (texts are capped): this one is refused, the rest go on
            log.error("%s for %s not sent: %s", action.action, action.rule, exc)
            if action.action in _RECORDED:
                self.store.record(self.server, action, self.engine.day, None, "failed")
            return
        if action.action not in _RECORDED:  # what is shown, not decided: the display, the door's copy of a ban
            key = "hud" if action.action == "hud" else f"door:{action.target.userid if action.target else 0}"
            if self.config.mode != "observe" and command is not None:
                self.outbox.put(None, command, key=key, meta=(action, self.epoch))
            return
        mode = self.config.mode
        day = self.engine.day
        if mode == "observe" or command is None:
            status: AuditStatus = "observed" if mode == "observe" else "delivered"
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
        self.outbox.put(row_id, with_id(command, row_id), meta=(action, self.epoch))  # type: ignore[arg-type]
        self.requests.feed(action, row_id)

    def _sent(self, batch: list[Item]) -> None:
        """Right after a batch is written: its rows say they were sent (in the same commit, so
        the disk never delays a command), so a restart knows a row whose answer was lost."""
        self.store.mark_sent([item.tag for item in batch if item.tag is not None and not item.attempts])
        self.store.commit()

    def _not_allowed(self, action: Action) -> str | None:
        """Why the config in force would not send this command (decided under another one:
        before a restart or a live reload), or None."""
        mode = self.config.mode
        if mode == "observe":
            return "not sent: the server is in observe mode now"
        rule = self.config.rules.get(action.rule)
        if rule is not None and not rule.enabled:
            return f"not sent: rule {action.rule} is off (or gone) in the config now"
        if mode == "advise" and action.action not in _ADVISORY and action.rule in self.config.rules:
            return f"not sent: the server is in advise mode now ({action.action} would only be advised)"
        return None

    def _rejudge(self) -> None:
        """After a live reload: what waits to be sent is judged again under the new config."""
        def why(item: Item) -> str | None:
            if item.meta is None:
                return None
            if item.tag is None:  # the display line and the door's copies: nothing to send in observe mode
                return "observe" if self.config.mode == "observe" else None
            return self._not_allowed(item.meta[0])
        if self.outbox.drop(why):
            self._commit()

    def _expired(self, item: Item) -> str | None:
        """Why a command may no longer be sent, or None while it still makes sense."""
        if item.meta is None:
            return None  # a note to the admins online: late is still worth saying
        action, epoch = item.meta
        # Sent and unanswered (the server may have run it), or never sent: the row says which.
        sent = f"sent{' before the restart' if item.sent_at < 0 else ''}, its answer never came; " if item.sent_at else ""
        if action.action in ROUND_BOUND and self.epoch > epoch:
            return f"{sent}round {action.round} ended, so it is not sent again" if sent else f"round {action.round} ended before it could be sent"
        t = action.target
        if t is not None and action.action not in _OFFLINE:
            seat = self.engine.state.players.get(t.userid)
            if seat is None or seat.steamid != t.steamid:
                return f"{sent}{t.name} #{t.userid} is no longer on the server"
        return None

    def _tell(self, action: Action, command: str | None, status: AuditStatus, row_id: int) -> None:
        if self.on_action is not None:
            self.on_action(action, command, status)
        t = action.target
        if action.action == "ctban" and t is not None and really_given(status) and (self.mqtt is not None or self.siblings is not None):
            ban = self.engine.state.ctbans.get(ev.player_key(t.steamid, t.userid))
            if ban is not None:  # lifted meanwhile: nothing to share
                self.share_ctban({
                    "id": f"{self.server}:{row_id}", "origin": self.server, "steamid": t.steamid, "name": t.name,
                    "until": ban.until, "rounds": ban.rounds, "ref": action.ref, "reason": action.reason,
                })
        if self.mqtt is not None:
            self.mqtt.publish(f"jailcore/{self.server}/actions", {"server": self.server, "id": row_id, "status": status, **action.to_json()})
        who = f"{t.name} #{t.userid} {t.steamid}" if t else "everyone"
        log.info("%s %s [%s %s] %s: %s (%s)", action.time, action.action, action.rule, action.ref, who, action.reason, status)

    def _answered(self, item: Item, status: str, reply: str | None) -> None:
        if item.tag is None:
            return
        if status in ("expired", "dropped", "unanswered"):
            log.info("command #%s %s: %s", item.tag, status, reply)
        try:
            self.store.mark(int(item.tag), status, reply)
        except sqlite3.Error as exc:
            self.store_failed(exc)
            return
        if self.mqtt is not None and item.meta is not None:  # `tail -f --mqtt` shows the entry again, with its outcome
            self.mqtt.publish(f"jailcore/{self.server}/actions",
                              {"server": self.server, "id": item.tag, "status": status, "reply": reply, **item.meta[0].to_json()})
        if not self._commit_due:  # one commit for all the answers of one loop turn
            self._commit_due = True
            asyncio.get_running_loop().call_soon(self._commit)

    def _commit(self) -> None:
        self._commit_due = False
        try:
            self.store.commit()
        except sqlite3.Error as exc:
            self.store_failed(exc)

    def save(self, publish: bool = True) -> bool:
        """Write the engine's state if it changed since the last write (True if it did)."""
        self._dirty = False
        text = json.dumps(self.engine.snapshot(), ensure_ascii=False)
        if text == self._saved:
            return False
        self.store.save_standing(self.server, json.dumps(self._standing(), ensure_ascii=False), self.engine.state.time or "")
        self.store.save_state(self.server, text, self.engine.state.time or "")
        self._saved = text
        if publish and self.mqtt is not None:
            self.mqtt.publish_state(self._public())
        return True

    def _standing(self) -> dict:
        return saved_standing(self.engine, self.config)

    def _cooldown_rounds(self) -> int | None:
        return cooldown_rounds(self.config)

    def _public(self) -> dict:
        daemon = "stopped" if self._stopped_said else "running"
        link = dict(zip(("rcon", "outbox", "last_line", "mode"), self._link, strict=True)) if self._link else None
        if link is not None:
            link["daemon"] = daemon
            link["dropped"] = self._drops
            link["updated"] = datetime.now().isoformat(timespec="seconds")
        return {**self.engine.public_state(), "cooldown_rounds": self._cooldown_rounds(), "link": link}

    def share_ctban(self, ban: dict) -> None:
        """A CT ban given or lifted here, for the rest of the network: the servers of this
        process at once (`siblings`), the others through MQTT, ahead of everything queued."""
        if self.mqtt is not None:
            self.mqtt.publish(CTBANS, ban, urgent=True)
        if self.siblings is not None:
            self.siblings(ban)

    def network_ctban(self, ban: dict | inbound.NetworkBan | inbound.NetworkLift) -> None:
        """A CT ban another server of the network made or lifted (through MQTT, typed and
        checked there, or from a server of this process)."""
        message = inbound.ctban_message(ban, self.engine.refused, "network CT ban") if isinstance(ban, dict) else ban
        if isinstance(message, inbound.NetworkLift):
            self._carry_out(self.engine.lift_ctban(message.steamid, message.by, f"network ({message.origin})"))
        elif isinstance(message, inbound.NetworkBan):
            self._carry_out(self.engine.import_ctban(message))
        else:
            return
        self._dirty = True

    # -- failing loudly ----------------------------------------------------------------------

    def fail(self, reason: str) -> None:
        """Stop the daemon with exit status 1; `reason` is the one line an admin reads."""
        if self.stop_reason is None:
            self.stop_reason = reason
            self.exit_code = 1
            log.critical("jailcore stops: %s", reason)
        self.stopping.set()

    def store_failed(self, exc: BaseException) -> None:
        self.fail(f"the state database {self.store.path} cannot be written ({exc}); commands are not sent without "
                  "their audit rows. Free the disk or fix the file, then start jailcore again: what was not answered is re-sent")

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict) -> None:
        """Whatever escapes a callback (a datagram handler, a timer) is logged, never lost."""
        exc = context.get("exception")
        if isinstance(exc, sqlite3.Error):
            self.store_failed(exc)
            return
        self.task_failures.append(f"callback: {exc!r}" if exc else str(context.get("message")))
        log.error("unexpected error: %s", context.get("message"), exc_info=exc)

    # -- resync ------------------------------------------------------------------------------

    def request_resync(self) -> None:
        """Asked again once serving starts when it comes before (a reload at start)."""
        if self._tasks is not None and (self._resync_task is None or self._resync_task.done()):
            self._resync_task = self._tasks.once(self.resync(), "resync")

    async def resync(self) -> bool:
        """Ask the shim for the truth (`jb_status`) and reconcile players, teams, warden."""
        while True:
            try:
                reply = await self.client.command("jb_status")
                status = shapes.status_reply(reply, self.engine.refused_status)
                if status is None:
                    raise ValueError(reply)
            except RconUnavailable:
                if self.client.stopped:
                    return False  # SIGHUP or a config change asks again
                try:
                    async with asyncio.timeout(max(self.client.next_try() or 0.0, 0.1)):
                        await self.client.connected.wait()
                except TimeoutError:
                    pass
                continue
            except ValueError:
                log.warning("jb_status answered something that is not the shim's JSON: %.80r; the shim's jb_hello will ask again", reply)
                return False
            # The players as they are now, then their CT bans into the shim's hands: it
            # refuses a banned join to CT even while the daemon is away.
            self._carry_out(self.engine.apply_status(status) + self.engine.door(), sweep=True)
            self._note_drops()
            self._dirty = True
            return True

    # -- configuration -----------------------------------------------------------------------

    def reload(self, why: str = "changed") -> bool:
        """Apply the config file again, all of it or none of it; either way it is logged."""
        path = self.config_path
        if path is None:
            return False
        try:
            new = Config.from_toml(path)
            allow = AllowList(new.log_allow)
        except (ConfigError, ValueError, OSError) as exc:
            problems = exc.problems if isinstance(exc, ConfigError) else [f"{path}: {exc}"]
            note = f"config {path} refused, the running config stays: " + "; ".join(problems)
            log.error("%s", note)
            self.reloads.append(note)
            return False
        fixed = [k for k in _RESTART_ONLY if getattr(new, k) != getattr(self.config, k)]
        if fixed:
            log.warning("config %s: %s take effect only after a restart", path, ", ".join(fixed))
        changed = sorted(k for k in new.rules if new.rules[k] != self.config.rules.get(k))
        self.config = new
        self.engine.reconfigure(new)
        self.parser.need(self._needed())
        self.udp.secret, self.udp.allow = new.log_secret, allow
        self.client.rearm(new.rcon_host, new.rcon_port, new.rcon_password, new.rcon_timeout)
        self._rejudge()
        note = f"config {path} reloaded ({why}): mode {new.mode}, language {new.language}; rules changed: {', '.join(changed) or 'none'}"
        log.info("%s", note)
        self.reloads.append(note)
        self.request_resync()
        return True

    def hangup(self) -> None:
        """SIGHUP: read the config again and try the RCON password again."""
        log.info("SIGHUP: reloading the config and reopening RCON")
        if not self.reload("SIGHUP"):
            self.client.rearm()
        self.request_resync()

    async def _watch_config(self) -> None:
        """An edit of the config file takes effect at once, or is refused whole; whatever
        the file holds (any bytes), the watcher keeps watching."""
        path = Path(self.config_path)  # type: ignore[arg-type]
        seen = _signature(path)
        while True:
            await asyncio.sleep(self.watch_interval)
            now = _signature(path)
            if now != seen and now is not None:
                seen = now
                self.reload()

    # -- lifetime ----------------------------------------------------------------------------

    async def _saver(self) -> None:
        while True:
            await asyncio.sleep(self.save_interval)
            saved = self._dirty and self.save(publish=False)
            self.store.flush_lines()  # the round story's lines, even when the state did not change
            gone = self.store.still_there()  # deleted under us: every audit row would go at stop
            if gone:
                log.error("%s", gone)
            # One retained state a tick, whichever of the two changed: each is a public_state and a JSON of it.
            if (self._save_link() or saved) and self.mqtt is not None:
                self.mqtt.publish_state(self._public())

    def _save_link(self) -> bool:
        """How the daemon stands, for `jailcore status`, the web page and MQTT: RCON, outbox,
        last line; True when it changed (the state on MQTT is then due)."""
        link = (self.client.state, len(self.outbox), self.engine.state.time or None, self.config.mode)
        drops = ", ".join(filter(None, (self.udp.drops(), self.mqtt.refused.summary("mqtt ") if self.mqtt is not None else "")))
        now = time.monotonic()
        changed = link != self._link or drops != self._drops
        if changed or now - self._link_written >= LINK_HEARTBEAT:  # its age says the daemon lives
            if drops != self._drops:
                self._drops = drops
                self._note_drops()
            self._link, self._link_written = link, now
            self.store.save_link(self.server, *link, datetime.now().isoformat(timespec="seconds"), dropped=drops)
            self.store.commit()
        return changed

    def _phased(self, interval: float, job: Callable[[], Coroutine]) -> Callable[[], Coroutine]:
        """`job` started `phase` of its interval late: the timers of the servers of one
        process take turns instead of all firing in the same loop turn (a stall in which
        datagrams pile up)."""
        async def phased() -> None:
            if self.phase:
                await asyncio.sleep(interval * self.phase)
            await job()
        return phased

    def _note_drops(self) -> None:
        """The admins online read the drops in !jcstatus (the shim's `jb_note`; again after a reload of it)."""
        if self._drops:
            said = "отброшено датаграмм лога" if self.config.language == "ru" else "dropped log datagrams"
            self.outbox.put(None, f'jb_note "{clean_text(f"{said}: {self._drops}")}"', key="note")

    async def _goodbye(self) -> None:
        """A clean stop says so: the link row and the retained state read `stopped`, and a
        connected broker gets a moment to take what is queued."""
        self._stopped_said = True
        if self._link is None:
            self._link = (self.client.state, len(self.outbox), self.engine.state.time or None, self.config.mode)
        try:
            if self.stop_reason is None:
                self.save()
            self.store.save_link(self.server, *self._link, datetime.now().isoformat(timespec="seconds"), daemon="stopped",
                                 dropped=self._drops)
            self.store.commit()
        except sqlite3.Error as exc:
            log.error("the link could not be saved at stop: %s", exc)
        if self.mqtt is not None:
            self.mqtt.publish_state(self._public())
            await self.mqtt.drain(1.0)

    def _keep_mqtt(self) -> None:
        """What the broker has not taken is kept in the state database and published after
        the next start; said in one line, so nothing is dropped without a word."""
        if self.mqtt is None:
            return
        waiting = self.mqtt.waiting_messages()
        try:
            self.store.keep_messages(self.server, waiting)
        except sqlite3.Error as exc:
            log.error("%d MQTT message(s) the broker never took are lost: the state database cannot be written (%s)", len(waiting), exc)
            return
        if waiting:
            log.warning("%d MQTT message(s) the broker never took are kept in %s and published after the next start",
                        len(waiting), self.store.path)

    async def _checkpointer(self) -> None:
        loop = asyncio.get_running_loop()
        with ThreadPoolExecutor(1, thread_name_prefix="jailcore-checkpoint") as worker:
            while True:
                await asyncio.sleep(self.checkpoint_interval)
                await loop.run_in_executor(worker, self.store.checkpoint)

    async def run(self) -> None:
        """One server alone in its process: its signals and the loop's error handler, then `serve`."""
        async with process_hooks(self.stopping.set, self.hangup, self._loop_error):
            await self.serve()

    async def serve(self, listen: bool = True) -> None:
        """This server's part of a process, until `stopping`: the log in (its own UDP port
        unless `listen` is False and the caller routes its datagrams to `self.udp`), the
        background tasks under one supervisor, RCON; on the way out the tasks stop first,
        then the log, then the state is saved and RCON closed."""
        try:
            async with AsyncExitStack() as stack:
                stack.push_async_callback(self._at_stop)
                if self.config.log_file:
                    listen = False
                if listen:
                    try:
                        transport, self.log_port = await listen_udp(self.config.log_listen, self.udp)
                    except OSError as exc:
                        self.fail(f"cannot listen for the log on {self.config.log_listen}: {exc.strerror or exc}")
                        return
                    stack.callback(transport.close)
                woken = await wake.listen(self.store.path, self.server, self._woken)
                if woken is not None:
                    stack.callback(woken.close)
                tasks = self._tasks = await stack.enter_async_context(Supervisor(self))
                stack.callback(setattr, self, "_tasks", None)
                stack.push_async_callback(self._goodbye)  # first on the way out: the MQTT link still runs to drain
                if self.config.log_file:
                    tasks.keep("log file follower", lambda: follow_file(self.config.log_file, self.feed))
                tasks.keep("RCON outbox", self.outbox.run)
                tasks.keep("state saver", self._phased(self.save_interval, self._saver))
                if self.checkpoints:
                    tasks.keep("WAL checkpointer", self._phased(self.checkpoint_interval, self._checkpointer))
                tasks.keep("admin requests", self._phased(self.requests.interval, self.requests.run), essential=False)
                if self.mqtt is not None:
                    tasks.keep("MQTT link", self.mqtt.run, essential=False)
                if self.config_path:
                    tasks.keep("config watcher", self._phased(self.watch_interval, self._watch_config), essential=False)
                self._dirty = True  # the first saver tick shows this server to `status`, before any line
                self.request_resync()
                self.ready.set()
                await self.stopping.wait()
        finally:
            self.ready.set()

    def _woken(self) -> None:
        """An admin's command wrote a request and said so: apply it now, not at the next poll."""
        try:
            self.requests.apply()
        except sqlite3.Error as exc:
            self.store_failed(exc)
        except Exception:  # the poll tries again; a failure here is logged, never lost
            log.exception("admin requests failed on a wake-up")

    async def _at_stop(self) -> None:
        try:
            self.save()
            self.store.commit()
        except sqlite3.Error as exc:
            log.error("the state could not be saved at stop: %s", exc)
        self._keep_mqtt()
        await self.client.close()
        self.lock.release()

    def stop(self) -> None:
        self.stopping.set()


def _signature(path: Path) -> tuple | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


@asynccontextmanager
async def process_hooks(stop: Callable[[], None], hangup: Callable[[], None],
                        on_error: Callable[[asyncio.AbstractEventLoop, dict], None]) -> AsyncIterator[None]:
    """The process's signals (SIGTERM and SIGINT stop, SIGHUP reloads) and the loop's error
    handler for as long as the block runs; the ones before are put back after it."""
    loop = asyncio.get_running_loop()
    previous_handler = loop.get_exception_handler()
    loop.set_exception_handler(on_error)
    handlers = {signal.SIGTERM: stop, signal.SIGINT: stop, signal.SIGHUP: hangup}
    for sig, handler in handlers.items():
        try:
            loop.add_signal_handler(sig, handler)
        except (NotImplementedError, RuntimeError, ValueError):
            pass
    try:
        yield
    finally:
        for sig in handlers:
            try:
                loop.remove_signal_handler(sig)
            except (NotImplementedError, RuntimeError, ValueError):
                pass
        loop.set_exception_handler(previous_handler)


def run_loop(main: Coroutine) -> Any:
    """uvloop where it is installed (it halves the loop's own latency), asyncio otherwise."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)


def main_run(config: Config, config_path: str | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    try:
        store = Store(config.state_path)
    except StoreError as exc:
        print(f"jailcore run: {exc}", file=sys.stderr)
        return 1
    try:
        try:
            daemon = Daemon(config, store, config_path=config_path)
        except StoreError as exc:
            print(f"jailcore run: {exc}", file=sys.stderr)
            return 1
        except (OSError, ValueError, sqlite3.Error) as exc:  # an MQTT certificate that cannot be read, ...
            print(f"jailcore run: cannot start: {exc}", file=sys.stderr)
            return 1
        log.info("jailcore %s: log %s, RCON %s:%s, state %s, mode %s", config.server_name,
                 config.log_file or config.log_listen, config.rcon_host, config.rcon_port, config.state_path, config.mode)
        run_loop(daemon.run())
        return daemon.exit_code
    finally:
        try:
            store.close()
        except sqlite3.Error:
            pass
