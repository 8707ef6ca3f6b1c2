"""SourceBans++ beside jailcore (`[sourcebans] url, prefix, server_id, admin_id, plugin`): every
server ban jailcore gives is one row of `{prefix}_bans`, so the SourceBans++ plugin refuses
the player on every server of the network and its panel lists him; a pardon in jailcore
lifts the row (RemoveType 'U'); a row lifted in SourceBans++ becomes a pardon in jailcore,
which the server's daemon carries out (the unban sent to the game) within a second.

A bridge, not a hook: it compares the two databases every `POLL` seconds and does what is
missing, so a SourceBans++ database that is away only delays it (nothing is lost: the
audit log and the pardons are the to-do list). Exactly one row per ban: the row and its link
(`{prefix}_jailcore`, a table of jailcore's in the SourceBans++ database) are written in one
transaction, and the link is looked at first. Where the SourceBans++ plugin also runs on the
game server (`plugin = true`), it writes its own row for every BanClient: the bridge finds
that row and links it instead of writing a second (after PLUGIN_WAIT seconds without one, it
writes its own).

Written as SourceBans++ 1.7.0's own code writes, read as it reads (its panel, PHP, and its
game plugin, sbpp_main.sp):
- a SteamID as `STEAM_0:X:Y`: the panel turns whatever it is given into STEAM_0 and compares
  exactly (its search, its "already banned" check); the plugin matches either form. A row of
  ours from before, in STEAM_1, is written so once (`_steam0`);
- an unban's reason (`ureason`) HTML-escaped, as the panel stores it (`htmlspecialchars`, PHP
  8.1's ENT_QUOTES: & < > " ') and prints it raw; a ban's `reason` and `name` as they are, as
  the panel's Add Ban and the plugin store them and the panel escapes them when it prints.
  Read back, its texts are unescaped as it escaped them (`unescape`): the panel stores an unban
  reason through FILTER_SANITIZE_SPECIAL_CHARS and htmlspecialchars both (`it's` is
  `it&amp;#39;s`), an edited ban's reason through the first;
- its tables' charset and widths, read from the server (`_columns`): in `utf8` (3 bytes, what
  its installer writes by default on older networks) a letter outside the Basic Multilingual
  Plane (an emoji) is written as U+FFFD, never a row refused for it;
- an admin credited by his SteamID in `{prefix}_admins.authid` (either form), never by a name;
- a row its panel deletes (Delete, not Unban) is a ban lifted there: pardoned here as its unban is.
A row SourceBans++'s database still refuses for its values is set aside (said once, counted,
not tried again by this process) and the others go on.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pymysql

from jailcore.config.netsettings import SourceBansSettings
from jailcore.log.events import account
from jailcore.log.limits import INT_MAX
from jailcore.log.logtime import is_time
from jailcore.store.filter import Filter
from jailcore.store.interface import AuditLog
from jailcore.store.mariadb import VALUE_REFUSALS, _code, _lost, _why, connect, target
from jailcore.store.spelling import Row

POLL = 2.0
PLUGIN_WAIT = 30.0  # seconds a ban waits for the plugin's own row before the bridge writes one
log = logging.getLogger("jailcore")


def game_authid(steamid: str) -> str | None:
    """The steamid as SourceBans++ keeps it: `STEAM_0:X:Y`, the form its panel turns every
    SteamID into and compares exactly (its plugin matches `^STEAM_[0-9]:X:Y$`, either form)."""
    n = account(steamid)
    return f"STEAM_0:{n % 2}:{n // 2}" if n is not None else None


def unix(iso: str) -> int:
    if not is_time(iso):
        raise ValueError(f"not a time: {iso[:40]!r}")
    return int(datetime.fromisoformat(iso).timestamp())


# PHP's htmlspecialchars with its default flags since PHP 8.1 (ENT_QUOTES | ENT_SUBSTITUTE |
# ENT_HTML401), which SourceBans++ 1.7.0 requires and calls on an unban's reason.
_HTML = str.maketrans({"&": "&amp;", '"': "&quot;", "'": "&#039;", "<": "&lt;", ">": "&gt;"})
# What either of its escapes writes, read back: htmlspecialchars' five, and
# FILTER_SANITIZE_SPECIAL_CHARS' numeric ones (& " ' < > and the characters below 32).
_ESCAPED = re.compile(r"&(amp|quot|lt|gt|#0*(\d{1,3})|#x0*([0-9a-fA-F]{1,2}));")
_NAMED = {"amp": "&", "quot": '"', "lt": "<", "gt": ">"}


def escape(text: str) -> str:
    """As SourceBans++ stores an unban's reason (its panel prints it raw)."""
    return text.translate(_HTML)


def unescape(text: str, layers: int = 1) -> str:
    """A text SourceBans++ stored escaped, as it was typed: `layers` rounds of its escapes
    (an unban's reason from its panel has two: `it's` is `it&amp;#39;s`). Only the entities it
    writes are read; anything else (`&eacute;` typed by an admin) is left as it is."""
    for _ in range(layers):
        text = _ESCAPED.sub(_unescaped, text)
    return text


def _unescaped(m: re.Match[str]) -> str:
    if m.group(1) in _NAMED:
        return _NAMED[m.group(1)]
    code = int(m.group(2)) if m.group(2) is not None else int(m.group(3), 16)
    return chr(code) if code < 32 or chr(code) in "&\"'<>" else m.group(0)


def _fits(text: str, column: dict[str, Any] | None) -> str:
    """A text as the column takes it: its charset's letters (utf8mb3 has none past U+FFFF:
    written as U+FFFD; latin1 or ascii: `?`), its width (characters for a VARCHAR, bytes for a TEXT)."""
    if column is None:
        return text
    charset = str(column.get("charset") or "utf8mb4").lower()
    if charset in ("utf8", "utf8mb3"):
        text = "".join(c if ord(c) <= 0xFFFF else "\ufffd" for c in text)
    elif charset != "utf8mb4":
        codec = {"latin1": "cp1252", "ascii": "ascii"}.get(charset)
        if codec is not None:
            text = text.encode(codec, "replace").decode(codec)
    chars, octets = column.get("chars"), column.get("octets")
    if column.get("text") and octets:
        encoded = text.encode("utf-8")
        if len(encoded) > octets:
            text = encoded[:octets].decode("utf-8", "ignore")
    elif chars:
        text = text[:chars]
    return text


class SourceBans:
    """The bridge for one game server."""

    def __init__(self, settings: SourceBansSettings, server: str, origin: str, reader: AuditLog,
                 pardon: Callable[[int, str, str], object], clock: Callable[[], float] = time.time):
        if not settings.prefix.replace("_", "").isalnum():  # the prefix goes into the SQL: letters, digits, _
            raise ValueError(f"[sourcebans] prefix {settings.prefix!r}: letters, digits and _ only")
        self.settings = settings
        self.server, self.origin = server, origin[:64]
        self.reader = reader  # jailcore's database
        self.pardon = pardon  # writes a pardon request (store.submit(PardonRequest(...)))
        self.clock = clock
        self.target = target(settings.url)
        self.bans, self.links, self.admins = (f"{settings.prefix}_bans", f"{settings.prefix}_jailcore", f"{settings.prefix}_admins")
        self.db: Any = None
        self.away: str | None = None
        self.passes = 0  # full passes done (tests wait on it)
        self.poll = POLL
        self.columns: dict[str, dict[str, Any]] = {}  # the bans table's text columns as its server keeps them (`_columns`)
        self.aside: dict[int, str] = {}  # audit ids whose row SourceBans++ refused for its values, and why: not tried again
        self._aside_said: set[str] = set()
        self._wiped_said = False

    # -- lifetime (the daemon runs `run_once` every POLL seconds in a worker thread) ----------------

    def close(self) -> None:
        if self.db is not None:
            try:
                self.db.close()
            except pymysql.MySQLError:
                pass
            self.db = None

    def run_once(self) -> None:
        """One pass; an outage or a fault is said once and tried again at the next pass."""
        try:
            self.sync()
        except Exception as exc:
            if self.away is None:
                log.warning("SourceBans++ %s: %s; its rows wait", self.target.shown, exc)
            self.away = str(exc)
            self.close()

    def _cursor(self) -> Any:
        if self.db is None:
            self.db = connect(self.target, autocommit=False)
            with self.db.cursor() as cur:
                cur.execute(f"CREATE TABLE IF NOT EXISTS `{self.links}` (origin VARCHAR(64) NOT NULL, audit_id BIGINT NOT NULL, "
                            "bid INT NOT NULL, ours TINYINT NOT NULL, server VARCHAR(191) NOT NULL, removed INT NULL, "
                            "PRIMARY KEY (origin, audit_id), KEY (bid)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4")
            self.db.commit()
            self.columns = self._columns()
            self._steam0()
            if self.away is not None:
                log.warning("SourceBans++ %s is back", self.target.shown)
                self.away = None
        return self.db.cursor()

    def _columns(self) -> dict[str, dict[str, Any]]:
        """The bans table's text columns: charset and width, as its installer made them (its
        charset is the installer's parameter: utf8 on older networks, utf8mb4 on newer)."""
        with self.db.cursor() as cur:
            cur.execute("SELECT COLUMN_NAME AS name, CHARACTER_SET_NAME AS charset, CHARACTER_MAXIMUM_LENGTH AS chars, "
                        "CHARACTER_OCTET_LENGTH AS octets, DATA_TYPE AS kind FROM information_schema.COLUMNS "
                        "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = %s", (self.bans,))
            got = {str(r["name"]).lower(): {"charset": r["charset"], "chars": r["chars"], "octets": r["octets"],
                                             "text": str(r["kind"]).lower().endswith("text")} for r in cur.fetchall()}
        self.db.commit()
        return got

    def _steam0(self) -> None:
        """The open rows this bridge wrote before in STEAM_1 (CS:GO's form), as the panel keeps
        them: STEAM_0 (its search and its "already banned" check compare exactly). Once a connection."""
        with self.db.cursor() as cur:
            cur.execute(f"UPDATE `{self.bans}` b JOIN `{self.links}` l ON l.bid = b.bid SET b.authid = CONCAT('STEAM_0', SUBSTRING(b.authid, 8)) "
                        "WHERE l.origin = %s AND l.server = %s AND l.ours = 1 AND b.authid LIKE 'STEAM\\_1:%%'", (self.origin, self.server))
        self.db.commit()

    def _fit(self, column: str, text: str) -> str:
        return _fits(text, self.columns.get(column))

    def _refused(self, key: int, what: str, exc: pymysql.MySQLError | ValueError) -> None:
        """One row SourceBans++ refused for its values (or a value of ours that is no time):
        rolled back, said once per cause, counted, and not tried again by this process; the
        others go on. Anything else (the server gone, a right missing) ends the pass as before."""
        if isinstance(exc, pymysql.MySQLError) and (_lost(exc) or _code(exc) not in VALUE_REFUSALS):
            raise exc
        try:
            self.db.rollback()
        except pymysql.MySQLError:
            pass
        why = _why(exc) if isinstance(exc, pymysql.MySQLError) else str(exc)
        self.aside[key] = why
        cause = f"{what}: {_code(exc) if isinstance(exc, pymysql.MySQLError) else 'value'}"
        if cause not in self._aside_said:
            self._aside_said.add(cause)
            log.error("SourceBans++ %s refused %s of jailcore #%s (%s): it is set aside and the others go on; later ones refused so "
                      "are only counted (%d so far)", self.target.shown, what, key, why, len(self.aside))

    # -- one pass ---------------------------------------------------------------------------------

    def sync(self) -> None:
        """Writes or links the bans not yet in SourceBans++, lifts the pardoned ones there, and
        pardons here the ones lifted there."""
        try:
            self._give()
            self._lift_there()
            self._lift_here()
            self._protests()
        except pymysql.MySQLError as exc:
            raise ConnectionError(_why(exc)) from None
        self.passes += 1

    def _linked(self) -> dict[int, Row]:
        with self._cursor() as cur:
            cur.execute(f"SELECT * FROM `{self.links}` WHERE origin = %s AND server = %s", (self.origin, self.server))
            rows = cur.fetchall()
        self.db.commit()
        return {int(r["audit_id"]): r for r in rows}

    def _give(self) -> None:
        linked = self._linked()
        bans = [r for r in self.reader.entries(Filter(server=self.server, action="ban"))
                if r["status"] == "delivered" and r["id"] not in linked and r["id"] not in self.aside]
        for row in bans:
            authid = game_authid(row["steamid"] or "")
            if authid is None:
                continue  # a bot or a player without a steamid: nothing SourceBans++ can match
            try:
                self._give_one(row, authid)
            except (pymysql.MySQLError, ValueError, OverflowError) as exc:
                self._refused(int(row["id"]), "the ban", exc if isinstance(exc, pymysql.MySQLError | ValueError) else ValueError(str(exc)))

    def _give_one(self, row: Row, authid: str) -> None:
        created = unix(row["time"])
        minutes = json.loads(row["detail"] or "{}").get("minutes") or 0
        # Its `ends` is an INT of seconds since 1970: a ban past 2038 ends there (0 would say permanent).
        length = max(0, min(int(minutes) * 60, INT_MAX - created))
        with self._cursor() as cur:
            bid, ours = None, 1
            if self.settings.plugin:  # the plugin's own row for this BanClient
                cur.execute(f"SELECT b.bid FROM `{self.bans}` b LEFT JOIN `{self.links}` l ON l.bid = b.bid "
                            "WHERE b.type = 0 AND b.authid IN (%s, %s) AND b.sid = %s AND b.created BETWEEN %s AND %s AND l.bid IS NULL "
                            "ORDER BY b.bid LIMIT 1",
                            (authid, _other_universe(authid), self.settings.server_id, created - 120, created + 120))
                found = cur.fetchone()
                if found is not None:
                    bid, ours = int(found["bid"]), 0
                elif self.clock() - created < PLUGIN_WAIT:
                    return  # the plugin may still be writing it
            if bid is None:
                cur.execute(f"INSERT INTO `{self.bans}` (ip, authid, name, created, ends, length, reason, aid, adminIp, sid, country, type) "
                            "VALUES (NULL, %s, %s, %s, %s, %s, %s, %s, '', %s, NULL, 0)",
                            (authid, self._fit("name", row["name"] or "unnamed"), created, created + length, length,
                             self._fit("reason", ban_reason(row)), self.settings.admin_id, self.settings.server_id))
                bid = int(cur.lastrowid)
            cur.execute(f"INSERT INTO `{self.links}` (origin, audit_id, bid, ours, server) VALUES (%s, %s, %s, %s, %s)",
                        (self.origin, row["id"], bid, ours, self.server))
        self.db.commit()  # the row and its link together: never a second row for this ban

    def _lift_there(self) -> None:
        """A pardon in jailcore lifts the SourceBans++ row: RemoveType 'U', RemovedOn, ureason
        (escaped as its panel stores it), RemovedBy (the pardoning admin's aid where SourceBans++
        knows his SteamID, else jailcore's own)."""
        open_links = {k: v for k, v in self._linked().items() if v["removed"] is None and k not in self.aside}
        if not open_links:
            return
        for audit_id, pardon in self.reader.pardons_for(open_links).items():
            try:
                self._lift_one(audit_id, pardon, open_links[audit_id])
            except (pymysql.MySQLError, ValueError) as exc:
                self._refused(audit_id, "the pardon", exc)

    def _lift_one(self, audit_id: int, pardon: Row, link: Row) -> None:
        when = unix(pardon["time"]) if pardon.get("time") else int(self.clock())
        with self._cursor() as cur:
            aid = self.settings.admin_id
            authid = game_authid(str(_get(pardon, "steamid") or ""))
            if authid is not None:  # an admin in game: his SteamID, as the game authenticated it (never a name he chose)
                cur.execute(f"SELECT aid FROM `{self.admins}` WHERE authid IN (%s, %s) ORDER BY aid LIMIT 1", (authid, _other_universe(authid)))
                admin = cur.fetchone()
                aid = int(admin["aid"]) if admin else aid
            cur.execute(f"UPDATE `{self.bans}` SET RemoveType = 'U', RemovedOn = %s, ureason = %s, RemovedBy = %s "
                        "WHERE bid = %s AND RemoveType IS NULL",
                        (when, self._fit("ureason", escape(f"{pardon['reason']} (jailcore: {pardon['by']})")), aid, link["bid"]))
            cur.execute(f"UPDATE `{self.links}` SET removed = %s WHERE origin = %s AND audit_id = %s", (when, self.origin, audit_id))
        self.db.commit()

    def _lift_here(self) -> None:
        """A row lifted in SourceBans++ (by an admin there) is a pardon here; the daemon unbans
        him. So is a row its panel deleted (its Delete removes the row): the ban is no longer
        SourceBans++'s, and it is lifted here as its unban is, and said."""
        open_links = {int(v["bid"]): v for v in self._linked().values() if v["removed"] is None}
        if not open_links:
            return
        marks = ",".join(["%s"] * len(open_links))
        with self._cursor() as cur:
            cur.execute(f"SELECT b.bid, b.RemoveType, b.RemovedOn, b.ureason, a.user FROM `{self.bans}` b LEFT JOIN `{self.admins}` a "
                        f"ON a.aid = b.RemovedBy WHERE b.bid IN ({marks})", list(open_links))
            there = {int(r["bid"]): r for r in cur.fetchall()}
            cur.execute("SELECT AUTO_INCREMENT AS next FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = %s",
                        (self.bans,))
            numbered = int((cur.fetchone() or {}).get("next") or 0)
        self.db.commit()
        for bid, link in open_links.items():
            row = there.get(bid)
            if row is None and bid >= numbered:  # its numbering started again below ours: the table was emptied or made anew, not a Delete
                if not self._wiped_said:
                    self._wiped_said = True
                    log.error("SourceBans++ %s: its %s table numbers its rows from %d again, below jailcore's ban #%d there: it was emptied "
                              "or made anew, not a Delete, so nothing of jailcore's is lifted for it", self.target.shown, self.bans,
                              numbered, bid)
                continue
            if row is not None and row["RemoveType"] is None:
                continue
            removed = int(self.clock())
            if row is None:
                log.warning("SourceBans++ %s: ban #%s (jailcore #%s) was deleted in its panel; lifted here as its unban is",
                            self.target.shown, bid, link["audit_id"])
                self._pardon(link, "SourceBans++ (deleted there)", "deleted in SourceBans++", bid)
            else:
                removed = int(row["RemovedOn"] or removed)
                if row["RemoveType"] == "U":
                    self._pardon(link, f"SourceBans++ ({unescape(str(row['user'] or 'admin'))})",
                                 unescape(str(row["ureason"] or ""), layers=2) or "lifted in SourceBans++", bid)
            with self._cursor() as cur:
                cur.execute(f"UPDATE `{self.links}` SET removed = %s WHERE origin = %s AND audit_id = %s", (removed, self.origin, link["audit_id"]))
            self.db.commit()

    def _pardon(self, link: Row, who: str, reason: str, bid: int) -> None:
        try:
            self.pardon(int(link["audit_id"]), who, reason)
        except Exception as exc:  # already pardoned here (the same pardon both ways), or gone: nothing more to do
            log.info("SourceBans++ ban %s lifted: %s", bid, exc)

    def _protests(self) -> None:
        """The appeals of this server's bans are SourceBans++ protests, archived when answered (store/appeals.py)."""
        from jailcore.store.appeals import sync_protests

        appeals = [a for a in self.reader.appeals().listed("", 1000) if a["server"] == self.server]
        if appeals:
            links = {audit_id: int(link["bid"]) for audit_id, link in self._linked().items()}
            sync_protests(self._cursor, lambda: self.db.commit(), self.settings.prefix, self.origin, self.server, self.settings.admin_id,
                          appeals, links)

    # -- the web page's list ----------------------------------------------------------------------

    def network_bans(self, limit: int = 100) -> list[Row]:
        self._cursor().close()  # the links table exists
        return network_bans(self.settings, limit)


def network_bans(settings: SourceBansSettings, limit: int = 100) -> list[Row]:
    """The newest SourceBans++ bans of the whole network, newest first; `jailcore` is the audit
    id of a row jailcore wrote or linked (None: another's, read-only on jailcore's page). Its
    texts are read as its panel shows them (`unescape`)."""
    prefix = settings.prefix
    db = connect(target(settings.url))
    try:
        with db.cursor() as cur:
            cur.execute("SHOW TABLES LIKE %s", (f"{prefix}\\_jailcore",))
            linked = cur.fetchone() is not None
            links = (f"LEFT JOIN `{prefix}_jailcore` l ON l.bid = b.bid" if linked else "")
            columns = "l.audit_id AS jailcore, l.server AS jailcore_server" if linked else "NULL AS jailcore, NULL AS jailcore_server"
            cur.execute(f"SELECT b.bid, b.authid, b.name, b.created, b.ends, b.length, b.reason, b.ureason, b.sid, b.RemoveType, b.RemovedOn, "
                        f"{columns} FROM `{prefix}_bans` b {links} ORDER BY b.bid DESC LIMIT %s", (limit,))
            rows = list(cur.fetchall())
    finally:
        db.close()
    for r in rows:
        r["name"], r["reason"] = unescape(str(r["name"] or "")), unescape(str(r["reason"] or ""))
        r["ureason"] = unescape(str(r["ureason"] or ""), layers=2) if r.get("ureason") is not None else None
    return rows


def ban_reason(row: Row) -> str:
    """A ban's reason as SourceBans++ shows it: its clause once (a rule's reason quotes its own,
    «[Правило Общие 19] ...»; the clause is put before only where it does not), and its entry."""
    ref, reason = str(row["ref"] or ""), str(row["reason"] or "")
    head = f"[{ref}] " if ref and ref not in reason else ""
    return f"{head}{reason} (jailcore #{row['id']})"


def _get(row: Row, key: str) -> Any:
    """A column a row of an older database may lack."""
    try:
        return row[key]
    except (KeyError, IndexError):
        return None


def _other_universe(authid: str) -> str:
    """STEAM_0:X:Y and STEAM_1:X:Y are one account: the plugin may write either."""
    return ("STEAM_1" if authid.startswith("STEAM_0") else "STEAM_0") + authid[7:]
