"""SourceBans++ as its own code reads our rows (issue 34), on a real MariaDB: its tables as
SourceBans++ 1.7.0's installer makes them (web/install/includes/sql/struc.sql, its charset a
parameter: utf8 on older servers, utf8mb4), its game plugin's connect query
(sbpp_main.sp, OnClientAuthorized), its panel's "already banned" check and search (AddBan and
page.banlist.php), and its escaping (the panel stores an unban's reason through PHP's
FILTER_SANITIZE_SPECIAL_CHARS and htmlspecialchars and prints it raw; it prints a ban's reason
and name escaped)."""

from __future__ import annotations

import asyncio
import html
import time

import pymysql
import pytest

from jailcore.config.config import load
from jailcore.config.netsettings import SourceBansSettings
from jailcore.engine.actions import Action, Ban, Target
from jailcore.sim.simserver import SimServer
from jailcore.store.location import open_reader, open_store
from jailcore.store.mariadb import MariaStore, target
from jailcore.store.request_kinds import PardonRequest
from jailcore.store.sourcebans import SourceBans, network_bans
from tests.audit_rows import entries
from tests.mariadb import mariadb, mariadb_server
from tests.test_live import config_text, running, sent, settled, until

__all__ = ["mariadb", "mariadb_server"]


def install(server, charset: str) -> str:
    """A SourceBans++ database as its 1.7.0 installer makes it: its bans and admins tables, in `charset`."""
    url = server.database()
    db = sql(url)
    with db.cursor() as cur:
        cur.execute(f"ALTER DATABASE CHARACTER SET {charset}")
        cur.execute(f"""CREATE TABLE sb_admins (aid INT(6) NOT NULL AUTO_INCREMENT, user VARCHAR(64) NOT NULL, authid VARCHAR(64) NOT NULL DEFAULT '',
            password VARCHAR(128) NOT NULL DEFAULT '', gid INT(6) NOT NULL DEFAULT -1, email VARCHAR(128) NOT NULL DEFAULT '',
            validate VARCHAR(128) NULL DEFAULT NULL, extraflags INT(10) NOT NULL DEFAULT 0, immunity INT(10) NOT NULL DEFAULT 0,
            srv_group VARCHAR(128) DEFAULT NULL, srv_flags VARCHAR(64) DEFAULT NULL, srv_password VARCHAR(128) DEFAULT NULL,
            lastvisit INT(11) NULL, PRIMARY KEY (aid), UNIQUE KEY user (user)) ENGINE=InnoDB DEFAULT CHARSET={charset}""")
        cur.execute(f"""CREATE TABLE sb_bans (bid INT(6) NOT NULL AUTO_INCREMENT, ip VARCHAR(32) DEFAULT NULL,
            authid VARCHAR(64) CHARACTER SET {charset} NOT NULL DEFAULT '', name VARCHAR(128) CHARACTER SET {charset} NOT NULL DEFAULT 'unnamed',
            created INT(11) NOT NULL DEFAULT 0, ends INT(11) NOT NULL DEFAULT 0, length INT(10) NOT NULL DEFAULT 0,
            reason TEXT CHARACTER SET {charset} NOT NULL, aid INT(6) NOT NULL DEFAULT 0, adminIp VARCHAR(32) NOT NULL DEFAULT '',
            sid INT(6) NOT NULL DEFAULT 0, country VARCHAR(4) DEFAULT NULL, RemovedBy INT(8) NULL, RemoveType VARCHAR(3) NULL,
            RemovedOn INT(10) NULL, type TINYINT NOT NULL DEFAULT 0, ureason TEXT, PRIMARY KEY (bid), KEY sid (sid),
            FULLTEXT KEY reason (reason), FULLTEXT KEY authid_2 (authid), KEY type_authid (type, authid), KEY type_ip (type, ip))
            ENGINE=InnoDB DEFAULT CHARSET={charset}""")
        cur.execute("INSERT INTO sb_admins (aid, user, authid) VALUES (7, 'jailcore', ''), (12, 'Админ', 'STEAM_0:1:555'), "
                    "(13, 'Смотритель', 'STEAM_0:0:777')")
    db.close()
    return url


def sql(url: str):
    t = target(url)
    return pymysql.connect(host=t.host, port=t.port, user=t.user, password=t.password, database=t.database, autocommit=True,
                           cursorclass=pymysql.cursors.DictCursor, charset="utf8mb4")


def query(url: str, statement: str, params: tuple = ()) -> list[dict]:
    db = sql(url)
    try:
        with db.cursor() as cur:
            cur.execute(statement, params)
            return list(cur.fetchall())
    finally:
        db.close()


def plugin_finds(url: str, auth: str) -> list[dict]:
    """sbpp_main.sp's OnClientAuthorized: the player's `auth` from the engine (either form), from its 9th character on."""
    plugin = ("SELECT bid, ip FROM {prefix}_bans WHERE ((type = 0 AND authid REGEXP '^STEAM_[0-9]:{auth}$') OR (type = 1 AND ip = '{ip}')) "
              "AND (length = '0' OR ends > UNIX_TIMESTAMP()) AND RemoveType IS NULL")  # its FormatEx, with its %s named
    return query(url, plugin.format(prefix="sb", auth=auth[8:], ip="127.0.0.1"))


def panel_already_banned(url: str, typed: str) -> int:
    """AddBan (sb-callback.php): the panel's SteamID::toSteam2 gives STEAM_0, compared exactly."""
    steam = "STEAM_0" + typed[7:]
    return query(url, "SELECT count(bid) AS count FROM sb_bans WHERE authid = %s AND (length = 0 OR ends > UNIX_TIMESTAMP()) "
                      "AND RemovedBy IS NULL AND type = '0'", (steam,))[0]["count"]


def php_sanitize(text: str) -> str:
    """PHP's FILTER_SANITIZE_SPECIAL_CHARS (init.php runs every input through it): & " ' < > and the characters below 32 as &#N;."""
    return "".join(f"&#{ord(c)};" if c in "&\"'<>" or ord(c) < 32 else c for c in text)


def php_htmlspecialchars(text: str) -> str:
    """PHP 8.1's htmlspecialchars, default flags (ENT_QUOTES | ENT_SUBSTITUTE | ENT_HTML401)."""
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("'", "&#039;").replace("<", "&lt;").replace(">", "&gt;")


def ban(n: int, steamid: str, name: str, minutes: int | None = 60, reason: str = "[Правило Общие 19] реклама") -> Action:
    return Ban(time=time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(time.time() - 60 + n)), round=1,
               rule="conduct.advertising", ref="Общие 19", reason=reason, target=Target(userid=n, steamid=steamid, name=name), minutes=minutes)


def delivered(store: MariaStore, action: Action) -> int:
    row = store.record("jail", action, 1, "jb_ban", "pending")
    store.mark(row, "delivered", "ok")
    store.commit()
    return row


@pytest.fixture
def bridge_on(mariadb):
    made: list = []

    def make(sb: str, **settings) -> tuple[SourceBans, MariaStore, list]:
        store = MariaStore(mariadb)
        reader = open_reader(mariadb)
        pardons: list = []

        def pardon(action_id, by, reason):
            pardons.append((action_id, by, reason))
            return store.submit(PardonRequest(action_id, by, reason))

        bridge = SourceBans(SourceBansSettings(sb, "sb", server_id=3, admin_id=7, **settings), "jail", "test", reader, pardon)
        made.append((bridge, reader, store))
        return bridge, store, pardons

    yield make
    for bridge, reader, store in made:
        bridge.close()
        reader.close()
        store.close()


@pytest.mark.parametrize("charset", ["utf8", "utf8mb4"])
def test_an_emoji_and_a_refused_row_never_hold_the_other_bans(mariadb_server, bridge_on, charset):
    """Before: in a `utf8` SourceBans++ (3 bytes a letter), one banned player with an emoji in
    his name failed his row (`Incorrect string value`), and every pass stopped at it: no
    `sb_bans` row was written for anyone after. Now the table's charset is read and what is
    written fits it (U+FFFD for a letter it lacks); a row refused anyway (a CHECK of its own)
    is set aside and said, and the others are written."""
    sb = install(mariadb_server, charset)
    query(sb, "ALTER TABLE sb_bans ADD CONSTRAINT no_poison CHECK (name <> 'Отрава')")
    bridge, store, _ = bridge_on(sb)
    rows = [delivered(store, ban(1, "STEAM_1:0:1001", "Вася 😀 Пупкин")), delivered(store, ban(2, "STEAM_1:0:1002", "Отрава")),
            delivered(store, ban(3, "STEAM_1:1:1003", "Петя " + "😀" * 200, reason="x" * 70_000))]
    bridge.sync()
    bridge.sync()  # the refused one is not tried again, and nothing is doubled
    got = query(sb, "SELECT authid, name, CHAR_LENGTH(name) AS n, LENGTH(reason) AS r FROM sb_bans ORDER BY bid")
    assert [r["authid"] for r in got] == ["STEAM_0:0:1001", "STEAM_0:1:1003"]
    if charset == "utf8":
        assert got[0]["name"] == "Вася \ufffd Пупкин"
    else:
        assert got[0]["name"] == "Вася 😀 Пупкин"
    assert got[1]["n"] == 128 and got[1]["r"] <= 65_535  # its widths, read from the table
    assert set(bridge.aside) == {rows[1]} and bridge.passes == 2
    # The next ban is written too: nothing waits behind the refused one.
    later = delivered(store, ban(4, "STEAM_1:0:1004", "Коля 🎮"))
    bridge.sync()
    assert query(sb, "SELECT COUNT(*) AS n FROM sb_bans")[0]["n"] == 3 and later not in bridge.aside


def test_its_plugin_and_its_panel_find_our_rows_in_either_steamid_form(mariadb_server, bridge_on):
    """Before: on CS:GO jailcore wrote `STEAM_1:...`; the plugin matched it (REGEXP on either
    form), but the panel, which turns every SteamID into STEAM_0 and compares exactly, missed it
    in its search and its "already banned" check let an owner add a second permanent ban."""
    sb = install(mariadb_server, "utf8mb4")
    bridge, store, _ = bridge_on(sb)
    # A row this bridge wrote before, in STEAM_1: made STEAM_0 when the bridge connects.
    query(sb, "CREATE TABLE sb_jailcore (origin VARCHAR(64) NOT NULL, audit_id BIGINT NOT NULL, bid INT NOT NULL, ours TINYINT NOT NULL, "
              "server VARCHAR(191) NOT NULL, removed INT NULL, PRIMARY KEY (origin, audit_id), KEY (bid))")
    old = delivered(store, ban(1, "STEAM_1:0:2001", "Старый"))
    query(sb, "INSERT INTO sb_bans (authid, name, created, ends, length, reason, aid, sid, type) "
              "VALUES ('STEAM_1:0:2001', 'Старый', UNIX_TIMESTAMP(), UNIX_TIMESTAMP() + 3600, 3600, 'r', 7, 3, 0)")
    query(sb, "INSERT INTO sb_jailcore (origin, audit_id, bid, ours, server) SELECT 'test', %s, MAX(bid), 1, 'jail' FROM sb_bans", (old,))
    delivered(store, ban(2, "STEAM_1:1:2002", "Новый", minutes=None))  # permanent
    delivered(store, ban(3, "[U:1:4011]", "Третий"))  # account 4011: STEAM_0:1:2005
    bridge.sync()
    authids = [r["authid"] for r in query(sb, "SELECT authid FROM sb_bans ORDER BY bid")]
    assert authids == ["STEAM_0:0:2001", "STEAM_0:1:2002", "STEAM_0:1:2005"]
    for steamid in ("STEAM_0:0:2001", "STEAM_1:0:2001", "STEAM_0:1:2002", "STEAM_1:1:2002", "STEAM_1:1:2005"):
        assert len(plugin_finds(sb, steamid)) == 1, steamid  # the game plugin: either form the engine gives
        assert panel_already_banned(sb, steamid) == 1, steamid  # the panel: a second ban refused
    assert query(sb, "SELECT COUNT(*) AS n FROM sb_bans WHERE authid LIKE %s", ("%STEAM_0:1:2002%",))[0]["n"] == 1  # its search
    # Lifted here, the plugin no longer finds him, in either form.
    (row,) = [r for r in entries(store, "action = 'ban'") if r["steamid"] == "STEAM_1:1:2002"]
    store.submit(PardonRequest(row["id"], "Админ", "разобрались"))
    bridge.sync()
    assert plugin_finds(sb, "STEAM_1:1:2002") == [] and plugin_finds(sb, "STEAM_0:1:2002") == []


def test_an_unban_reason_is_written_as_its_panel_writes_it_and_read_as_it_reads(mariadb_server, bridge_on):
    """Before: jailcore wrote a pardon's reason raw into `ureason`, which the panel prints raw:
    `<steam>` in it (or in an in-game admin's nickname, in `(jailcore: ...)`) became markup on
    its public ban list. And a reason its panel wrote came back escaped (`it&amp;#39;s`)."""
    sb = install(mariadb_server, "utf8mb4")
    bridge, store, pardons = bridge_on(sb)
    ours = delivered(store, ban(1, "STEAM_1:0:3001", "<b>Игрок</b>"))
    theirs = delivered(store, ban(2, "STEAM_1:0:3002", "Второй"))
    bridge.sync()
    said = "<steam> it's \"ok\" & <script>alert(1)</script>"
    store.submit(PardonRequest(ours, "<img src=x onerror=alert(1)>", said))
    bridge.sync()
    (lifted,) = query(sb, "SELECT ureason, name, reason FROM sb_bans WHERE RemoveType = 'U'")
    assert "<" not in lifted["ureason"] and ">" not in lifted["ureason"]  # no markup on its page
    assert lifted["ureason"] == php_htmlspecialchars(f"{said} (jailcore: <img src=x onerror=alert(1)>)")  # as its panel stores it
    assert html.unescape(lifted["ureason"]) == f"{said} (jailcore: <img src=x onerror=alert(1)>)"  # what its page shows
    assert lifted["name"] == "<b>Игрок</b>"  # a name as its panel's Add Ban stores it: raw, escaped when printed
    # Its panel unbans the other: `ureason` = htmlspecialchars(trim(FILTER_SANITIZE_SPECIAL_CHARS($_GET['ureason']))).
    typed = "it's <fine> & \"done\""
    query(sb, "UPDATE sb_bans SET RemoveType = 'U', RemovedBy = 13, RemovedOn = UNIX_TIMESTAMP(), ureason = %s WHERE name = 'Второй'",
          (php_htmlspecialchars(php_sanitize(typed)),))
    bridge.sync()
    assert pardons == [(theirs, "SourceBans++ (Смотритель)", typed)]
    # An edited ban's reason (its edit form stores FILTER_SANITIZE_SPECIAL_CHARS' output) on jailcore's page.
    query(sb, "INSERT INTO sb_bans (authid, name, created, ends, length, reason, aid, sid, type) "
              "VALUES ('STEAM_0:1:9', %s, UNIX_TIMESTAMP(), 0, 0, %s, 12, 1, 0)", (php_sanitize("O'Brien"), php_sanitize("it's a <cheat>")))
    shown = {r["authid"]: r for r in network_bans(SourceBansSettings(sb, "sb"))}
    assert (shown["STEAM_0:1:9"]["name"], shown["STEAM_0:1:9"]["reason"]) == ("O'Brien", "it's a <cheat>")


def test_an_admin_is_credited_by_his_steamid_never_by_a_nickname(mariadb_server, bridge_on):
    """Before: the admin of a pardon was looked up by `by` (a nickname, or any text) against
    `sb_admins.authid` and `user`: a nickname equal to a panel user's name credited that admin."""
    sb = install(mariadb_server, "utf8mb4")
    bridge, store, _ = bridge_on(sb)
    first, second, third = (delivered(store, ban(n, f"STEAM_1:0:40{n:02d}", f"Игрок {n}")) for n in (1, 2, 3))
    bridge.sync()
    store.submit(PardonRequest(first, "Смотритель", "в игре", steamid="STEAM_1:1:555"))  # in game: his SteamID is aid 12's (either form)
    store.submit(PardonRequest(second, "Смотритель", "с консоли"))  # a name equal to aid 13's user: no SteamID, no credit
    store.submit(PardonRequest(third, "STEAM_0:0:777", "имя как SteamID"))  # a text that looks like aid 13's SteamID: still a name
    bridge.sync()
    by = {r["name"]: r["RemovedBy"] for r in query(sb, "SELECT name, RemovedBy FROM sb_bans")}
    assert by == {"Игрок 1": 12, "Игрок 2": 7, "Игрок 3": 7}


RULE = '[conduct.advertising]\nref = "Общие 19"\nladder = ["ban 60"]\n'


async def test_a_ban_deleted_in_its_panel_is_lifted_in_the_game_and_its_reason_names_its_clause_once(tmp_path, mariadb_server, mariadb):
    """Before: its panel's Delete (the row gone, not unbanned) was never noticed, and the ban
    stayed in force in jailcore while SourceBans++ no longer knew it; and the row's reason read
    «[Общие 19] [Правило Общие 19] ...». Now the row gone is a ban lifted there: pardoned here as
    its unban is, said in the log, and the daemon unbans the player."""
    sb = install(mariadb_server, "utf8")
    sim = SimServer(password="pw")
    port = await sim.start()
    rest = f'url = "{mariadb}"\n{RULE}[sourcebans]\nurl = "{sb}"\nserver_id = 3\nadmin_id = 7\n'
    config = load(config_text(port, tmp_path / "jail.sqlite3", rest=rest), "<t>", {})
    async with running(config, sim) as daemon:
        _, ts = await settled(sim, daemon)
        sim.say(ts[0], "заходите к нам: 212.129.25.133:27015")
        sim.flush()
        await until(lambda: sent(sim, f"jb_ban #{ts[0].userid} 60"), timeout=5)
        await until(lambda: len(query(sb, "SELECT bid FROM sb_bans")) == 1, timeout=15)
        (row,) = query(sb, "SELECT bid, authid, reason FROM sb_bans")
        assert row["reason"].count("Общие 19") == 1, row["reason"]
        assert len(plugin_finds(sb, ts[0].steamid)) == 1
        query(sb, "DELETE FROM sb_bans WHERE bid = %s", (row["bid"],))  # its panel's Delete (page.banlist.php)
        await until(lambda: sent(sim, "jb_unban"), timeout=15)
        assert ts[0].steamid in sent(sim, "jb_unban")[0]
        # A second ban after it is written as before: the deleted row holds nothing.
        sim.say(ts[1], "заходите к нам: 212.129.25.133:27015")
        sim.flush()
        await until(lambda: len(query(sb, "SELECT bid FROM sb_bans")) == 1, timeout=15)
    store = open_store(mariadb)
    try:
        pardons = store.pardons_for([r["id"] for r in entries(store, "action = 'ban'")])
        (pardon,) = pardons.values()
        assert pardon["by"] == "SourceBans++ (deleted there)" and pardon["applied_at"]
    finally:
        store.close()
    await asyncio.sleep(0)
    await sim.stop()


def test_a_table_made_anew_is_not_taken_for_deletes(mariadb_server, bridge_on):
    """A table emptied and numbered from 1 again (TRUNCATE, a new install on the same database)
    is not its panel's Delete: nothing is lifted, and it is said. Its Delete of every row is."""
    sb = install(mariadb_server, "utf8mb4")
    bridge, store, pardons = bridge_on(sb)
    delivered(store, ban(1, "STEAM_1:0:5001", "Первый"))
    delivered(store, ban(2, "STEAM_1:0:5002", "Второй"))
    bridge.sync()
    query(sb, "TRUNCATE TABLE sb_bans")
    bridge.sync()
    assert pardons == []
    other = install(mariadb_server, "utf8mb4")
    bridge, store, pardons = bridge_on(other)
    delivered(store, ban(3, "STEAM_1:0:5003", "Третий"))
    bridge.sync()
    query(other, "DELETE FROM sb_bans")  # its panel's bulk Delete
    bridge.sync()
    assert [by for _, by, _ in pardons] == ["SourceBans++ (deleted there)"] * 3  # the two above were given there too, then deleted
