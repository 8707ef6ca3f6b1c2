"""What admins did, where an admin of a network looks for it: every change of a web account
(on the page, by `jailcore web adduser|deluser`, taken from `[web.users]`) is an entry of the
page's Activity with who, when, which account and its role, never a password, on a SQLite file
and on a real MariaDB the tests start, and a database from before the table is upgraded in
place; a request queued while the database was away and refused when it came back is read from
this machine's queue (an old queue file too); the proposals waiting for an admin are in each
daemon's retained state, so `jailcore status --mqtt` lists them as `status` does from the
database (a real mosquitto)."""

from __future__ import annotations

import asyncio
import getpass
import json
import os
import sqlite3
import subprocess
import sys
from datetime import datetime

import pymysql
import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")

from jailcore.config.config import Config, load
from jailcore.sim.simserver import SimServer
from jailcore.store.location import open_reader
from jailcore.store.mariadb import SCHEMA_VERSION as MARIADB_VERSION
from jailcore.store.mariadb import MariaStore, target
from jailcore.store.requests import RequestQueue, refused_requests
from jailcore.store.sqlite import SCHEMA_VERSION as SQLITE_VERSION
from jailcore.store.sqlite import Store
from jailcore.web.app import Web
from jailcore.web.auth import hash_password
from jailcore.web.data import Sources
from tests.mariadb import mariadb, mariadb_server
from tests.test_live import config_text, running, settled, until
from tests.test_mqtt import broker, needs_broker
from tests.test_proposals_live import RULE, proposed
from tests.test_web_accounts import where
from tests.webkit import Browser

__all__ = ["broker", "mariadb", "mariadb_server", "where"]

PASSWORD = "correct horse battery"
HASH = hash_password(PASSWORD)


def jailcore(*args: str, given: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jailcore", *args], input=given, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": os.getcwd(), "JAILCORE_STATE": "", "JAILCORE_STATE_URL": ""})


def config_file(tmp_path, url: str) -> str:
    path = tmp_path / "jail-a.toml"
    state = f'path = "{tmp_path / "state.sqlite3"}"\n' + (f'url = "{url}"\n' if url else "")
    path.write_text(f'[server]\nname = "jail-a"\nrulebook = "all"\n[rcon]\npassword = "x"\n[state]\n{state}'
                    f'[web]\n[web.users]\nboss = "{HASH}"\n[web.roles]\nboss = "owner"\n', encoding="utf-8")
    return str(path)


async def test_every_account_change_is_an_activity_entry_with_who_and_the_role_and_never_a_password(tmp_path, where):
    path = config_file(tmp_path, where)
    web = Web(Sources([Config.from_toml(path, {})]), Config.from_toml(path, {}).web, poll=0.05,
              clock=lambda: datetime(2026, 12, 1, 16, 0))
    try:
        boss = Browser(web.app())
        assert (await boss.login("boss", PASSWORD)).status == 303
        token = await boss.csrf("/live")
        for form in ({"name": "petya", "role": "moderator", "password": "petya's first password"},
                     {"name": "petya", "role": "admin", "password": ""},  # the role alone
                     {"name": "petya", "role": "admin", "password": "petya's second password"},  # the password alone
                     {"name": "petya", "role": "admin", "password": ""},  # nothing changed: no entry
                     {"name": "petya", "do": "remove", "sure": "yes"}):
            assert (await boss.post("/accounts", form, token)).status == 303, form
        console = f"console ({getpass.getuser()})"
        made = jailcore("web", "adduser", "kolya", "--role", "viewer", "--role", "jail-a=moderator", "--config", path, "--password-stdin",
                        given="kolya's password\n")
        assert made.returncode == 0, made.stderr
        assert jailcore("web", "deluser", "kolya", "--config", path).returncode == 0

        assert web.sources.accounts is not None
        rows = web.sources.accounts.reader.account_changes()[::-1]  # oldest first
        assert [(r["by"], r["name"], r["what"], json.loads(r["roles"])) for r in rows] == [
            ("config", "boss", "imported", {"*": "owner"}),
            ("boss", "petya", "added", {"*": "moderator"}),
            ("boss", "petya", "role", {"*": "admin"}),
            ("boss", "petya", "password", {"*": "admin"}),
            ("boss", "petya", "removed", {"*": "admin"}),
            (console, "kolya", "added", {"*": "viewer", "jail-a": "moderator"}),
            (console, "kolya", "removed", {"*": "viewer", "jail-a": "moderator"}),
        ]
        assert all("scrypt" not in str(v) for r in rows for v in r.values())  # never a hash in the log

        shown = (await boss.get("/activity")).text
        for said in ("учётная запись <b class=\"who\">boss</b> перенесена из [web.users] конфига · роль: владелец",
                     "<b>boss</b> добавил администратора <b class=\"who\">petya</b> · роль: модератор",
                     "<b>boss</b> сменил роль администратора <b class=\"who\">petya</b> · роль: администратор",
                     "<b>boss</b> сменил пароль администратора <b class=\"who\">petya</b>",
                     "<b>boss</b> удалил администратора <b class=\"who\">petya</b>",
                     f"<b>{console}</b> добавил администратора <b class=\"who\">kolya</b> · роль: наблюдатель, jail-a: модератор"):
            assert said in shown, said
        assert "scrypt" not in shown and "petya's" not in shown and "kolya's" not in shown
        assert shown.index("kolya") < shown.index("petya")  # newest first
        mine = (await boss.get(f"/activity?by={console}")).text
        assert "kolya" in mine and "petya" not in mine
        boss.jar["jc_lang"] = "en"
        english = (await boss.get("/activity")).text
        assert "<b>boss</b> changed the password of the admin <b class=\"who\">petya</b>" in english
        assert "the account <b class=\"who\">boss</b> taken from [web.users] in the config · role: owner" in english
    finally:
        web.sources.close()


def test_a_sqlite_file_of_version_4_gets_the_accounts_activity_in_place(tmp_path):
    path = tmp_path / "old.sqlite3"
    store = Store(path)
    store.put_account("boss", HASH, {"*": "admin"}, "config")
    store.close()
    db = sqlite3.connect(path)
    db.executescript("DROP TABLE account_changes; PRAGMA user_version = 4;")  # as the jailcore before it left the file
    db.close()
    old = open_reader(str(path))
    try:
        assert old.account_changes() == []  # read as it is, before the upgrade: nothing, no error
    finally:
        old.close()
    done = jailcore("db", "upgrade", "--state-db", str(path))
    assert done.returncode == 0 and f"upgraded from schema version 4 to {SQLITE_VERSION}" in done.stdout, done.stderr + done.stdout
    store = Store(path)
    try:
        assert [a.name for a in store.accounts()] == ["boss"]  # its accounts kept
        assert store.remove_account("boss", "console (root)")
    finally:
        store.close()
    reader = open_reader(str(path))
    try:
        assert [(r["by"], r["name"], r["what"]) for r in reader.account_changes()] == [("console (root)", "boss", "removed")]
    finally:
        reader.close()


def test_a_mariadb_of_version_3_gets_the_accounts_activity_in_place(mariadb):
    store = MariaStore(mariadb)
    store.put_account("boss", HASH, {"*": "admin"}, "config")
    store.close()
    t = target(mariadb)
    db = pymysql.connect(host=t.host, port=t.port, user=t.user, password=t.password, database=t.database, autocommit=True)
    with db.cursor() as cur:
        cur.execute("DROP TABLE account_changes")
        cur.execute("UPDATE jailcore_schema SET version = 3")
    old = open_reader(mariadb)
    try:
        assert old.account_changes() == []
        assert old.dialect.names  # version 3 has the names table and its indexes: read on them, not as an older one
    finally:
        old.close()
    done = jailcore("db", "upgrade", "--state-db", mariadb)
    assert done.returncode == 0 and f"upgraded from schema version 3 to {MARIADB_VERSION}" in done.stdout, done.stderr + done.stdout
    with db.cursor() as cur:
        cur.execute("SELECT version FROM jailcore_schema")
        assert cur.fetchone() == (MARIADB_VERSION,)
    db.close()
    store = MariaStore(mariadb)
    try:
        store.put_account("boss", None, {"*": "moderator"}, "boss")
    finally:
        store.close()
    reader = open_reader(mariadb)
    try:
        assert [(r["by"], r["name"], r["what"], r["roles"]) for r in reader.account_changes()] == [("boss", "boss", "role", '{"*": "moderator"}')]
    finally:
        reader.close()


def test_refusals_are_read_from_a_queue_file_of_before_the_time_was_kept(tmp_path):
    """A queue file written by the jailcore before (its `settled` without a time): its refusals are
    counted and listed, and the first process that opens it for writing adds the column."""
    path = tmp_path / "jail.requests"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('origin', 'req-old');"
        "CREATE TABLE queued (seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, args TEXT NOT NULL);"
        "CREATE TABLE settled (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, args TEXT NOT NULL, outcome TEXT NOT NULL);"
        "INSERT INTO settled VALUES (1, 'pardon', '{\"action_id\": 7, \"by\": \"Админ\", \"server\": \"jail\"}', 'applied: row 3');"
        "INSERT INTO settled VALUES (2, 'answer', '{\"action_id\": 9, \"answer\": \"confirm\", \"by\": \"mod\", \"server\": \"jail\"}', "
        "'refused: proposal 9 is expired: timed out');")
    db.close()
    count, newest = refused_requests(path)
    assert count == 1 and [(r.asked, r.args["by"], r.why, r.time) for r in newest] == [("confirm #9", "mod", "proposal 9 is expired: timed out", "")]
    assert refused_requests(path, since="2026-01-01T00:00:00") == (0, [])  # no time known: not among the recent ones
    queue = RequestQueue(path)
    try:
        queue.settle(3, "ctban", {"steamid": "STEAM_1:0:5", "lift": True, "by": "kolya", "server": "jail"}, "refused: no CT ban")
    finally:
        queue.close()
    count, newest = refused_requests(path, since="2026-01-01T00:00:00")
    assert count == 1 and newest[0].asked == "ctban lift STEAM_1:0:5" and newest[0].time >= "2026"
    assert refused_requests(path)[0] == 2 and refused_requests(tmp_path / "none.requests") == (0, [])


@needs_broker
async def test_status_over_mqtt_lists_the_proposals_waiting_as_status_from_the_database_does(tmp_path, broker):
    sim = SimServer(password="pw")
    port = await sim.start()
    state = tmp_path / "state.sqlite3"
    text = config_text(port, state, rest=RULE + f'[mqtt]\nurl = "mqtt://127.0.0.1:{broker.port}"\n')
    async with running(load(text, "<test>", {}), sim) as daemon:
        daemon.mqtt.backoff_min, daemon.mqtt.backoff_max = 0.1, 0.5
        await asyncio.wait_for(daemon.mqtt.connected.wait(), 60)
        _, ts = await settled(sim, daemon)
        row = await proposed(sim, daemon, ts[0])
        await until(lambda: (daemon.store.load_state("t") or {}).get("proposals"))

        def waiting(*args: str) -> list[str]:
            done = jailcore("status", *args)
            assert done.returncode == 0, done.stderr
            lines = done.stdout.splitlines()
            at = [n for n, line in enumerate(lines) if line.startswith("  waiting for an admin")]
            return lines[at[0]:at[0] + 2] if at else []  # [] until the state with the proposal is there

        from_db = await asyncio.to_thread(waiting, "--state-db", str(state))
        mqtt = f"mqtt://127.0.0.1:{broker.port}"
        over_mqtt = await seen(lambda: waiting("--mqtt", mqtt))  # in a thread: the daemon's loop runs on meanwhile
        assert from_db == over_mqtt == [
            "  waiting for an admin: 1 (jailcore confirm|dismiss ID)",
            f"    #{row['id']} ban 0 {ts[0].name} {ts[0].steamid} [Общие 19 conduct.advertising] round {row['round']}, "
            f"{row['time'].replace('T', ' ')}"]
        assert (await asyncio.to_thread(jailcore, "dismiss", str(row["id"]), "--state-db", str(state))).returncode == 0
        await seen(lambda: "waiting for an admin" not in jailcore("status", "--mqtt", mqtt).stdout)  # answered: gone from it too


async def seen(look, timeout: float = 20.0):
    """What `look` (a command run in a thread) gives once it gives something: looked at again while it is falsy."""
    end = asyncio.get_running_loop().time() + timeout
    while not (got := await asyncio.to_thread(look)):
        assert asyncio.get_running_loop().time() < end, "not seen in time"
        await asyncio.sleep(0.2)
    return got
