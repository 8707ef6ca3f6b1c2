"""The SourceMod shim and the daemon cannot drift apart: every trigger the daemon parses
is emitted by the plugin, every command the daemon sends is registered by it, and the
Python stand-in registers the same commands with the same usage errors. (That the stand-in
also behaves like the plugin, command by command, is tests/test_shim_vm.py's business.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jailcore.engine.actions import Action, Target, render
from jailcore.engine.vocabulary import KINDS
from jailcore.log.parse import EXTENSION_TRIGGERS, SHIM_TRIGGERS
from jailcore.sim.simserver import SimServer
from jailcore.sim.standin import GENERIC

ROOT = Path(__file__).resolve().parents[1]
SCRIPTING = ROOT / "sourcemod_bridge" / "scripting"
PROTOCOL = ROOT.parent / "shared" / "protocol.md"
ENGINE_COMMANDS = {"kickid", "sm_ban"}  # the engine's and SourceMod's own
# This round's protocol extensions (notes/shim-protocol-ext.md) that the plugin's own change
# registers; the strict xfail below turns red once it does, so this set is emptied then.


def plugin_source() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(SCRIPTING.rglob("*.sp")))


def registered() -> set[str]:
    return set(re.findall(r'RegServerCmd\("([a-z_]+)"', plugin_source()))


def console_commands() -> dict[str, int]:
    """The players' and admins' commands, with the admin flags they need (0: everyone)."""
    src = plugin_source()
    found = {name: 0 for name in re.findall(r'RegConsoleCmd\("([a-z_]+)"', src)}
    found.update({name: GENERIC for name, flag in re.findall(r'RegAdminCmd\("([a-z_]+)", \w+, (ADMFLAG_GENERIC)', src)})
    return found


def emitted() -> set[str]:
    src = plugin_source()
    return set(re.findall(r'(?:Emit_(?:Line|Text)|Admin_Word)\(\w+, "(jb_[a-z_]+)"', src)) | set(re.findall(r'triggered \\"(jb_[a-z_]+)\\"', src))


def sent_commands() -> set[str]:
    target = Target(7, "STEAM_1:0:7", "x")
    names = set()
    for kind in KINDS:
        for absent in (False, True):  # and for a player who has left (a ban by steamid)
            # Every field any kind has: each kind takes its own (`Action.from_json`).
            action = Action.from_json({"time": "2026-11-30T20:00:00", "round": 1, "action": kind, "target": target.to_json(), "rule": "r",
                                       "ref": "1", "reason": "text", "team": "T", "minutes": 5, "rounds": 2, "amount": 100, "index": 3,
                                       "by": "admin", "step": "pardon", "absent": absent})
            command = render(action)
            if command:
                names.add(command.split()[0])
    return names


def test_every_parsed_trigger_is_emitted_by_the_plugin():
    assert set(SHIM_TRIGGERS) <= emitted()


def test_every_command_the_daemon_sends_is_registered():
    assert sent_commands() - ENGINE_COMMANDS <= registered()
    assert "jb_status" in registered()
    assert {"jb_kick", "jb_ban"} <= sent_commands() and not sent_commands() & ENGINE_COMMANDS  # kick and ban carry ids too


def test_a_ban_for_one_who_left_goes_through_the_shim_not_sourcemods_sm_addban():
    """sm_addban is basebans' (or SourceBans++'s) admin command: it would read the ` @id`
    token as part of the reason and does not answer the shim's `ok`. jb_addban does both."""
    assert "jb_addban" in sent_commands() and "jb_addban" in registered() and "sm_addban" not in sent_commands()


def test_the_daemon_sends_adminfeed_and_the_door_through_commands_the_plugin_has():
    assert {"jb_adminfeed", "jb_ctban_set", "jb_ctban_clear", "jb_unban", "jb_fk_offer", "jb_kick", "jb_ban"} <= registered()


@pytest.mark.parametrize("kind", ["stand-in", "plugin"])
def test_both_shims_register_every_plugin_command(kind):
    if kind == "plugin":
        pytest.importorskip("smx")
    shim = SimServer(shim=kind).shim
    assert set(shim.server_commands) == registered()
    assert {name: c.flags for name, c in shim.console_commands.items()} == console_commands()
    assert set(shim.listeners) == set(re.findall(r'AddCommandListener\(\w+, "([a-z_]+)"\)', plugin_source()))


@pytest.mark.parametrize("kind", ["stand-in", "plugin"])
def test_usage_errors_match_the_plugin(kind):
    if kind == "plugin":
        pytest.importorskip("smx")
    usages = dict(re.findall(r'Commands_Accept\(args, \d+, "((jb_[a-z_]+)[^"\\]*(?:\\.[^"\\]*)*)"\)', plugin_source()))
    usages = {name: text.replace('\\"', '"') for text, name in usages.items()}
    assert set(usages) == registered() - {"jb_status"}
    sim = SimServer(shim=kind)
    for name, usage in usages.items():
        assert sim.execute(name) == f"error: usage: {usage}"
        assert sim.execute(f"{name} @77") == f"error: usage: {usage}"  # the id is no argument


@pytest.mark.skipif(not PROTOCOL.is_file(), reason="shared/protocol.md is not beside this checkout")
def test_protocol_tables_match_both_sides():
    text = PROTOCOL.read_text(encoding="utf-8")
    section1 = text.split("## 2.")[0]
    section2 = text.split("## 2.")[1].split("## 3.")[0]
    triggers = set(re.findall(r'triggered "(jb_[a-z_]+)"', section1))
    commands = set(re.findall(r"^\| `(jb_[a-z_]+)", section2, re.M))
    # the daemon reads every trigger of the protocol, and beyond it only the documented extensions
    assert set(SHIM_TRIGGERS) - triggers == set(EXTENSION_TRIGGERS)
    # the shim has every command of the protocol; the others are the extensions its README names
    assert commands <= registered()
    readme = (ROOT / "sourcemod_bridge" / "README.md").read_text(encoding="utf-8")
    for name in registered() - commands:
        assert f"`{name} " in readme or f"`{name}`" in readme, name


def test_extensions_are_documented_for_admins():
    readme = (ROOT / "sourcemod_bridge" / "README.md").read_text(encoding="utf-8")
    for trigger in EXTENSION_TRIGGERS:
        assert f"`{trigger}`" in readme
    assert {"jb_pardon", "jb_ctban", "jb_unctban"} <= emitted()
    for trigger in emitted() - set(SHIM_TRIGGERS):  # lines the daemon does not read yet
        assert f'triggered "{trigger}"' in readme, trigger
