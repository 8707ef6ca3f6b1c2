"""SourceBans++ beside jailcore, on a real MariaDB the tests start (tests/mariadb.py). The
SourceBans++ tables are made here from the columns issue 27 lists: every server ban jailcore
gives is exactly one `sb_bans` row in the game's own steamid form; a pardon lifts it there
(RemoveType 'U'); a row lifted there is a pardon here and the daemon unbans the player; the
plugin's own row is linked, never doubled."""

from __future__ import annotations

import asyncio
import time

import pymysql

from jailcore.config.config import load
from jailcore.config.netsettings import SourceBansSettings
from jailcore.engine.actions import Action, Ban, Target
from jailcore.sim.simserver import SimServer
from jailcore.store.location import open_reader, open_store
from jailcore.store.mariadb import MariaStore, target
from jailcore.store.request_kinds import PardonRequest
from jailcore.store.sourcebans import SourceBans
from tests.audit_rows import entries
from tests.mariadb import mariadb, mariadb_server
from tests.test_live import config_text, running, sent, settled, until

__all__ = ["mariadb", "mariadb_server"]

TABLES = [
    "CREATE TABLE sb_bans (bid INT NOT NULL AUTO_INCREMENT PRIMARY KEY, ip VARCHAR(32) NULL, authid VARCHAR(64) NOT NULL DEFAULT '', "
    "name VARCHAR(128) NOT NULL DEFAULT 'unnamed', created INT NOT NULL DEFAULT 0, ends INT NOT NULL DEFAULT 0, length INT NOT NULL DEFAULT 0, "
    "reason TEXT NOT NULL, aid INT NOT NULL DEFAULT 0, adminIp VARCHAR(128) NOT NULL DEFAULT '', sid INT NOT NULL DEFAULT 0, "
    "country VARCHAR(4) NULL, RemovedBy INT NULL, RemoveType VARCHAR(3) NULL, RemovedOn INT NULL, type TINYINT NOT NULL DEFAULT 0, ureason TEXT)",
    "CREATE TABLE sb_admins (aid INT NOT NULL AUTO_INCREMENT PRIMARY KEY, user VARCHAR(64) NOT NULL, authid VARCHAR(64) NOT NULL DEFAULT '')",
    "INSERT INTO sb_admins (aid, user, authid) VALUES (7, 'jailcore', ''), (12, 'Админ', 'STEAM_0:1:555')",
]


def sourcebans_db(server) -> str:
    url = server.database()
    db = sql(url)
    with db.cursor() as cur:
        for statement in TABLES:
            cur.execute(statement)
    db.close()
    return url


def sql(url: str):
    t = target(url)
    return pymysql.connect(host=t.host, port=t.port, user=t.user, password=t.password, database=t.database, autocommit=True,
                           cursorclass=pymysql.cursors.DictCursor)


def rows(url: str, where: str = "1 = 1") -> list[dict]:
    db = sql(url)
    with db.cursor() as cur:
        cur.execute(f"SELECT * FROM sb_bans WHERE {where} ORDER BY bid")
        got = list(cur.fetchall())
    db.close()
    return got


def ban(n: int, minutes: int | None, steamid: str) -> Action:
    return Ban(time=f"2026-12-01T10:00:{n:02d}", round=1, rule="conduct.advertising", ref="Общие 19",
                  reason="реклама", target=Target(userid=n, steamid=steamid, name=f"Рекламщик {n}"), minutes=minutes)


def test_each_ban_is_one_row_a_pardon_lifts_it_and_a_lift_there_is_a_pardon_here(mariadb_server, mariadb):
    sb = sourcebans_db(mariadb_server)
    store = MariaStore(mariadb)
    reader = open_reader(mariadb)
    pardons: list[tuple] = []

    def pardon(action_id, by, reason):
        pardons.append((action_id, by, reason))
        return store.submit(PardonRequest(action_id, by, reason))

    bridge = SourceBans(SourceBansSettings(sb, "sb", server_id=3, admin_id=7), "jail", "test", reader, pardon)
    try:
        timed = store.record("jail", ban(1, 60, "STEAM_0:0:1001"), 1, "jb_ban #1 60", "pending")
        forever = store.record("jail", ban(2, None, "STEAM_0:1:1002"), 1, "jb_ban #2 0", "pending")
        store.commit()
        bridge.sync()
        assert rows(sb) == []  # not yet delivered: the game has not banned him
        store.mark(timed, "delivered", "ok")
        store.mark(forever, "delivered", "ok")
        store.commit()
        bridge.sync()
        bridge.sync()  # twice: still one row each
        got = rows(sb)
        assert len(got) == 2
        first, second = got
        assert (first["authid"], first["type"], first["length"], first["aid"], first["sid"]) == ("STEAM_0:0:1001", 0, 3600, 7, 3)
        assert first["ends"] == first["created"] + 3600 and first["name"] == "Рекламщик 1" and first["RemoveType"] is None
        assert "Общие 19" in first["reason"] and f"jailcore #{timed}" in first["reason"]
        assert (second["authid"], second["length"]) == ("STEAM_0:1:1002", 0)  # 0: permanent
        # A pardon in jailcore lifts the row there, by the admin SourceBans++ knows by his steamid (given in game, either form).
        store.submit(PardonRequest(timed, "Смотритель", "ошибка", steamid="STEAM_1:1:555"))
        bridge.sync()
        lifted = rows(sb, f"bid = {first['bid']}")[0]
        assert lifted["RemoveType"] == "U" and lifted["RemovedBy"] == 12 and lifted["RemovedOn"] and "ошибка" in lifted["ureason"]
        assert pardons == []  # our own pardon does not come back as theirs
        # A row lifted in SourceBans++ becomes a pardon here.
        db = sql(sb)
        with db.cursor() as cur:
            cur.execute("UPDATE sb_bans SET RemoveType = 'U', RemovedBy = 12, RemovedOn = UNIX_TIMESTAMP(), ureason = 'разобрались' "
                        "WHERE bid = %s", (second["bid"],))
        db.close()
        bridge.sync()
        assert pardons == [(forever, "SourceBans++ (Админ)", "разобрались")]
        assert reader.pardons_for([forever])[forever]["by"] == "SourceBans++ (Админ)"
        bridge.sync()
        assert len(pardons) == 1 and len(rows(sb)) == 2
        assert {r["bid"] for r in bridge.network_bans()} == {first["bid"], second["bid"]}
    finally:
        bridge.close()
        reader.close()
        store.close()


def test_the_plugins_own_row_is_linked_not_doubled(mariadb_server, mariadb):
    sb = sourcebans_db(mariadb_server)
    store = MariaStore(mariadb)
    reader = open_reader(mariadb)
    now = [time.time()]
    bridge = SourceBans(SourceBansSettings(sb, "sb", server_id=3, admin_id=7, plugin=True), "jail", "test", reader,
                        lambda action_id, by, reason: store.submit(PardonRequest(action_id, by, reason)), clock=lambda: now[0])
    try:
        action = ban(5, 30, "STEAM_1:0:2005")  # CS:GO writes STEAM_1
        row = store.record("jail", action, 1, "jb_ban #5 30", "pending")
        store.mark(row, "delivered", "ok")
        store.commit()
        created = int(time.mktime(time.strptime(action.time, "%Y-%m-%dT%H:%M:%S")))
        now[0] = created + 5
        bridge.sync()
        assert rows(sb) == []  # the plugin may still be writing its row
        db = sql(sb)
        with db.cursor() as cur:  # the plugin's OnBanClient row (it writes the other universe's form on this server)
            cur.execute("INSERT INTO sb_bans (authid, name, created, ends, length, reason, aid, sid, type) "
                        "VALUES ('STEAM_0:0:2005', 'Рекламщик 5', %s, %s, 1800, 'реклама', 0, 3, 0)", (created + 1, created + 1801))
        db.close()
        bridge.sync()
        now[0] = created + 600
        bridge.sync()
        (only,) = rows(sb)
        assert only["reason"] == "реклама"  # the plugin's row, linked
        assert [r["jailcore"] for r in bridge.network_bans()] == [row]
        other = store.record("jail", ban(6, 30, "STEAM_1:0:2006"), 1, "jb_ban #6 30", "pending")
        store.mark(other, "delivered", "ok")
        store.commit()
        bridge.sync()  # no plugin row after PLUGIN_WAIT: the bridge writes one
        assert [r["authid"] for r in rows(sb)] == ["STEAM_0:0:2005", "STEAM_0:0:2006"]  # SourceBans++'s own form (its panel compares exactly)
    finally:
        bridge.close()
        reader.close()
        store.close()


RULE = '[conduct.advertising]\nref = "Общие 19"\nladder = ["ban 60"]\n'


async def test_a_ban_lifted_in_sourcebans_is_unbanned_in_the_game(tmp_path, mariadb_server, mariadb):
    sb = sourcebans_db(mariadb_server)
    sim = SimServer(password="pw")
    port = await sim.start()
    rest = f'url = "{mariadb}"\n{RULE}[sourcebans]\nurl = "{sb}"\nserver_id = 3\nadmin_id = 7\n'
    config = load(config_text(port, tmp_path / "jail.sqlite3", rest=rest), "<t>", {})
    async with running(config, sim) as daemon:
        _, ts = await settled(sim, daemon)
        sim.say(ts[0], "заходите к нам: 212.129.25.133:27015")
        sim.flush()
        await until(lambda: sent(sim, f"jb_ban #{ts[0].userid} 60"), timeout=5)
        await until(lambda: len(rows(sb)) == 1, timeout=10)
        (row,) = rows(sb)
        assert row["authid"] == "STEAM_0" + ts[0].steamid[7:] and row["length"] == 3600 and row["sid"] == 3  # its panel's form
        db = sql(sb)
        with db.cursor() as cur:
            cur.execute("UPDATE sb_bans SET RemoveType = 'U', RemovedBy = 12, RemovedOn = UNIX_TIMESTAMP(), ureason = 'ошибка' WHERE bid = %s",
                        (row["bid"],))
        db.close()
        t0 = time.monotonic()
        await until(lambda: sent(sim, "jb_unban"), timeout=15)
        print(f"lifted in SourceBans++: unbanned in the game {time.monotonic() - t0:.1f} s later")
        assert ts[0].steamid in sent(sim, "jb_unban")[0]
    store = open_store(mariadb)
    try:
        (pardon,) = store.pardons_for([r["id"] for r in entries(store, "action = 'ban'")]).values()
        assert pardon["by"] == "SourceBans++ (Админ)" and pardon["applied_at"]
    finally:
        store.close()
    assert len(rows(sb)) == 1
    await asyncio.sleep(0)


async def test_the_web_page_lists_the_networks_sourcebans_bans_beside_its_own(tmp_path, mariadb_server, mariadb):
    from jailcore.config.config import WebConfig
    from jailcore.web.app import Web
    from jailcore.web.auth import hash_password
    from jailcore.web.data import Sources
    from tests.webkit import Browser

    sb = sourcebans_db(mariadb_server)
    store = MariaStore(mariadb)
    reader = open_reader(mariadb)
    bridge = SourceBans(SourceBansSettings(sb, "sb", server_id=3, admin_id=7), "jail", "test", reader,
                        lambda action_id, by, reason: store.submit(PardonRequest(action_id, by, reason)))
    try:
        ours = store.record("jail", ban(1, 60, "STEAM_0:0:3001"), 1, "jb_ban #1 60", "pending")
        store.mark(ours, "delivered", "ok")
        store.commit()
        bridge.sync()
    finally:
        bridge.close()
        reader.close()
        store.close()
    db = sql(sb)
    with db.cursor() as cur:  # a ban another admin gave in SourceBans++'s panel
        cur.execute("INSERT INTO sb_bans (authid, name, created, ends, length, reason, aid, sid, type) "
                    "VALUES ('STEAM_0:1:4004', 'Чужой бан', UNIX_TIMESTAMP(), 0, 0, 'читы', 12, 1, 0)")
    db.close()
    config = load(f'[server]\nname = "jail"\nrulebook = "all"\n[state]\nurl = "{mariadb}"\n[sourcebans]\nurl = "{sb}"\nserver_id = 3\n',
                  "<t>", {})
    page = Web(Sources([config]), WebConfig(users={"admin": hash_password("pw-pw-pw-pw")}), poll=0.05)
    try:
        admin = Browser(page.app())
        await admin.login("admin", "pw-pw-pw-pw")
        text = (await admin.get("/bans")).text
        assert "Чужой бан" in text and "STEAM_0:1:4004" in text and "Рекламщик 1" in text
        assert f"#{ours}" in text  # ours names its entry
        theirs = text[text.index("Чужой бан") - 400:text.index("Чужой бан") + 900]
        assert "SourceBans++" in theirs and "pardon" not in theirs.split('id="sb-')[1].split("</li>")[0]  # read-only here
    finally:
        page.sources.close()
