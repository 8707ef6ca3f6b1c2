"""Schema versions 6 (SQLite) and 5 (MariaDB): a pardon keeps the SteamID of the admin who gave
it in game (the game authenticated it), by which SourceBans++ credits him, never by a name he
chose. An older file or database is upgraded in place, its pardons keeping NULL, as the command
line's and the web page's do."""

from __future__ import annotations

import sqlite3

import pymysql

from jailcore.engine.actions import Action, CtBan, Target
from jailcore.store import mariadb as maria
from jailcore.store import sqlite as lite
from jailcore.store.request_kinds import PardonRequest
from tests.mariadb import mariadb, mariadb_server

__all__ = ["mariadb", "mariadb_server"]


def ctban() -> Action:
    return CtBan(time="2026-12-01T10:00:00", round=1, rule="specialday.cooldown", ref="6.5", reason="r",
                 target=Target(userid=3, steamid="STEAM_1:0:3", name="Игрок"), minutes=60, rounds=None)


def test_a_version_7_sqlite_file_is_upgraded_and_keeps_its_pardons(tmp_path):
    path = tmp_path / "old.sqlite3"
    store = lite.Store(path)
    given = store.record("jail", ctban(), 1, None, "delivered")
    store.commit()
    store.submit(PardonRequest(given, "Админ", "ошибка"))
    store.close()
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE pardons DROP COLUMN steamid")  # as version 7 made it
    db.execute("PRAGMA user_version = 7")
    db.commit()
    db.close()
    store = lite.Store(path)
    try:
        assert int(store.db.execute("PRAGMA user_version").fetchone()[0]) == lite.SCHEMA_VERSION >= 8
        (old,) = store.pardons_for([given]).values()
        assert (old["by"], old["steamid"]) == ("Админ", None)
        other = store.record("jail", ctban(), 1, None, "delivered")
        store.commit()
        store.submit(PardonRequest(other, "Смотритель", "не виноват", steamid="STEAM_1:1:555"))
        assert store.pardons_for([other])[other]["steamid"] == "STEAM_1:1:555"
    finally:
        store.close()


def test_a_version_6_mariadb_database_is_upgraded_and_keeps_its_pardons(mariadb):
    store = maria.MariaStore(mariadb)
    given = store.record("jail", ctban(), 1, None, "delivered")
    store.commit()
    store.submit(PardonRequest(given, "Админ", "ошибка"))
    store.close()
    t = maria.target(mariadb)
    db = pymysql.connect(host=t.host, port=t.port, user=t.user, password=t.password, database=t.database, autocommit=True)
    with db.cursor() as cur:  # as version 6 made it
        cur.execute("ALTER TABLE pardons DROP COLUMN steamid")
        cur.execute("UPDATE jailcore_schema SET version = 6")
    db.close()
    store = maria.MariaStore(mariadb)
    try:
        (old,) = store.pardons_for([given]).values()
        assert (old["by"], old["steamid"]) == ("Админ", None)
        other = store.record("jail", ctban(), 1, None, "delivered")
        store.commit()
        store.submit(PardonRequest(other, "Смотритель", "не виноват", steamid="STEAM_1:1:555"))
        assert store.pardons_for([other])[other]["steamid"] == "STEAM_1:1:555"
        assert maria._version(store.db, store.path) == maria.SCHEMA_VERSION >= 7
    finally:
        store.close()
