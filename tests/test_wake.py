"""An admin's `ctban add` and `pardon` reach the running daemon at once, through its wake-up
socket, with the database poll slowed down so only the wake-up can explain it."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

from tests.test_live import live, sent, settled, until

ROOT = Path(__file__).resolve().parents[1]


async def jailcore(*args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "jailcore", *args, env=env,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    return out.decode()


async def test_ctban_add_and_pardon_wake_the_daemon(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        daemon.requests.interval = 60.0  # the poll would take a minute
        await asyncio.sleep(0.6)  # the poll that was already waiting is behind us
        warden, _ = await settled(sim, daemon)
        guard = warden
        await until(lambda: not daemon.session.saver.dirty and daemon.writer.idle)  # the writer wrote the server's state
        db = str(tmp_path / "state.sqlite3")
        said = await jailcore("ctban", "add", guard.steamid, "--minutes", "30", "--state-db", db, "--by", "vasya")
        written = time.monotonic()
        assert "applies it now" in said
        await until(lambda: sent(sim, f"jb_ctban_set #{guard.userid}"), timeout=2)
        assert time.monotonic() - written < 0.5
        row = daemon.store.db.execute("SELECT id FROM audit WHERE action = 'ctban' ORDER BY id DESC").fetchone()
        said = await jailcore("pardon", str(row[0]), "--state-db", db, "--by", "vasya", "--reason", "ошибка")
        assert "applies it now" in said
        await until(lambda: sent(sim, f"jb_ctban_clear #{guard.userid}"), timeout=2)
        assert guard.steamid not in daemon.engine.state.ctbans
