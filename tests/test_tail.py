"""`jailcore tail` and `jailcore history` over a real state database."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
from pathlib import Path

import pytest

from jailcore.engine.actions import CLASSES, Action, Target
from jailcore.store.sqlite import Store

ROOT = Path(__file__).resolve().parents[1]
WARDEN = Target(2, "STEAM_1:0:42", "Начальник")
ZEK = Target(7, "STEAM_1:1:7", "Зек Вася")


def act(time: str, kind: str, target: Target | None, rule: str, ref: str, reason: str, **kw) -> Action:
    header = (time, 3, rule, ref, reason) if target is None else (time, 3, rule, ref, reason, target)
    return CLASSES[kind](*header, **kw)


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "audit.sqlite3"
    store = Store(path)
    rows = [
        (act("2026-11-30T20:00:01", "warn", WARDEN, "prohibitions.max", "6.3", "третий запрет"), "delivered"),
        (act("2026-11-30T20:00:02", "cancel", WARDEN, "prohibitions.max", "6.3", "запрет №3", index=3), "delivered"),
        (act("2026-11-30T20:05:00", "slay", WARDEN, "specialday.cooldown", "6.5", "особый день"), "failed"),
        (act("2026-11-30T20:06:00", "ban", ZEK, "calendar.rebellion", "Заключённые 5", "бунт", minutes=10), "pending"),
    ]
    for action, status in rows:
        row_id = store.record("srv", action, 3, "cmd", status)
        if status == "failed":
            store.mark(row_id, "failed", "error: #2 is not alive")
    store.save_state("srv", {"ladders": {"specialday.cooldown|STEAM_1:0:42": 1, "prohibitions.max|STEAM_1:0:42": 1},
                             "ctbans": {"STEAM_1:0:42": {"rule": "specialday.cooldown", "until": "2026-11-30T20:35:00", "rounds": None}}},
                     "2026-11-30T20:06:00")
    store.close()
    return path


def jc(*args: str, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("JAILCORE_STATE", None)
    return subprocess.run([sys.executable, "-m", "jailcore", *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=30, **kw)


def rows(result: subprocess.CompletedProcess) -> list[dict]:
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_tail_latest_entries_human_readable(db):
    result = jc("tail", "--state-db", str(db))
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert len(lines) == 4
    assert "[6.5 specialday.cooldown]" in lines[2] and "Начальник #2 STEAM_1:0:42" in lines[2]
    assert lines[2].endswith("failed (error: #2 is not alive)") and " r3 Ср " in lines[2]


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (["--player", "вася"], ["ban"]),
        (["--player", "#2"], ["warn", "cancel", "slay"]),
        (["--player", "STEAM_1:1:7"], ["ban"]),
        (["--rule", "prohibitions"], ["warn", "cancel"]),
        (["--action", "slay"], ["slay"]),
        (["--since", "2026-11-30T20:05"], ["slay", "ban"]),
        (["-n", "1"], ["ban"]),
    ],
)
def test_tail_filters(db, filters, expected):
    got = rows(jc("tail", "--state-db", str(db), "--json", *filters))
    assert [r["action"] for r in got] == expected
    assert all({"time", "round", "rule", "ref", "target", "reason", "status"} <= set(r) for r in got)


def _line_within(proc: subprocess.Popen, seconds: float) -> str:
    ready = selectors.DefaultSelector()
    ready.register(proc.stdout, selectors.EVENT_READ)
    assert ready.select(timeout=seconds), f"no line within {seconds} s"
    return proc.stdout.readline()


def test_tail_follow_prints_new_entries_as_they_happen(db):
    # `-n 1` prints the newest entry at once: once it is read, tail is following, and the
    # entry written after it must come next. No sleeping on the clock.
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "jailcore", "tail", "-f", "--json", "-n", "1", "--state-db", str(db)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = json.loads(_line_within(proc, 20))
        store = Store(db)
        store.record("srv", act("2026-11-30T20:10:00", "teamswap", WARDEN, "games.online_limit", "5.17", "Король"), 4, "c", "pending")
        store.close()
        line = json.loads(_line_within(proc, 10))
        assert line["action"] == "teamswap" and line["time"] == "2026-11-30T20:10:00" and line != first
    finally:
        proc.terminate()
        proc.communicate(timeout=5)


def test_history_shows_record_and_ladders(db):
    result = jc("history", "Начальник", "--state-db", str(db), "--config", "configs/example.toml")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Начальник: 3 enforcement(s)" in out
    assert "specialday.cooldown: 1 offence(s), next step: ctban 30m" in out
    assert "CT ban (specialday.cooldown), until 2026-11-30T20:35:00" in out


def test_tail_without_a_database_says_so(tmp_path):
    result = jc("tail", "--state-db", str(tmp_path / "nope.sqlite3"))
    assert result.returncode == 1 and "no state database" in result.stderr


def test_tail_shows_a_name_that_poses_as_another_escaped(tmp_path):
    """A right-to-left override, a zero-width space, a Hangul filler: `tail` prints them as
    escapes, so «\u202eнимдА ясаВ» cannot read as «Вася Админ» in an admin's terminal."""
    path = tmp_path / "audit.sqlite3"
    store = Store(path)
    poser = Target(9, "STEAM_1:0:9", "\u202eнимдА ясаВ\u200b\u3164")
    store.record("srv", act("2026-11-30T20:00:01", "warn", poser, "orders.disobey", "2.1", "приказ"), 3, "cmd", "delivered")
    store.close()
    human = jc("tail", "--state-db", str(path))
    assert human.returncode == 0, human.stderr
    assert "\\u202eнимдА ясаВ\\u200b\\u3164 #9" in human.stdout
    (row,) = rows(jc("tail", "--json", "--state-db", str(path)))
    assert row["target"]["name"] == poser.name  # JSON keeps the name exactly, escaped in the text
    out = jc("tail", "--json", "--state-db", str(path)).stdout
    assert "\u202e" not in out and "\u3164" not in out and "\\u3164" in out
