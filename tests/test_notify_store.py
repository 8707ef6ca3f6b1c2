"""The notifications' queue and the appeals in the store (issue 32), on the SQLite file and on a
real MariaDB: one set of statements for both (store/portable.py). An older database is brought
up to the version with their tables in place; a message is taken under a lease, once, by one
of two senders; an appeal is one per punishment and answered once."""

from __future__ import annotations

import sqlite3

import pytest

from jailcore.store.appeals import AppealError, Appeals
from jailcore.store.mariadb import SCHEMA_VERSION as MARIADB_VERSION
from jailcore.store.mariadb import MariaStore, target
from jailcore.store.notices import Notices
from jailcore.store.portable import Db
from jailcore.store.sqlite import SCHEMA_VERSION, Store
from tests.mariadb import mariadb, mariadb_server

__all__ = ["mariadb", "mariadb_server"]


def test_a_version_5_file_gets_the_queue_and_the_appeals_in_place(tmp_path):
    path = tmp_path / "old.sqlite3"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO audit (server, time, round, day, action, rule, ref, reason, detail, status) "
               "VALUES ('a', '2026-12-01T10:00:00', 1, 1, 'ban', 'r', '1', 'x', '{}', 'delivered')")
    db.executescript("DROP TABLE notices; DROP TABLE notice_sinks; DROP TABLE notice_marks; DROP TABLE appeals; PRAGMA user_version = 5;")
    db.commit()
    db.close()
    Store(path).close()
    db = sqlite3.connect(path)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"notices", "notice_sinks", "notice_marks", "appeals"} <= tables
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 6
    assert db.execute("SELECT COUNT(*) FROM audit").fetchone() == (1,)  # kept
    db.close()


def test_a_version_4_mariadb_gets_them_too(mariadb):
    MariaStore(mariadb).close()
    t = target(mariadb)
    import pymysql

    con = pymysql.connect(host=t.host, port=t.port, user=t.user, password=t.password, database=t.database, autocommit=True)
    with con.cursor() as cur:
        cur.execute("DROP TABLE notices, notice_sinks, notice_marks, appeals")
        cur.execute("UPDATE jailcore_schema SET version = 4")
    MariaStore(mariadb).close()
    with con.cursor() as cur:
        cur.execute("SHOW TABLES")
        tables = {r[0] for r in cur.fetchall()}
        cur.execute("SELECT version FROM jailcore_schema")
        assert cur.fetchone() == (MARIADB_VERSION,) and MARIADB_VERSION >= 5
    con.close()
    assert {"notices", "notice_sinks", "notice_marks", "appeals"} <= tables


@pytest.fixture(params=["sqlite", "mariadb"])
def where(request, tmp_path):
    if request.param == "sqlite":
        path = str(tmp_path / "s.sqlite3")
        Store(path).close()
        return path
    url = request.getfixturevalue("mariadb")
    MariaStore(url).close()
    return url


def test_one_message_is_taken_by_one_sender_and_sent_once(where):
    one, two = Notices(Db(where)), Notices(Db(where))
    try:
        with one.db.transaction():
            one.put([("discord:1", "a", "ban", "2026-12-01T10:00:00", {"name": "Вася"}) for _ in range(3)])
        got = one.take("discord:1", "p1", 60)
        assert [r["body"]["name"] for r in got] == ["Вася"] * 3
        assert two.take("discord:1", "p2", 60) == []  # held by the first
        one.release([got[0]["id"]], "p1")
        (again,) = two.take("discord:1", "p2", 60)
        assert again["id"] == got[0]["id"]
        one.sent([r["id"] for r in got[1:]], "204", "p1")
        two.sent([again["id"]], "204", "p2")
        assert one.waiting() == 0 and two.take("discord:1", "p2", 60) == []
        assert one.failed("discord:1", "discord x", "refused") == 1 and one.failed("discord:1", "discord x", "refused") == 2
        assert [(s["failures"], s["error"]) for s in two.sinks()] == [(2, "refused")]
        one.went("discord:1", "discord x")
        assert [s["failures"] for s in two.sinks()] == [0]
        assert one.mark("audit:a") is None
        one.set_mark("audit:a", 7)
        one.set_mark("audit:a", 9)
        assert two.mark("audit:a") == 9
    finally:
        one.db.close()
        two.db.close()


def test_an_appeal_is_one_per_punishment_and_answered_once(where):
    appeals = Appeals(Db(where))
    try:
        first = appeals.file("a", 5, "ban", "STEAM_1:0:1", "Вася", "я не рекламил", "vasya@example.ru", "10.0.0.1", "tok1")
        with pytest.raises(AppealError, match="appealed already"):
            appeals.file("a", 5, "ban", "STEAM_1:0:1", "Вася", "ещё раз", "", "10.0.0.1", "tok2")
        assert appeals.by_token("tok1")["id"] == first and appeals.listed("open")[0]["text"] == "я не рекламил"
        done = appeals.answer(first, "upheld", "admin", "реклама была")
        assert (done["status"], done["by"], done["reason"]) == ("upheld", "admin", "реклама была")
        with pytest.raises(AppealError, match="answered already"):
            appeals.answer(first, "granted", "other", "")
        assert [a["id"] for a in appeals.answered("admin")] == [first] and appeals.answered("other") == []
    finally:
        appeals.db.close()
