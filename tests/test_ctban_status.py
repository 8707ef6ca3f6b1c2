"""`jailcore ctban list|add|lift` and `jailcore status` over a real state database, with
engines that played real log text; the daemon's part (applying a request) is the engine's
own `give_ctban`, fed the row exactly as the command wrote it."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from jailcore.engine.admin import ctban_from_outside
from jailcore.engine.engine import Engine
from jailcore.log.logtime import plus_minutes
from jailcore.store.sqlite import Store
from tests.logtext import run
from tests.scenes import GUARD, WARDEN, next_day, setup
from tests.test_tail import jc, rows

NOW = datetime.now().isoformat(timespec="seconds")
PRISONER = setup()[1][0]  # the cast is the same every time


def north():
    """A warden who calls a special day three times in a row: slain, then banned from CT for
    30 minutes, and moved to the prisoners. A prohibition and a game stand."""
    log, _ = setup()
    log.specialday(WARDEN)  # allowed; then a round apart: slay, then ctban 30m
    next_day(log).specialday(WARDEN)
    next_day(log).prohibit(WARDEN, "запрет на оружейку\x1b[2J").game(WARDEN, "Прятки").specialday(WARDEN)
    return run("[teams.no_warden]\nenabled = false\n", log)


LAST = north()[1].state.time  # the last line north's engine saw


def until(minutes: int) -> str:
    return f"until {plus_minutes(LAST, minutes).replace('T', ' ')[:16]} ({minutes} min left)"


UNTIL = until(30)


def south():
    """A quiet server where an admin banned a prisoner for three rounds."""
    log, ts = setup()
    _, engine = run("", log)
    engine.admin(ctban_from_outside, ts[0].steamid, ts[0].name, None, 3, "грубил", "Админ")
    return ts[0], engine


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "network.sqlite3"
    store = Store(path)
    actions, engine = north()
    for action in actions:
        store.record("north", action, engine.day, "cmd", "delivered")
    store.save_state("north", engine.snapshot(), NOW)
    # written now, as a running daemon rewrites it every 5 s (older than 30 s reads "stale")
    store.save_link("north", "open", 0, engine.state.time, "enforce", datetime.now().isoformat(timespec="seconds"))
    _, other = south()
    store.save_state("south", other.snapshot(), NOW)
    store.commit()
    store.close()
    return path


def requests(path: Path) -> list[dict]:
    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in db.execute("SELECT * FROM ctban_requests ORDER BY id")]
    finally:
        db.close()


def failed(result, *words: str) -> None:
    assert result.returncode != 0, result.stdout
    for word in words:
        assert word in result.stderr, result.stderr


# -- ctban list ---------------------------------------------------------------------------------


def test_list_shows_every_servers_bans_with_what_is_left(db):
    got = rows(jc("ctban", "list", "--state-db", str(db), "--json"))
    assert [(b["server"], b["steamid"]) for b in got] == [("north", WARDEN.steamid), ("south", PRISONER.steamid)]
    warden, prisoner = got
    assert warden["left"] == UNTIL and warden["rule"] == "specialday.cooldown" and warden["by"] == ""
    assert warden["online"] is True  # moved to the prisoners, still on the server
    assert (prisoner["rounds"], prisoner["by"], prisoner["left"]) == (3, "Админ", "3 round(s)")
    human = jc("ctban", "list", "--state-db", str(db)).stdout.splitlines()
    assert human[0].startswith(f"north  Начальник {WARDEN.steamid}  {UNTIL}  [6.5 specialday.cooldown]")
    assert human[0].endswith("by the rules  online") and "by Админ" in human[1]


def test_list_of_one_server_and_of_an_unknown_one(db):
    got = rows(jc("ctban", "list", "--state-db", str(db), "--json", "--server", "south"))
    assert [b["server"] for b in got] == ["south"]
    failed(jc("ctban", "list", "--state-db", str(db), "--server", "west"), "no server 'west'", "north, south")


# -- ctban add / lift ---------------------------------------------------------------------------


def test_add_writes_a_request_the_engine_applies_and_list_then_shows(db):
    result = jc("ctban", "add", GUARD.steamid, "--minutes", "45", "--reason", "фридамаг", "--by", "Админ", "--server", "north",
                "--state-db", str(db))
    assert result.returncode == 0, result.stderr
    assert f"CT ban 1 written for {GUARD.steamid} on north: 45 min, by Админ: фридамаг" in result.stdout  # no entry of his yet: no name
    (row,) = requests(db)
    assert {k: row[k] for k in ("server", "steamid", "minutes", "rounds", "lift", "reason", "by", "applied_at")} == {
        "server": "north", "steamid": GUARD.steamid, "minutes": 45, "rounds": None, "lift": 0, "reason": "фридамаг", "by": "Админ",
        "applied_at": None}
    pending = [b for b in rows(jc("ctban", "list", "--state-db", str(db), "--json")) if b["pending"]]
    assert [(p["steamid"], p["minutes"], p["lift"]) for p in pending] == [(GUARD.steamid, 45, False)]

    # What the running daemon does with the row: the engine's own call, then its snapshot.
    store = Store(db)
    engine = Engine(run("[teams.no_warden]\nenabled = false\n", "")[1].config, store.load_state("north"))
    engine.admin(ctban_from_outside, row["steamid"], row["name"], row["minutes"], row["rounds"], row["reason"], row["by"])
    store.applied("ctban_requests", row["id"], NOW)
    store.save_state("north", engine.snapshot(), NOW)
    store.close()
    got = {b["steamid"]: b for b in rows(jc("ctban", "list", "--state-db", str(db), "--json"))}
    assert got[GUARD.steamid]["by"] == "Админ" and got[GUARD.steamid]["left"] == until(45)
    assert not any(b["pending"] for b in got.values())


def test_add_names_the_player_from_the_log_and_takes_rounds_or_forever(db):
    result = jc("ctban", "add", WARDEN.steamid, "--rounds", "2", "--server", "north", "--state-db", str(db), "--by", "A")
    assert f"for Начальник STEAM_1:0:42 on north: 2 round(s) (replaces: {UNTIL})" in result.stdout
    jc("ctban", "add", "[U:1:123]", "--minutes", "0", "--server", "south", "--state-db", str(db), "--by", "B")
    first, second = requests(db)
    assert (first["name"], first["rounds"], first["minutes"]) == ("Начальник", 2, None)
    assert (second["steamid"], second["minutes"], second["rounds"], second["server"]) == ("[U:1:123]", 0, None, "south")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["STEAM_2:0:1", "--minutes", "5", "--server", "north"], ["'STEAM_2:0:1' is not a steamid", "STEAM_0:X:Y"]),
        (["Вася", "--minutes", "5", "--server", "north"], ["is not a steamid"]),
        (["STEAM_1:0:1;quit", "--minutes", "5", "--server", "north"], ["is not a steamid"]),
        (["STEAM_1:0:1", "--server", "north"], ["--minutes N (0: permanent) or --rounds N"]),
        (["STEAM_1:0:1", "--rounds", "0", "--server", "north"], ["--rounds takes 1 to 10000"]),
        (["STEAM_1:0:1", "--minutes", "5"], ["several servers (north, south)", "--server"]),
        (["STEAM_1:0:1", "--minutes", "5", "--server", "west"], ["no server 'west'", "it has north, south"]),
    ],
)
def test_a_bad_request_is_refused_and_nothing_is_written(db, args, words):
    failed(jc("ctban", "add", *args, "--state-db", str(db)), *words)
    assert requests(db) == []


def test_both_lengths_at_once_are_refused_by_the_parser(db):
    result = jc("ctban", "add", "STEAM_1:0:1", "--minutes", "5", "--rounds", "2", "--state-db", str(db))
    assert result.returncode == 2 and "not allowed with argument" in result.stderr and requests(db) == []


def test_lift_needs_a_ban_to_lift(db):
    failed(jc("ctban", "lift", GUARD.steamid, "--server", "north", "--state-db", str(db)), f"{GUARD.steamid} has no CT ban on north")
    assert jc("ctban", "lift", WARDEN.steamid, "--server", "north", "--state-db", str(db), "--reason", "ошибка", "--by", "A").returncode == 0
    # a ban asked for and not yet applied can be lifted too
    assert jc("ctban", "add", GUARD.steamid, "--minutes", "5", "--server", "north", "--state-db", str(db), "--by", "A").returncode == 0
    assert jc("ctban", "lift", GUARD.steamid, "--server", "north", "--state-db", str(db), "--by", "A").returncode == 0
    assert [(r["steamid"], r["lift"], r["reason"]) for r in requests(db)] == [
        (WARDEN.steamid, 1, "ошибка"), (GUARD.steamid, 0, ""), (GUARD.steamid, 1, "")]


def test_the_only_server_is_the_default_and_a_missing_database_is_named(tmp_path):
    path = tmp_path / "one.sqlite3"
    store = Store(path)
    store.save_state("solo", south()[1].snapshot(), NOW)
    store.close()
    assert jc("ctban", "add", "STEAM_0:1:5", "--minutes", "10", "--state-db", str(path), "--by", "A").returncode == 0
    assert requests(path)[0]["server"] == "solo"
    missing = tmp_path / "nowhere.sqlite3"
    failed(jc("ctban", "add", "STEAM_0:1:5", "--minutes", "10", "--state-db", str(missing)), f"no state database at {missing}")
    failed(jc("ctban", "list", "--state-db", str(missing)), "no state database at")
    assert not missing.exists()  # looking never creates one


def test_the_other_steamid_form_is_pointed_out(db):
    other = "STEAM_0" + WARDEN.steamid[7:]
    result = jc("ctban", "add", other, "--minutes", "5", "--server", "north", "--state-db", str(db), "--by", "A")
    # One account, one ban: the ban he holds as north's log writes him is the one replaced.
    assert result.returncode == 0 and f"written for {WARDEN.name} {WARDEN.steamid} on north" in result.stdout and "replaces" in result.stdout
    assert requests(db)[0]["steamid"] == WARDEN.steamid


def test_the_config_names_the_server_and_the_database(db, tmp_path):
    config = tmp_path / "north.toml"
    config.write_text(f'[server]\nname = "north"\n[state]\npath = "{db}"\n', encoding="utf-8")
    assert jc("ctban", "add", "STEAM_1:1:9", "--rounds", "1", "--config", str(config), "--by", "A").returncode == 0
    assert requests(db)[0]["server"] == "north"


# -- status from the state database ----------------------------------------------------------------


def test_status_one_block_per_server(db):
    result = jc("status", "--state-db", str(db))
    assert result.returncode == 0, result.stderr
    north_block, south_block = result.stdout.split("\n\n")
    lines = north_block.splitlines()
    assert lines[0].startswith(f"north  rcon open · outbox 0 · last line {LAST.replace('T', ' ')} (") and lines[0].endswith(" · mode enforce")
    assert lines[1] == "  day 4 (Чт), week 1, round 4, map -; online T 7 / CT 1"
    assert "  warden: none" in lines
    assert "  prohibitions (1): 1. запрет на оружейку\\x1b[2J" in lines  # escaped, never sent to the terminal
    assert "  game: Прятки (host 2)" in lines
    assert "  special day: last in round 4; next from round 7 (3 round(s) to go)" in lines
    assert lines[-2:] == ["  CT bans: 1, 1 online", f"    Начальник STEAM_1:0:42: {UNTIL} [6.5 specialday.cooldown]"]
    assert "\x1b" not in result.stdout
    # no link row: the daemon of this database never said how it stands; the outbox is the audit's
    assert south_block.splitlines()[0].startswith("south  rcon ? · outbox 0 · last line")
    assert f"  CT bans: 1, 1 online\n    {PRISONER.name} {PRISONER.steamid}: 3 round(s) [- admin]" in south_block
    assert "special day: none yet" in south_block


def test_status_json_and_the_servers_own_config(db, tmp_path):
    config = tmp_path / "north.toml"
    config.write_text(f'[server]\nname = "north"\nrulebook = "all"\n[state]\npath = "{db}"\n[specialday.cooldown]\nrounds = 5\n', encoding="utf-8")
    (north_status,) = rows(jc("status", "--config", str(config), "--json"))
    assert north_status["server"] == "north" and north_status["cooldown"] == {"rounds": 5, "next": 9, "left": 5}
    assert north_status["link"]["rcon"] == "open" and north_status["last_line"] == LAST
    assert isinstance(north_status["age"], float) and north_status["ctbans"][0]["online"] is True
    both = rows(jc("status", "--state-db", str(db), "--json"))
    assert [s["server"] for s in both] == ["north", "south"] and both[0]["cooldown"]["rounds"] == 3


def test_status_of_a_state_that_cannot_be_read_is_one_line(db):
    store = Store(db)
    store.save_state("broken", {"version": 2, "players": "nonsense"}, NOW)
    store.close()
    result = jc("status", "--state-db", str(db))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "broken  its saved state cannot be read" in result.stdout and "north  rcon open" in result.stdout
    west = jc("status", "--state-db", str(db), "--server", "west")
    assert west.returncode == 1 and west.stdout.startswith("west  no saved state in") and "it has broken, north, south" in west.stdout


def test_status_without_a_database(tmp_path):
    failed(jc("status", "--state-db", str(tmp_path / "none.sqlite3")), "no state database at")
    config = tmp_path / "c.toml"
    config.write_text(f'[server]\nname = "x"\n[state]\npath = "{tmp_path / "absent.sqlite3"}"\n', encoding="utf-8")
    failed(jc("status", "--config", str(config)), "absent.sqlite3", "has the daemon run")

