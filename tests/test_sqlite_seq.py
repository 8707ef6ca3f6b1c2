"""The SQLite audit log's places (`seq`): with `run --workers N` several processes write one
file, each from a block of ids of its own, so a later row may have a lower id. Readers that
follow the log (`tail -f`, the web page's live log) follow the place numbered at insert and
must see every row once, in the order written; a file of the previous schema is upgraded
with every row kept and followed the same way."""

from __future__ import annotations

import sqlite3

from jailcore.engine.actions import Action, Ban, Slay, Target
from jailcore.store.filter import Filter
from jailcore.store.reader import open_sqlite
from jailcore.store.sqlite import SCHEMA_VERSION, Store, upgrade


def act(n: int) -> Action:
    return Slay(time=f"2026-12-01T10:00:{n % 60:02d}", round=1, rule="prohibitions.max", ref="3.1", reason="за дело",
                  target=Target(userid=n, steamid=f"STEAM_1:0:{n}", name=f"Игрок {n}"))


def test_two_writers_with_their_own_id_blocks_are_followed_in_the_order_written(tmp_path):
    path = tmp_path / "state.sqlite3"
    a, b = Store(path), Store(path)
    first_a = a.reserve_ids(1000)
    first_b = b.reserve_ids(1000)
    assert first_b >= first_a + 1000  # b's block lies above a's
    reader = open_sqlite(str(path))
    try:
        last = reader.max_id()
        written: list[int] = []
        seen: list[int] = []
        for n in range(4):  # B(first_b), A(first_a), B(first_b + 1), A(first_a + 1), ...
            for store, first, server in ((b, first_b, "b"), (a, first_a, "a")):
                written.append(store.record(server, act(len(written) + 1), 1, None, "pending", row_id=first + n))
                store.commit()
                for row in reader.entries(Filter(), after=last):  # what `tail -f` does every 0.3 s
                    seen.append(row["id"])
                    last = row["pos"]
        assert written[:3] == [first_b, first_a, first_b + 1]
        assert seen == written  # every row once, in the order written, though the ids go down and up
        assert [r["id"] for r in reader.window(Filter(), reader.max_id(), 0, 100, newest_first=False)] == written  # the web page's live log
        assert [r["id"] for r in reader.window(Filter(), reader.max_id(), 0, 3)] == written[::-1][:3]
        assert reader.max_id() == len(written)
        names = sqlite3.connect(path).execute("SELECT COUNT(*), SUM(n) FROM names").fetchone()
        assert names == (len(written), len(written))  # the players' names trigger still counts every row
    finally:
        reader.close()
        a.close()
        b.close()


def previous_file(path) -> list[int]:
    """A file as the previous jailcore (schema version 1) left it: its audit without `seq`,
    rows from two processes' blocks, in the order written (ids 2001, 1001, 2002)."""
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(
        "CREATE TABLE state (server TEXT PRIMARY KEY, snapshot TEXT NOT NULL, updated TEXT NOT NULL);"
        "CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, server TEXT NOT NULL, time TEXT NOT NULL, round INTEGER NOT NULL,"
        " day INTEGER NOT NULL, action TEXT NOT NULL, rule TEXT NOT NULL, ref TEXT NOT NULL, userid INTEGER, steamid TEXT, name TEXT,"
        " reason TEXT NOT NULL, detail TEXT NOT NULL, command TEXT, status TEXT NOT NULL, reply TEXT);"
        "CREATE INDEX audit_status ON audit (server, status);"
        "CREATE TABLE link (server TEXT PRIMARY KEY, rcon TEXT NOT NULL, outbox INTEGER NOT NULL, last_line TEXT, mode TEXT NOT NULL,"
        " updated TEXT NOT NULL, daemon TEXT NOT NULL DEFAULT 'running', dropped TEXT NOT NULL DEFAULT '');"
        "PRAGMA user_version = 1;")
    ids = [2001, 1001, 2002]
    for i in ids:
        db.execute("INSERT INTO audit (id, server, time, round, day, action, rule, ref, userid, steamid, name, reason, detail, command, status) "
                   "VALUES (?, 'old', '2026-11-30T20:00:00', 1, 1, 'slay', 'r', '1', 3, 'STEAM_1:0:3', 'Старый', 'x', '{}', NULL, 'delivered')",
                   (i,))
    db.close()
    return ids


def test_a_file_of_the_previous_schema_keeps_every_row_and_is_followed_after_the_upgrade(tmp_path):
    path = tmp_path / "v1.sqlite3"
    ids = previous_file(path)
    before = open_sqlite(str(path))  # a reader of the file not yet upgraded follows its ids
    try:
        assert [r["id"] for r in before.entries(Filter())] == sorted(ids)
    finally:
        before.close()
    store = Store(path)
    try:
        db = sqlite3.connect(path)
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 2
        assert db.execute("SELECT id, seq FROM audit ORDER BY id").fetchall() == [(i, i) for i in sorted(ids)]  # every row, placed at its id
        db.close()
        reader = open_sqlite(str(path))
        try:
            last = reader.max_id()
            assert last == max(ids)
            first = store.reserve_ids(10)
            assert first > max(ids)
            low = store.record("old", act(1), 1, None, "pending", row_id=1500)  # another worker's lower block
            high = store.record("old", act(2), 1, None, "pending", row_id=first)
            store.commit()
            assert [(r["id"], r["pos"]) for r in reader.entries(Filter(), after=last)] == [(low, last + 1), (high, last + 2)]
            assert len(reader.entries(Filter())) == len(ids) + 2
        finally:
            reader.close()
    finally:
        store.close()
    plain = sqlite3.connect(path)
    try:
        assert upgrade(plain, str(path)) == (SCHEMA_VERSION, SCHEMA_VERSION)  # up to date: nothing done twice
    finally:
        plain.close()


def test_version_3_is_read_without_the_action_index_and_upgraded_to_it(tmp_path):
    """Version 4 adds `audit_action (action, seq, time)`: a file of version 3 is read as it is
    (no query names the index it lacks), and once upgraded the bans in force and a page of
    one action are read on it, not over the whole range."""
    path = tmp_path / "v3.sqlite3"
    store = Store(path)
    try:
        for i in range(1, 6):
            store.record("a", act(i), 1, None, "delivered")
        ban = store.record("a", Ban(time="2026-12-01T10:00:09", round=1, rule="r", ref="1", reason="x",
                                    target=Target(9, "STEAM_1:0:9", "Бан"), minutes=0), 1, None, "delivered")
        store.commit()
    finally:
        store.close()
    db = sqlite3.connect(path)
    db.execute("DROP INDEX audit_action")
    db.execute("PRAGMA user_version = 3")
    db.commit()
    db.close()
    old = open_sqlite(str(path))
    try:
        assert [r["id"] for r in old.bans_after(0)] == [ban]
        assert [r["id"] for r in old.window(Filter(action="ban"), old.max_id(), 0, 10)] == [ban]
    finally:
        old.close()
    Store(path).close()  # the daemon's start upgrades it
    reader = open_sqlite(str(path))
    try:
        assert [r["id"] for r in reader.bans_after(0)] == [ban]
        assert [r["id"] for r in reader.window(Filter(action="ban", server="a"), reader.max_id(), 0, 10)] == [ban]
        plan = " ".join(str(r) for r in reader.rows("EXPLAIN QUERY PLAN SELECT seq FROM audit INDEXED BY audit_action WHERE seq > 0 AND action = 'ban'"))
        assert "COVERING INDEX audit_action" in plan
    finally:
        reader.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 4
    db.close()
