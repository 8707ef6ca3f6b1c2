"""An admin's `ctban add` and `pardon` reach the running daemon at once, through its wake-up
socket, with the database poll slowed down so only the wake-up can explain it."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from tests.test_live import live, only_a_wake_up, sent, settled, until

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
        await only_a_wake_up(daemon)  # the poll would take a minute
        warden, _ = await settled(sim, daemon)
        guard = warden
        await until(lambda: not daemon.session.saver.dirty and daemon.writer.idle)  # the writer wrote the server's state
        db = str(tmp_path / "state.sqlite3")
        said = await jailcore("ctban", "add", guard.steamid, "--minutes", "30", "--state-db", db, "--by", "vasya")
        assert "applies it now" in said
        await until(lambda: sent(sim, f"jb_ctban_set #{guard.userid}"), timeout=30)  # well before the minute's poll
        row = daemon.store.db.execute("SELECT id FROM audit WHERE action = 'ctban' ORDER BY id DESC").fetchone()
        said = await jailcore("pardon", str(row[0]), "--state-db", db, "--by", "vasya", "--reason", "ошибка")
        assert "applies it now" in said
        await until(lambda: sent(sim, f"jb_ctban_clear #{guard.userid}"), timeout=30)
        assert guard.steamid not in daemon.engine.state.ctbans
