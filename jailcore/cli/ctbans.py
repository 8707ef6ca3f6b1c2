"""`jailcore ctban list|add|lift`: the CT bans, the same records the game (`!ctbans`) and
the network see.

`list` reads each server's saved engine; `add` and `lift` write a request row
(`ctban_requests`) that the server's running daemon applies within a second, so an admin
on the box needs neither RCON nor the game. A request is checked here first: a steamid
that is not one, a length missing, a server the database does not know are refused with
a clear line, and nothing is written.
"""

from __future__ import annotations

import argparse
import getpass
import re
import sys
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from jailcore.cli.status import _standings, expired, saved_servers, server_names
from jailcore.cli.tail import coloured, json_line, paint, safe
from jailcore.log.accounts import account, same_account
from jailcore.log.errors import AdminRequestError, ConfigError
from jailcore.store.audit import AuditError, ban_left, locate, open_reader
from jailcore.store.location import shown
from jailcore.store.sqlite import StoreError

if TYPE_CHECKING:  # `list` reads what the daemon saved and loads no rule: it answers at once
    from jailcore.cli.status import Saved
    from jailcore.config.config import Config
    from jailcore.store.reader import Reader

STEAMID = re.compile(r"STEAM_[01]:[01]:[0-9]{1,10}|\[U:1:[0-9]{1,10}\]|7656119[0-9]{10}")


class CtbanError(AdminRequestError):
    pass


class HeldBan(TypedDict):
    """A CT ban that holds, as `ctban list` shows it (and writes it with --json)."""

    server: str
    steamid: str
    name: str
    until: str | None
    rounds: int | None
    left: str  # what is left of it, in words
    rule: str
    ref: str
    reason: str
    by: str
    origin: str
    online: bool
    pending: Literal[False]


class WaitingBan(TypedDict):
    """A CT ban or lift asked for (a `ctban_requests` row) that the daemon has not applied yet."""

    server: str
    request: int
    steamid: str
    name: str
    lift: bool
    minutes: int | None
    rounds: int | None
    reason: str
    by: str
    time: str
    pending: Literal[True]


def main_ctban(args: argparse.Namespace) -> int:
    try:
        if args.config:
            from jailcore.config.config import Config

        config = Config.from_toml(args.config) if args.config else None
        path = locate(args.state_db, args.config)
        return {"list": _list, "add": _request, "lift": _request}[args.do](args, path, config)
    except (AuditError, CtbanError, StoreError, ConfigError, AdminRequestError) as exc:
        print(f"jailcore ctban {args.do}: {exc}", file=sys.stderr)
        return 1


def check_steamid(text: str) -> str:
    steamid = text.strip()
    if not STEAMID.fullmatch(steamid) or account(steamid) is None:
        raise CtbanError(f"{safe(text)!r} is not a steamid: give STEAM_0:X:Y, STEAM_1:X:Y, [U:1:N] or a SteamID64 "
                         "(jailcore history NAME shows a player's)")
    if steamid.startswith("7656119"):  # a profile's SteamID64: kept as [U:1:N], which every game's ban matches
        return f"[U:1:{account(steamid)}]"
    return steamid


# -- list -------------------------------------------------------------------------------------


def held(server: str, kept: list[dict[str, Any]], now: str | None) -> list[HeldBan]:
    """The server's bans that still hold, by name, with what is left as of its last log line."""
    out: list[HeldBan] = []
    for ban in sorted(kept, key=lambda b: (b["name"].casefold(), b["steamid"])):
        if expired(ban["until"], ban["rounds"], now):
            continue
        out.append({"server": server, "steamid": ban["steamid"], "name": ban["name"], "until": ban["until"], "rounds": ban["rounds"],
                    "left": ban_left(ban["until"], ban["rounds"], now), "rule": ban["rule"], "ref": ban["ref"], "reason": ban["reason"],
                    "by": ban["by"], "origin": ban["origin"], "online": bool(ban["online"]), "pending": False})
    return out


def bans(saved: Saved) -> list[HeldBan]:
    """The same from the server's saved engine (a state its daemon saved before its standing held them)."""
    engine = saved.engine
    assert engine is not None
    online = {seat.key for seat in engine.state.players.values()}
    kept = [{"steamid": b.steamid, "name": b.name, "until": b.until, "rounds": b.rounds, "rule": b.rule, "ref": b.ref,
             "reason": b.reason, "by": b.by, "origin": b.origin, "online": key in online} for key, b in engine.state.ctbans.items()]
    return held(saved.server, kept, engine.state.time or None)


def _standing_bans(db: Reader, only: set[str] | None) -> dict[str, list[HeldBan]]:
    """Each server's bans from the standing its daemon saves beside its snapshot, where that
    standing holds all that `list` shows."""
    out = {}
    for server, state in _standings(db, {}, only).items():
        kept = state.get("ctbans")
        if isinstance(kept, list) and all(isinstance(b, dict) and {"reason", "by", "origin", "online"} <= b.keys() for b in kept):
            out[server] = held(server, kept, state.get("time"))
    return out


def waiting(db: Reader, server: str | None) -> list[WaitingBan]:
    """Requests the daemon has not applied yet (it is not running, or it is about to)."""
    rows = db.ctbans_waiting(server)
    return [{"server": r["server"], "request": r["id"], "steamid": r["steamid"], "name": r["name"], "lift": bool(r["lift"]),
             "minutes": r["minutes"], "rounds": r["rounds"], "reason": r["reason"], "by": r["by"], "time": r["time"], "pending": True}
            for r in rows]


def _list(args: argparse.Namespace, path: str, config: Config | None) -> int:
    colour = coloured(args.json)
    db = open_reader(path)
    try:
        only = {args.server} if args.server else None
        ready = _standing_bans(db, only)
        rest = (only if only is not None else set(server_names(db))) - set(ready)
        saved = saved_servers(db, {config.server_name: config} if config else {}, rest) if rest else []
        if args.server and not saved and not ready:
            raise CtbanError(_unknown(args.server, server_names(db), path))
        each = {**ready, **{s.server: bans(s) for s in saved if s.engine is not None}}
        found = [b for server in sorted(each) for b in each[server]] + waiting(db, args.server)
    finally:
        db.close()
    for s in saved:
        if s.error:
            print(f"jailcore ctban list: {s.server}: {s.error}", file=sys.stderr)
    for item in found:
        print(json_line(item) if args.json else _line(item, colour))
    if not found and not args.json:
        print("no CT bans" + (f" on {safe(args.server)}" if args.server else ""))
    return 1 if any(s.error for s in saved) else 0


def _line(item: HeldBan | WaitingBan, colour: bool) -> str:
    who = paint(safe(f"{item['name'] or '?'} {item['steamid']}"), "1", colour)
    if item["pending"]:
        what = "lift" if item["lift"] else f"ban {_length(item['minutes'], item['rounds'])}"
        return safe(f"{item['server']}  ") + who + paint(safe(f"  requested: {what} by {item['by']} at {item['time']}: {item['reason'] or '-'}"
                                                             f" (not applied yet: is the daemon running?)"), "33", colour)
    by = f"by {item['by']}" if item["by"] else "by the rules"
    origin = f", from {item['origin']}" if item["origin"] else ""
    online = paint("  online", "32", colour) if item["online"] else ""
    return (safe(f"{item['server']}  ") + who + safe(f"  {item['left']}  [{item['ref'] or '-'} {item['rule']}] {item['reason'] or '-'}  {by}{origin}")
            + online)


def _length(minutes: int | None, rounds: int | None) -> str:
    return f"{rounds} round(s)" if rounds is not None else f"{minutes} min" if minutes else "permanent"


# -- add / lift -------------------------------------------------------------------------------


def _unknown(server: str, known: list[str], path: str) -> str:
    return f"no server {server!r} in {shown(path)}" + (f": it has {', '.join(known)}" if known else ": no daemon has saved its state there yet")


def which_server(asked: str | None, known: list[str], config: Config | None, path: str) -> str:
    """`--server`, else the config's server, else the only server of the database."""
    if asked:
        if asked in known or (config is not None and asked == config.server_name):
            return asked
        raise CtbanError(_unknown(asked, known, path))
    if config is not None:
        return config.server_name
    if len(known) == 1:
        return known[0]
    if not known:
        raise CtbanError(f"no server has saved its state in {shown(path)} yet: start its daemon, or give --server with --config")
    raise CtbanError(f"{shown(path)} holds several servers ({', '.join(known)}): say which with --server")


def _request(args: argparse.Namespace, path: str, config: Config | None) -> int:
    from jailcore.engine.admin import MAX_MINUTES, MAX_ROUNDS

    steamid = check_steamid(args.steamid)
    lift = args.do == "lift"
    if not lift and args.minutes is None and args.rounds is None:
        raise CtbanError("how long? give --minutes N (0: permanent) or --rounds N")
    if not lift and args.minutes is not None and not 0 <= args.minutes <= MAX_MINUTES:
        raise CtbanError(f"--minutes takes 0 (permanent) to {MAX_MINUTES} (a year; the plugin keeps a ban's end in a 32-bit cell)")
    if not lift and args.rounds is not None and not 1 <= args.rounds <= MAX_ROUNDS:
        raise CtbanError(f"--rounds takes 1 to {MAX_ROUNDS}")
    from jailcore.cli.proposals import open_for_request
    from jailcore.store.requests import Queued, ask

    lift_or = (None, None) if lift else (args.minutes if args.rounds is None else None, args.rounds)
    found, queue, why = open_for_request(path, args.config)
    if found is None:  # the database server cannot be reached: the request waits in this machine's queue, unchecked until then
        server = args.server or (config.server_name if config is not None else None)
        if server is None:
            raise CtbanError(f"the state database is away ({why}): say which server with --server, and the request waits for it")
        by = args.by or getpass.getuser()
        queued = ask(None, queue, why, "ctban", server=server, steamid=steamid, name="", minutes=lift_or[0], rounds=lift_or[1],
                     reason=args.reason, by=by, lift=lift)
        assert isinstance(queued, Queued)
        print(safe(f"CT ban {'lift ' if lift else ''}for {steamid} on {server} by {by} {queued.said()}"))
        return 0
    store = found
    db = open_reader(path)
    try:
        server = which_server(args.server, server_names(db), config, path)
        (saved,) = saved_servers(db, {config.server_name: config} if config else {}, {server}) or (None,)
        holds = {b["steamid"]: b for b in bans(saved)} if saved is not None and saved.engine is not None else {}
        # The same account held under the form this server's log writes (STEAM_0 / STEAM_1 / [U:1:N]).
        steamid = next((other for other in same_account(steamid) if other in holds), steamid) if steamid not in holds else steamid
        asked = {r["steamid"]: r for r in waiting(db, server)}
        if lift and steamid not in holds and not (steamid in asked and not asked[steamid]["lift"]):
            raise CtbanError(f"{steamid} has no CT ban on {server} (jailcore ctban list shows them)")
        name = _name(db, steamid, holds)
        _other_universe(db, steamid, server, holds)
        by = args.by or getpass.getuser()
        minutes, rounds = lift_or
        row = ask(store, queue, "", "ctban", server=server, steamid=steamid, name=name, minutes=minutes, rounds=rounds, reason=args.reason,
                  by=by, lift=lift)
    finally:
        db.close()
        store.close()
    if isinstance(row, Queued):  # the database went away in between
        print(safe(f"CT ban {'lift ' if lift else ''}for {steamid} on {server} by {by} {row.said()}"))
        return 0
    who = f"{name} {steamid}" if name else steamid
    if lift:
        print(safe(f"CT ban lift {row} written for {who} on {server} by {by}"))
    else:
        replaces = f" (replaces: {holds[steamid]['left']})" if steamid in holds else ""
        print(safe(f"CT ban {row} written for {who} on {server}: {_length(minutes, rounds)}{replaces}, by {by}: {args.reason or '-'}"))
    from jailcore.io.wake import nudge

    if nudge(shown(path), server):
        print("the running daemon applies it now (jailcore ctban list shows it)")
    else:
        print("the running daemon applies it within a second (jailcore ctban list shows it then)")
    return 0




def _name(db: Reader, steamid: str, holds: dict[str, HeldBan]) -> str:
    """The player's name as last seen: his ban, else the newest entry of the audit log."""
    if steamid in holds:
        return holds[steamid]["name"]
    return db.last_name(steamid)


def _other_universe(db: Reader, steamid: str, server: str, holds: dict[str, HeldBan]) -> None:
    """CS:S logs STEAM_0:, CS:GO STEAM_1: for the same account: the daemon matches bans by
    account, and says which form the server's log uses when only the other is known here."""
    if not steamid.startswith("STEAM_") or steamid in holds:
        return
    other = ("STEAM_1" if steamid.startswith("STEAM_0") else "STEAM_0") + steamid[7:]
    if db.seen(server, other) and not db.seen(server, steamid):
        print(f"note: {server}'s log names this player {other}; the ban holds for the account and is kept as {other} "
              "once he is seen", file=sys.stderr)
