"""Commands that start at once: `--help`, `tail` and `status` (on a database a daemon wrote)
import none of the rules, which are most of jailcore's start-up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from jailcore.config.config import load
from jailcore.io.daemon import Daemon
from tests.test_live import config_text

ROOT = Path(__file__).resolve().parents[1]


def imports(*args: str) -> tuple[set[str], str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "jailcore", *args], capture_output=True, text=True, env=env, timeout=60)
    modules = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:") and "|" in line}
    return modules, done.stdout


def test_help_tail_and_status_load_no_rule(tmp_path):
    db = tmp_path / "s.sqlite3"
    daemon = Daemon(load(config_text(1, db, rest="").replace('name = "t"', 'name = "north"'), "<t>", {}))
    daemon.engine.state.round = 7
    daemon.writer.submit([daemon.session.save().row])
    daemon.writer.close()  # the writer's thread writes what is queued, then stops
    daemon.store.close()
    daemon.lock.release()
    for args in (["--help"], ["tail", "--state-db", str(db)], ["status", "--state-db", str(db), "--json"]):
        modules, out = imports(*args)
        assert "jailcore.cli.cli" in modules, args
        assert not any(m.startswith("jailcore.engine.rules") for m in modules), args
    (shown,) = [json.loads(line) for line in out.splitlines()]
    assert (shown["server"], shown["round"], shown["cooldown"]) == ("north", 7, None)  # no special day yet: nothing to count
