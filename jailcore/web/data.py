"""What the page shows, read from the servers' state databases. No web framework here.

Each `[state] path` of the configs given is one `Source`; WAL lets the page read while the
daemons write. An enforcement is named by its server and its audit id (ids are per
database), and in the page by `e<source>-<id>`. Filters are `jailcore tail`'s.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from pathlib import Path

import attrs

from jailcore.config.config import Config
from jailcore.engine.engine import Engine
from jailcore.engine.rules.specialday import SpecialDayCooldown
from jailcore.io.audit import standing, where
from jailcore.io.store import PARDONABLE, Store, pardons_for
from jailcore.log.errors import ConfigError
from jailcore.log.events import player_key
from jailcore.log.logtime import moment

_PERSONAL = ("STEAM_", "[U:")


class SourceError(ConfigError):
    pass


@attrs.define
class Source:
    index: int
    path: str
    store: Store
    servers: set[str] = attrs.field(factory=set)

    @property
    def db(self) -> sqlite3.Connection:
        return self.store.db


class Sources:
    """The state databases of the configs given, and which server writes to which."""

    def __init__(self, configs: Sequence[Config]):
        self.configs: dict[str, Config] = {}
        self.sources: list[Source] = []
        by_path: dict[str, Source] = {}
        for config in configs:
            if config.server_name in self.configs:
                raise SourceError(f"two configs name the server {config.server_name!r} ({config.source})")
            self.configs[config.server_name] = config
            path = Path(config.state_path).resolve()
            if not path.is_file():
                raise SourceError(f"no state database at {path} for server {config.server_name!r} (start its daemon first, or fix [state] path)")
            source = by_path.get(str(path))
            if source is None:
                source = by_path[str(path)] = Source(len(self.sources), str(path), Store(path))
                source.db.create_function("jc_has", 2, _contains, deterministic=True)
                self.sources.append(source)
            source.servers.add(config.server_name)
        self.refresh()

    def refresh(self) -> None:
        """Servers found in a database without a config of their own are shown too."""
        for source in self.sources:
            for (server,) in source.db.execute("SELECT server FROM state UNION SELECT DISTINCT server FROM audit"):
                source.servers.add(server)

    def of(self, server: str) -> Source | None:
        for source in self.sources:
            if server in source.servers:
                return source
        self.refresh()
        return next((s for s in self.sources if server in s.servers), None)

    def config(self, server: str) -> Config:
        return self.configs.get(server) or _DEFAULT

    def servers(self) -> list[str]:
        return sorted({s for source in self.sources for s in source.servers})

    def close(self) -> None:
        for source in self.sources:
            source.store.close()


_DEFAULT = Config.default()


def _contains(text: str | None, part: str) -> bool:
    """Names are matched in Python: SQLite folds only ASCII case, and names are Cyrillic."""
    return part in (text or "").casefold()


def _personal(player: str) -> bool:
    return player.startswith(_PERSONAL)


# -- the audit log ----------------------------------------------------------------------------


@attrs.frozen
class Filters:
    server: str = ""
    player: str = ""
    rule: str = ""
    action: str = ""
    since: str = ""

    def sql(self) -> tuple[str, list]:
        """The WHERE clause; raises AuditError for a `since` that is not a time."""
        clause, params = where(argparse.Namespace(**{k: v or None for k, v in attrs.asdict(self).items()}))
        if self.player and not self.player.lstrip("#").isdigit() and not _personal(self.player):
            clause, params = f"{clause} AND jc_has(name, ?)", [*params, self.player.casefold()]
        return clause, params

    def query(self) -> dict[str, str]:
        return {k: v for k, v in attrs.asdict(self).items() if v}


def entry(source: Source, row: sqlite3.Row, pardon: sqlite3.Row | None) -> dict:
    out = dict(row)
    out["src"] = source.index
    out["dom"] = f"e{source.index}-{row['id']}"
    out["pardon"] = dict(pardon) if pardon else None
    out["pardonable"] = row["action"] in PARDONABLE and pardon is None
    return out


def _entries(source: Source, rows: Iterable[sqlite3.Row]) -> list[dict]:
    rows = list(rows)
    given = pardons_for(source.db, [r["id"] for r in rows])
    return [entry(source, r, given.get(r["id"])) for r in rows]


def latest(sources: Sources, filters: Filters, limit: int = 100) -> list[dict]:
    """The newest enforcements of every server, newest first."""
    clause, params = filters.sql()
    out: list[dict] = []
    for source in sources.sources:
        rows = source.db.execute(f"SELECT * FROM audit WHERE {clause} ORDER BY id DESC LIMIT ?", [*params, limit])
        out += _entries(source, rows)
    out.sort(key=lambda e: (e["time"], e["id"]), reverse=True)
    return out[:limit]


@attrs.define
class Watch:
    """Where one live view has read up to, per source: the newest audit id and pardon id it
    has shown, and the entries it shows whose status may still change."""

    audit: dict[int, int] = attrs.field(factory=dict)
    pardons: dict[int, int] = attrs.field(factory=dict)
    open: dict[int, dict[int, str]] = attrs.field(factory=dict)

    def dump(self) -> str:
        return ",".join(f"{i}:{self.audit.get(i, 0)}:{self.pardons.get(i, 0)}" for i in sorted(self.audit))

    @classmethod
    def load(cls, text: str) -> Watch:
        watch = cls()
        for part in text.split(","):
            bits = part.split(":")
            if len(bits) == 3 and all(b.isdigit() for b in bits):
                i, a, p = map(int, bits)
                watch.audit[i], watch.pardons[i] = a, p
        return watch


_OPEN = ("pending",)  # statuses a daemon will still change
_OPEN_MARKS = ",".join("?" * len(_OPEN))


def newest(sources: Sources) -> Watch:
    watch = Watch()
    for source in sources.sources:
        watch.audit[source.index] = _max(source.db, "audit")
        watch.pardons[source.index] = _max(source.db, "pardons")
    return watch


def start_watch(sources: Sources, filters: Filters, cursor: str = "") -> Watch:
    """From the cursor the page was rendered with (or now); the entries it may show still
    pending are watched for their answer."""
    watch = Watch.load(cursor)
    now = newest(sources)
    clause, params = filters.sql()
    for source in sources.sources:
        i = source.index
        if i not in watch.audit:
            watch.audit[i], watch.pardons[i] = now.audit[i], now.pardons[i]
        rows = source.db.execute(f"SELECT id, status FROM audit WHERE id <= ? AND status IN ({_OPEN_MARKS}) AND {clause} "
                                 "ORDER BY id DESC LIMIT 500", [watch.audit[i], *_OPEN, *params])
        watch.open[i] = {r["id"]: r["status"] for r in rows}
    return watch


def changes(sources: Sources, filters: Filters, watch: Watch) -> list[dict]:
    """Entries new since the watch, and shown ones whose status changed or that were
    pardoned; oldest first. Moves the watch on."""
    clause, params = filters.sql()
    out: list[dict] = []
    for source in sources.sources:
        i, db = source.index, source.db
        fresh = list(db.execute(f"SELECT * FROM audit WHERE id > ? AND {clause} ORDER BY id", [watch.audit[i], *params]))
        if fresh:
            watch.audit[i] = fresh[-1]["id"]
        pardoned = [p["action_id"] for p in db.execute("SELECT id, action_id FROM pardons WHERE id > ? ORDER BY id", (watch.pardons[i],))]
        watch.pardons[i] = _max(db, "pardons")
        opened = watch.open.setdefault(i, {})
        again = [*pardoned, *opened]
        marks = ",".join("?" * len(again))
        seen = {r["id"] for r in fresh}
        changed = [r for r in db.execute(f"SELECT * FROM audit WHERE id IN ({marks}) AND id <= ? AND {clause}",
                                         [*again, watch.audit[i], *params])
                   if r["id"] not in seen and (r["id"] in pardoned or opened.get(r["id"]) != r["status"])] if again else []
        for row in [*fresh, *changed]:
            if row["status"] in _OPEN:
                opened[row["id"]] = row["status"]
            else:
                opened.pop(row["id"], None)
        out += _entries(source, sorted([*fresh, *changed], key=lambda r: r["id"]))
    return out


def _max(db: sqlite3.Connection, table: str) -> int:
    return db.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table}").fetchone()[0]


def find(sources: Sources, server: str, action_id: int) -> dict | None:
    source = sources.of(server)
    if source is None:
        return None
    row = source.db.execute("SELECT * FROM audit WHERE id = ? AND server = ?", (action_id, server)).fetchone()
    return _entries(source, [row])[0] if row else None


# -- a round's story --------------------------------------------------------------------------


def rounds(sources: Sources, server: str, limit: int = 60) -> list[int]:
    """The rounds of this server there is something to tell about, newest first."""
    source = sources.of(server)
    if source is None:
        return []
    rows = source.db.execute(
        "SELECT round FROM (SELECT DISTINCT round FROM loglines WHERE server = ? UNION SELECT DISTINCT round FROM audit WHERE server = ?) "
        "ORDER BY round DESC LIMIT ?", (server, server, limit))
    return [r["round"] for r in rows]


def round_material(sources: Sources, server: str, round: int) -> tuple[list[sqlite3.Row], list[dict]]:
    """The kept log lines of a round and the decisions made in it."""
    source = sources.of(server)
    if source is None:
        return [], []
    lines = list(source.db.execute("SELECT * FROM loglines WHERE server = ? AND round = ? ORDER BY id", (server, round)))
    decisions = _entries(source, source.db.execute("SELECT * FROM audit WHERE server = ? AND round = ? ORDER BY id", (server, round)))
    return lines, decisions


# -- players ----------------------------------------------------------------------------------


def find_players(sources: Sources, query: str, limit: int = 50) -> list[dict]:
    """Players by name (part of it), steamid or #userid: from the audit log and the
    players online now; one row per steamid, newest name first."""
    query = query.strip()
    if not query:
        return []
    bare = query.lstrip("#")
    params: list[int | str]
    if bare.isdigit():
        clause, params = "userid = ?", [int(bare)]
    elif _personal(query):
        clause, params = "steamid = ?", [query]
    else:
        clause, params = "jc_has(name, ?)", [query.casefold()]
    found: dict[str, dict] = {}
    for source in sources.sources:
        for row in source.db.execute(
            f"SELECT steamid, userid, name, server, COUNT(*) AS n, MAX(time) AS last FROM audit WHERE {clause} AND steamid IS NOT NULL "
            "GROUP BY steamid, name, server ORDER BY last", params):
            _seen(found, row["steamid"], row["userid"], row["name"], row["server"], row["n"], row["last"])
        for row in source.db.execute("SELECT server, snapshot FROM state"):
            for p in json.loads(row["snapshot"]).get("players", []):
                hit = (p["userid"] == int(bare)) if bare.isdigit() else (p["steamid"] == query if _personal(query) else _contains(p["name"], query.casefold()))
                if hit:
                    _seen(found, p["steamid"], p["userid"], p["name"], row["server"], 0, "", online=True)
    return sorted(found.values(), key=lambda p: (-p["count"], p["name"].casefold()))[:limit]


def _seen(found: dict, steamid: str, userid: int, name: str, server: str, n: int, last: str, online: bool = False) -> None:
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


def player(sources: Sources, key: str) -> dict:
    """A player's record on every server, where he stands on each ladder, his CT bans."""
    entries: list[dict] = []
    stand: list[dict] = []
    names: list[str] = []
    for source in sources.sources:
        if key.startswith("#"):
            rows = source.db.execute("SELECT * FROM audit WHERE userid = ? AND (steamid IS NULL OR steamid NOT LIKE 'STEAM_%') ORDER BY id",
                                     (int(key[1:]) if key[1:].isdigit() else -1,))
        else:
            rows = source.db.execute("SELECT * FROM audit WHERE steamid = ? ORDER BY id", (key,))
        entries += _entries(source, rows)
        for server in sorted(source.servers):
            stand += standing(source.db, {key}, sources.config(server), server)
    for e in entries:
        if e["name"] and e["name"] not in names:
            names.append(e["name"])
    entries.sort(key=lambda e: (e["time"], e["id"]), reverse=True)
    return {"key": key, "names": names, "entries": entries, "ladders": [s for s in stand if "ctban" not in s],
            "ctbans": [s for s in stand if "ctban" in s], "pardons": [e for e in entries if e["pardon"]]}


# -- servers ----------------------------------------------------------------------------------


def servers(sources: Sources, now: datetime) -> list[dict]:
    """Each server's standing state from its last snapshot, and its outbox."""
    out = []
    for source in sources.sources:
        for row in source.db.execute("SELECT server, snapshot, updated FROM state ORDER BY server"):
            server = row["server"]
            config = sources.config(server)
            snapshot = json.loads(row["snapshot"])
            engine = Engine(config, snapshot)
            state = engine.public_state()
            pending = source.db.execute("SELECT COUNT(*), MIN(time) FROM audit WHERE server = ? AND status = 'pending'", (server,)).fetchone()
            last = snapshot.get("time") or row["updated"]
            cooldown = config.settings_of(SpecialDayCooldown).rounds
            special = state["specialday"]
            state.update({
                "server": server,
                "configured": server in sources.configs,
                "mode": config.mode if server in sources.configs else None,
                "outbox": pending[0],
                "oldest_pending": pending[1],
                "last_time": last,
                "age": (now - moment(last)).total_seconds() if last else None,
                "next_specialday": special + cooldown if special is not None else None,
                "cooldown_left": max(0, special + cooldown - state["round"]) if special is not None else 0,
                "players": len(snapshot.get("players", [])),
            })
            out.append(state)
    return out


# -- charts -----------------------------------------------------------------------------------


def per_day(sources: Sources, days: int, now: datetime) -> dict:
    """Punishments per day over the last `days` days: by rule, by server, and the rules
    that fired most."""
    first = (now - timedelta(days=days - 1)).date()
    dates = [(first + timedelta(days=i)).isoformat() for i in range(days)]
    marks = ",".join("?" * len(PARDONABLE))
    by_rule: dict[str, list[int]] = {}
    by_server: dict[str, list[int]] = {}
    refs: dict[str, str] = {}
    for source in sources.sources:
        for row in source.db.execute(
            f"SELECT substr(time, 1, 10) AS day, rule, MAX(ref) AS ref, server, COUNT(*) AS n FROM audit "
            f"WHERE time >= ? AND action IN ({marks}) GROUP BY day, rule, server", [dates[0], *PARDONABLE]):
            if row["day"] not in dates:
                continue
            at = dates.index(row["day"])
            by_rule.setdefault(row["rule"], [0] * days)[at] += row["n"]
            by_server.setdefault(row["server"], [0] * days)[at] += row["n"]
            refs[row["rule"]] = row["ref"]
    top = sorted(((sum(v), k) for k, v in by_rule.items()), reverse=True)
    return {"dates": dates, "by_rule": by_rule, "by_server": by_server, "top": [(k, refs[k], n) for n, k in top]}
