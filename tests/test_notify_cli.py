"""The command line of issue 32: `jailcore notify test` (one message to every sink, each answer
printed: the Discord and Telegram stand-ins of tests/standins.py), `jailcore appeals
list|grant|uphold` (a grant writes the pardon the running daemon applies), and `jailcore status`
saying a sink that keeps failing."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
from pathlib import Path

from jailcore.store.appeals import Appeals
from jailcore.store.notices import Notices
from jailcore.store.portable import Db
from tests.standins import Discord, Telegram, discord_seen
from tests.test_appeals import _banned

ROOT = Path(__file__).resolve().parents[1]


async def jailcore(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "jailcore", *args, cwd=ROOT, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_notify_test_sends_one_message_to_every_sink_and_prints_each_answer(tmp_path):
    discord, telegram = Discord(), Telegram()
    await discord.start()
    await telegram.start()
    try:
        cfg = tmp_path / "a.toml"
        cfg.write_text(f'[server]\nname = "a"\n[notify.telegram]\ntoken = "{telegram.token}"\nchat = "-100"\napi = "{telegram.api}"\n'
                       '[notify.discord]\nurl = "http://127.0.0.1:1/api/webhooks/1/wrong"\n', encoding="utf-8")
        code, out, err = await jailcore("notify", "test", "--config", str(cfg), env={"JAILCORE_DISCORD_WEBHOOK": discord.url})
        assert code == 0, err
        assert "discord 127.0.0.1: sent (200" in out and "telegram chat -100: sent (200" in out  # the environment's webhook won
        assert len(discord.received) == 1 and "jailcore" in discord_seen(discord.received[0]["content"]).lower()
        assert len(telegram.received) == 1 and "jailcore" in telegram.received[0]["_plain"]
        assert telegram.token not in out + err
        await discord.stop()
        code, out, _ = await jailcore("notify", "test", "--config", str(cfg), env={"JAILCORE_DISCORD_WEBHOOK": discord.url})
        assert code == 1 and "discord 127.0.0.1: failed" in out and "telegram chat -100: sent" in out
        wrong = tmp_path / "b.toml"  # the chat as TOML's number, as admins write it; a token the bot API does not know
        wrong.write_text(f'[server]\nname = "b"\n[notify.telegram]\ntoken = "999:wrong"\nchat = -100\napi = "{telegram.api}"\n', encoding="utf-8")
        code, out, err = await jailcore("notify", "test", "--config", str(wrong))
        assert code == 1 and out.strip() == 'telegram chat -100: failed (401 {"ok":false,"error_code":401,"description":"Unauthorized"})', out + err
        assert "999:wrong" not in out + err
        code, _, err = await jailcore("notify", "test", "--config", str(tmp_path / "none.toml"))
        assert code == 1 and "none.toml" in err and "Traceback" not in err
    finally:
        await discord.stop()
        await telegram.stop()


async def test_appeals_on_the_command_line_and_a_failing_sink_in_status(tmp_path):
    path = tmp_path / "s.sqlite3"
    row = _banned(path)
    db = Db(str(path))
    try:
        Appeals(db).file("jail-a", row, "ban", "STEAM_1:1:4242", "Рекламщик", "не реклама", "", "10.0.0.1", "t" * 32)
        Appeals(db).file("jail-a", row + 1, "warn", "STEAM_1:1:4242", "Рекламщик", "второе", "", "10.0.0.1", "u" * 32)
        for _ in range(3):
            Notices(db).failed("discord:abc", "discord example.com", "ConnectError: refused")
    finally:
        db.close()
    code, out, _ = await jailcore("appeals", "--state-db", str(path))
    assert code == 0 and "#1 open jail-a ban" in out and "не реклама" in out and "#2 open" in out
    code, _, err = await jailcore("appeals", "uphold", "2", "--state-db", str(path))
    assert code == 1 and "needs a reason" in err
    code, out, err = await jailcore("appeals", "grant", "1", "--reason", "ошиблись", "--by", "boss", "--state-db", str(path))
    assert code == 0, err
    assert "#1 granted" in out and "granted by boss" in out and "pardon 1 written" in out
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT action_id, by, reason FROM pardons").fetchall() == [(row, "boss", "ошиблись")]
    code, _, err = await jailcore("appeals", "grant", "1", "--state-db", str(path))
    assert code == 1 and "answered already" in err
    code, out, _ = await jailcore("appeals", "--state-db", str(path))
    assert "#1" not in out and "#2 open" in out  # the list: what waits
    code, out, _ = await jailcore("status", "--state-db", str(path))
    assert "notifications to discord example.com failing since" in out and "ConnectError: refused" in out
