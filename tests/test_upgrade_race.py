"""Schema upgrades on a shared MariaDB when several processes start at once (the daemons of a
network's machines, `jailcore web`, `jailcore db upgrade`): against an empty database and an
older one, every process opens it, each upgrade step runs once, and no row, table or index is
made twice. The machines name the database each their own way (a host name here, an address
there, a user each): the upgrade's lock is the database's, not the URL's."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from urllib.parse import urlsplit

import pymysql
import pytest

from jailcore.store.mariadb import SCHEMA_VERSION, MariaStore, target
from tests.mariadb import PASSWORD, mariadb_server
from tests.test_mariadb import act

__all__ = ["mariadb_server"]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# One process of the network at its start, at a set moment. Each upgrade step it runs prints
# a line: the test counts how many processes did the work (it must be one).
_START_AT = """
import sys, time
import jailcore.store.mariadb as m

def counted(number, step):
    def run(cur):
        print(f"step {number}", flush=True)
        step(cur)
    return run

m._STEPS[:] = [counted(n, s) for n, s in enumerate(m._STEPS)]
url, at, how = sys.argv[1:4]
time.sleep(max(0.0, float(at) - time.time()))
if how == "daemon":  # `jailcore run` and `jailcore web`: the read-write store
    m.MariaStore(url).close()
else:  # `jailcore db upgrade`
    from jailcore.store.location import upgrade
    print(upgrade(url), flush=True)
"""


def _db(url: str) -> pymysql.connections.Connection:
    t = target(url)
    return pymysql.connect(host=t.host, port=t.port, user=t.user, password=t.password, database=t.database, autocommit=True)


def _spellings(server, url: str) -> list[str]:
    """The one database as four machines name it: by address and by host name, as two users."""
    name = target(url).database
    server.admin(f"CREATE USER IF NOT EXISTS 'keeper'@'127.0.0.1' IDENTIFIED BY '{PASSWORD}'; GRANT ALL ON `{name}`.* TO 'keeper'@'127.0.0.1'")
    by_name = url.replace("@127.0.0.1:", "@localhost:")
    keeper = url.replace("jailcore:", "keeper:", 1)
    assert urlsplit(by_name).hostname == "localhost" and urlsplit(keeper).username == "keeper"
    return [url, by_name, keeper, keeper.replace("@127.0.0.1:", "@localhost:")]


def _version_0(url: str) -> None:
    """A database of before the schema was versioned: an audit log without its places, a
    link without the daemon's columns (as test_mariadb's)."""
    db = _db(url)
    with db.cursor() as cur:
        cur.execute("CREATE TABLE audit (id BIGINT PRIMARY KEY, server VARCHAR(191) NOT NULL, time VARCHAR(40) NOT NULL, round INT NOT NULL, "
                    "day INT NOT NULL, action VARCHAR(32) NOT NULL, rule VARCHAR(191) NOT NULL, ref VARCHAR(191) NOT NULL, userid BIGINT, "
                    "steamid VARCHAR(64), name VARCHAR(255), reason TEXT NOT NULL, detail LONGTEXT NOT NULL, command TEXT, "
                    "status VARCHAR(32) NOT NULL, reply TEXT)")
        cur.executemany("INSERT INTO audit VALUES (%s, 'old', '2026-11-30T20:00:00', 1, 1, 'slay', 'r', '1', 3, 'STEAM_1:0:3', 'Старый', "
                        "'x', '{}', 'jb_slay #3', 'delivered', 'ok')", [(41,), (42,)])
        cur.execute("CREATE TABLE link (server VARCHAR(191) PRIMARY KEY, rcon VARCHAR(32) NOT NULL, outbox INT NOT NULL, "
                    "last_line VARCHAR(40), mode VARCHAR(16) NOT NULL, updated VARCHAR(40) NOT NULL)")
    db.close()


def _version_2(url: str) -> None:
    """A database of version 2: two entries of one player, no names table, no indexes of an
    action's page and of a name's part (as test_mariadb's version 1)."""
    store = MariaStore(url)
    try:
        for n in (41, 42):
            store.record("old", act(3, "Старый"), 1, None, "delivered", row_id=n)
        store.commit()
    finally:
        store.close()
    db = _db(url)
    with db.cursor() as cur:
        cur.execute("DROP TABLE names")
        cur.execute("ALTER TABLE audit DROP KEY audit_action, DROP KEY audit_seq_name")
        cur.execute("UPDATE jailcore_schema SET version = 2")
    db.close()


@pytest.mark.parametrize("version", ["empty", 0, 2])
def test_processes_starting_at_once_upgrade_the_database_once(mariadb_server, version):
    found = 0 if version == "empty" else int(version)
    for attempt in range(3):  # they meet at a different point of the upgrade each time
        url = mariadb_server.database()
        if version == 0:
            _version_0(url)
        elif version == 2:
            _version_2(url)
        urls = _spellings(mariadb_server, url)
        at = str(time.time() + 1.5 + attempt * 0.004)
        procs = [subprocess.Popen([sys.executable, "-c", _START_AT, u, at, how], env={**os.environ, "PYTHONPATH": ROOT},
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for u, how in zip(urls, ("daemon", "daemon", "upgrade", "daemon"), strict=True)]
        done = [p.communicate(timeout=120) for p in procs]
        assert [p.returncode for p in procs] == [0, 0, 0, 0], [err for _, err in done]
        assert not any(err for _, err in done), [err for _, err in done]
        steps = sorted(line for out, _ in done for line in out.splitlines() if line.startswith("step "))
        assert steps == [f"step {n}" for n in range(found, SCHEMA_VERSION)], (attempt, steps)  # each step once, by one process
        assert PASSWORD not in "".join(out for out, _ in done)
        db = _db(url)
        with db.cursor() as cur:
            cur.execute("SELECT name, version FROM jailcore_schema")
            assert cur.fetchall() == (("jailcore", SCHEMA_VERSION),)
            cur.execute("SELECT name, next FROM id_blocks")
            blocks = cur.fetchall()
            assert len(blocks) == 1 and blocks[0][1] > (0 if version == "empty" else 42)  # the ids go on above the old ones
            cur.execute("SELECT id, seq FROM audit ORDER BY seq")
            assert cur.fetchall() == (() if version == "empty" else ((41, 1), (42, 2)))  # the old rows kept, each given its place once
            cur.execute("SELECT steamid, name, n FROM names")
            assert cur.fetchall() == (() if version == "empty" else (("STEAM_1:0:3", "Старый", 2),))  # counted once, not twice
            cur.execute("SHOW INDEX FROM audit WHERE Key_name IN ('audit_action', 'audit_seq_name') AND Seq_in_index = 1")
            assert sorted(r[2] for r in cur.fetchall()) == ["audit_action", "audit_seq_name"]
        db.close()


def test_an_upgrade_waited_out_is_refused_in_one_line_and_the_next_start_does_it(mariadb_server, monkeypatch):
    """Another process holding the database's upgrade lock longer than the wait (a huge index
    being built, a process hung): the start is refused in one line naming the database and the
    holder's connection, never a traceback or the password; once the lock is let go, it opens."""
    import jailcore.store.mariadb as maria
    from jailcore.store.sqlite import StoreError

    url = mariadb_server.database()
    _version_0(url)
    other = _db(url.replace("@127.0.0.1:", "@localhost:"))  # another machine's spelling: the lock is the database's all the same
    with other.cursor() as cur:
        cur.execute("SELECT GET_LOCK(%s, 0), CONNECTION_ID()", (f"jailcore-upgrade:{target(url).database}"[:64],))
        got, holder = cur.fetchone()
    assert got == 1
    monkeypatch.setattr(maria, "UPGRADE_WAIT", 1)
    began = time.monotonic()
    with pytest.raises(StoreError) as caught:
        MariaStore(url)
    line = str(caught.value)
    assert time.monotonic() - began >= 0.9  # it waited for the lock, then gave up
    assert "\n" not in line and PASSWORD not in line and target(url).shown in line and f"connection {holder}" in line, line
    with other.cursor() as cur:
        cur.execute("SHOW TABLES")
        assert "jailcore_schema" not in {r[0] for r in cur.fetchall()}  # nothing was done meanwhile
        cur.execute("SELECT RELEASE_LOCK(%s)", (f"jailcore-upgrade:{target(url).database}"[:64],))
    other.close()
    MariaStore(url).close()
    db = _db(url)
    with db.cursor() as cur:
        cur.execute("SELECT version FROM jailcore_schema")
        assert cur.fetchall() == ((SCHEMA_VERSION,),)
    db.close()
