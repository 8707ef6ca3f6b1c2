"""Commands that start at once: `--help`, `tail` and `status` (on a database a daemon wrote)
import none of the rules, which are most of jailcore's start-up."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from jailcore.config.config import load
from jailcore.io.daemon import Daemon
from tests.test_live import config_text

ROOT = Path(__file__).resolve().parents[1]
# What a command that reads the state database has no use for: the network's message shapes
# and the daemon's typed inputs (cattrs and attrs classes by the dozen: 60-80 ms of start-up).
HEAVY = {"jailcore.log.inbound", "jailcore.log.shapes", "jailcore.session.inputs", "jailcore.session.effects", "jailcore.log.events"}


def imports(*args: str) -> tuple[set[str], str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "jailcore", *args], capture_output=True, text=True, env=env, timeout=60)
    modules = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:") and "|" in line}
    return modules, done.stdout


def test_help_tail_and_status_load_no_rule(tmp_path):
    db = tmp_path / "s.sqlite3"

    async def write() -> None:
        async with Daemon(load(config_text(1, db, rest="").replace('name = "t"', 'name = "north"'), "<t>", {})) as daemon:
            daemon.engine.state.round = 7
            daemon.writer.submit([daemon.session.save().row])
        daemon.store.close()  # the writer's thread wrote what was queued and stopped, the lock let go, at the block's end

    asyncio.run(write())
    for args in (["--help"], ["tail", "--state-db", str(db)], ["status", "--state-db", str(db), "--json"]):
        modules, out = imports(*args)
        assert "jailcore.cli.cli" in modules, args
        assert not any(m.startswith("jailcore.engine.rules") for m in modules), args
        assert not modules & HEAVY, (args, modules & HEAVY)
    (shown,) = [json.loads(line) for line in out.splitlines()]
    assert (shown["server"], shown["round"], shown["cooldown"]) == ("north", 7, None)  # no special day yet: nothing to count


def test_ctban_list_and_history_load_no_rule_and_say_what_the_engine_would(tmp_path):
    """Issue 28: `ctban list` (293 ms) and `history` (311 ms) built every server's engine to
    read a ban or a ladder's next step; the daemon's standing now holds both."""
    db = tmp_path / "s.sqlite3"
    text = config_text(1, db, rest='[specialday.cooldown]\nladder = ["warn", "ctban 45m", "kick"]\n').replace('name = "t"', 'name = "north"')
    seat = "STEAM_1:0:42"

    from jailcore.engine.admin import ctban_from_outside

    async def write() -> None:
        async with Daemon(load(text, "<t>", {})) as daemon:
            daemon.engine.state.time = "2026-11-30T20:00:00"
            daemon.engine.state.ladders[f"specialday.cooldown|{seat}"] = 1
            daemon.engine.admin(ctban_from_outside, seat, "Начальник", 30, None, "грубил", "vasya")
            daemon.save()
            daemon.store.commit()
        daemon.store.close()

    asyncio.run(write())
    modules, listed = imports("ctban", "list", "--state-db", str(db), "--json")
    assert not any(m.startswith(("jailcore.engine.rules", "jailcore.config")) for m in modules), sorted(m for m in modules if "engine" in m)
    assert not modules & HEAVY, modules & HEAVY
    (ban,) = [json.loads(line) for line in listed.splitlines()]
    assert (ban["server"], ban["steamid"], ban["by"], ban["origin"], ban["online"]) == ("north", seat, "vasya", "", False)
    assert "грубил" in ban["reason"] and ban["until"] and not ban["pending"]
    modules, told = imports("history", seat, "--state-db", str(db), "--json")
    assert not any(m.startswith(("jailcore.engine.rules", "jailcore.config")) for m in modules)
    assert not modules & HEAVY, modules & HEAVY
    stands = json.loads(told)["standing"]
    # the next step under the server's own ladder (the default's second step is not "ctban 45m")
    assert {"server": "north", "rule": "specialday.cooldown", "offences": 1, "next": "ctban 45m"} in stands
