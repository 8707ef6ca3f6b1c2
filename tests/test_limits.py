"""Hard limits, kept by capping first and refusing with a typed error after: the console's
512 bytes, the plugin's text buffers (counted in UTF-8 bytes), and a cancelled RCON reader
that must stay cancelled."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import get_args

import pytest

from jailcore.engine.actions import (
    ID_ROOM,
    MAX_COMMAND,
    MAX_DOOR_BY,
    MAX_DOOR_REASON,
    MAX_TEXT,
    Action,
    Target,
    clean_text,
    render,
    with_id,
)
from jailcore.engine.engine import Engine
from jailcore.engine.punish import door_action
from jailcore.engine.state import Seat
from jailcore.engine.vocabulary import VOCABULARY, ActionKind
from jailcore.io.rcon import RconClient
from jailcore.log.errors import JailcoreError, LimitError
from jailcore.sim.simserver import SimServer
from jailcore.store.request_kinds import CtBanRequest
from tests.audit_rows import entries
from tests.logtext import config
from tests.test_live import live, sent, settled, until

SCRIPTING = Path(__file__).resolve().parents[1] / "sourcemod_bridge" / "scripting"
LONG_REASON = ("Грубил администрации и мешал игре, " * 20)[:400]
LONG_BY = ("Администратор_сервера_" * 10)[:200]


def quoted(command: str) -> list[str]:
    return re.findall(r'"([^"]*)"', command)


def test_the_vocabulary_and_its_literal_agree():
    assert set(VOCABULARY) == set(get_args(ActionKind))


def test_a_ct_ban_with_a_long_reason_and_admin_name_fits_the_console_and_the_plugin():
    engine = Engine(config())
    engine.state.time = "2026-11-30T20:00:00"
    engine.give_ctban("STEAM_1:0:42", "Вася", 30, None, LONG_REASON, LONG_BY)
    ban = engine.state.ctbans["STEAM_1:0:42"]
    assert ban.by == LONG_BY and LONG_REASON in ban.reason  # the ban itself is kept whole...
    door = door_action(engine.ctx, Seat(7, "STEAM_1:0:42", "Вася"), ban)  # what every resync sends while he is online
    command = render(door)
    assert command is not None and command.startswith("jb_ctban_set ")
    reason, by = quoted(command)
    # ...and its door copy is cut to the plugin's `char reason[128]` and `char by[64]`
    assert len(reason.encode()) <= MAX_DOOR_REASON and reason.endswith("...") and reason.startswith("Запрет за КТ от администратора")
    assert len(by.encode()) <= MAX_DOOR_BY and by.startswith("Администратор")
    assert len(with_id(command, 10**19).encode()) <= MAX_COMMAND


def test_every_kind_of_command_fits_with_its_id_whatever_the_texts():
    huge = "Ж" * 2000
    target = Target(65535, "STEAM_1:1:" + "9" * 12, huge)
    for kind in VOCABULARY:
        action = Action.from_json({"time": "2026-11-30T20:00:00", "round": 1, "action": kind, "target": target.to_json(), "rule": "rule",
                                   "ref": "ref", "reason": huge, "team": "CT", "minutes": 10**9, "rounds": 10**9, "amount": 10**9,
                                   "index": 10**9, "by": huge, "step": "pardon"})
        command = render(action)
        if command is None:
            continue
        assert len(with_id(command, 10**20 - 1).encode()) <= MAX_COMMAND, kind
        assert all(len(text.encode()) <= MAX_TEXT for text in quoted(command)), kind


def test_a_command_past_the_limit_is_a_typed_error_not_an_assert():
    with pytest.raises(LimitError) as caught:
        with_id("jb_say \"" + "x" * 600 + "\"", 1)
    assert isinstance(caught.value, JailcoreError) and "bytes" in str(caught.value)


def test_texts_are_cut_in_utf8_bytes_at_a_letter():
    for text in ("Ж" * 300, "a" + "Ж" * 300, "🙂" * 100):
        cut = clean_text(text)
        raw = cut.encode("utf-8")
        assert len(raw) <= MAX_TEXT and cut.endswith("...") and raw.decode("utf-8") == cut
    assert clean_text("Ж" * 126) == "Ж" * 126  # 252 bytes: kept whole


def _buffers(source: str, handler: str) -> dict[str, int]:
    body = source[source.index(f"public Action {handler}(") :]
    body = body[: body.index("\n}\n")]
    decl = re.search(r"char ([^;]+);", body)
    assert decl is not None, handler
    return {name: int(size) for name, size in re.findall(r"(\w+)\[(\d+)\]", decl.group(1))}


def test_the_daemons_caps_are_the_plugins_buffers():
    """The plugin reads each quoted text into a `char[N]` (N-1 bytes and the NUL): the
    daemon cuts to the same sizes, so nothing is cut again, mid-letter, in game."""
    source = (SCRIPTING / "jailcore" / "commands.sp").read_text(encoding="utf-8")
    for handler, field in (("Srv_Warn", "text"), ("Srv_Slay", "reason"), ("Srv_Teamswap", "reason"), ("Srv_Say", "text"),
                           ("Srv_Hud", "text"), ("Srv_Kick", "reason"), ("Srv_Ban", "reason"), ("Srv_FkOffer", "text"),
                           ("Srv_AdminFeed", "text")):
        assert _buffers(source, handler)[field] - 1 == MAX_TEXT, handler
    door = _buffers(source, "Srv_CtBanSet")
    assert (door["reason"] - 1, door["by"] - 1) == (MAX_DOOR_REASON, MAX_DOOR_BY)
    assert len('jb_teamswap #65535 CT ""') + MAX_TEXT < MAX_COMMAND - ID_ROOM


async def test_a_long_admin_ct_ban_reaches_the_shim_and_every_resync_after_it(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        _, ts = await settled(sim, daemon)
        zek = ts[0]
        daemon.store.submit(CtBanRequest(daemon.server, zek.steamid, zek.name, 30, None, LONG_REASON, LONG_BY))
        await until(lambda: sent(sim, f"jb_ctban_set #{zek.userid}") and daemon.idle.is_set(), timeout=10)
        sim.hello()  # the plugin reloaded: the daemon resyncs and sends its copy of the ban again
        sim.flush()
        await until(lambda: len(sent(sim, f"jb_ctban_set #{zek.userid}")) >= 2 and daemon.idle.is_set(), timeout=10)
        commands = sent(sim, f"jb_ctban_set #{zek.userid}")
        assert all(len(c.encode()) <= MAX_COMMAND for c in commands)
        assert not daemon.task_failures and daemon.stop_reason is None
        assert sim.join(zek, "CT") is False  # the shim holds the ban
        assert "Вам запрещено играть за КТ: Запрет за КТ от администратора Администратор_сервера_" in zek.chat[-1]
        (row,) = entries(daemon.store, "action = 'ctban'")
        assert row["status"] == "delivered" and LONG_REASON in row["reason"]  # the audit keeps the whole text


async def test_a_cancelled_reply_reader_ends_cancelled():
    sim = SimServer(password="pw")
    port = await sim.start()
    client = RconClient("127.0.0.1", port, "pw")
    try:
        assert (await client.command("jb_status")).startswith("{")
        reader = client._read_task
        assert reader is not None
        reader.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reader
        assert reader.cancelled()  # not swallowed: whoever cancels it sees it end so
    finally:
        await client.close()
        await sim.stop()


def test_every_error_of_ours_has_the_one_root():
    import importlib
    import inspect
    import pkgutil

    import jailcore

    ours = []
    for info in pkgutil.walk_packages(jailcore.__path__, "jailcore."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        ours += [cls for _, cls in inspect.getmembers(module, inspect.isclass)
                 if issubclass(cls, BaseException) and cls.__module__ == info.name]
    assert len(ours) >= 17 + 9  # the seventeen of before, the root and its families, the snapshot's
    strays = [f"{cls.__module__}.{cls.__qualname__}" for cls in ours if not issubclass(cls, JailcoreError)]
    assert not strays, f"errors outside the tree: {strays}"
