"""The notifier of a `jailcore run` process: what needs an admin goes to Discord, Telegram and a
plain webhook (protocol section 4), beside the enforcement, never in its way.

Three parts, each its own task, none on the enforcement's path:

- the watcher (one per state database, in a worker thread every `WATCH` seconds) reads what
  the daemons of this process wrote after its mark: proposals, bans and CT bans given or
  lifted (the audit log, by place), appeals filed on the web page (which it also tells the
  admins online, through the daemon's in-game feed). Each becomes one queued message per sink
  that hears it, written with the mark that found it in one transaction (store/notices.py):
  a restart or a network cut loses none and queues none twice;
- the probes (on the loop, each second) look at each daemon itself: its RCON link or its log
  silent longer than `[notify] silence`, and back; datagrams or network messages refused in a
  burst (`[notify] drops` in a minute); and at the end, a daemon stopped, with why and the
  last thing it logged;
- a sender per sink and database takes what waits (under a lease, so two processes with one
  sink never send one message twice), waits a moment for the rest of a burst, packs it into as
  few requests as the API's limits allow (io/notify/text.py), posts it with bounded timeouts
  (io/notify/post.py) and marks it sent. A 429 is waited out as the sink asks; a sink that fails
  is tried again after 1, 2, 4... up to 60 seconds, its messages kept, its failures written
  where `jailcore status` and the web page read them.

A crash between a sink's answer and the mark sends that message again at the next start: at
least once, a duplicate rather than a loss, in a window of one database write.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import secrets
import socket
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import attrs
import httpx

from jailcore.config.config import Config
from jailcore.config.notifyconfig import Sink, sinks_of
from jailcore.io.notify.post import Answer, post
from jailcore.io.notify.text import excerpt, plain_request, requests_for
from jailcore.session import inputs as si
from jailcore.store import DATABASE_ERRORS, Appeals, Db, Notices

if TYPE_CHECKING:
    from jailcore.io.daemon import Daemon

log = logging.getLogger("jailcore")
T = TypeVar("T")
logging.getLogger("httpx").setLevel(logging.WARNING)  # its INFO line names each request's URL: a webhook's or a bot's token
WATCH = 0.25  # seconds between two looks at a database for what to notify
UNHEARD = 30.0  # seconds between two moves of the audit places of a process with no sink
LINGER = 0.3  # seconds a sender waits after news, so that a burst leaves as one message
POLL = 2.0  # seconds between a sender's looks without news (messages queued by another process)
LEASE = 120.0  # seconds a sender holds what it took (its requests time out well before)
BACKOFF = (1.0, 60.0)  # a failing sink is tried again after 1, 2, 4... seconds, up to 60
TAKE = 100  # messages taken at a time
DROPS_WINDOW = 60.0
STOP_FLUSH = 5.0  # seconds the last messages (the stop itself) are given at a clean stop
PRUNE_EVERY = 3600.0  # seconds between two prunings of the messages sent more than KEEP_DAYS ago
WATCHED = ("propose", "ban", "ctban", "unban", "unctban")
NOT_GIVEN = ("observed", "advised", "dropped")  # a decision the game never got: no one is told of it
KINDS = {"propose": "proposal", "ban": "ban", "unban": "ban", "ctban": "ctban", "unctban": "ctban"}
FEED = {"ru": "[jailcore] обжалование #{id}: {name} ({what} #{action}) — jailcore appeals grant|uphold {id}",
        "en": "[jailcore] appeal #{id}: {name} ({what} #{action}) — jailcore appeals grant|uphold {id}"}


def wall() -> str:
    return datetime.now().isoformat(timespec="seconds")


class LastWords(logging.Handler):
    """The last warning or error this process logged: what a `stopped` message quotes."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.last = ""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.last = record.getMessage()[:300]
        except Exception:  # a record that cannot be formatted says nothing
            pass


# -- the watcher ------------------------------------------------------------------------------------


class Watch:
    """One state database: its new rows of this process's servers, as queued messages."""

    def __init__(self, where: str, sinks: Sequence[Sink]):
        self.where = where
        self.db = Db(where)
        self.notices, self.appeals = Notices(self.db), Appeals(self.db)
        self.sinks = list(sinks)
        self.marks: dict[str, int] = {}
        self.examined: dict[str, int] = {}  # audit place / appeal id read up to, this run
        self._unheard_at = float("-inf")  # with no sink: when the servers' audit places move to the newest next

    def close(self) -> None:
        self.db.close()

    def _mark(self, name: str, start: Callable[[], int]) -> int:
        if name not in self.marks:
            found = self.notices.mark(name)
            if found is None:  # a server seen for the first time: from now on, not its past
                found = start()
                self.notices.set_mark(name, found)
            self.marks[name] = found
        return self.marks[name]

    def once(self, configs: dict[str, Config], extra: Sequence[dict[str, Any]] = ()) -> tuple[int, list[tuple[str, str]]]:
        """One look: the messages queued (with `extra`, events the probes made), and the words
        for each server's admins online (server, text)."""
        if not configs and not extra:
            return 0, []
        audit = {s: self._mark(f"audit:{s}", self.notices.newest_place) for s in configs}
        appeal = {s: self._mark(f"appeal:{s}", self.appeals.newest_id) for s in configs}
        events: list[dict[str, Any]] = list(extra)
        moved: dict[str, int] = {}
        said: list[tuple[str, str]] = []
        if configs:
            if self.sinks:
                events += self._decisions(configs, audit, moved)
            else:
                self._unheard(audit, moved)
            low = max(min(appeal.values()), self.examined.get("appeal", 0))
            for row in self.appeals.after(low):
                server, number = row["server"], int(row["id"])
                self.examined["appeal"] = max(self.examined.get("appeal", 0), number)
                if server not in configs or number <= appeal[server]:
                    continue
                appeal[server] = moved[f"appeal:{server}"] = number
                event = self._appeal(row, configs[server])
                events.append(event)
                lang = configs[server].language
                said.append((server, FEED.get(lang, FEED["ru"]).format(id=number, name=event["name"] or "?", what=row["action"],
                                                                        action=row["action_id"])))
        items = [(sink.key, str(e.get("server") or ""), str(e["kind"]), str(e.get("time") or wall()), e)
                 for e in events for sink in self.sinks if _hears(sink, e)]
        if items or moved:
            with self.db.transaction():
                self.notices.put(items)
                for name, upto in moved.items():
                    self.notices.set_mark(name, upto)
            self.marks.update(moved)
        return len(items), said

    def _decisions(self, configs: dict[str, Config], audit: dict[str, int], moved: dict[str, int]) -> list[dict[str, Any]]:
        """The decisions given since each server's place, as events for the sinks; the places moved past them."""
        events = []
        low = max(min(audit.values()), self.examined.get("audit", 0))
        for row in self.notices.decisions_after(low, WATCHED):
            server, seq = row["server"], int(row["seq"])
            self.examined["audit"] = max(self.examined.get("audit", 0), seq)
            if server not in configs or seq <= audit[server]:
                continue
            audit[server] = moved[f"audit:{server}"] = seq
            if row["status"] not in NOT_GIVEN:
                events.append(self._decision(row, configs[server]))
        return events

    def _unheard(self, audit: dict[str, int], moved: dict[str, int]) -> None:
        """No sink hears a decision: none is read (a busy network writes hundreds a second, looked at four times a
        second), and the servers' places move to the newest every `UNHEARD` seconds, so that a sink set up later
        starts near its start, not in the past. The appeals are read all the same: the admins online hear them."""
        now = time.monotonic()
        if now < self._unheard_at:
            return
        self._unheard_at = now + UNHEARD
        newest = self.notices.newest_place()
        for server, place in audit.items():
            if place < newest:
                audit[server] = moved[f"audit:{server}"] = newest

    def _decision(self, row: dict[str, Any], config: Config) -> dict[str, Any]:
        try:
            detail = json.loads(row["detail"] or "{}")
        except ValueError:
            detail = {}
        kind = KINDS[row["action"]]
        event = {"kind": kind, "id": int(row["id"]), "server": row["server"], "time": row["time"], "round": row["round"],
                 "rule": row["rule"], "ref": row["ref"], "reason": row["reason"], "name": row["name"], "steamid": row["steamid"],
                 "lift": row["action"].startswith("un"), "minutes": detail.get("minutes"), "rounds": detail.get("rounds"),
                 "by": detail.get("by")}
        public = config.web.public_url
        if kind == "proposal":
            event["step"] = detail.get("step") or ""
            upto: list[str] = []
            for line in self.notices.round_lines(row["server"], int(row["round"])):
                upto.append(line["line"])
                if int(line["audit"]) >= int(row["id"]):
                    break  # the line that made it: the story stops there
            event["excerpt"] = excerpt(upto)
            if public:
                event["link"] = f"{public}/proposals"
        elif public:
            event["link"] = f"{public}/story?server={_q(row['server'])}&id={int(row['id'])}"
        return event

    def _appeal(self, row: dict[str, Any], config: Config) -> dict[str, Any]:
        entry = self.notices.clause(int(row["action_id"])) or {}
        event = {"kind": "appeal", "id": int(row["id"]), "server": row["server"], "time": row["time"], "action": row["action"],
                 "action_id": int(row["action_id"]), "name": row["name"], "steamid": row["steamid"], "text": row["text"][:600],
                 "ref": entry.get("ref") or "", "reason": entry.get("reason") or ""}
        if config.web.public_url:
            event["link"] = f"{config.web.public_url}/appeals#a{int(row['id'])}"
        return event


def _hears(sink: Sink, event: dict[str, Any]) -> bool:
    """Whether the sink hears this event: of its kinds, and of its servers (a shared log port's
    event, of any server on that port)."""
    if "servers" in event and event.get("port"):
        return any(sink.hears(str(event["kind"]), str(s)) for s in event["servers"]) or not event["servers"]
    return sink.hears(str(event["kind"]), str(event.get("server") or ""))


def _q(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="")


# -- the probes -----------------------------------------------------------------------------------


@attrs.define
class Burst:
    """Refusals counted over the last minute (a daemon's, or a log port's that several servers
    share), to say a burst once a minute."""

    seen: deque[tuple[float, int]] = attrs.Factory(deque)
    said: float = float("-inf")

    def check(self, now: float, total: int, threshold: int) -> int | None:
        """How many were refused in the last minute, when that is a burst to say now. The count
        starts at 0 with its process (or its port, or its server): the first look may come
        after the first refusals."""
        if not self.seen:
            self.seen.append((now, 0))
        self.seen.append((now, total))
        while self.seen and now - self.seen[0][0] > DROPS_WINDOW:
            self.seen.popleft()
        burst = total - self.seen[0][1]
        if burst >= threshold and now - self.said >= DROPS_WINDOW:
            self.said = now
            return burst
        return None


@attrs.define
class Probe:
    """What one daemon's link and edge looked like, to tell a change once."""

    started: float
    rcon_down: float | None = None
    rcon_said: bool = False
    log_said: bool = False
    drops: Burst = attrs.Factory(Burst)


def _refused(daemon: Daemon) -> tuple[int, str]:
    from jailcore.io.tasks import dropped

    total = sum(daemon.udp.dropped.values()) + (daemon.mqtt.refused.total if daemon.mqtt is not None else 0)
    return total, dropped(daemon.udp, daemon.mqtt)


def probe(daemon: Daemon, p: Probe, now: float) -> list[dict[str, Any]]:
    """The `link` and `drops` events of one daemon at this moment (`now`, the loop's clock)."""
    config = daemon.session.config
    silence, out = config.notify.silence, []
    base = {"server": daemon.server, "time": wall()}
    if daemon.client.is_open:
        if p.rcon_said and p.rcon_down is not None:
            out.append({**base, "kind": "link", "what": "rcon", "state": "back", "seconds": int(now - p.rcon_down)})
        p.rcon_down, p.rcon_said = None, False
    else:
        p.rcon_down = p.rcon_down if p.rcon_down is not None else now
        if not p.rcon_said and now - p.rcon_down >= silence:
            p.rcon_said = True
            out.append({**base, "kind": "link", "what": "rcon", "state": "silent", "seconds": int(now - p.rcon_down),
                        "reason": daemon.client.state})
    line_at = daemon.session.line_at
    quiet = now - (line_at if line_at is not None else p.started)
    if quiet >= silence and not p.log_said:
        p.log_said = True
        out.append({**base, "kind": "link", "what": "log", "state": "silent", "seconds": int(quiet)})
    elif quiet < silence and p.log_said:
        p.log_said = False
        out.append({**base, "kind": "link", "what": "log", "state": "back", "seconds": int(quiet)})
    total, summary = _refused(daemon)
    burst = p.drops.check(now, total, config.notify.drops)
    if burst is not None:
        out.append({**base, "kind": "drops", "count": burst, "summary": summary})
    return out


# A log port several servers share (a fleet's, or a worker's parent's): the datagrams no server
# on it took, by cause, and the servers on it.
Ports = Callable[[], dict[str, tuple[Counter[str], "Sequence[Daemon]"]]]


def port_probe(listen: str, dropped: Counter[str], daemons: Sequence[Daemon], burst: Burst, now: float) -> dict[str, Any] | None:
    """The `drops` event of a shared log port at this moment: its datagrams no server took
    (no server's sv_logsecret or allow list fits them) are no one server's to count."""
    serving = [d for d in daemons if not d.stopping.is_set()]
    if not serving:
        return None
    threshold = min(d.config.notify.drops for d in serving)
    count = burst.check(now, sum(dropped.values()), threshold)
    if count is None:
        return None
    summary = ", ".join(f"{why} {n}" for why, n in sorted(dropped.items()) if n)
    return {"kind": "drops", "server": "", "port": listen, "time": wall(), "count": count, "summary": summary,
            "servers": [d.server for d in serving], "where": serving[0].config.state_where}


# -- who holds what -------------------------------------------------------------------------------


def _namespace() -> str:
    """This machine's boot and this process's pid namespace: two holders with the same of these
    (and host) number their processes alike, so one's pid says whether the other lives."""
    parts = []
    for path in ("/proc/sys/kernel/random/boot_id", "/proc/self/ns/pid"):
        try:
            parts.append(os.readlink(path) if path.startswith("/proc/self") else Path(path).read_text().strip())
        except OSError:
            parts.append("?")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:8]


def holder_name() -> str:
    """This process as a holder of messages: host, namespace, pid, and a random part."""
    host = socket.gethostname()[:24].replace(":", "_")
    return f"{host}:{_namespace()}:{os.getpid()}:{secrets.token_hex(4)}"


def gone(holder: str, me: str) -> bool:
    """Whether a holder is a process of this machine (and pid namespace) that no longer runs: a
    sender killed (-9, a crash) while it held messages, whose lease would keep them for minutes."""
    theirs, mine = holder.split(":"), me.split(":")
    if len(theirs) != 4 or theirs[:2] != mine[:2] or not theirs[2].isdigit() or holder == me:
        return False
    pid = int(theirs[2])
    if pid == os.getpid():
        return False  # another notifier of this very process (a test's): alive
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # there, another user's
        return False
    return False


def free_the_dead(notices: Notices, me: str) -> int:
    """The messages held by senders of this machine that died: waiting again, now."""
    return sum(notices.let_go(h) for h in notices.holders() if gone(h, me))


# -- the notifier ----------------------------------------------------------------------------------


class Notifier:
    def __init__(self, configs: Sequence[Config], holder: str | None = None, ports: Ports | None = None):
        self.sinks = sinks_of(configs)
        self.holder = holder or holder_name()
        self.ports = ports
        self.port_bursts: dict[str, Burst] = {}
        self.watches: dict[str, Watch] = {}
        self.probes: dict[str, Probe] = {}
        self.pending: list[dict[str, Any]] = []  # events the probes made, for the next look
        self.wakes: list[asyncio.Event] = []
        self.failures: dict[str, int] = {}
        self.last_words = LastWords()
        self.told: set[str] = set()  # servers whose stop was said
        self._tasks: list[asyncio.Task[Any]] = []
        self._client: httpx.AsyncClient | None = None

    # -- lifetime ---------------------------------------------------------------------------------

    async def start(self, daemons: Callable[[], Sequence[Daemon]]) -> None:
        self.daemons = daemons
        logging.getLogger().addHandler(self.last_words)
        self._client = httpx.AsyncClient(follow_redirects=False)
        self._tasks.append(asyncio.create_task(self._watch_loop(), name="notifications: watch"))
        self._tasks.append(asyncio.create_task(self._probe_loop(), name="notifications: probes"))

    def _databases(self) -> dict[str, dict[str, Config]]:
        out: dict[str, dict[str, Config]] = {}
        for d in self.daemons():
            where = d.config.state_where
            if where != ":memory:" and not d.stopping.is_set():
                out.setdefault(where, {})[d.server] = d.config
        return out

    async def _watch(self, where: str) -> Watch | None:
        if where not in self.watches:
            try:
                self.watches[where] = await asyncio.to_thread(Watch, where, self.sinks)
            except DATABASE_ERRORS as exc:
                log.warning("notifications: %s cannot be read yet (%s); tried again", where, exc)
                return None
            freed = await self._db(free_the_dead, self.watches[where].notices, self.holder)
            if freed:
                log.info("notifications: %d message(s) a stopped process held wait again", freed)
            for sink in self.sinks:
                wake = asyncio.Event()
                self.wakes.append(wake)
                self._tasks.append(asyncio.create_task(self._send_loop(sink, self.watches[where], wake), name=f"notifications: {sink.shown}"))
        return self.watches[where]

    async def look(self) -> None:
        """One look at every database: what is new is queued, the admins online told of appeals."""
        databases = self._databases()
        extra, self.pending = self.pending, []
        # ... and the database of a server that stopped at its start (a refused log port) before it opened it: its stop is said there
        for where in dict.fromkeys([*databases, *self.watches, *(str(e["where"]) for e in extra if e.get("where"))]):
            mine = [e for e in extra if e.get("where") == where]
            watch = await self._watch(where)
            if watch is None:
                self.pending += mine
                continue
            try:
                queued, said = await asyncio.to_thread(watch.once, databases.get(where, {}), [{k: v for k, v in e.items() if k != "where"}
                                                                                             for e in mine])
            except DATABASE_ERRORS as exc:
                self.pending += mine  # the database away: tried again at the next look
                log.debug("notifications: %s: %s", where, exc)
                continue
            if queued:
                for wake in self.wakes:
                    wake.set()
            by_name = {d.server: d for d in self.daemons()}
            for server, text in said:
                daemon = by_name.get(server)
                if daemon is not None and not daemon.stopping.is_set():
                    daemon.inbox.put(si.TellAdmins(text))

    async def _watch_loop(self) -> None:
        loop = asyncio.get_running_loop()
        pruned: dict[str, float] = {}
        while True:
            await self.look()
            for where, watch in list(self.watches.items()):  # at its first look, then hourly: the sent kept two weeks, not for ever
                if loop.time() - pruned.get(where, float("-inf")) >= PRUNE_EVERY:
                    pruned[where] = loop.time()
                    await self._db(watch.notices.prune)
            await asyncio.sleep(WATCH)

    async def _probe_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            now = loop.time()
            for d in self.daemons():
                if d.stopping.is_set() and d.stop_reason is not None:  # one server of a fleet stopped alone: said now
                    self.stopped(d.server, d.config.state_where, d.stop_reason)
                if d.stopping.is_set() or not d.ready.is_set():
                    continue
                p = self.probes.setdefault(d.server, Probe(now))
                for event in probe(d, p, now):
                    self.pending.append({**event, "where": d.config.state_where})
            for listen, (dropped, on_it) in (self.ports() if self.ports is not None else {}).items():
                burst = port_probe(listen, dropped, on_it, self.port_bursts.setdefault(listen, Burst()), now)
                if burst is not None:
                    self.pending.append(burst)
            await asyncio.sleep(1.0)

    def stopped(self, server: str, where: str, reason: str, last: str = "") -> None:
        """A server that stopped or could not start: said at the next look (and at `close`)."""
        if server in self.told:
            return
        self.told.add(server)
        self.pending.append({"kind": "stopped", "server": server, "time": wall(), "reason": reason[:300],
                             "last_line": last or self.last_words.last, "where": where})

    async def close(self, flush: float = STOP_FLUSH) -> None:
        """The stops said, the last messages given `flush` seconds, then every task ended."""
        try:
            for d in self.daemons():
                self.stopped(d.server, d.config.state_where, d.stop_reason or "stopped (asked to stop: SIGTERM or Ctrl-C)")
            await self.look()
            loop = asyncio.get_running_loop()
            end = loop.time() + flush
            while loop.time() < end and self.sinks:
                waiting = 0
                for watch in self.watches.values():
                    try:
                        waiting += sum([await asyncio.to_thread(watch.notices.waiting, s.key) for s in self.sinks])
                    except DATABASE_ERRORS:
                        pass
                if not waiting:
                    break
                for wake in self.wakes:
                    wake.set()
                await asyncio.sleep(0.1)
        finally:
            for task in self._tasks:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            if self._client is not None:
                await self._client.aclose()
            for watch in self.watches.values():
                await self._db(watch.notices.let_go, self.holder)  # what a sender held when it was stopped: the next start's at once
                await asyncio.to_thread(watch.close)
            logging.getLogger().removeHandler(self.last_words)

    # -- the senders ----------------------------------------------------------------------------------

    async def _send_loop(self, sink: Sink, watch: Watch, wake: asyncio.Event) -> None:
        queue, delay = watch.notices, 0.0
        while True:
            try:
                rows = await asyncio.to_thread(queue.take, sink.key, self.holder, LEASE, TAKE)
            except DATABASE_ERRORS as exc:
                log.debug("notifications: %s: %s", watch.where, exc)
                rows = []
            if not rows:
                wake.clear()
                try:
                    await asyncio.wait_for(wake.wait(), POLL)
                    await asyncio.sleep(LINGER)  # the rest of a burst
                except TimeoutError:
                    pass
                continue
            ok = await self._deliver(sink, queue, rows)
            if ok:
                delay = 0.0
                continue
            delay = min(max(delay * 2, BACKOFF[0]), BACKOFF[1])
            await asyncio.sleep(delay)

    async def _deliver(self, sink: Sink, queue: Notices, rows: list[dict[str, Any]]) -> bool:
        """These rows to the sink, message by message; False when the sink failed (what was
        not sent waits again)."""
        requests = requests_for(sink, [(int(r["id"]), r["body"]) for r in rows])
        for n, (ids, body) in enumerate(requests):
            answer = await self._send(sink, queue, ids, body)
            if answer is None:
                continue  # another sender took these as this one's lease ran out: they are its now
            if answer.outcome == "failed":
                rest = [i for ids_, _ in requests[n:] for i in ids_]
                await self._db(queue.release, rest, self.holder)
                failures = await self._db(queue.failed, sink.key, sink.shown, answer.said)
                self.failures[sink.key] = failures or self.failures.get(sink.key, 0) + 1
                if self.failures[sink.key] in (1, 3) or self.failures[sink.key] % 50 == 0:
                    log.warning("notifications: %s failed (%s); %d message(s) wait, tried again", sink.shown, answer.said, len(rest))
                return False
            said = answer.said if answer.outcome == "sent" else f"refused: {answer.said}"
            if answer.outcome == "refused":
                log.warning("notifications: %s refused a message (%s); it is not sent again", sink.shown, answer.said)
            await self._db(queue.sent, ids, said, self.holder)
            if self.failures.get(sink.key, 1):
                await self._db(queue.went, sink.key, sink.shown)
                self.failures[sink.key] = 0
        return True

    async def _send(self, sink: Sink, queue: Notices, ids: list[int], body: dict[str, Any]) -> Answer | None:
        """One message: its lease taken afresh before each try (a 429 is waited out as long as
        the sink asks, past the lease), and a Telegram message its API cannot parse sent again as
        plain text, rather than lost. None when another sender holds it now."""
        assert self._client is not None
        tries = [body, plain_request(body)] if sink.kind == "telegram" and body.get("parse_mode") else [body]
        first: Answer | None = None
        for attempt in tries:
            while True:
                held = await self._db(queue.hold, ids, self.holder, LEASE)
                if held is not None and held < len(ids):
                    return None
                answer = await post(self._client, sink, attempt)
                if answer.outcome != "wait":
                    break
                await asyncio.sleep(answer.retry_after)
            if answer.outcome != "refused":
                break
            first = first or answer
        if first is not None and answer.outcome == "sent":
            log.warning("notifications: %s could not read a message's markup (%s); it was sent as plain text", sink.shown, first.said)
            return attrs.evolve(answer, said=f"{answer.said} (as plain text; with markup: {first.said})"[:300])
        return answer

    async def _db(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return await asyncio.to_thread(fn, *args)
        except DATABASE_ERRORS as exc:
            log.debug("notifications: %s", exc)
            return None


async def alongside(daemons: Callable[[], Sequence[Daemon]], main: Awaitable[T], refused: Callable[[], dict[str, str]] | None = None,
                    ports: Ports | None = None) -> T:
    """`main` (a daemon's or a fleet's run) with the process's notifier beside it (and the log
    ports its servers share, `ports`); at its end the stops are said and given a few seconds to leave."""
    configs = [d.config for d in daemons()]
    notifier = Notifier(configs, ports=ports)
    await notifier.start(daemons)
    if refused is not None and configs:  # a config the fleet refused: that server could not start
        for path, why in refused().items():
            notifier.stopped(os.path.basename(path).removesuffix(".toml"), configs[0].state_where, f"{path}: {why}")
    try:
        return await main
    finally:
        await notifier.close()


def say_now(config: Config, kind: str, body: dict[str, Any], timeout: float = 5.0) -> list[tuple[Sink, Answer]]:
    """One message to each of the config's sinks now, without the queue (`jailcore notify test`,
    a daemon that could not even open its database): each sink's answer."""

    async def send() -> list[tuple[Sink, Answer]]:
        event = {"kind": kind, "server": config.server_name, "time": wall(), **body}
        out = []
        async with httpx.AsyncClient() as client:
            for sink in config.notify.sinks:
                for _, request in requests_for(sink, [(0, event)]):
                    out.append((sink, await post(client, sink, request, deadline=timeout)))
        return out

    return asyncio.run(send())
