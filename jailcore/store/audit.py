"""The audit log's reader: the read-side queries over a state database that `jailcore tail`,
`history`, `status`, `ctban` and the web page share. Opens the database read-only; never writes."""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jailcore.log.errors import AuditError
from jailcore.log.logtime import seconds_between
from jailcore.log.numbers import is_digits, whole
from jailcore.store.sqlite import check_ours, pardons_for

if TYPE_CHECKING:
    from jailcore.config.config import Config

DAYS = {"ru": ["Пн", "Вт", "Ср", "Чт", "Пт", "Сб", "Вс"], "en": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]}



_DURATION = re.compile(r"([0-9]{1,18})\s*([smhdw])", re.ASCII)
USERID = re.compile(r"#?([0-9]{1,9})", re.ASCII)  # a #userid: ASCII digits, never a number SQLite cannot hold




def database(args: argparse.Namespace) -> Path:
    path = getattr(args, "state_db", None) or os.environ.get("JAILCORE_STATE")
    if not path and getattr(args, "config", None):
        from jailcore.config.config import Config

        path = Config.from_toml(args.config).state_path
    path = Path(path or "jailcore.sqlite3")
    if not path.is_file():
        raise AuditError(f"no state database at {path} (give --state-db, JAILCORE_STATE or --config)")
    return path



def connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    try:
        check_ours(db)
    except sqlite3.DatabaseError as exc:
        db.close()
        raise AuditError(f"{path}: not a jailcore state database ({exc})") from None
    return db



def since_time(text: str, now: datetime | None = None) -> str:
    m = _DURATION.fullmatch(text.strip())
    if m:
        n, unit = int(m.group(1)), m.group(2)
        try:
            delta = timedelta(**{{"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}[unit]: n})
            return ((now or datetime.now()) - delta).isoformat(timespec="seconds")
        except OverflowError:  # before year 1: everything there is
            return datetime.min.isoformat(timespec="seconds")
    try:
        return datetime.fromisoformat(text.strip()).isoformat(timespec="seconds")
    except ValueError:
        raise AuditError(f"--since takes an ISO time (2026-11-30T20:00) or a duration (30m, 2h, 1d), not {text!r}") from None



def where(args: argparse.Namespace) -> tuple[str, list]:
    clauses: list[str] = []
    params: list[int | str] = []
    player = getattr(args, "player", None)
    if player:
        bare = player.lstrip("#")
        if is_digits(bare):
            clauses.append("userid = ?")
            userid = whole(bare)
            params.append(userid if userid is not None else -1)  # too big for any userid: matches none
        elif player.startswith(("STEAM_", "[U:")):
            clauses.append("steamid = ?")
            params.append(player)
    if getattr(args, "rule", None):
        clauses.append("(rule = ? OR rule LIKE ?)")
        params += [args.rule, args.rule + ".%"]
    if getattr(args, "action", None):
        clauses.append("action = ?")
        params.append(args.action)
    if getattr(args, "since", None):
        clauses.append("time >= ?")
        params.append(since_time(args.since))
    if getattr(args, "server", None):
        clauses.append("server = ?")
        params.append(args.server)
    return (" AND ".join(clauses) or "1"), params



def name_matches(row: sqlite3.Row, player: str | None) -> bool:
    """Names are matched here, not in SQL: SQLite folds only ASCII case, names are Cyrillic."""
    if not player or is_digits(player.lstrip("#")) or player.startswith(("STEAM_", "[U:")):
        return True
    return player.casefold() in (row["name"] or "").casefold()



def as_json(row: sqlite3.Row, pardon: sqlite3.Row | Mapping[str, Any] | None = None) -> dict:
    out = json.loads(row["detail"])
    out.update({"id": row["id"], "server": row["server"], "day": row["day"], "status": row["status"], "reply": row["reply"]})
    out["command"] = row["command"]
    out["pardon"] = {k: pardon[k] for k in ("id", "by", "reason", "time", "applied_at")} if pardon else None
    return out



def pardons(db: sqlite3.Connection, rows: list[sqlite3.Row]) -> dict[int, sqlite3.Row]:
    """The pardons of these entries (none in a database from before pardons existed)."""
    try:
        return pardons_for(db, [r["id"] for r in rows])
    except sqlite3.OperationalError:
        return {}



def max_id(db: sqlite3.Connection, table: str = "audit") -> int:
    try:
        return db.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table}").fetchone()[0]
    except sqlite3.OperationalError:  # no pardons table yet
        return 0



def rows_since(db: sqlite3.Connection, table: str, last: int) -> list[sqlite3.Row]:
    try:
        return list(db.execute(f"SELECT * FROM {table} WHERE id > ? ORDER BY id", (last,)))
    except sqlite3.OperationalError:
        return []



def standing(db: sqlite3.Connection, keys: set[str], config: Config | None, server: str | None = None) -> list[dict]:
    """Where the player stands on each ladder, and his CT ban, per server (or on one). The
    next step is the config's when one is given, else the one the server's daemon saved
    with its standing (under its own config), else the rulebooks' default."""
    out = []
    for row in db.execute("SELECT server, snapshot FROM state WHERE ? IS NULL OR server = ? ORDER BY server", (server, server)):
        snap = json.loads(row["snapshot"])
        steps = None if config is not None else _saved_steps(db, row["server"])
        for counter, reached in sorted(snap.get("ladders", {}).items()):
            rule, _, key = counter.partition("|")
            if key in keys:
                if steps is None:
                    config = config or _default_config()
                    ladder = getattr(config.rules[rule], "ladder", ()) if rule in config.rules else ()
                else:
                    ladder = steps.get(rule, ())
                nxt = str(ladder[min(reached, len(ladder) - 1)]) if ladder else None
                out.append({"server": row["server"], "rule": rule, "offences": reached, "next": nxt})
        for key, ban in sorted(snap.get("ctbans", {}).items()):
            if key in keys:
                out.append({"server": row["server"], "rule": ban["rule"], "ctban": {"until": ban["until"], "rounds": ban["rounds"]}})
    return out



def open_proposals(db: sqlite3.Connection, server: str) -> list[dict]:
    """A server's punishments waiting for an admin (a rule set `confirm = "admin"`) and not
    yet answered, oldest first, with the id `jailcore confirm|dismiss` takes."""
    try:
        rows = db.execute("SELECT a.id, a.time, a.round, a.userid, a.steamid, a.name, a.rule, a.ref, a.detail FROM audit a "
                          "LEFT JOIN answers n ON n.action_id = a.id WHERE a.server = ? AND a.status = 'proposed' "
                          "AND a.action = 'propose' AND n.id IS NULL ORDER BY a.id", (server,)).fetchall()
    except sqlite3.OperationalError:  # a database from before proposals
        return []
    out = []
    for r in rows:
        try:
            step = json.loads(r["detail"]).get("step") or ""
        except (ValueError, AttributeError):
            step = ""
        out.append({"id": r["id"], "time": r["time"], "round": r["round"], "userid": r["userid"], "steamid": r["steamid"],
                    "name": r["name"], "rule": r["rule"], "ref": r["ref"], "step": step})
    return out


def _saved_steps(db: sqlite3.Connection, server: str) -> dict[str, list[str]] | None:
    try:
        row = db.execute("SELECT state FROM standing WHERE server = ?", (server,)).fetchone()
    except sqlite3.OperationalError:  # a database from before the standing was kept
        return None
    steps = json.loads(row[0]).get("ladder_steps") if row else None
    return steps if isinstance(steps, dict) else None


def _default_config() -> Config:
    from jailcore.config.config import Config

    return Config.default()


def ban_left(until: str | None, rounds: int | None, now: str | None = None) -> str:
    """A CT ban's length as admins read it; `now` (the server's log time) adds what is left."""
    if rounds is not None:
        return f"{rounds} round(s)"
    if not until:
        return "permanent"
    if not now:
        return f"until {until}"
    minutes = max(1, -(-int(seconds_between(now, until)) // 60))
    return f"until {until.replace('T', ' ')[:16]} ({minutes} min left)"
