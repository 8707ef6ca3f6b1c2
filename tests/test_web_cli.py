"""The newcomer's path to the web page (issue 20): `jailcore demo --web` as the README gives
it ends with the page open and its login the last thing on the screen, the login works,
and SIGTERM stops it all; `jailcore web adduser` without a terminal says what to do in
one line."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")

from urllib.parse import urlencode

from tests.webkit import http, login_over_http

ROOT = Path(__file__).resolve().parents[1]


async def test_the_demo_with_the_page_shows_its_login_last_and_stops_on_sigterm():
    env = {**os.environ, "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}
    demo = await asyncio.create_subprocess_exec(sys.executable, "-m", "jailcore", "demo", "--web", "--rounds", "3", cwd=ROOT, env=env,
                                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        lines: list[str] = []
        while not any("password" in line for line in lines):
            line = await asyncio.wait_for(demo.stdout.readline(), 30)
            assert line, (lines, await demo.stderr.read())
            lines.append(line.decode().rstrip())
        assert any(line.startswith("* done:") for line in lines[:-1])  # the demo's output first...
        try:
            more = await asyncio.wait_for(demo.stdout.readline(), 1.0)
        except TimeoutError:
            more = b""
        assert more == b""  # ...and the login last: nothing scrolls it away
        m = re.search(r"http://127\.0\.0\.1:(\d+)/\s+log in as admin, password (\S+)", lines[-1])
        assert m, lines[-1]
        port = int(m.group(1))
        status, jar = await login_over_http(port, "admin", m.group(2))
        assert status == 303  # the password printed is the page's
        await the_demos_config_can_be_edited(port, "; ".join(f"{k}={v}" for k, v in jar.items()))
        demo.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(demo.wait(), 60)
        assert code == 0  # was: ignored (never stopped)
    finally:
        if demo.returncode is None:
            demo.kill()
            await demo.wait()


async def the_demos_config_can_be_edited(port: int, cookie: str) -> None:
    """The demo's config page is usable: its own config is a file (in the demo's temp folder), an
    edit is previewed as a diff and saved, and the daemon takes it."""
    page = await http(port, "GET", "/config?server=demo", {"cookie": cookie})
    assert page.status == 200 and 'action="/config/preview"' in page.text and "jailcore web --config" not in page.text  # not view-only
    token = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    form = {"csrf": token, "server": "demo", "rule": "orders", "body": 'ref = "3.9"'}
    headers = {"cookie": cookie, "content-type": "application/x-www-form-urlencoded"}
    preview = await http(port, "POST", "/config/preview", headers, urlencode(form).encode())
    assert preview.status == 200 and "3.9" in preview.text
    base = preview.text.split('name="base" value="', 1)[1].split('"', 1)[0]
    saved = await http(port, "POST", "/config/save", headers, urlencode({**form, "base": base}).encode())
    assert saved.status == 303 and "saved=" in (saved.header("location") or "")
    after = await http(port, "GET", "/config?server=demo", {"cookie": cookie})
    assert "3.9" in after.text


def test_adduser_without_a_terminal_says_so_in_one_line():
    run = subprocess.run([sys.executable, "-m", "jailcore", "web", "adduser", "vasya"], stdin=subprocess.DEVNULL, capture_output=True,
                         text=True, cwd=ROOT, timeout=30)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "--password-stdin" in run.stderr
    given = subprocess.run([sys.executable, "-m", "jailcore", "web", "adduser", "vasya", "--password-stdin"], input="long enough password\n",
                           capture_output=True, text=True, cwd=ROOT, timeout=30)
    assert given.returncode == 0 and re.fullmatch(r'vasya = "scrypt\$16384\$8\$1\$\S+"\n', given.stdout)
