"""What the page shows, read from the servers' state databases. No web framework here.

Each `[state] path` of the configs given is one `Source`; WAL lets the page read while the
daemons write. An enforcement is named by its server and its audit id (ids are per
database), and in the page by `e<source>-<id>`. Filters are `jailcore tail`'s.

Every function here may run in a worker thread (the page never reads on its event loop):
each thread reads through its own read-only connection. Every list is bounded: a page of
the log looks at no more than `SCAN` audit ids per database, however selective its filter
(the store's `window`: the id range, never an index that would visit every row of a
server), so a page costs the same at a thousand rows and at a million. No SQL here: every
query is the store's (`store.reader`).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypedDict, TypeVar

import attrs

from jailcore.config.config import Config
from jailcore.engine.engine import Engine
from jailcore.log.accounts import same_account
from jailcore.log.errors import ConfigError, StateError
from jailcore.log.events import player_key
from jailcore.log.logtime import moment
from jailcore.session.saver import standing as session_standing
from jailcore.store import (
    PARDONABLE,
    USERID,
    AuditLog,
    Filter,
    Row,
    StateStore,
    cooldown_of,
    daemon_word,
    done,
    is_url,
    open_reader,
    open_store,
    personal,
    refused_requests,
    requests_path,
    shown,
    standing,
)

T = TypeVar("T")
SCAN = 20_000  # audit ids one page of a list looks at, per database
PAGE = 100  # entries on one page of the live log
KEEP = 500  # entries a live view keeps; a stream never starts further back than this

# An enforcement as the page shows it: its audit row (store.reader's Row: a database driver
# gives no column types) with the page's own keys: src, dom, pardon, pardonable, step (a
# proposal's), moved (a CT ban's move to T), and on the bans page minutes, by, until, holds.
Entry = dict[str, Any]
DayCount = tuple[str, str, str, str, int]  # (day, rule, ref, server, punishments): store.reader's day_counts


class FoundPlayer(TypedDict):
    """One player the search found: his names (the newest first), the servers he was seen on and is on now."""

    key: str
    steamid: str
    name: str
    names: list[str]
    servers: set[str]
    count: int  # his entries in the log
    last: str  # the time of his newest entry
    online: set[str]


class PlayerRecord(TypedDict):
    """A player's page: his entries on every server, where he stands on each ladder, his CT bans."""

    key: str
    names: list[str]
    entries: list[Entry]
    ladders: list[dict[str, Any]]  # store.audit's standing: JSON of the engine's ladders
    ctbans: list[dict[str, Any]]
    pardons: list[Entry]
    online: list[dict[str, Any]]  # `online`'s seats, with their server


class Health(TypedDict):
    """How a server's daemon stands: its word (running, stopped, stale...) and each problem as (word, detail)."""

    daemon: str
    problems: list[tuple[str, str]]
    rcon: str | None
    mode: str | None


class Glance(TypedDict):
    """What every page shows at its top: per page that lists things to decide, how many wait on
    each server; per server, what is wrong with its daemon."""

    waiting: dict[str, dict[str, int]]
    problems: dict[str, list[tuple[str, str]]]


class PerDay(TypedDict):
    """The charts' punishments per day: the days, the counts per rule and per server (one a
    day), and the rules that fired most as (rule, ref, punishments)."""

    dates: list[str]
    by_rule: dict[str, list[int]]
    by_server: dict[str, list[int]]
    top: list[tuple[str, str, int]]


class CtBanLists(TypedDict):
    """The CT bans page: the bans that hold, the requests not applied yet, and those of the past."""

    active: list[dict[str, Any]]  # a snapshot's CT bans (JSON), with their server and whether he is online
    waiting: list[dict[str, Any]]  # ctban_requests rows
    past: list[dict[str, Any]]


class SourceError(ConfigError):
    pass


@attrs.define
class Source:
    """One state database. `store` writes (pardons, requests), one request at a time
    (`write`, from a worker thread); `reader` reads, each thread through its own connection."""

    index: int
    path: str
    store: StateStore
    reader: AuditLog
    servers: set[str] = attrs.field(factory=set)
    requests: str | None = None  # on a database server: this machine's queue for the admins' requests while it is away
    _lock: threading.Lock = attrs.field(factory=threading.Lock)
    _writing: threading.Lock = attrs.field(factory=threading.Lock)
    days: dict[str, list[DayCount]] = attrs.field(factory=dict)  # the charts' counts of past days (see _counts)

    def write(self, request: Callable[..., T], *args: object, **kwargs: object) -> T:
        """An admin's request written through the store (called in a worker thread: never on the loop)."""
        with self._writing:
            return request(*args, **kwargs)

    def close(self) -> None:
        self.reader.close()
        self.store.close()


class Sources:
    """The state databases of the configs given, and which server writes to which."""

    def __init__(self, configs: Sequence[Config]):
        self.configs: dict[str, Config] = {}
        self.sources: list[Source] = []
        self._refreshed = 0.0
        by_path: dict[str, Source] = {}
        for config in configs:
            if config.server_name in self.configs:
                raise SourceError(f"two configs name the server {config.server_name!r} ({config.source})")
            self.configs[config.server_name] = config
            where = config.state_where
            if not is_url(where):
                path = Path(where).resolve()
                if not path.is_file():
                    raise SourceError(f"no state database at {path} for server {config.server_name!r} (start its daemon first, or fix [state] path)")
                where = str(path)
            source = by_path.get(where)
            if source is None:
                try:
                    store = open_store(where)
                except StateError as exc:
                    raise SourceError(str(exc)) from None
                source = by_path[where] = Source(len(self.sources), shown(where), store, open_reader(where),
                                                 requests=requests_path(config.state_path) if is_url(where) else None)
                self.sources.append(source)
            source.servers.add(config.server_name)
        # The page's accounts: in the database of the config its [web] is read from (the first
        # that has one, as serve.build reads it), else the first config's.
        given = [c for c in configs if c.web != _NO_WEB] or list(configs)
        self.accounts: Source | None = self.of(given[0].server_name, look=False) if given else None
        # The network's SourceBans++ databases (one list per database, whichever servers name it).
        self.sourcebans = list({(c.sourcebans.url, c.sourcebans.prefix): c.sourcebans for c in configs if c.sourcebans}.values())
        self.refresh()

    def refresh(self) -> None:
        """Servers found in a database without a config of their own are shown too. The
        audit's servers are walked on its (server, status) index, one step per server: a
        million rows cost a few lookups, not a scan."""
        self._refreshed = time.monotonic()
        for source in self.sources:
            source.servers |= source.reader.audit_servers()

    def of(self, server: str, look: bool = True) -> Source | None:
        """The database of a server; a name none knows is looked for again (at most every 10 s),
        but only where `look` (a worker thread: the page's event loop never reads)."""
        for source in self.sources:
            if server in source.servers:
                return source
        if look and time.monotonic() - self._refreshed > 10:
            self.refresh()
        return next((s for s in self.sources if server in s.servers), None)

    def config(self, server: str) -> Config:
        return self.configs.get(server) or _DEFAULT

    def servers(self) -> list[str]:
        return sorted({s for source in self.sources for s in source.servers})

    def close(self) -> None:
        for source in self.sources:
            source.close()


# What waits for an admin, by the page that lists it: each counter says, per server, how much
# waits there; the menu shows beside that page the sum over the servers the admin may answer
# on. A page of things to decide registers its counter here (proposals.py does).
WAITING: dict[str, Callable[[Sources], dict[str, int]]] = {}

_DEFAULT = Config.default()
_NO_WEB = _DEFAULT.web



def _contains(text: str | None, part: str) -> bool:
    """Names are matched case-blind, Cyrillic included (str.casefold, not a database's ASCII folding)."""
    return part in (text or "").casefold()


# -- the audit log ----------------------------------------------------------------------------

Filters = Filter  # the page's filters are the store's typed filter (the name the page's code knew)


def entry(source: Source, row: Row, pardon: Row | None) -> Entry:
    out = dict(row)
    out["src"] = source.index
    out["dom"] = f"e{source.index}-{row['id']}"
    out["pardon"] = dict(pardon) if pardon else None
    out["pardonable"] = row["action"] in PARDONABLE and pardon is None and done(row)
    if row["action"] == "propose":  # what it proposes, for its badge and for who may confirm it
        out["step"] = proposed_step(row["detail"])
    return out


def proposed_step(detail: str | None) -> str:
    """What a proposal proposes ("ban 0"), from its row's detail; '' if it does not say."""
    try:
        found = json.loads(detail or "{}").get("step")
    except (ValueError, AttributeError):
        return ""
    return found if isinstance(found, str) else ""


def _entries(source: Source, rows: Iterable[Row]) -> list[Entry]:
    rows = list(rows)
    given = source.reader.pardons_for(r["id"] for r in rows)
    return [entry(source, r, given.get(r["id"])) for r in rows]


def latest(sources: Sources, filters: Filters, limit: int = PAGE, before: str = "") -> tuple[list[Entry], str]:
    """One page of enforcements of every server, newest first, and the cursor of the page
    after it ('' at the oldest). `before` is such a cursor: `source:id,...`, each source's
    entries older than its id. Each source looks at no more than SCAN ids."""
    filters.check()
    upto = _load_ids(before)
    fetched: dict[int, tuple[list[Entry], int]] = {}
    for source in sources.sources:
        i = source.index
        hi = upto.get(i, source.reader.max_id("audit") + 1) - 1
        if hi < 1:
            continue
        low = max(hi - SCAN, 0)
        rows = source.reader.window(filters, hi, low, limit)
        fetched[i] = (_entries(source, rows), low + 1)
    merged = sorted((e for got, _ in fetched.values() for e in got), key=lambda e: (e["time"], e["id"]), reverse=True)[:limit]
    shown = {(e["src"], e["id"]) for e in merged}
    cursor: dict[int, int] = {}
    for i, (got, bottom) in fetched.items():
        kept = [e["pos"] for e in got if (i, e["id"]) in shown]  # cursors are places in the log (store.reader's `pos`)
        if len(kept) < len(got) or len(got) == limit:
            cursor[i] = min(kept) if kept else got[0]["pos"] + 1
        else:
            cursor[i] = bottom
    cursor = {**{i: n for i, n in upto.items() if i not in fetched}, **cursor}
    more = any(n > 1 for n in cursor.values())
    return merged, (",".join(f"{i}:{n}" for i, n in sorted(cursor.items())) if more else "")


def _load_ids(text: str) -> dict[int, int]:
    out = {}
    for part in text.split(",")[:64]:
        a, _, b = part.partition(":")
        if a.isdigit() and b.isdigit() and len(a) < 6 and len(b) < 19:
            out[int(a)] = int(b)
    return out


@attrs.define
class Watch:
    """Where one live view has read up to, per source: the newest audit id and pardon id it
    has shown, and the entries it shows whose status may still change."""

    audit: dict[int, int] = attrs.field(factory=dict)
    pardons: dict[int, int] = attrs.field(factory=dict)
    open: dict[int, dict[int, str]] = attrs.field(factory=dict)
    floor: dict[int, int] = attrs.field(factory=dict)  # older entries are not on the view: their changes are not sent

    def dump(self) -> str:
        return ",".join(f"{i}:{self.audit.get(i, 0)}:{self.pardons.get(i, 0)}" for i in sorted(self.audit))

    @classmethod
    def load(cls, text: str) -> Watch:
        watch = cls()
        for part in text.split(","):
            bits = part.split(":")
            if len(bits) == 3 and all(b.isdigit() and len(b) < 19 for b in bits):
                i, a, p = map(int, bits)
                watch.audit[i], watch.pardons[i] = a, p
        return watch


# Statuses a daemon will still change (a proposal: its answer; an owed punishment: its
# carrying out at the player's return, or its expiry).
OPEN = _OPEN = ("pending", "proposed", "owed")


def newest(sources: Sources) -> Watch:
    watch = Watch()
    for source in sources.sources:
        watch.audit[source.index] = source.reader.max_id("audit")
        watch.pardons[source.index] = source.reader.max_id("pardons")
    return watch


def start_watch(sources: Sources, filters: Filters, cursor: str = "", shown: str = "") -> Watch:
    """From the cursor the page was rendered with (or now), but never more than KEEP
    entries back: a stream is not a way to read the whole table. The entries it may show
    still pending are watched for their answer, and so are those the page showed still open
    (`shown`: `src:id:status,...`), which may have been answered between the page and its stream."""
    watch = Watch.load(cursor)
    filters.check()
    now = newest(sources)
    for source in sources.sources:
        i = source.index
        if i not in watch.audit:
            watch.audit[i], watch.pardons[i] = now.audit[i], now.pardons[i]
        watch.audit[i] = min(max(watch.audit[i], now.audit[i] - KEEP), now.audit[i])
        watch.floor[i] = max(watch.audit[i] - KEEP, 0)
        watch.pardons[i] = min(max(watch.pardons[i], now.pardons[i] - KEEP), now.pardons[i])
        watch.open[i] = source.reader.statuses(filters, watch.audit[i], watch.audit[i] - SCAN, _OPEN, KEEP)
    for part in shown.split(",")[:PAGE]:
        bits = part.split(":")
        if len(bits) == 3 and bits[0].isdigit() and bits[1].isdigit() and len(bits[1]) < 19 and bits[2] in _OPEN:
            opened = watch.open.get(int(bits[0]))
            if opened is not None:
                opened.setdefault(int(bits[1]), bits[2])  # as the page showed it: a change since is sent
    return watch


def changes(sources: Sources, filters: Filters, watch: Watch, limit: int = PAGE) -> list[Entry]:
    """Entries new since the watch, and shown ones whose status changed or that were
    pardoned; oldest first, at most `limit` new ones a source. Moves the watch on."""
    filters.check()
    out: list[Entry] = []
    for source in sources.sources:
        i, db = source.index, source.reader
        top = db.max_id("audit")
        fresh = db.window(filters, min(top, watch.audit[i] + SCAN), watch.audit[i], limit, newest_first=False)
        watch.audit[i] = fresh[-1]["pos"] if len(fresh) == limit else min(top, watch.audit[i] + SCAN)
        given = db.pardons_after(watch.pardons[i], KEEP)
        pardoned = [p["action_id"] for p in given]
        if given:
            watch.pardons[i] = given[-1]["id"]
        opened = watch.open.setdefault(i, {})
        again = list(dict.fromkeys([*pardoned, *opened]))
        seen = {r["id"] for r in fresh}
        changed = [r for r in db.entries_among(again, filters, watch.audit[i], watch.floor.get(i, 0))
                   if r["id"] not in seen and (r["id"] in pardoned or opened.get(r["id"]) != r["status"])]
        for row in [*fresh, *changed]:
            if row["status"] in _OPEN:
                opened[row["id"]] = row["status"]
            else:
                opened.pop(row["id"], None)
        while len(opened) > KEEP:
            opened.pop(min(opened))
        out += _entries(source, sorted([*fresh, *changed], key=lambda r: r["pos"]))
    return out


def find(sources: Sources, server: str, action_id: int) -> Entry | None:
    source = sources.of(server)
    if source is None:
        return None
    row = source.reader.entry(action_id, server)
    return _entries(source, [row])[0] if row else None


# -- a round's story --------------------------------------------------------------------------


def rounds(sources: Sources, server: str, limit: int = 60) -> list[int]:
    """The rounds of this server there is something to tell about, newest first."""
    source = sources.of(server)
    if source is None:
        return []
    return source.reader.rounds(server, limit)


def round_material(sources: Sources, server: str, round: int) -> tuple[list[Row], list[Entry]]:
    """The kept log lines of a round and the decisions made in it."""
    source = sources.of(server)
    if source is None:
        return [], []
    lines = source.reader.round_lines(server, round)
    decisions = _entries(source, source.reader.round_entries(server, round))
    return lines, decisions


# -- players ----------------------------------------------------------------------------------


def find_players(sources: Sources, query: str, limit: int = 50, page: int = 0) -> list[FoundPlayer]:
    """Players by name (part of it, any case), steamid or #userid: from the audit log and
    the players online now; one row per steamid, newest name first, most entries first,
    `limit` a page (and one more, to say there is a next page). A name is looked for among
    every name the log holds (the `names` table), a steamid on its index, a #userid among
    the newest SCAN entries (a userid is only a connection's)."""
    query = query.strip()
    if not query:
        return []
    userid = USERID.fullmatch(query)
    asked = Filter(player=f"#{userid.group(1)}" if userid else query)
    found: dict[str, FoundPlayer] = {}
    wanted = (page + 1) * limit + 1
    for source in sources.sources:
        named = None if userid or personal(query) else source.reader.names_with(query, wanted)
        if named is None:  # a steamid on its index; a #userid (or a database without `names`) among the newest SCAN entries
            low = 0 if personal(query) else source.reader.max_id("audit") - SCAN
            named = source.reader.players(asked, low)
        for row in named:
            _seen(found, row["steamid"], row["userid"], row["name"], row["server"], row["n"], row["last"])
        for row in source.reader.states():
            for p in json.loads(row["snapshot"]).get("players", []):
                by_name = p["steamid"] == query if personal(query) else _contains(p["name"], query.casefold())
                if (p["userid"] == int(userid.group(1))) if userid else by_name:
                    _seen(found, p["steamid"], p["userid"], p["name"], row["server"], 0, "", online=True)
    ranked = sorted(found.values(), key=lambda p: (-p["count"], p["key"]))  # as `_by_name` picks each page's players
    return ranked[page * limit:(page + 1) * limit + 1]


def _seen(found: dict[str, FoundPlayer], steamid: str, userid: int, name: str, server: str, n: int, last: str, online: bool = False) -> None:
    key = player_key(steamid or "", userid or 0)
    p = found.setdefault(key, {"key": key, "steamid": steamid, "name": name, "names": [], "servers": set(), "count": 0,
                               "last": "", "online": set()})
    if name not in p["names"]:
        p["names"].append(name)
    if last >= p["last"]:
        p["name"], p["last"] = name, last or p["last"]
    p["servers"].add(server)
    p["count"] += n
    if online:
        p["online"].add(server)


def player(sources: Sources, key: str, limit: int = PAGE * 2) -> PlayerRecord:
    """A player's record on every server (the newest `limit` entries of each), where he
    stands on each ladder, his CT bans."""
    entries: list[Entry] = []
    stand: list[dict[str, Any]] = []
    names: list[str] = []
    for source in sources.sources:
        if key.startswith("#"):  # a bot or a player without a steamid: among the newest entries only
            userid = int(key[1:]) if USERID.fullmatch(key) else -1
            rows = source.reader.of_userid(userid, source.reader.max_id("audit") - SCAN * 5, limit)
        else:
            rows = source.reader.of_steamid(key, limit)
        entries += _entries(source, rows)
        for server in sorted(source.servers):
            stand += standing(source.reader, {key}, sources.config(server), server)
    for e in entries:
        if e["name"] and e["name"] not in names:
            names.append(e["name"])
    entries.sort(key=lambda e: (e["time"], e["id"]), reverse=True)
    forms = {key, *same_account(key)}
    here = [{**p, "server": row["server"]} for source in sources.sources for row in source.reader.states()
            for p in online(json.loads(row["snapshot"])) if (p["steamid"] in forms if not key.startswith("#") else f"#{p['userid']}" == key)]
    for p in here:
        if p["name"] and p["name"] not in names:
            names.insert(0, p["name"])
    return {"key": key, "names": names, "entries": entries, "ladders": [s for s in stand if "ctban" not in s],
            "ctbans": [s for s in stand if "ctban" in s], "pardons": [e for e in entries if e["pardon"]], "online": here}


# -- servers ----------------------------------------------------------------------------------


def servers(sources: Sources, now: datetime) -> list[dict[str, Any]]:
    """Each server's standing state from its last snapshot, its outbox, how its daemon stands
    (`health`) and who is on it now (from the snapshot: name, team, alive; at most a server's 64 slots)."""
    out = []
    for source in sources.sources:
        saved = {s.server: s for s in source.reader.standings()}  # as each daemon worked it out under its own config
        for row in source.reader.states():
            server = row["server"]
            config = sources.config(server)
            snapshot = json.loads(row["snapshot"])
            kept = saved.get(server)
            if kept is not None:
                state, cooldown = dict(kept.state), kept.cooldown
            else:  # a state saved before its daemon kept the standing: worked out as the daemon does
                state = session_standing(Engine(config, snapshot), config)
                cooldown = cooldown_of(state, state["cooldown_rounds"])
            pending = source.reader.pending(server)
            last = snapshot.get("time") or row["updated"]
            players = online(snapshot)
            state.update({
                "server": server,
                "configured": server in sources.configs,
                "mode": config.mode if server in sources.configs else None,
                "outbox": pending[0],
                "oldest_pending": pending[1],
                "last_time": last,
                "age": (now - moment(last)).total_seconds() if last else None,
                "next_specialday": cooldown.next if cooldown is not None else None,
                "cooldown_left": cooldown.left if cooldown is not None else 0,
                "players": len(players),
                "seated": players,
                "health": health(source.reader.link(server), now, len(players)),
            })
            out.append(state)
    return out


TEAM_ORDER = {"CT": 0, "TERRORIST": 1, "Spectator": 2, "Unassigned": 3}


def online(snapshot: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The players of a saved snapshot: guards first, then prisoners, the living before the dead, by name."""
    seats = snapshot.get("players") or []
    if isinstance(seats, dict):
        seats = list(seats.values())
    out: list[dict[str, Any]] = [{"userid": p.get("userid"), "steamid": str(p.get("steamid") or ""), "name": str(p.get("name") or ""),
                                  "team": str(p.get("team") or "Unassigned"), "alive": bool(p.get("alive"))}
                                 for p in seats[:128] if isinstance(p, dict)]
    out.sort(key=lambda p: (TEAM_ORDER.get(p["team"], 4), not p["alive"], p["name"].casefold()))
    return out


LOG_QUIET = 120.0  # seconds without a log line, players online, before the log is called silent


def health(link: Mapping[str, Any] | None, now: datetime, players: int = 0) -> Health:
    """How a server's daemon stands, from its `link` row (as `jailcore status` reads it): the
    daemon stopped or silent, the RCON link down, the log silent while players are on. Each
    problem is (word, detail); none: all well."""
    link = dict(link) if link is not None else None
    daemon = daemon_word(link, now)
    problems: list[tuple[str, str]] = []
    if daemon["word"] in ("stopped", "stale"):
        problems.append((f"daemon.{daemon['word']}", str((link or {}).get("updated") or "")))
    elif daemon["word"] == "running":
        rcon = str((link or {}).get("rcon") or "")
        if rcon and rcon != "open":
            problems.append(("rcon.down", rcon))
        last = (link or {}).get("last_line")
        try:
            quiet = (now - moment(str(last))).total_seconds() if last else None
        except ValueError:
            quiet = None
        if players and quiet is not None and quiet > LOG_QUIET:
            problems.append(("log.silent", str(int(quiet))))
    return {"daemon": daemon["word"], "problems": problems, "rcon": (link or {}).get("rcon"), "mode": (link or {}).get("mode")}


def glance(sources: Sources, now: datetime, waiting: dict[str, Callable[[Sources], dict[str, int]]]) -> Glance:
    """What every page shows at its top, per server: how many things wait for an admin, by the
    page that lists them (`waiting`: that page's counter), and what is wrong with its daemon."""
    counts = {page: count(sources) for page, count in waiting.items()}
    problems: dict[str, list[tuple[str, str]]] = {}
    for source in sources.sources:
        on = {}  # players online per server, from the standing each daemon saves with its state (small, unlike the snapshot)
        for kept in source.reader.standings():
            try:
                counted = kept.state.get("online") or {}
                on[kept.server] = sum(int(n) for n in counted.values()) if isinstance(counted, dict) else 0
            except (ValueError, TypeError, AttributeError):
                continue
        for link in source.reader.links():
            found = health(link, now, on.get(link["server"], 0))["problems"]
            if found:
                problems[link["server"]] = found
    return {"waiting": counts, "problems": problems}


# -- charts -----------------------------------------------------------------------------------


def per_day(sources: Sources, days: int, now: datetime) -> PerDay:
    """Punishments per day over the last `days` days: by rule, by server, and the rules
    that fired most."""
    first = (now - timedelta(days=days - 1)).date()
    dates = [(first + timedelta(days=i)).isoformat() for i in range(days)]
    at = {day: i for i, day in enumerate(dates)}
    by_rule: dict[str, list[int]] = {}
    by_server: dict[str, list[int]] = {}
    refs: dict[str, str] = {}
    for source in sources.sources:
        for day, rule, ref, server, n in _counts(source, dates[0], (now - timedelta(days=1)).date().isoformat()):
            if day not in at:
                continue
            by_rule.setdefault(rule, [0] * days)[at[day]] += n
            by_server.setdefault(server, [0] * days)[at[day]] += n
            refs[rule] = ref
    top = sorted(((sum(v), k) for k, v in by_rule.items()), reverse=True)
    return {"dates": dates, "by_rule": by_rule, "by_server": by_server, "top": [(k, refs[k], n) for n, k in top]}


def _counts(source: Source, first: str, yesterday: str) -> list[DayCount]:
    """Counts per day, rule and server from `first` on. A day before yesterday no longer
    changes: it is counted once and remembered (26 weeks are 160,000 rows at a million)."""
    with source._lock:
        cached = source.days
        missing = [d for d in _days(first, yesterday) if d not in cached]
    fresh: dict[str, list[DayCount]] = {d: [] for d in missing}
    if missing:
        for row in source.reader.day_counts(missing[0], yesterday, PARDONABLE):
            fresh.setdefault(row[0], []).append(row)
        with source._lock:
            cached.update({d: v for d, v in fresh.items() if d in missing})
    recent = source.reader.day_counts(max(first, yesterday), "9999", PARDONABLE)
    return [row for d in _days(first, yesterday) for row in (cached.get(d) or fresh.get(d, []))] + recent


def warm(sources: Sources, now: datetime) -> None:
    """Counts the charts' longest span once, so that no admin waits for it."""
    per_day(sources, 26 * 7, now)


def _days(first: str, end: str) -> list[str]:
    """The days from `first` up to, not including, `end`."""
    day, stop = datetime.fromisoformat(first).date(), datetime.fromisoformat(end).date()
    out = []
    while day < stop:
        out.append(day.isoformat())
        day += timedelta(days=1)
    return out


# -- CT bans ----------------------------------------------------------------------------------


def ctbans(sources: Sources, server: str = "", query: str = "", by: str = "", limit: int = PAGE * 2) -> CtBanLists:
    """The CT bans that hold on each server (from its last saved state), the requests its
    daemon has not applied yet, and the requests of the past (who gave or lifted what, from
    the page or the command line), newest first. `query` is part of a name or a steamid."""
    want = query.casefold()

    def shown(item: Mapping[str, Any]) -> bool:
        return ((not server or item["server"] == server) and (not by or item.get("by") == by)
                and (not want or want in (item.get("name") or "").casefold() or want in (item.get("steamid") or "").casefold()))

    active: list[dict[str, Any]] = []
    waiting: list[dict[str, Any]] = []
    past: list[dict[str, Any]] = []
    for source in sources.sources:
        for row in source.reader.states():
            snap = json.loads(row["snapshot"])
            now = snap.get("time") or ""
            online = {p.get("steamid") for p in snap.get("players", [])}
            for ban in snap.get("ctbans", {}).values():
                if (ban.get("until") and now and ban["until"] <= now) or (ban.get("rounds") is not None and ban["rounds"] <= 0):
                    continue
                item = {**ban, "server": row["server"], "online": ban.get("steamid") in online, "now": now}
                if shown(item):
                    active.append(item)
        for r in source.reader.ctban_requests(limit=limit * 5):
            item = {**r, "src": source.index, "lift": bool(r["lift"])}
            if shown(item):
                (waiting if r["applied_at"] is None else past).append(item)
    active.sort(key=lambda b: ((b.get("name") or "").casefold(), b["steamid"]))
    return {"active": active, "waiting": waiting[:limit], "past": past[:limit]}


def style(sources: Sources, server: str) -> str:
    """How this server's log writes a steamid (CS:S STEAM_0, CS:GO STEAM_1), from what it
    has written: its players online, else its newest enforcement; STEAM_1 if nothing yet."""
    from jailcore.web.steamids import style_of

    source = sources.of(server)
    if source is not None:
        for row in source.reader.states(server):
            for p in json.loads(row["snapshot"]).get("players", []):
                if found := style_of(p.get("steamid") or ""):
                    return found
        newest = source.reader.newest_steamid(server)
        if newest and (found := style_of(newest)):
            return found
    return "STEAM_1"


def last_name(sources: Sources, server: str, steamid: str) -> str:
    source = sources.of(server)
    if source is None:
        return ""
    return source.reader.last_name(steamid)


# -- what admins did --------------------------------------------------------------------------


def activity(sources: Sources, by: str = "", limit: int = PAGE) -> list[dict[str, Any]]:
    """Who did what, newest first: pardons (from the page, the command line or in game),
    CT bans given and lifted from outside the game, warnings and bans from a player's page, the accounts added, changed and removed
    (in the page's accounts database; the roles, never a password), and the requests this
    machine queued while the database was away that were refused when it was back (with why).
    Config edits made on the page are added by the page (their versions are files)."""
    out: list[dict[str, Any]] = []
    for source in sources.sources:
        for r in source.reader.pardons_by(by, limit):
            out.append({"kind": "pardon", **r})
        for r in source.reader.ctban_requests(by, limit):
            out.append({"kind": "ctban.lift" if r["lift"] else "ctban.give", **r})
        for r in source.reader.act_requests(by, limit):  # warnings and bans from a player's page
            out.append({"kind": "act.ban" if r["act"] == "ban" else "act.warn", **r})
        for r in source.reader.appeals().answered(by, limit):  # who granted or upheld an appeal, and when
            out.append({**r, "kind": f"appeal.{r['status']}", "time": r["answered"]})
        for refused in refused_requests(source.requests, limit * 5)[1]:  # only this machine's queue: the others' are theirs
            args = refused.args
            if by and args.get("by") != by:
                continue
            server = args.get("server")
            if not server and isinstance(args.get("action_id"), int):  # `jailcore pardon ID` names no server: its entry does
                entry = source.reader.entry(args["action_id"])
                server = entry["server"] if entry else ""
            out.append({"kind": "refused", "time": refused.time or str(args.get("when") or ""), "by": str(args.get("by") or "?"),
                        "server": str(server or "?"), "asked": refused.asked, "why": refused.why, "reason": str(args.get("reason") or "")})
    if sources.accounts is not None:
        for r in sources.accounts.reader.account_changes(by, limit):
            try:
                roles = json.loads(r["roles"])
            except ValueError:
                roles = {}
            out.append({"kind": f"account.{r['what']}", "time": str(r["time"])[:19], "by": r["by"], "name": r["name"],
                        "roles": roles if isinstance(roles, dict) else {}})
    out.sort(key=lambda a: a["time"] or "", reverse=True)
    return out[:limit]


# -- server bans ------------------------------------------------------------------------------


def bans(sources: Sources, now: datetime, server: str = "", state: str = "", query: str = "", by: str = "", limit: int = PAGE) -> list[Entry]:
    """The server bans the rules (or an admin in game) gave, newest first, each with whether
    it still holds at `now`: not pardoned, and permanent or not yet run out. Looks at the
    newest SCAN * 5 enforcements of each database (the `action` column has no index)."""
    want = query.casefold()
    out: list[Entry] = []
    for source in sources.sources:
        low = source.reader.max_id("audit") - SCAN * 5
        for e in _entries(source, source.reader.bans_after(low, server)):
            detail = json.loads(e["detail"] or "{}")
            minutes = detail.get("minutes")
            until = (moment(e["time"]) + timedelta(minutes=minutes)) if minutes else None
            e.update(minutes=minutes, by=detail.get("by") or "", until=until.isoformat(timespec="seconds") if until else None,
                     holds=e["pardon"] is None and e["status"] in ("delivered", "pending") and (until is None or until > now))
            if (state == "active" and not e["holds"]) or (state == "expired" and e["holds"]) or (by and e["by"] != by):
                continue
            if want and want not in (e["name"] or "").casefold() and want not in (e["steamid"] or "").casefold():
                continue
            out.append(e)
            if len(out) >= limit * len(sources.sources):
                break
    out.sort(key=lambda e: (e["time"], e["id"]), reverse=True)
    return out[:limit]


# -- one decision, one row --------------------------------------------------------------------


def _pair(e: Entry) -> tuple[int, str, int, int | None, str, str]:
    return (e["src"], e["server"], e["round"], e["userid"], e["rule"], e["time"])


def decisions(sources: Sources, entries: list[Entry]) -> list[Entry]:
    """A CT ban and the move to T it caused (the same rule, player and moment, written
    right after it) are one decision: the move is shown inside the ban's row, not as a
    row of its own, and is pardoned with it. A move whose ban is not among `entries` (a
    page's edge, a stream's later answer) brings its ban along."""
    bans = {_pair(e): e for e in entries if e["action"] == "ctban"}
    out: list[Entry] = []
    by_src = {s.index: s for s in sources.sources}
    for e in entries:
        if e["action"] != "teamswap" or e["userid"] is None:
            out.append(e)
            continue
        ban = bans.get(_pair(e))
        if ban is None:
            source = by_src.get(e["src"])
            row = source.reader.ban_of_move(e) if source else None
            if row is None or source is None:
                out.append(e)
                continue
            ban = _entries(source, [row])[0]
            bans[_pair(ban)] = ban
            out.append(ban)
        if ban["id"] < e["id"] <= ban["id"] + 3:
            ban["moved"] = e
        else:
            out.append(e)
    return out


def per_admin(sources: Sources, days: int, now: datetime) -> list[tuple[str, int]]:
    """What each admin did over the last `days` days (pardons, CT bans given or lifted from
    outside the game), most first."""
    first = (now - timedelta(days=days - 1)).date().isoformat()
    counts: dict[str, int] = {}
    for source in sources.sources:
        for by, n in source.reader.admin_counts(first).items():
            counts[by] = counts.get(by, 0) + n
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


# -- SourceBans++ ---------------------------------------------------------------------------


def sourcebans(sources: Sources, now: datetime, limit: int = PAGE) -> tuple[list[dict[str, Any]], str]:
    """The network's SourceBans++ bans beside jailcore's, newest first, and what went wrong
    ('' when nothing): a row jailcore wrote or linked names its entry; the others are
    read-only here (SourceBans++'s panel is where they are changed)."""
    if not sources.sourcebans:
        return [], ""
    from jailcore.store import network_bans

    out: list[dict[str, Any]] = []
    for settings in sources.sourcebans:
        try:
            rows = network_bans(settings, limit)
        except StateError as exc:
            return out, str(exc)
        for r in rows:
            created = datetime.fromtimestamp(r["created"])
            ends = datetime.fromtimestamp(r["ends"]) if r["length"] else None
            out.append({**r, "created_at": created.isoformat(timespec="seconds"), "ends_at": ends.isoformat(timespec="seconds") if ends else None,
                        "holds": r["RemoveType"] is None and (ends is None or ends > now), "ours": r["jailcore"] is not None})
    out.sort(key=lambda r: r["created"], reverse=True)
    return out[:limit], ""
