"""Appeals (issue 32): a player's word against one punishment, filed on the web page without an
account, and the admin's answer; every line of their SQL, written once for both backends
(store/portable.py), and the SourceBans++ protests they become.

One appeal per punishment (`UNIQUE (server, action_id)`); its `token` is the player's own
unguessable link to follow it. `status` is `open`, then `granted` (a pardon, through the one
pardon road: the admin's `pardons` row the daemon applies) or `upheld` (with a reason the
player reads). The filer's address is kept for the per-address limits and SourceBans++'s
`pip`, never shown on a page.

With `[sourcebans]`, an appeal of a ban jailcore wrote (or linked) there is one row of
`{prefix}_protests` (bid, datesubmitted, reason, email, archiv 0, pip), written by the
daemon's bridge beside its bans (`sync_protests`), and archived when the appeal is answered
(archiv 4, as SourceBans++ itself marks a protest whose ban was lifted; 1 when upheld,
archivedby the admin). The link between the two is a table of jailcore's in the SourceBans++
database, `{prefix}_jailcore_appeals`, written in the protest's transaction: one protest per
appeal, whatever fails between.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, cast

from jailcore.log import limits
from jailcore.log.errors import AdminRequestError
from jailcore.store.spelling import Database, Reads, Row, marks, missing_table, spell

SCHEMA = [
    "CREATE TABLE IF NOT EXISTS appeals (id {id}, token {account} NOT NULL UNIQUE, server {key} NOT NULL, action_id BIGINT NOT NULL, "
    "action {word} NOT NULL, steamid {steamid} NOT NULL, name {name}, text TEXT NOT NULL, contact {key} NOT NULL DEFAULT '', "
    "address {account} NOT NULL DEFAULT '', time {time} NOT NULL, status {short} NOT NULL, reason TEXT, `by` {key}, "
    "answered {time}, UNIQUE (server, action_id)){options}",
    "CREATE INDEX IF NOT EXISTS appeals_status ON appeals (status, id)",
]
TEXT_MAX = 2000  # characters of a player's appeal
CONTACT_MAX = limits.KEY  # its column's width
REASON_MAX = 500  # an admin's answer
OPEN_MAX = 1000  # appeals waiting for an answer, on every server together: past it, new ones wait for room
STATUSES = ("open", "granted", "upheld")


class AppealError(AdminRequestError, ValueError):
    """An appeal or an answer refused: the message says why, in one line (a page shows it)."""


def schema(dialect: str) -> list[str]:
    return [spell(ddl, dialect) for ddl in SCHEMA]


def _now() -> str:
    return datetime.now().isoformat(timespec="seconds")




def close_lifted(server: str, action_ids: Sequence[int], ctbans_of: Sequence[str], by: str, reason: str,
                 when: str) -> list[tuple[str, tuple[Any, ...]]]:
    """The statements that answer the open appeals of punishments lifted by another road
    (session/effects.py `CloseAppeals`): granted, by whoever lifted it, with the lift's words,
    as if answered here. One statement for both backends; none for nothing to close."""
    from jailcore.log.accounts import same_account

    answer = ("granted", reason[:REASON_MAX], by[:191], when)
    out: list[tuple[str, tuple[Any, ...]]] = []
    ids = [int(i) for i in action_ids][:500]
    if ids:
        out.append((f"UPDATE appeals SET status = ?, reason = ?, `by` = ?, answered = ? "
                    f"WHERE server = ? AND status = 'open' AND action_id IN ({marks(len(ids))})", (*answer, server, *ids)))
    forms = sorted({form for steamid in ctbans_of if steamid for form in (steamid, *same_account(steamid))})[:50]
    if forms:
        out.append((f"UPDATE appeals SET status = ?, reason = ?, `by` = ?, answered = ? "
                    f"WHERE server = ? AND status = 'open' AND action = 'ctban' AND steamid IN ({marks(len(forms))})",
                    (*answer, server, *forms)))
    return out


class Appeals:
    """Over a `Db` (store/portable.py: reads and writes), or a read-only `store.reader.Reader` (its
    `rows`: the web page's and the command line's reads, through the connection each thread has)."""

    def __init__(self, db: Database | Reads):
        self.db = cast(Database, db)  # a Reader is only read through

    def file(self, server: str, action_id: int, action: str, steamid: str, name: str | None, text: str, contact: str, address: str,
             token: str, when: str | None = None) -> int:
        """A new appeal; refused when this punishment has one, or too many wait already."""
        with self.db.transaction():
            if self.for_actions(server, [action_id]):
                raise AppealError(f"punishment {server} #{action_id} has been appealed already")
            waiting = self.db.rows("SELECT COUNT(*) AS n FROM appeals WHERE status = 'open'")
            if waiting and int(waiting[0]["n"]) >= OPEN_MAX:
                raise AppealError("too many appeals wait for an answer; try again later")
            _, row_id = self.db.execute(
                "INSERT INTO appeals (token, server, action_id, action, steamid, name, text, contact, address, time, status) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open')",
                (token, server, action_id, action, steamid, (name or "")[:255], text[:TEXT_MAX], contact[:CONTACT_MAX], address[:64],
                 when or _now()))
        assert row_id is not None
        return int(row_id)

    def get(self, appeal_id: int) -> Row | None:
        got = self.db.rows("SELECT * FROM appeals WHERE id = ?", (appeal_id,)) if 0 < appeal_id < 2**63 else []
        return got[0] if got else None

    def still_open(self, appeal_id: int) -> Row:
        """The appeal, refused when there is none or it was answered already (by whom, when)."""
        row = self.get(appeal_id)
        if row is None:
            raise AppealError(f"no appeal #{appeal_id}")
        if row["status"] != "open":
            raise AppealError(f"appeal #{appeal_id} was answered already ({row['status']} by {row['by']} at {row['answered']})")
        return row

    def by_token(self, token: str) -> Row | None:
        got = self.db.rows("SELECT * FROM appeals WHERE token = ?", (token[:64],))
        return got[0] if got else None

    def for_actions(self, server: str, action_ids: Iterable[int]) -> dict[int, Row]:
        ids = list(action_ids)[:500]
        if not ids:
            return {}
        rows = self.db.rows(f"SELECT * FROM appeals WHERE server = ? AND action_id IN ({marks(len(ids))})", (server, *ids))
        return {int(r["action_id"]): r for r in rows}

    def listed(self, status: str = "", limit: int = 100) -> list[Row]:
        """Appeals (of one status, or all), newest first; none in a database from before them."""
        return self._rows("SELECT * FROM appeals WHERE ? = '' OR status = ? ORDER BY id DESC LIMIT ?", (status, status, limit))

    def after(self, upto: int, limit: int = 200) -> list[Row]:
        """Appeals filed after id `upto`, oldest first (the daemon's watcher: its in-game word and its notice)."""
        return self.db.rows("SELECT * FROM appeals WHERE id > ? ORDER BY id LIMIT ?", (upto, limit))

    def newest_id(self) -> int:
        got = self.db.rows("SELECT COALESCE(MAX(id), 0) AS n FROM appeals")
        return int(got[0]["n"]) if got else 0

    def answer(self, appeal_id: int, status: str, by: str, reason: str, when: str | None = None) -> Row:
        """The admin's answer to an open appeal (granted or upheld); refused when it has one."""
        assert status in ("granted", "upheld")
        with self.db.transaction():
            self.still_open(appeal_id)
            self.db.execute("UPDATE appeals SET status = ?, reason = ?, `by` = ?, answered = ? WHERE id = ? AND status = 'open'",
                            (status, reason[:REASON_MAX], by[:191], when or _now(), appeal_id))
        got = self.get(appeal_id)
        assert got is not None
        return got

    def answered(self, by: str = "", limit: int = 100) -> list[Row]:
        """Answered appeals (of one admin, or all), newest answer first: the activity log's."""
        return self._rows("SELECT * FROM appeals WHERE status != 'open' AND (? = '' OR `by` = ?) ORDER BY answered DESC LIMIT ?",
                          (by, by, limit))

    def _rows(self, sql: str, params: tuple[Any, ...]) -> list[Row]:
        """A read of the appeals; none in a database from before them (not upgraded yet)."""
        try:
            return self.db.rows(sql, params)
        except Exception as exc:
            if missing_table(exc):
                return []
            raise


# -- SourceBans++'s protests (the daemon's bridge runs this beside its bans) --------------------


def sync_protests(cursor: Any, commit: Any, prefix: str, origin: str, server: str, admin_id: int, appeals: list[Row],
                  links: dict[int, int]) -> int:
    """Each appeal of this server whose punishment is a SourceBans++ ban (`links`: audit id to
    bid) becomes one protest there; an answered one is archived. `cursor()` opens a cursor on
    SourceBans++'s database, `commit()` ends its transaction. Returns the protests written or
    archived."""
    table, ours, admins = f"`{prefix}_protests`", f"`{prefix}_jailcore_appeals`", f"`{prefix}_admins`"
    with cursor() as cur:
        cur.execute(f"CREATE TABLE IF NOT EXISTS {ours} (origin VARCHAR(64) NOT NULL, appeal_id BIGINT NOT NULL, pid INT NOT NULL, "
                    "server VARCHAR(191) NOT NULL, archived TINYINT NOT NULL DEFAULT 0, PRIMARY KEY (origin, appeal_id)) "
                    "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4")
        cur.execute(f"SELECT appeal_id, pid, archived FROM {ours} WHERE origin = %s AND server = %s", (origin, server))
        known = {int(r["appeal_id"]): r for r in cur.fetchall()}
    commit()
    done = 0
    for appeal in appeals:
        bid = links.get(int(appeal["action_id"]))
        if bid is None:
            continue  # not a ban SourceBans++ holds (a CT ban, or not written there yet)
        link = known.get(int(appeal["id"]))
        if link is None:
            contact = str(appeal["contact"] or "")
            with cursor() as cur:
                cur.execute(f"INSERT INTO {table} (bid, datesubmitted, reason, email, archiv, pip) VALUES (%s, %s, %s, %s, 0, %s)",
                            (bid, int(datetime.fromisoformat(str(appeal["time"])).timestamp()),
                             f"{appeal['text']} (jailcore appeal #{appeal['id']})"[:TEXT_MAX + 40], contact[:128], str(appeal["address"] or "")[:64]))
                pid = int(cur.lastrowid)
                cur.execute(f"INSERT INTO {ours} (origin, appeal_id, pid, server) VALUES (%s, %s, %s, %s)", (origin, appeal["id"], pid, server))
            commit()  # the protest and its link together: never a second protest for this appeal
            link, done = {"pid": pid, "archived": 0}, done + 1
        if appeal["status"] != "open" and not link["archived"]:
            with cursor() as cur:
                cur.execute(f"SELECT aid FROM {admins} WHERE user = %s OR authid = %s LIMIT 1", (appeal["by"] or "", appeal["by"] or ""))
                admin = cur.fetchone()
                # Only a protest still open there: one SourceBans++ archived itself (its ban unbanned, 4, or
                # deleted, 2, in its panel) keeps what its panel says.
                cur.execute(f"UPDATE {table} SET archiv = %s, archivedby = %s WHERE pid = %s AND archiv = 0",
                            (4 if appeal["status"] == "granted" else 1, int(admin["aid"]) if admin else admin_id, link["pid"]))
                cur.execute(f"UPDATE {ours} SET archived = 1 WHERE origin = %s AND appeal_id = %s", (origin, appeal["id"]))
            commit()
            done += 1
    return done

