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
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pymysql

from jailcore.config.netsettings import SourceBansSettings
from jailcore.log.events import account
from jailcore.store.filter import Filter
from jailcore.store.mariadb import _why, connect, target
from jailcore.store.reader import Reader, Row

POLL = 2.0
PLUGIN_WAIT = 30.0  # seconds a ban waits for the plugin's own row before the bridge writes one
log = logging.getLogger("jailcore")


def game_authid(steamid: str, style: str = "STEAM_1") -> str | None:
    """The steamid as SourceBans++ matches it (`^STEAM_[0-9]:X:Y$`), in the game's own form:
    STEAM_0 on CS:S, STEAM_1 on CS:GO (`style`, from what the server's log writes)."""
    if steamid.startswith("STEAM_") and steamid[6:7].isdigit():
        return steamid
    n = account(steamid)
    return f"{style}:{n % 2}:{n // 2}" if n is not None else None


def unix(iso: str) -> int:
    return int(datetime.fromisoformat(iso).timestamp())


class SourceBans:
    """The bridge for one game server."""

    def __init__(self, settings: SourceBansSettings, server: str, origin: str, reader: Reader,
                 pardon: Callable[[int, str, str], object], clock: Callable[[], float] = time.time):
        if not settings.prefix.replace("_", "").isalnum():  # the prefix goes into the SQL: letters, digits, _
            raise ValueError(f"[sourcebans] prefix {settings.prefix!r}: letters, digits and _ only")
        self.settings = settings
        self.server, self.origin = server, origin[:64]
        self.reader = reader  # jailcore's database
        self.pardon = pardon  # writes a pardon request (store.request_pardon)
        self.clock = clock
        self.target = target(settings.url)
        self.bans, self.links, self.admins = (f"{settings.prefix}_bans", f"{settings.prefix}_jailcore", f"{settings.prefix}_admins")
        self.db: Any = None
        self.away: str | None = None
        self.passes = 0  # full passes done (tests wait on it)
        self.poll = POLL

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
            if self.away is not None:
                log.warning("SourceBans++ %s is back", self.target.shown)
                self.away = None
        return self.db.cursor()

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
        bans = [r for r in self.reader.entries(Filter(server=self.server, action="ban")) if r["status"] == "delivered" and r["id"] not in linked]
        if not bans:
            return
        style = "STEAM_0" if (self.reader.newest_steamid(self.server) or "").startswith("STEAM_0") else "STEAM_1"
        for row in bans:
            authid = game_authid(row["steamid"] or "", style)
            if authid is None:
                continue  # a bot or a player without a steamid: nothing SourceBans++ can match
            created = unix(row["time"])
            minutes = json.loads(row["detail"] or "{}").get("minutes") or 0
            length = int(minutes) * 60
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
                        continue  # the plugin may still be writing it
                if bid is None:
                    reason = f"[{row['ref']}] {row['reason']} (jailcore #{row['id']})"[:1000]
                    cur.execute(f"INSERT INTO `{self.bans}` (ip, authid, name, created, ends, length, reason, aid, adminIp, sid, country, type) "
                                "VALUES (NULL, %s, %s, %s, %s, %s, %s, %s, '', %s, NULL, 0)",
                                (authid, (row["name"] or "unnamed")[:128], created, created + length, length, reason,
                                 self.settings.admin_id, self.settings.server_id))
                    bid = int(cur.lastrowid)
                cur.execute(f"INSERT INTO `{self.links}` (origin, audit_id, bid, ours, server) VALUES (%s, %s, %s, %s, %s)",
                            (self.origin, row["id"], bid, ours, self.server))
            self.db.commit()  # the row and its link together: never a second row for this ban

    def _lift_there(self) -> None:
        """A pardon in jailcore lifts the SourceBans++ row: RemoveType 'U', RemovedOn, ureason, RemovedBy."""
        open_links = {k: v for k, v in self._linked().items() if v["removed"] is None}
        if not open_links:
            return
        for audit_id, pardon in self.reader.pardons_for(open_links).items():
            link = open_links[audit_id]
            when = unix(pardon["time"]) if pardon.get("time") else int(self.clock())
            with self._cursor() as cur:
                cur.execute(f"SELECT aid FROM `{self.admins}` WHERE authid = %s OR user = %s LIMIT 1", (pardon["by"], pardon["by"]))
                admin = cur.fetchone()
                cur.execute(f"UPDATE `{self.bans}` SET RemoveType = 'U', RemovedOn = %s, ureason = %s, RemovedBy = %s "
                            "WHERE bid = %s AND RemoveType IS NULL",
                            (when, f"{pardon['reason']} (jailcore: {pardon['by']})"[:1000], int(admin["aid"]) if admin else self.settings.admin_id,
                             link["bid"]))
                cur.execute(f"UPDATE `{self.links}` SET removed = %s WHERE origin = %s AND audit_id = %s", (when, self.origin, audit_id))
            self.db.commit()

    def _lift_here(self) -> None:
        """A row lifted in SourceBans++ (by an admin there) is a pardon here; the daemon unbans him."""
        open_links = {int(v["bid"]): v for v in self._linked().values() if v["removed"] is None}
        if not open_links:
            return
        marks = ",".join(["%s"] * len(open_links))
        with self._cursor() as cur:
            cur.execute(f"SELECT b.bid, b.RemoveType, b.RemovedOn, b.ureason, a.user FROM `{self.bans}` b LEFT JOIN `{self.admins}` a "
                        f"ON a.aid = b.RemovedBy WHERE b.bid IN ({marks}) AND b.RemoveType IS NOT NULL", list(open_links))
            lifted = cur.fetchall()
        self.db.commit()
        for row in lifted:
            link = open_links[int(row["bid"])]
            if row["RemoveType"] == "U":
                who = f"SourceBans++ ({row['user'] or 'admin'})"
                try:
                    self.pardon(int(link["audit_id"]), who, row["ureason"] or "lifted in SourceBans++")
                except Exception as exc:  # already pardoned here (the same pardon both ways), or gone: nothing more to do
                    log.info("SourceBans++ ban %s lifted: %s", row["bid"], exc)
            with self._cursor() as cur:
                cur.execute(f"UPDATE `{self.links}` SET removed = %s WHERE origin = %s AND audit_id = %s",
                            (row["RemovedOn"] or int(self.clock()), self.origin, link["audit_id"]))
            self.db.commit()

    def _protests(self) -> None:
        """The appeals of this server's bans are SourceBans++ protests, archived when answered (store/appeals.py)."""
        from jailcore.store.appeals import Appeals, sync_protests

        appeals = [a for a in Appeals(self.reader).listed("", 1000) if a["server"] == self.server]
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
    id of a row jailcore wrote or linked (None: another's, read-only on jailcore's page)."""
    prefix = settings.prefix
    db = connect(target(settings.url))
    try:
        with db.cursor() as cur:
            cur.execute("SHOW TABLES LIKE %s", (f"{prefix}\\_jailcore",))
            linked = cur.fetchone() is not None
            links = (f"LEFT JOIN `{prefix}_jailcore` l ON l.bid = b.bid" if linked else "")
            columns = "l.audit_id AS jailcore, l.server AS jailcore_server" if linked else "NULL AS jailcore, NULL AS jailcore_server"
            cur.execute(f"SELECT b.bid, b.authid, b.name, b.created, b.ends, b.length, b.reason, b.sid, b.RemoveType, b.RemovedOn, {columns} "
                        f"FROM `{prefix}_bans` b {links} ORDER BY b.bid DESC LIMIT %s", (limit,))
            return list(cur.fetchall())
    finally:
        db.close()


def _other_universe(authid: str) -> str:
    """STEAM_0:X:Y and STEAM_1:X:Y are one account: the plugin may write either."""
    return ("STEAM_1" if authid.startswith("STEAM_0") else "STEAM_0") + authid[7:]
