"""`jailcore status`: per server, the standing state (day, warden, orders, prohibitions,
game, special-day cooldown, CT bans) and how its daemon stands (RCON link, outbox, the
last log line and its age, mode).

From the state database (each server's saved engine, and the `link` row its daemon keeps)
or from the MQTT broker (each daemon's retained `jailcore/<server>/state`). Read only.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from jailcore.cli.notify import failing_sinks, sink_lines
from jailcore.cli.shapes import RefusedRequests, Status
from jailcore.cli.shim import shim_notes, shim_said
from jailcore.cli.tail import coloured, json_line, mqtt_target, network_key, paint, safe
from jailcore.log.errors import ConfigError
from jailcore.log.logtime import moment
from jailcore.store import (
    DAYS,
    AuditError,
    aside_in,
    ban_left,
    cooldown_of,
    daemon_word,
    is_url,
    journal_path,
    locate,
    open_proposals,
    open_reader,
    out_of_reach,
    refused_requests,
    requests_path,
    shown,
    span,
    waiting_in,
    waiting_requests,
)

if TYPE_CHECKING:
    from jailcore.config.config import Config
    from jailcore.engine.engine import Engine
    from jailcore.log.inbound import Refusals
    from jailcore.store import AuditLog, Row

STATES = "jailcore/+/state"
RCON_COLOURS = {"open": "32", "unreachable": "31;1", "refused": "31;1", "lost": "31;1", "stopped": "33", "closed": "33"}
STALE = 120.0  # seconds without a log line before the age is shown as a warning
REFUSED_DAYS = 7  # queued requests refused at replay are counted this far back: an old refusal is not news every day

@cache
def default_config() -> Config:
    """For a server without a config of its own: every rule on, with the rulebooks' defaults."""
    from jailcore.config.config import load

    return load('[server]\nrulebook = "all"\n', "<status>", {})


@attrs.frozen
class Saved:
    """One server's saved engine in a state database (or why it cannot be read)."""

    server: str
    config: Config
    engine: Engine | None
    error: str | None = None


def saved_servers(db: AuditLog, configs: Mapping[str, Config], only: set[str] | None = None) -> list[Saved]:
    """Each server of the database with its engine as the daemon saved it, under its config
    when one is given (else `default_config()`)."""
    from cattrs.errors import BaseValidationError

    from jailcore.engine.engine import Engine

    out = []
    for row in db.states():
        server = row["server"]
        if only is not None and server not in only:
            continue
        config = configs.get(server) or default_config()
        try:
            out.append(Saved(server, config, Engine(config, json.loads(row["snapshot"]))))
        except (ValueError, TypeError, KeyError, AttributeError, BaseValidationError) as exc:  # one line, never a traceback
            why = exc.exceptions[0] if isinstance(exc, BaseValidationError) else exc
            out.append(Saved(server, config, None, f"its saved state cannot be read ({exc}: {why!r})"))
    return out


def worked_out(engine: Engine, config: Config) -> dict[str, Any]:
    """A server's standing from its engine under `config`, as its daemon works it out and saves it
    (a state saved before its daemon kept the standing, or a config given on the command line)."""
    from jailcore.session.saver import standing as session_standing

    return session_standing(engine, config)


def server_names(db: AuditLog) -> list[str]:
    return db.servers()


def expired(until: str | None, rounds: int | None, now: str | None) -> bool:
    """A ban that ran out but is still in the snapshot (the engine drops it at its next look)."""
    return bool(until is not None and now and until <= now) or (rounds is not None and rounds <= 0)


# -- gathering --------------------------------------------------------------------------------


def _standings(db: AuditLog, configs: Mapping[str, Config], only: set[str] | None) -> dict[str, Status]:
    """The servers without a config given whose daemon saved its standing with its snapshot:
    read as it is, without loading the rules (a command that answers at once)."""
    return {s.server: dict(s.state) for s in db.standings() if s.server not in configs and (only is None or s.server in only)}


def from_database(path: str, configs: Mapping[str, Config], only: set[str] | None) -> list[Status]:
    db = open_reader(path)
    label = shown(path)
    try:
        out = []
        ready = _standings(db, configs, only)
        rest = (only if only is not None else set(server_names(db))) - set(ready)
        saved = saved_servers(db, configs, rest) if rest else []
        for server, state in ready.items():
            out.append(standing(server, state, None, _link(db, server), label))
        for s in saved:
            if s.engine is None:
                out.append({"server": s.server, "error": s.error})
                continue
            out.append(standing(s.server, worked_out(s.engine, s.config), s.config, _link(db, s.server), label))
        sinks = failing_sinks(db)  # the notifications' sinks that keep failing: every server of the database says them
        for item in out:
            item["proposals"] = open_proposals(db, item["server"])
            item["owed"] = _owed(db, item["server"])
            item.update(sinks)
        out.sort(key=lambda s: s["server"])
        missing = sorted((only or set()) - {s.server for s in saved} - set(ready))
        if missing:
            known = server_names(db)
            has = f"it has {', '.join(known)}" if known else "it has no server yet"
            out += [{"server": server, "error": f"no saved state in {label} ({has}; has its daemon run?)"} for server in missing]
        return out
    finally:
        db.close()


def _refused(queue: str) -> RefusedRequests | None:
    """The requests of this machine's queue refused at replay in the last REFUSED_DAYS days: how
    many, and the newest few with what was asked, by whom and why (None: none)."""
    since = (datetime.now() - timedelta(days=REFUSED_DAYS)).isoformat(timespec="seconds")
    count, newest = refused_requests(queue, since=since)
    if not count:
        return None
    return {"count": count, "days": REFUSED_DAYS, "queue": queue,
            "newest": [{"time": r.time, "asked": r.asked, "by": r.args.get("by"), "server": r.args.get("server"), "why": r.why}
                       for r in newest]}


def _owed(db: AuditLog, server: str) -> list[Row]:
    """Punishments decided for players who had left (`owed`), not carried out nor expired yet:
    those that wait for his return (an owed CT ban or autoslay is held by SteamID already, at
    the door and at the round start, and listed with the CT bans)."""
    return db.owed(server)


_LINK = ("rcon", "outbox", "last_line", "mode", "updated", "daemon", "dropped")


def _link(db: AuditLog, server: str) -> dict[str, Any]:
    row = db.link(server)
    if row is not None:  # a database from before the daemon's columns has only the first five
        return {k: row[k] for k in _LINK if k in row}
    return {"rcon": None, "outbox": db.pending(server)[0], "last_line": None, "mode": None, "updated": None}


def from_broker(url: str, tls: dict[str, Any], configs: Mapping[str, Config], only: set[str] | None) -> tuple[list[Status], Refusals]:
    """The retained states, and what was refused among them (not a state's JSON, a field
    of the wrong type, or, when a config or JAILCORE_NETWORK_KEY gives the network's key,
    not signed with it)."""
    from jailcore.io.network import retained
    from jailcore.log.inbound import Refusals, read_message  # the network's shapes: only for --mqtt
    from jailcore.log.shapes import state_message

    out: list[Status] = []
    refused = Refusals("a retained state", say=lambda _: None)
    key = network_key(argparse.Namespace(), list(configs.values()))
    for topic, payload in retained(url, STATES, tls):
        if not payload:  # a cleared retained message
            continue
        state = read_message(payload, state_message, refused, topic, key, int(time.time() * 1000))
        if state is None:
            continue
        server = str(state.get("server") or topic.split("/")[1])
        if only is not None and server not in only:
            continue
        if state.get("daemon") == "offline":  # the daemon's last will: the broker saw its session die
            out.append({"server": server, "source": "mqtt", "link": None,
                        "daemon": {"word": "lost", "why": "the broker says its session died without a goodbye (crashed, killed or cut off)"}})
            continue
        link = state.get("link")
        config = configs.get(server) or (None if state.get("cooldown_rounds") is not None else default_config())
        out.append(standing(server, state, config, link, "mqtt"))
    return sorted(out, key=lambda s: s["server"]), refused


def standing(server: str, state: Mapping[str, Any], config: Config | None, link: Mapping[str, Any] | None, source: str, now: datetime | None = None) -> Status:
    """A server's status: its public state, the special-day cooldown under its config (or,
    without one, as the daemon saved it under its own), its link, and the age of its last
    log line."""
    now = now or datetime.now()
    out = {**state, "server": server, "source": source, "link": link}
    out.update(shim_said(state))
    saved_rounds = out.pop("cooldown_rounds", None)
    out.pop("ladder_steps", None)  # for `history`
    if config is not None:
        from jailcore.session.saver import cooldown_rounds  # loaded with the config already

        rounds = cooldown_rounds(config)
    else:
        rounds = saved_rounds if type(saved_rounds) is int else None
    cooldown = cooldown_of(state, rounds)
    out["cooldown"] = attrs.asdict(cooldown) if cooldown is not None else None
    out["daemon"] = daemon_word(link, now, aged=source != "mqtt")  # over MQTT the broker's last will says it instead
    last = (link or {}).get("last_line") or state.get("time")
    out["last_line"] = last
    try:
        out["age"] = round((now - moment(last)).total_seconds(), 1) if last else None
    except (TypeError, ValueError):
        out["age"] = None
    return out


# -- showing ---------------------------------------------------------------------------------


def block(s: Status, colour: bool, lang: str = "ru") -> str:
    """One server at a glance; every value a player or a broker could have written is escaped."""
    head = paint(safe(s["server"]), "1", colour)
    refused = s.get("refused_requests")
    refusals = _refusals(refused, colour) if isinstance(refused, dict) and refused.get("count") else ""
    if s.get("error"):  # the refusals too: they are this machine's queue's, whatever the database says
        return f"{head}  {paint(safe(s['error']), '31;1', colour)}" + (f"\n{refusals}" if refusals else "")
    daemon = s.get("daemon")
    if not isinstance(daemon, dict):
        daemon = {}
    if daemon.get("word") == "lost":
        return f"{head}  " + paint(safe(f"daemon lost: {daemon.get('why')}"), "31;1", colour)
    link = s.get("link") or {}
    rcon = link.get("rcon")
    parts = [f"rcon {paint(safe(rcon), RCON_COLOURS.get(str(rcon)), colour)}" if rcon else "rcon ?"]
    parts.append(f"outbox {safe(link['outbox'])}" if link.get("outbox") is not None else "outbox ?")
    age = s.get("age")
    if s.get("last_line"):
        ago = f" ({_ago(age)})" if isinstance(age, int | float) else ""
        parts.append(paint(safe(f"last line {str(s['last_line']).replace('T', ' ')}{ago}"),
                           "33" if isinstance(age, int | float) and age > STALE else None, colour))
    else:
        parts.append("no line yet")
    mode = link.get("mode")
    if mode:
        parts.append(f"mode {safe(mode)}")
    if link.get("dropped"):  # a mis-set sv_logsecret or [log] allow: lines that never reach the rules
        parts.append(paint(safe(f"dropped datagrams: {link['dropped']}"), "31;1", colour))
    if daemon.get("word") in ("stopped", "stale"):  # unknown: "rcon ?" already says the daemon never spoke
        parts.insert(0, paint(safe(f"daemon {daemon['word']}: {daemon['why']}"), "31;1" if daemon["word"] == "stale" else "33", colour))
    journal = s.get("journal")
    if isinstance(journal, dict) and journal.get("waiting"):  # the database was away: replayed within a second of its return
        parts.append(paint(safe(f"{journal['waiting']} write(s) wait in the journal for the database"), "33", colour))
    if isinstance(journal, dict) and journal.get("aside"):  # rows the database refused for their values (store.mariadb `_set_aside`)
        parts.append(paint(safe(f"{journal['aside']} row(s) the database refused are set aside in {journal['path']} (table aside)"),
                           "31;1", colour))
    if s.get("queued_requests"):  # applied within a second of the database's return, by the daemon
        parts.append(paint(safe(f"{s['queued_requests']} admin request(s) queued for the database"), "33", colour))
    lines = [f"{head}  " + " · ".join(parts)]
    if refusals:
        lines.append(refusals)
    lines += shim_notes(s, colour)
    day = s.get("day")
    dayname = DAYS[lang][(day - 1) % 7] if isinstance(day, int) and day > 0 else "-"
    online = s.get("online")
    if not isinstance(online, dict):
        online = {}
    freeday = ", freeday" if s.get("freeday") else ""
    lines.append(safe(f"  day {day} ({dayname}), week {s.get('week')}, round {s.get('round')}, map {s.get('map') or '-'}{freeday}; "
                      f"online T {online.get('T', '?')} / CT {online.get('CT', '?')}"))
    warden = s.get("warden")
    lines.append("  warden: " + (safe(f"{warden.get('name')} #{warden.get('userid')} {warden.get('steamid')}") if isinstance(warden, dict) else "none"))
    for label, key in (("orders", "orders"), ("prohibitions", "prohibitions")):
        items = [str(i.get("text", "")) if isinstance(i, dict) else str(i) for i in s.get(key) or []]
        lines.append(f"  {label} ({len(items)})" + (": " + "; ".join(safe(f"{n}. {t}") for n, t in enumerate(items, 1)) if items else ""))
    game = s.get("game")
    lines.append("  game: " + (safe(f"{game.get('name')}" + (f" (host {game['host']})" if game.get("host") else "")) if isinstance(game, dict) else "none"))
    lines.append("  special day: " + _cooldown(s))
    lines.append(_bans(s, colour))
    if s.get("proposals"):  # from the state database, or the retained state (its daemon's session keeps their ids)
        lines.append(_proposals([p for p in s["proposals"] if isinstance(p, dict)], colour))
    lines += sink_lines(s, colour)
    if s.get("owed"):
        owed = s["owed"]
        lines.append(paint(f"  owed by players who left: {len(owed)} (carried out when they return)", "35", colour))
        lines += [safe(f"    #{o['id']} {o['action']} {o['name'] or '?'} {o['steamid'] or ''} [{o['ref'] or '-'} {o['rule']}] "
                       f"{str(o['time']).replace('T', ' ')}") for o in owed[:10]]
    return "\n".join(lines)


def _refusals(refused: Mapping[str, Any], colour: bool) -> str:
    """The admins' queued requests refused when the database was back, the newest first."""
    head = paint(safe(f"  admin request(s) refused at replay in the last {refused.get('days')} days: {refused['count']} "
                      f"(queue {refused.get('queue')})"), "31;1", colour)
    return "\n".join([head] + [safe(f"    {str(r.get('time') or '?').replace('T', ' ')} {r.get('asked')} by {r.get('by') or '?'}: {r.get('why')}")
                                for r in refused.get("newest") or [] if isinstance(r, dict)])


def _proposals(items: list[dict[str, Any]], colour: bool) -> str:
    """The punishments waiting for an admin, each with the id to answer it by."""
    head = paint(f"  waiting for an admin: {len(items)} (jailcore confirm|dismiss ID)", "35;1", colour)
    return "\n".join([head] + [safe(f"    #{p.get('id') or '?'} {p.get('step') or '?'} {p.get('name') or '?'} {p.get('steamid') or ''} "
                                     f"[{p.get('ref') or '-'} {p.get('rule') or '?'}] round {p.get('round')}, "
                                     f"{str(p.get('time') or '?').replace('T', ' ')}")
                                for p in items])


def _ago(seconds: float) -> str:
    return f"{span(seconds)} ago"


def _cooldown(s: Status) -> str:
    special, cool = s.get("specialday"), s.get("cooldown")
    if special is None:
        return "none yet"
    if not cool:
        return safe(f"last in round {special}")
    wait = f"allowed now (cooldown {cool['rounds']} rounds)" if cool["left"] == 0 else f"next from round {cool['next']} ({cool['left']} round(s) to go)"
    return safe(f"last in round {special}; {wait}")


def _bans(s: Status, colour: bool) -> str:
    bans = [b for b in s.get("ctbans") or [] if isinstance(b, dict) and not expired(b.get("until"), b.get("rounds"), s.get("last_line"))]
    known = all("online" in b for b in bans)
    shown = [b for b in bans if b.get("online")] if known else bans
    head = f"  CT bans: {len(bans)}" + (f", {len(shown)} online" if known else "")
    rows = [paint(safe(f"    {b.get('name')} {b.get('steamid')}: {ban_left(b.get('until'), b.get('rounds'), s.get('last_line'))}"
                       f" [{b.get('ref') or '-'} {b.get('rule')}]"), "35", colour) for b in shown[:10]]
    if len(shown) > 10:
        rows.append(f"    ... and {len(shown) - 10} more (jailcore ctban list)")
    return "\n".join([head, *rows])


# -- the command ----------------------------------------------------------------------------


def main_status(args: argparse.Namespace) -> int:
    colour = coloured(args.json)
    try:
        servers, where, skipped = _gather(args)
    except (AuditError, ConfigError) as exc:
        print(f"jailcore status: {exc}", file=sys.stderr)
        return 1
    if skipped is not None and skipped.total:
        print(f"{skipped.total} retained message(s) that were not a state's JSON were skipped: {skipped.summary()}", file=sys.stderr)
    if not servers:
        print(f"jailcore status: no server found in {where}" + (f" named {args.server!r}" if args.server else ""), file=sys.stderr)
        return 1
    for i, s in enumerate(servers):
        if args.json:
            print(json_line(s))
        else:
            print(("\n" if i else "") + block(s, colour, args.lang))
    return 1 if any(s.get("error") for s in servers) else 0


def _gather(args: argparse.Namespace) -> tuple[list[Status], str, Refusals | None]:
    """The servers asked for: with --mqtt all that retain a state; with --state-db (or
    JAILCORE_STATE) all in that file; with configs only theirs, each from its own [state] path.
    Configs always lend their rule settings to the servers they name."""
    if args.config:
        from jailcore.config.config import Config

    configs = [Config.from_toml(path) for path in args.config or []]
    by_name = {c.server_name: c for c in configs}
    only = {args.server} if args.server else None
    if args.mqtt is not None:
        from jailcore.io.network import NetworkError

        try:
            servers, skipped = from_broker(*mqtt_target(args, "status"), by_name, only)
        except (NetworkError, ValueError) as exc:
            raise AuditError(str(exc)) from None
        return servers, "the MQTT broker's retained jailcore/+/state", skipped
    if configs and not args.state_db:
        servers = []
        for where in dict.fromkeys(c.state_where for c in configs):
            if not is_url(where) and (unread := out_of_reach(where)):
                raise AuditError(unread)
            if not is_url(where) and not Path(where).is_file():
                raise AuditError(f"no state database at {where} (has the daemon run? see [state] path in the config)")
            names = {c.server_name for c in configs if c.state_where == where}
            wanted = names & only if only else names
            journals = {c.server_name: journal_path(c.state_path) for c in configs if c.state_where == where and is_url(where)}
            try:
                got = from_database(where, by_name, wanted)
            except AuditError as exc:
                if not journals:
                    raise
                got = [{"server": n, "error": str(exc)} for n in sorted(wanted)]  # the database away: what waits for it is said below
            for item in got:
                journal = journals.get(item["server"])
                queue = requests_path(journal) if journal else None
                waiting = waiting_in(journal, beside=True) if journal else 0
                asked = waiting_requests(queue) if queue else 0
                if asked:  # admins' requests made while the database was away (store.requests)
                    item["queued_requests"] = asked
                    if item.get("error"):
                        item["error"] += f"; {asked} admin request(s) wait in the queue {queue}"
                refused = _refused(queue) if queue else None
                if refused:  # refused at replay: the admin who asked is told nowhere else but the daemon's log
                    item["refused_requests"] = refused
                aside = aside_in(journal) if journal else 0
                if waiting or aside:
                    item["journal"] = {"path": journal, "waiting": waiting, "aside": aside}
                    if item.get("error") and waiting:
                        item["error"] += f"; {waiting} write(s) wait in the journal {journal}"
            servers += got
        return servers, "the configs' state databases", None
    found = locate(args.state_db)
    return from_database(found, by_name, only), shown(found), None
