"""The audit log's shared reading: where the state database is (`locate`), an entry as the
command line's JSON, what a player's snapshots say of his ladders and CT bans, a CT ban's
length as admins read it. The queries themselves are the store's (`store.reader`)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from jailcore.log.errors import AuditError
from jailcore.log.logtime import seconds_between
from jailcore.store.access import DEFAULT_STATE, out_of_reach
from jailcore.store.filter import USERID, since_time
from jailcore.store.location import is_url, open_reader

if TYPE_CHECKING:
    from jailcore.config.config import Config
    from jailcore.store.interface import AuditLog

__all__ = ["DAYS", "USERID", "AuditError", "as_json", "ban_left", "daemon_word", "locate", "open_reader", "since_time", "standing"]

SILENT = 30.0  # seconds without a link row (a running daemon writes one every 5 s) before it is called stale
DAYS = {"ru": ["Пн", "Вт", "Ср", "Чт", "Пт", "Сб", "Вс"], "en": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]}


def locate(state_db: str | None = None, config: str | list[str] | None = None, env: Mapping[str, str] | None = None) -> str:
    """The state database asked for: `--state-db` (a file or a mysql:// URL), else
    JAILCORE_STATE_URL, else JAILCORE_STATE, else the config's `[state] url` or `path`, else
    jailcore.sqlite3 of the current folder if there is one (a config's own default, relative
    to where its daemon runs), else /var/lib/jailcore/jailcore.sqlite3 (where `jailcore init`
    puts it). A file that is not there, or that this user may not read, is refused in one line."""
    env = os.environ if env is None else env
    where = state_db or env.get("JAILCORE_STATE_URL") or env.get("JAILCORE_STATE")
    if not where and config:
        from jailcore.config.config import Config

        where = Config.from_toml(config if isinstance(config, str) else config[0]).state_where
    where = where or ("jailcore.sqlite3" if os.path.isfile("jailcore.sqlite3") else DEFAULT_STATE)
    if is_url(where):
        return where
    refused = out_of_reach(where)
    if refused:
        raise AuditError(refused)
    if not os.path.isfile(where):
        why = "where jailcore init puts it, nor jailcore.sqlite3 here; " if where == DEFAULT_STATE else ""
        raise AuditError(f"no state database at {where} ({why}give --state-db, JAILCORE_STATE, JAILCORE_STATE_URL or --config)")
    return where


def as_json(row: Mapping[str, Any], pardon: Mapping[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(row["detail"])
    out.update({"id": row["id"], "server": row["server"], "day": row["day"], "status": row["status"], "reply": row["reply"]})
    out["command"] = row["command"]
    out["pardon"] = {k: pardon[k] for k in ("id", "by", "reason", "time", "applied_at")} if pardon else None
    return out


def standing(db: AuditLog, keys: set[str], config: Config | None, server: str | None = None) -> list[dict[str, Any]]:
    """Where the player stands on each ladder, and his CT ban, per server (or on one). The
    next step is the config's when one is given, else the one the server's daemon saved
    with its standing (under its own config), else the rulebooks' default."""
    out = []
    for row in db.states(server):
        snap = json.loads(row["snapshot"])
        steps = None if config is not None else db.saved_steps(row["server"])
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


def open_proposals(db: AuditLog, server: str) -> list[dict[str, Any]]:
    """A server's punishments waiting for an admin (a rule set `confirm = "admin"`) and not
    yet answered, oldest first, with the id `jailcore confirm|dismiss` takes."""
    out = []
    for r in db.open_proposals(server):
        try:
            step = json.loads(r["detail"]).get("step") or ""
        except (ValueError, AttributeError):
            step = ""
        out.append({"id": r["id"], "time": r["time"], "round": r["round"], "userid": r["userid"], "steamid": r["steamid"],
                    "name": r["name"], "rule": r["rule"], "ref": r["ref"], "step": step})
    return out


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


def daemon_word(link: Mapping[str, Any] | None, now: datetime, aged: bool = True) -> dict[str, str]:
    """Whether the daemon behind a link row still runs: `stopped` (it said so at its stop),
    `stale` (no row for SILENT seconds: it died or hangs), else `running`."""
    if not link or not link.get("updated"):
        return {"word": "unknown", "why": "no link row yet (has its daemon run?)"}
    if link.get("daemon") == "stopped":
        return {"word": "stopped", "why": f"stopped at {str(link['updated']).replace('T', ' ')}"}
    if not aged:
        return {"word": "running", "why": ""}
    try:
        age = (now - datetime.fromisoformat(str(link["updated"]))).total_seconds()
    except ValueError:
        return {"word": "unknown", "why": "its link row has no readable time"}
    if age > SILENT:
        return {"word": "stale", "why": f"no word from its daemon for {span(age)} (crashed or hung?): "
                                        "the link below is as it last said"}
    return {"word": "running", "why": ""}


def span(seconds: float) -> str:
    """A length of time as the command line and the logs write it: "45 s", "12 min", "3 h"."""
    seconds = int(max(0, seconds))
    return f"{seconds} s" if seconds < 120 else f"{seconds // 60} min" if seconds < 7200 else f"{seconds // 3600} h"
