"""Pardons, kept log lines and the round's story over a real SQLite file; the `[web]` table;
the page's password hashes, sessions and login limit. No browser here (see test_web.py)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time

import pytest

from jailcore.config.config import ConfigError, load
from jailcore.engine.actions import Target, Warn
from jailcore.log.parse import records
from jailcore.session import inputs as i
from jailcore.session.effects import KeepLines, Record, Write
from jailcore.session.session import Ids, Session
from jailcore.store import PardonError, asked_in_game
from jailcore.store.request_kinds import CtBanRequest, PardonRequest
from jailcore.store.sqlite import Store
from jailcore.web.auth import LoginLimit, Sessions, check_password, csrf_ok, hash_password
from jailcore.web.story import tell
from tests.audit_rows import entries
from tests.logtext import config
from tests.scenes import WARDEN as SCENE_WARDEN
from tests.scenes import next_day, setup
from tests.test_tail import ROOT, WARDEN, ZEK, act, jc

LINE = 'L 11/30/2026 - 20:{:02d}:00: "Начальник<2><STEAM_1:0:42><>" triggered "jb_specialday" (day "Прятки") (seq "{}")'


def test_pardon_is_written_once_and_refused_with_a_reason(tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    slay = store.record("srv", act("2026-11-30T20:05:00", "slay", WARDEN, "specialday.cooldown", "6.5", "особый день"), 3, "c", "delivered")
    say = store.record("srv", act("2026-11-30T20:05:01", "say", None, "calendar.freeday", "ФД 1", "понедельник"), 3, "c", "delivered")
    pardon = store.submit(PardonRequest(slay, "admin", "ошибся начальник", when="2026-11-30T21:00:00"))
    row = store.pardons_for([slay, say])[slay]
    assert (row["id"], row["server"], row["by"], row["reason"], row["applied_at"]) == (pardon, "srv", "admin", "ошибся начальник", None)
    with pytest.raises(PardonError, match="already pardoned by admin"):
        store.submit(PardonRequest(slay, "other", "again"))
    with pytest.raises(PardonError, match="no enforcement with id 99"):
        store.submit(PardonRequest(99, "admin", ""))
    with pytest.raises(PardonError, match="not a punishment"):
        store.submit(PardonRequest(say, "admin", ""))
    assert len(store.db.execute("SELECT * FROM pardons").fetchall()) == 1
    store.close()


def test_an_admins_word_in_game_is_judged_on_the_server_he_said_it_on(tmp_path):
    """`!jcpardon`, `!jcconfirm`, `!jcdismiss` come from an admin whose flags are his own
    server's: another server's entry in the same database is refused as the page refuses it,
    and his own is written with his SteamID (SourceBans++ credits him by it)."""
    store = Store(tmp_path / "s.sqlite3")
    theirs = store.record("b", act("2026-11-30T20:05:00", "slay", WARDEN, "specialday.cooldown", "6.5", "особый день"), 3, "c", "delivered")
    ours = store.record("a", act("2026-11-30T20:05:01", "slay", WARDEN, "specialday.cooldown", "6.5", "особый день"), 3, "c", "delivered")
    with pytest.raises(PardonError, match=r"no enforcement with id \d+ .* for server a"):
        store.submit(asked_in_game("pardon", theirs, "Смотритель", "", "STEAM_1:0:9", "a"))
    store.submit(asked_in_game("pardon", ours, "Смотритель", "не виноват", "STEAM_1:0:9", "a"))
    assert store.pardons_for([theirs]) == {}
    row = store.pardons_for([ours])[ours]
    assert (row["server"], row["by"], row["reason"], row["steamid"]) == ("a", "Смотритель", "не виноват", "STEAM_1:0:9")
    store.close()


def test_an_admins_write_waits_for_the_daemons_commits_and_checkpoints_and_succeeds(tmp_path):
    """The daemon's writer (group commits, a checkpoint every second), the web page's readers
    and an admin's pardon or CT ban share one file. An admin's write waits for the others
    (busy_timeout) and is written: a deferred `BEGIN` failed the first INSERT at once with
    `database is locked` when it met a checkpoint's WAL restart, about once in 3000 here."""
    import threading

    path = tmp_path / "s.sqlite3"
    admin, writer = Store(path), Store(path)
    stop = threading.Event()

    def commits() -> None:
        n = 0
        while not stop.is_set():
            writer.save_link("srv", "open", n, None, "enforce", "2026-11-30T20:06:00")
            writer.commit()
            n += 1

    def checkpoints() -> None:
        while not stop.is_set():
            writer.checkpoint()
            time.sleep(0.001)

    def page() -> None:
        reader = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        while not stop.is_set():
            reader.execute("SELECT COUNT(*) FROM audit").fetchone()
        reader.close()

    threads = [threading.Thread(target=f) for f in (commits, checkpoints, page)]
    for thread in threads:
        thread.start()
    written = []
    try:
        for n in range(4000):
            admin.waiting("srv", fresh=0)  # the admin's connection reads too, as the daemon's and the page's do
            written.append(admin.record("srv", act("2026-11-30T20:05:00", "slay", WARDEN, "specialday.cooldown", "6.5", "x"), 3, "c", "delivered"))
            admin.commit()
            if n % 400 == 0:
                admin.submit(PardonRequest(written[-1], "admin", "ошибся начальник"))
                admin.submit(CtBanRequest("srv", ZEK.steamid, ZEK.name, 30, None, "грубил", "admin"))
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert len(entries(admin, "action = 'slay'")) == len(written) == 4000
    assert len(admin.pardons_for(written)) == 10 and len(admin.admin_requests("srv").ctbans) == 10
    writer.close()
    admin.close()


def session_for(extra: str) -> Session:
    ids = Ids()
    ids.give(5000, 1000)
    return Session(config(extra), None, ids)


def slay_log():
    """The warden's special day the round after another: 000 6.5 slays him."""
    log, _ = setup()
    next_day(log.specialday(SCENE_WARDEN)).specialday(SCENE_WARDEN)
    return log


def feed_session(s: Session, log) -> list:
    out: list = []
    for rec in records(log.text().splitlines()):
        out += s.handle(i.LogRecord(rec.encode()), 1.0)
    return out


def test_kept_lines_carry_the_decisions_they_made_and_are_pruned(tmp_path):
    # The lines as the daemon keeps them: the session's KeepLines rows, beside the rows of the decisions.
    s = session_for("[web]\nstory_days = 14\n")
    effects = feed_session(s, slay_log())
    written = [e.row for e in effects if isinstance(e, Write)]
    kept = [line for row in written if isinstance(row, KeepLines) for line in row.lines]
    decided = next(row.id for row in written if isinstance(row, Record) and row.action.action == "slay")
    assert kept and 'triggered "jb_specialday" (day "Прятки")' in kept[-1][3]  # the line that decided is kept with its decision
    old = ("srv", 1, "2026-11-01T20:00:00", LINE.format(0, 1), 0)
    store = Store(tmp_path / "s.sqlite3")
    store.write([KeepLines((old, *kept), 14), *(row for row in written if not isinstance(row, KeepLines))])
    store.commit()
    rows = store.db.execute("SELECT round, time, line, audit FROM loglines ORDER BY id").fetchall()
    # the first write prunes: the line from November 1st is older than 14 days before the newest
    assert len(rows) == len(kept) and all(r["time"] > "2026-11-01T20:00:00" for r in rows)
    assert rows[-1]["audit"] == decided and all(r["audit"] < decided for r in rows[:-1])  # the line that slew carries the slay
    story = tell(rows, [{"id": decided, "action": "slay"}], "en")
    said = [m for m in story.moments if m.decisions]
    assert [d["id"] for m in said for d in m.decisions] == [decided] and said[0].category == "specialday"
    assert said[0].text == "Special day “Прятки” (Начальник #2)" and not story.orphans
    store.close()
    quiet = session_for("[web]\nstory_days = 0\n")  # retention 0: nothing is kept
    assert not [e for e in feed_session(quiet, slay_log()) if isinstance(e, Write) and isinstance(e.row, KeepLines)]


def test_a_decision_after_the_last_kept_line_is_told_apart():
    lines = [{"time": "2026-11-30T20:00:00", "line": 'L 11/30/2026 - 20:00:00: World triggered "Round_Start"', "audit": 4}]
    story = tell(lines, [{"id": 4}, {"id": 5}], "ru")
    assert story.moments[0].text == "Начало раунда" and [d["id"] for d in story.moments[0].decisions] == [4]
    assert [d["id"] for d in story.orphans] == [5]


@pytest.fixture
def pardoned_db(tmp_path):
    path = tmp_path / "p.sqlite3"
    store = Store(path)
    store.record("srv", act("2026-11-30T20:00:01", "warn", WARDEN, "prohibitions.max", "6.3", "третий запрет"), 3, "c", "delivered")
    store.record("srv", act("2026-11-30T20:06:00", "ctban", ZEK, "specialday.cooldown", "6.5", "особый день", minutes=30), 3, "c", "delivered")
    store.close()
    return path


def test_pardon_command_writes_the_row_and_tail_shows_it(pardoned_db):
    result = jc("pardon", "2", "--reason", "не он", "--by", "Вася", "--state-db", str(pardoned_db))
    assert result.returncode == 0, result.stderr
    assert "pardoned by Вася: не он" in result.stdout and "pardon 1 written" in result.stdout
    again = jc("pardon", "2", "--state-db", str(pardoned_db))
    assert again.returncode == 1 and "already pardoned by Вася" in again.stderr
    unknown = jc("pardon", "7", "--state-db", str(pardoned_db))
    assert unknown.returncode == 1 and "no enforcement with id 7" in unknown.stderr
    lines = jc("tail", "--state-db", str(pardoned_db)).stdout.splitlines()
    assert "pardoned" not in lines[0] and lines[1].endswith("delivered  pardoned by Вася: не он")
    entries = [json.loads(x) for x in jc("tail", "--json", "--state-db", str(pardoned_db)).stdout.splitlines()]
    assert [e["pardon"] and e["pardon"]["by"] for e in entries] == [None, "Вася"]


def test_tail_reads_a_database_from_before_pardons(tmp_path):
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE audit (id INTEGER PRIMARY KEY, server TEXT, time TEXT, round INT, day INT, action TEXT, rule TEXT, "
                     "ref TEXT, userid INT, steamid TEXT, name TEXT, reason TEXT, detail TEXT, command TEXT, status TEXT, reply TEXT);"
                     "CREATE TABLE state (server TEXT PRIMARY KEY, snapshot TEXT, updated TEXT);")
    detail = json.dumps(Warn("2026-11-30T20:00:00", 1, "orders", "3", "x", Target(2, "STEAM_1:0:42", "Н")).to_json())
    db.execute("INSERT INTO audit VALUES (1, 's', '2026-11-30T20:00:00', 1, 1, 'warn', 'orders', '3', 2, 'STEAM_1:0:42', 'Н', 'x', ?, 'c', "
               "'delivered', 'ok')", (detail,))
    db.commit()
    db.close()
    result = jc("tail", "--state-db", str(path))
    assert result.returncode == 0 and "[3 orders] warn" in result.stdout, result.stderr


def test_web_table_in_the_config():
    hashed = hash_password("correct horse")
    config = load(f'[web]\nlisten = "0.0.0.0:9000"\npublic = true\nstory_days = 3\n[web.users]\nadmin = "{hashed}"\n', "<t>", {})
    assert (config.web.listen, config.web.public, config.web.story_days, dict(config.web.users)) == ("0.0.0.0:9000", True, 3, {"admin": hashed})
    assert load("", "<t>", {}).web.story_days == 14 and not load("", "<t>", {}).web.public
    with pytest.raises(ConfigError) as err:
        load('[web]\nlisten = "nowhere"\nstory_days = -1\ncolour = 1\n[web.users]\nadmin = "hunter2"\n', "<t>", {})
    assert err.value.problems == [
        "<t>:2: web.listen: expected host:port, got 'nowhere'",
        "<t>:3: web.story_days: must not be negative, got -1",
        "<t>:4: web.colour: unknown key",
        "<t>:6: web.users.admin: expected a password hash from `jailcore web adduser`, never the password itself",
    ]


def test_adduser_prints_a_line_that_logs_in(tmp_path):
    result = jc("web", "adduser", "vasya", "--password-stdin", input="correct horse\n")
    assert result.returncode == 0, result.stderr
    name, _, value = result.stdout.strip().partition(" = ")
    config = load(f"[web.users]\n{name} = {value}\n", "<t>", {})
    assert check_password("correct horse", config.web.users["vasya"])
    assert not check_password("correct hors", config.web.users["vasya"])
    assert not check_password("correct horse", None)
    short = jc("web", "adduser", "vasya", "--password-stdin", input="short\n")
    assert short.returncode == 1 and "8 characters" in short.stderr


def test_sessions_csrf_and_login_limit():
    now = [0.0]
    sessions = Sessions(admin_ttl=100, visitor_ttl=10, clock=lambda: now[0])
    visitor = sessions.new()
    admin = sessions.login(visitor, "admin")
    assert sessions.get(visitor.sid) is None and sessions.get(admin.sid).user == "admin"
    assert csrf_ok(admin, admin.csrf) and not csrf_ok(admin, "") and not csrf_ok(admin, visitor.csrf) and not csrf_ok(None, admin.csrf)
    now[0] = 50
    assert sessions.get(admin.sid) is not None
    now[0] = 151
    assert sessions.get(admin.sid) is None
    limit = LoginLimit(tries=3, window=60, clock=lambda: now[0])
    for _ in range(3):
        assert limit.wait("address:1", "name:admin") == 0
        limit.failed("address:1", "name:admin")
    assert limit.wait("address:2", "name:admin") == 60  # the name is limited from any address
    now[0] += 61
    assert limit.wait("address:1", "name:admin") == 0


def test_tail_follow_prints_a_pardon_given_later(pardoned_db):
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "jailcore", "tail", "-f", "-n", "0", "--player", "вася", "--state-db", str(pardoned_db)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # `-n 0` begins at the log's end as it is when tail has read it: the file open (and a
        # moment) first, or a slow start would begin after the pardon and wait for ever
        def opened() -> bool:
            try:
                return any(os.path.realpath(f"/proc/{proc.pid}/fd/{fd}") == os.path.realpath(pardoned_db)
                           for fd in os.listdir(f"/proc/{proc.pid}/fd"))
            except OSError:
                return False

        deadline = time.monotonic() + 30
        while not opened() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        time.sleep(0.5)
        store = Store(pardoned_db)
        store.submit(PardonRequest(1, "admin", "не тот"))  # the warden's warning: filtered out by --player
        store.submit(PardonRequest(2, "admin", "ошибка"))
        store.close()
        import selectors

        with selectors.DefaultSelector() as ready:
            ready.register(proc.stdout, selectors.EVENT_READ)
            assert ready.select(timeout=30), "tail -f printed nothing in 30 s"
        line = proc.stdout.readline()
        assert "Зек Вася #7" in line and line.rstrip().endswith("delivered  pardoned by admin: ошибка")
    finally:
        proc.terminate()
        proc.communicate(timeout=5)
