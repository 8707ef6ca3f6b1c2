"""databomb's CT Bans brought over (`jailcore import ctbans URL [--prefix P] --config FILE`): its
tables `{P}CTBan_Times` (steamid, ctbantime: minutes left, 0 permanent) and `{P}CTBan_Log`
(ban_id, timestamp, perp_steamid, perp_name, admin_steamid, admin_name, bantime, timeleft,
reason), on MySQL/MariaDB or in a SQLite file, read here; each running ban becomes a CT-ban
request of the server (its daemon applies it and the network shares it), each log row an
entry of the audit log (the player's history), once: a second run finds its marks and adds
nothing."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import attrs

from jailcore.engine.actions import Action, Target
from jailcore.store.filter import Filter
from jailcore.store.interface import StateStore
from jailcore.store.location import is_url
from jailcore.store.reader import Reader
from jailcore.store.sqlite import StoreError

BY = "CT Bans import"  # the admin of the requests the import writes (and how a second run knows them)
RULE = "import.ctbans"


@attrs.frozen
class Running:
    steamid: str
    minutes: int  # left; 0 permanent
    name: str
    reason: str
    admin: str


@attrs.frozen
class Logged:
    ban_id: int
    time: str  # ISO, this machine's time zone
    steamid: str
    name: str
    admin: str
    minutes: int  # as given; 0 permanent
    left: int  # -1 over
    reason: str

    @property
    def mark(self) -> str:
        return f"CT Bans #{self.ban_id}"


def read(source: str, prefix: str = "") -> tuple[list[Running], list[Logged]]:
    """The running bans and the log of a CT Bans database; a StoreError of one line when it
    cannot be read (never the password)."""
    if prefix and not all(c.isascii() and (c.isalnum() or c == "_") for c in prefix):
        raise StoreError(f"--prefix {prefix!r}: letters, digits and _ only (jb_ for jb_CTBan_Times)")
    times, log = f"{prefix}CTBan_Times", f"{prefix}CTBan_Log"
    queries = (f"SELECT steamid, ctbantime FROM `{times}`",
               f"SELECT ban_id, timestamp, perp_steamid, perp_name, admin_steamid, admin_name, bantime, timeleft, reason FROM `{log}` ORDER BY ban_id")
    if is_url(source):
        import pymysql

        from jailcore.store.mariadb import _why, connect, target

        where = target(source)
        db = connect(where, dicts=False)
        try:
            got = [_all(db, q) for q in queries]
        except pymysql.MySQLError as exc:
            raise StoreError(f"CT Bans database {where.shown}: {_why(exc)} (is --prefix {prefix!r} right?)") from None
        finally:
            db.close()
    else:
        if not os.path.isfile(source):
            raise StoreError(f"no CT Bans database at {source} (a SQLite file, or mysql://user:password@host/database)")
        lite = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        try:
            got = [list(lite.execute(q.replace("`", '"'))) for q in queries]
        except sqlite3.Error as exc:
            raise StoreError(f"CT Bans database {source}: {exc} (is --prefix {prefix!r} right?)") from None
        finally:
            lite.close()
    rows, logs = got
    logged = [Logged(int(r[0]), datetime.fromtimestamp(int(r[1] or 0)).isoformat(timespec="seconds"), str(r[2]), str(r[3] or ""),
                     str(r[5] or ""), int(r[6] or 0), int(r[7] if r[7] is not None else -1), str(r[8] or "")) for r in logs]
    newest = {entry.steamid: entry for entry in logged if entry.left >= 0}
    running = []
    for steamid, minutes in rows:
        entry = newest.get(str(steamid))
        running.append(Running(str(steamid), max(0, int(minutes or 0)), entry.name if entry else "", entry.reason if entry else "",
                               entry.admin if entry else ""))
    return running, logged


def _all(db: Any, sql: str) -> list[Sequence[Any]]:
    with db.cursor() as cur:
        cur.execute(sql)
        return list(cur.fetchall())


@attrs.frozen
class Taken:
    bans: int
    permanent: int
    history: int
    skipped: int  # already imported by an earlier run


def bring_over(store: StateStore, reader: Reader, server: str, running: list[Running], logged: list[Logged]) -> Taken:
    """Writes what an earlier run has not: a request per running ban, an entry per log row."""
    have_requests = {r["steamid"] for r in reader.ctban_requests(BY, limit=10**6)}
    have_history = {r["reply"] for r in reader.entries(Filter(rule=RULE))}
    bans = permanent = history = skipped = 0
    for entry in logged:
        if entry.mark in have_history:
            skipped += 1
            continue
        action = Action(time=entry.time, round=0, action="ctban", target=Target(userid=0, steamid=entry.steamid, name=entry.name),
                        rule=RULE, ref="CT Bans", reason=entry.reason or "-", minutes=entry.minutes or None, by=entry.admin or None)
        row = store.record(server, action, 0, None, "delivered")
        store.mark(row, "delivered", entry.mark)
        history += 1
    for ban in running:
        if ban.steamid in have_requests:
            skipped += 1
            continue
        why = f"{ban.reason or 'CT Bans'} ({ban.admin or 'CT Bans'})"[:200]
        store.request_ctban(server, ban.steamid, ban.name, ban.minutes, None, why, BY)
        bans += 1
        permanent += ban.minutes == 0
    store.commit()
    return Taken(bans, permanent, history, skipped)
