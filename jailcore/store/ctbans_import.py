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
import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import attrs

from jailcore.engine.actions import CtBan, Target
from jailcore.log.accounts import account
from jailcore.log.inbound import MAX_MINUTES
from jailcore.log.numbers import SQLITE_MAX, whole
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


@attrs.frozen
class Rows:
    """What a CT Bans database holds, each row judged alone: the running bans and the log taken,
    the bans already over (minutes left below 0: CT Bans leaves them in its table) skipped and
    counted, and the rows that cannot be (a time past the calendar, a SteamID that is none, a
    length that is no number) refused and named."""

    running: list[Running]
    logged: list[Logged]
    expired: list[str]
    refused: list[str]


EARLIEST = 946_684_800  # 2000-01-01: no CT Bans row is older
SLACK = 86_400  # seconds a row may be ahead of this machine's clock (another machine's)


def read(source: str, prefix: str = "", now: float | None = None) -> Rows:
    """The running bans and the log of a CT Bans database, each row judged alone; a StoreError
    of one line when it cannot be read at all (never the password)."""
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
    now = time.time() if now is None else now
    refused: list[str] = []
    logged = [entry for r in logs if (entry := _logged(r, now, log, refused)) is not None]
    newest = {entry.steamid: entry for entry in logged if entry.left >= 0}
    running: list[Running] = []
    expired: list[str] = []
    for steamid, minutes in rows:
        place = f"{times} {_shown(steamid)}"
        left = _whole(minutes)
        if not isinstance(steamid, str) or account(steamid) is None:
            refused.append(f"{place}: not a SteamID")
        elif left is None:
            refused.append(f"{place}: ctbantime {_shown(minutes)} is not a whole number")
        elif left < 0:
            expired.append(steamid)  # over: CT Bans keeps such a row until the player's next spawn
        elif left > MAX_MINUTES:
            refused.append(f"{place}: ctbantime {left} is more than 100 years")
        else:
            entry = newest.get(steamid)
            running.append(Running(steamid, left, entry.name if entry else "", entry.reason if entry else "", entry.admin if entry else ""))
    return Rows(running, logged, expired, refused)


def _logged(r: Sequence[Any], now: float, table: str, refused: list[str]) -> Logged | None:
    """One row of the log, or None after naming it in `refused`."""
    ban_id, stamp, steamid, name, _, admin, minutes, left, reason = (list(r) + [None] * 9)[:9]
    number = _whole(ban_id)
    where = f"{table} #{_shown(ban_id)}"
    when, length, over = _whole(stamp), _whole(minutes), _whole(left) if left is not None else -1
    if number is None:
        refused.append(f"{where}: ban_id is not a whole number")
    elif when is None or not EARLIEST <= when <= now + SLACK:
        refused.append(f"{where}: timestamp {_shown(stamp)} is no time a ban was given ({_year(when)})")
    elif not isinstance(steamid, str) or account(steamid) is None:
        refused.append(f"{where}: perp_steamid {_shown(steamid)} is not a SteamID")
    elif length is None or not 0 <= length <= MAX_MINUTES:
        refused.append(f"{where}: bantime {_shown(minutes)} is not a length in minutes")
    elif over is None:
        refused.append(f"{where}: timeleft {_shown(left)} is not a whole number")
    else:
        return Logged(number, datetime.fromtimestamp(when).isoformat(timespec="seconds"), steamid, str(name or ""), str(admin or ""),
                      length, over, str(reason or ""))
    return None


def _whole(value: Any) -> int | None:
    """A whole number as a database gives one (SQLite may hold it as text), bounded; else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if abs(value) <= SQLITE_MAX else None
    if isinstance(value, str):
        text = value.strip()
        number = whole(text.removeprefix("-"))
        return None if number is None else -number if text.startswith("-") else number
    return None


def _year(stamp: int | None) -> str:
    if stamp is None:
        return "not a number"
    return f"the year {1970 + stamp // 31_556_952}"


def _shown(value: Any) -> str:
    return repr(value if not isinstance(value, str) else value[:40])


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
        # CT Bans' length 0 is for ever (no minutes); its empty admin is none.
        action = CtBan(entry.time, 0, RULE, "CT Bans", entry.reason or "-", Target(0, entry.steamid, entry.name),
                       minutes=entry.minutes or None, rounds=None, by=entry.admin or None)
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
