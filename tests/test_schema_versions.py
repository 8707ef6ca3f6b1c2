"""Schema versions on the SQLite file (the MariaDB side is in test_mariadb.py): an older file is
upgraded in place (`jailcore db upgrade`, and at every start), a newer one refused in one line
by the daemon's store and the command line alike; a state file replaced by a symbolic link is
not followed (issue 25)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest

from jailcore.log.errors import AdminRequestError
from jailcore.store.request_kinds import ActRequest, CtBanRequest
from jailcore.store.sqlite import SCHEMA_VERSION, Store, StoreError

OLD_LINK = "CREATE TABLE link (server TEXT PRIMARY KEY, rcon TEXT NOT NULL, outbox INTEGER NOT NULL, last_line TEXT, mode TEXT NOT NULL, updated TEXT NOT NULL)"


def jailcore(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jailcore", *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "JAILCORE_STATE": "", "JAILCORE_STATE_URL": ""})


def old_file(path) -> None:
    """A file as jailcore wrote it before the schema was versioned (user_version 0, a link
    without the daemon's columns), with one row of its own."""
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE state (server TEXT PRIMARY KEY, snapshot TEXT NOT NULL, updated TEXT NOT NULL);"
                     "CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, server TEXT NOT NULL, time TEXT NOT NULL, round INTEGER NOT NULL,"
                     " day INTEGER NOT NULL, action TEXT NOT NULL, rule TEXT NOT NULL, ref TEXT NOT NULL, userid INTEGER, steamid TEXT, name TEXT,"
                     " reason TEXT NOT NULL, detail TEXT NOT NULL, command TEXT, status TEXT NOT NULL, reply TEXT);"
                     f"{OLD_LINK};"
                     "INSERT INTO audit (server, time, round, day, action, rule, ref, userid, steamid, name, reason, detail, command, status)"
                     " VALUES ('old', '2026-11-30T20:00:00', 1, 1, 'slay', 'r', '1', 3, 'STEAM_1:0:3', 'Старый', 'x', '{}', 'jb_slay #3', 'delivered');")
    db.commit()
    db.close()


def test_an_older_file_is_upgraded_in_place(tmp_path):
    path = tmp_path / "old.sqlite3"
    old_file(path)
    done = jailcore("db", "upgrade", "--state-db", str(path))
    assert done.returncode == 0 and f"upgraded from schema version 0 to {SCHEMA_VERSION}" in done.stdout
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert {"daemon", "dropped"} <= {r[1] for r in db.execute("PRAGMA table_info(link)")}
    assert db.execute("SELECT name FROM audit").fetchall() == [("Старый",)]  # its rows stay
    db.close()
    assert "up to date" in jailcore("db", "upgrade", "--state-db", str(path)).stdout


def test_a_newer_file_is_refused_in_one_line(tmp_path):
    path = tmp_path / "new.sqlite3"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreError, match=f"schema version {SCHEMA_VERSION + 1}, newer than this jailcore's {SCHEMA_VERSION}"):
        Store(path)
    for args in (("tail", "--state-db", str(path)), ("status", "--state-db", str(path)), ("db", "upgrade", "--state-db", str(path))):
        done = jailcore(*args)
        assert done.returncode == 1 and "newer than this jailcore's" in done.stderr, args
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_a_state_file_replaced_by_a_symbolic_link_is_not_followed(tmp_path):
    real = tmp_path / "elsewhere.sqlite3"
    Store(real).close()
    link = tmp_path / "state.sqlite3"
    link.symlink_to(real)
    before = real.read_bytes()
    with pytest.raises(StoreError) as caught:
        Store(link)
    assert "is a symbolic link" in str(caught.value) and "\n" not in str(caught.value)
    dangling = tmp_path / "gone.sqlite3"
    dangling.symlink_to(tmp_path / "nowhere.sqlite3")
    with pytest.raises(StoreError, match="symbolic link"):
        Store(dangling)
    assert not (tmp_path / "nowhere.sqlite3").exists()  # not created through the link either
    done = jailcore("tail", "--state-db", str(link))
    assert done.returncode == 1 and "is a symbolic link" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert real.read_bytes() == before


# Two processes opening one file at the same moment, as `run --workers 2` does at its first start.
_OPEN_AT = """
import sys, time
from jailcore.store.sqlite import Store
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
Store(sys.argv[1]).close()
"""


@pytest.mark.parametrize("version", ["new", 0, 1, 3])
def test_processes_opening_one_old_file_at_once_all_open_it_and_it_is_upgraded_once(tmp_path, version):
    """Four processes (`run --workers 4` at its first start, the page, `db upgrade`) opening a
    file that is not there yet, or an old one: each opens it, the upgrade is done once."""
    import time

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "PYTHONPATH": root}
    for attempt in range(4):  # they meet at a different point of the upgrade each time
        path = tmp_path / f"old{attempt}.sqlite3"
        if version != "new":
            old_file(path)
        if version == 1:  # version 1: the link's columns there, the audit's place (`seq`) not yet
            db = sqlite3.connect(path)
            db.executescript("ALTER TABLE link ADD COLUMN daemon TEXT NOT NULL DEFAULT 'running';"
                             "ALTER TABLE link ADD COLUMN dropped TEXT NOT NULL DEFAULT ''; PRAGMA user_version = 1;")
            db.close()
        if version == 3:  # version 3: without the index of a page of one action and the accounts' activity
            Store(path).close()
            db = sqlite3.connect(path)
            db.executescript("DROP INDEX audit_action; DROP TABLE account_changes; PRAGMA user_version = 3;")
            db.close()
        at = str(time.time() + 1.0 + attempt * 0.003)
        procs = [subprocess.Popen([sys.executable, "-c", _OPEN_AT, str(path), at], env=env, stderr=subprocess.PIPE, text=True) for _ in range(4)]
        errors = [p.communicate(timeout=60)[1] for p in procs]
        assert [p.returncode for p in procs] == [0, 0, 0, 0], errors
        db = sqlite3.connect(path)
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        kept = [] if version == "new" else [(1, 1, "Старый")]
        assert db.execute("SELECT id, seq, name FROM audit").fetchall() == kept  # its row kept, given its place
        assert db.execute("SELECT name, n FROM names").fetchall() == [(name, 1) for *_, name in kept]  # the names filled once
        assert db.execute("SELECT count(*) FROM sqlite_master WHERE name IN ('audit_action', 'account_changes')").fetchone() == (2,)
        db.close()


def test_an_old_file_another_process_is_writing_is_opened_once_it_is_done(tmp_path):
    """Leaving an old file's rollback journal for WAL needs the file to itself; SQLite says
    `database is locked` at once (no busy wait) while another writes: the open waits instead."""
    import time

    path = tmp_path / "old.sqlite3"
    old_file(path)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO state VALUES ('x', '{}', '2026-11-30T20:00:00')")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.Popen([sys.executable, "-c", _OPEN_AT, str(path), "0"], env={**os.environ, "PYTHONPATH": root},
                            stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)  # well past its start: it waits on the other's transaction
    assert proc.poll() is None
    other.execute("COMMIT")
    other.close()
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",) and db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    db.close()


def test_a_version_5_file_gets_the_admins_warnings_and_bans_in_place(tmp_path):
    """Version 6 added `act_requests` (an admin's warning or ban from the web page): a version 5
    file is read as it is (its activity has none), then upgraded in place and takes them."""
    from jailcore.store.location import open_reader

    path = tmp_path / "old.sqlite3"
    store = Store(path)
    store.submit(CtBanRequest("a", "STEAM_1:0:3", "Вася", 30, None, "за дело", "boss"))
    store.close()
    db = sqlite3.connect(path)
    db.executescript("DROP TABLE act_requests; PRAGMA user_version = 5;")  # as the jailcore before it left the file
    db.close()
    old = open_reader(str(path))
    try:
        assert old.act_requests() == [] and old.admin_counts("2000-01-01") == {"boss": 1}  # read before the upgrade: no error
    finally:
        old.close()
    done = jailcore("db", "upgrade", "--state-db", str(path))
    assert done.returncode == 0 and f"upgraded from schema version 5 to {SCHEMA_VERSION}" in done.stdout, done.stderr + done.stdout
    store = Store(path)
    try:
        row = store.submit(ActRequest("a", "STEAM_1:0:3", "Вася", "ban", 0, "читы", "boss"))
        assert [(r.id, r.act, r.minutes) for r in store.admin_requests("a").acts] == [(row, "ban", 0)]
        assert store.waiting("a", fresh=0) and store.admin_requests("a").ctbans[0].name == "Вася"  # the CT ban's row kept
        store.applied("act_requests", row, "2026-12-01T10:00:00")
        assert store.admin_requests("a").acts == ()
        with pytest.raises(AdminRequestError, match="no admin act"):
            store.submit(ActRequest("a", "STEAM_1:0:3", "Вася", "slay", None, "x", "boss"))
    finally:
        store.close()


# The admins' requests' tables as SQLite files have held them since version 7 (each written in
# store/sqlite.py then): the tables written once for both backends (store/request_kinds.py) are these.
_REQUEST_TABLES_BEFORE = """
CREATE TABLE pardons (id INTEGER PRIMARY KEY AUTOINCREMENT, server TEXT NOT NULL, action_id INTEGER NOT NULL UNIQUE REFERENCES audit (id),
    by TEXT NOT NULL, reason TEXT NOT NULL, time TEXT NOT NULL, applied_at TEXT, steamid TEXT);
CREATE TABLE ctban_requests (id INTEGER PRIMARY KEY AUTOINCREMENT, server TEXT NOT NULL, steamid TEXT NOT NULL, name TEXT NOT NULL DEFAULT '',
    minutes INTEGER, rounds INTEGER, lift INTEGER NOT NULL DEFAULT 0, reason TEXT NOT NULL DEFAULT '', by TEXT NOT NULL, time TEXT NOT NULL,
    applied_at TEXT);
CREATE TABLE answers (id INTEGER PRIMARY KEY AUTOINCREMENT, server TEXT NOT NULL, action_id INTEGER NOT NULL UNIQUE REFERENCES audit (id),
    answer TEXT NOT NULL, by TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '', time TEXT NOT NULL, note TEXT, applied_at TEXT);
CREATE TABLE act_requests (id INTEGER PRIMARY KEY AUTOINCREMENT, server TEXT NOT NULL, steamid TEXT NOT NULL, name TEXT NOT NULL DEFAULT '',
    act TEXT NOT NULL, minutes INTEGER, reason TEXT NOT NULL DEFAULT '', by TEXT NOT NULL, time TEXT NOT NULL, applied_at TEXT);
CREATE INDEX act_requests_waiting ON act_requests (server, applied_at);
"""


def _shape(db: sqlite3.Connection) -> dict[str, object]:
    tables = ("pardons", "ctban_requests", "answers", "act_requests")
    columns = {t: db.execute(f"PRAGMA table_info({t})").fetchall() for t in tables}
    keys = {t: sorted((r[1], r[2]) for r in db.execute(f"PRAGMA index_list({t})")) for t in tables}
    refs = {t: db.execute(f"PRAGMA foreign_key_list({t})").fetchall() for t in tables}
    return {"columns": columns, "keys": keys, "refs": refs}


def test_the_requests_tables_written_once_are_the_ones_sqlite_files_have_held(tmp_path):
    Store(tmp_path / "new.sqlite3").close()
    new = sqlite3.connect(tmp_path / "new.sqlite3")
    old = sqlite3.connect(":memory:")
    old.execute("CREATE TABLE audit (id INTEGER PRIMARY KEY)")
    old.executescript(_REQUEST_TABLES_BEFORE)
    got, want = _shape(new), _shape(old)
    assert all(got["columns"].values())  # the tables are there
    assert got == want
