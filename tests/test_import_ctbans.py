"""`jailcore import ctbans`: databomb's CT Bans brought over once, from a SQLite file and from a
real MariaDB (tests/mariadb.py). The CT Bans tables are made here from their columns."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time

import pymysql

from jailcore.store.mariadb import target
from jailcore.store.sqlite import Store
from tests.mariadb import mariadb, mariadb_server

__all__ = ["mariadb", "mariadb_server"]

NOW = int(time.time())
TIMES = [("STEAM_0:1:111", 45), ("STEAM_0:0:222", 0)]
LOG = [(1, NOW - 86400, "STEAM_0:1:111", "Злостный", "STEAM_0:1:9", "Старший", 60, 45, "фрикилл"),
       (2, NOW - 3600, "STEAM_0:0:222", "Вечный", "STEAM_0:1:9", "Старший", 0, 0, "читы"),
       (3, NOW - 7 * 86400, "STEAM_0:1:333", "Бывший", "STEAM_0:1:9", "Старший", 30, -1, "мат")]
TABLES = ["CREATE TABLE jb_CTBan_Times (steamid VARCHAR(22), ctbantime INT, PRIMARY KEY (steamid))",
          "CREATE TABLE jb_CTBan_Log (ban_id INTEGER PRIMARY KEY, timestamp INT, perp_steamid VARCHAR(22), perp_name VARCHAR(32), "
          "admin_steamid VARCHAR(22), admin_name VARCHAR(32), bantime INT, timeleft INT, reason VARCHAR(200))"]


def jailcore(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jailcore", *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "JAILCORE_STATE": "", "JAILCORE_STATE_URL": ""})


def config(tmp_path, state: str) -> str:
    path = tmp_path / "jail.toml"
    path.write_text(f'[server]\nname = "jail"\nrulebook = "all"\n[state]\n{state}\n', encoding="utf-8")
    return str(path)


def check_twice(source: str, cfg: str, prefix: str = "jb_") -> None:
    first = jailcore("import", "ctbans", source, "--prefix", prefix, "--config", cfg)
    assert first.returncode == 0, first.stderr
    assert "2 running CT ban(s) taken (1 permanent), 3 history" in first.stdout
    assert "only while the player was alive" in first.stdout and "on the clock" in first.stdout
    again = jailcore("import", "ctbans", source, "--prefix", prefix, "--config", cfg)
    assert again.returncode == 0 and "0 running CT ban(s) taken (0 permanent), 0 history" in again.stdout
    assert "5 already brought over" in again.stdout


def test_from_a_sqlite_file_once(tmp_path):
    source = tmp_path / "ctban.sqlite"
    db = sqlite3.connect(source)
    for statement in TABLES:
        db.execute(statement)
    db.executemany("INSERT INTO jb_CTBan_Times VALUES (?, ?)", TIMES)
    db.executemany("INSERT INTO jb_CTBan_Log VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", LOG)
    db.commit()
    db.close()
    state = tmp_path / "state.sqlite3"
    Store(state).close()
    cfg = config(tmp_path, f'path = "{state}"')
    check_twice(str(source), cfg)
    db = sqlite3.connect(state)
    requests = db.execute("SELECT steamid, name, minutes, rounds, lift, `by` FROM ctban_requests ORDER BY steamid").fetchall()
    assert requests == [("STEAM_0:0:222", "Вечный", 0, None, 0, "CT Bans import"), ("STEAM_0:1:111", "Злостный", 45, None, 0, "CT Bans import")]
    history = db.execute("SELECT steamid, reply, status FROM audit WHERE rule = 'import.ctbans' ORDER BY steamid").fetchall()
    assert [h[1] for h in history] == ["CT Bans #2", "CT Bans #1", "CT Bans #3"] and {h[2] for h in history} == {"delivered"}
    db.close()
    shown = jailcore("history", "STEAM_0:1:333", "--state-db", str(state))
    assert "Бывший" in shown.stdout and "мат" in shown.stdout  # the history of a ban long over is kept
    wrong = jailcore("import", "ctbans", str(source), "--prefix", "sb_", "--config", cfg)
    assert wrong.returncode == 1 and "is --prefix 'sb_' right?" in wrong.stderr and len(wrong.stderr.strip().splitlines()) == 1


def test_from_mariadb_into_mariadb_once(tmp_path, mariadb_server, mariadb):
    source = mariadb_server.database()
    t = target(source)
    db = pymysql.connect(host=t.host, port=t.port, user=t.user, password=t.password, database=t.database, autocommit=True)
    with db.cursor() as cur:
        for statement in TABLES:
            cur.execute(statement.replace("INTEGER PRIMARY KEY", "INT UNSIGNED AUTO_INCREMENT PRIMARY KEY"))
        cur.executemany("INSERT INTO jb_CTBan_Times VALUES (%s, %s)", TIMES)
        cur.executemany("INSERT INTO jb_CTBan_Log VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)", LOG)
    db.close()
    cfg = config(tmp_path, f'url = "{mariadb}"')
    check_twice(source, cfg)
    listed = jailcore("ctban", "list", "--state-db", mariadb)
    assert "STEAM_0:1:111" in listed.stdout and "not applied yet" in listed.stdout  # waiting for the server's daemon
    assert t.password not in listed.stdout


def test_each_row_is_judged_alone(tmp_path):
    """Before: a running ban with -30 minutes left (over: CT Bans keeps the row until the
    player's next spawn) became a PERMANENT CT ban, and a log row stamped in the year 3,000,000
    ended the import with a traceback and nothing imported. Now each row is judged alone: one
    over is skipped and counted, one that cannot be is refused and named, the rest are taken."""
    source = tmp_path / "ctban.sqlite"
    db = sqlite3.connect(source)
    for statement in TABLES:
        db.execute(statement.replace("VARCHAR(22)", "TEXT").replace(" INT,", ","))  # SQLite holds whatever is put in
    db.executemany("INSERT INTO jb_CTBan_Times VALUES (?, ?)", [*TIMES, ("STEAM_0:1:333", -30), ("BOT", 10), ("STEAM_0:0:444", "abc"),
                                                                ("STEAM_0:0:555", 10**12)])
    far = (3_000_000 - 1970) * 31_556_952  # the year 3,000,000
    db.executemany("INSERT INTO jb_CTBan_Log VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", [
        *LOG, (4, far, "STEAM_0:1:666", "Из будущего", "STEAM_0:1:9", "Старший", 10, 10, "x"),
        (5, NOW - 60, "nobody", "Никто", "STEAM_0:1:9", "Старший", 10, 10, "x"),
        (6, NOW - 60, "STEAM_0:1:777", "Минус", "STEAM_0:1:9", "Старший", -5, 0, "x"),
        (7, NOW - 120, "STEAM_0:0:888", "Хороший", "STEAM_0:1:9", "Старший", 20, -1, "мат")])
    db.commit()
    db.close()
    state = tmp_path / "state.sqlite3"
    Store(state).close()
    cfg = config(tmp_path, f'path = "{state}"')
    done = jailcore("import", "ctbans", str(source), "--prefix", "jb_", "--config", cfg)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    out = done.stdout
    assert "2 running CT ban(s) taken (1 permanent), 4 history" in out, out
    assert "1 ban(s) already over (minutes left below 0) skipped: STEAM_0:1:333" in out
    assert "6 row(s) refused, each named:" in out
    for named in ("jb_CTBan_Times 'BOT': not a SteamID", "jb_CTBan_Times 'STEAM_0:0:444': ctbantime 'abc' is not a whole number",
                  "jb_CTBan_Times 'STEAM_0:0:555': ctbantime 1000000000000 is more than 100 years",
                  "jb_CTBan_Log #4: timestamp", "the year 3000000", "jb_CTBan_Log #5: perp_steamid 'nobody' is not a SteamID",
                  "jb_CTBan_Log #6: bantime -5 is not a length in minutes"):
        assert named in out, (named, out)
    db = sqlite3.connect(state)
    requests = db.execute("SELECT steamid, minutes FROM ctban_requests ORDER BY steamid").fetchall()
    assert requests == [("STEAM_0:0:222", 0), ("STEAM_0:1:111", 45)]  # no permanent ban for the one over
    history = sorted(r[0] for r in db.execute("SELECT reply FROM audit WHERE rule = 'import.ctbans'"))
    assert history == ["CT Bans #1", "CT Bans #2", "CT Bans #3", "CT Bans #7"]
    db.close()
