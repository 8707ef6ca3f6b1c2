"""Roles per server (issue 20): a moderator of one server is a viewer of another; the page
shows him the forms he may use, and refuses the rest whatever he posts."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")

from jailcore.web.auth import hash_password
from tests.webkit import Browser, fill, web

PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("roles") / "state.sqlite3"
    fill(path, 400)
    return path


async def test_a_moderator_of_one_server_is_a_viewer_of_the_other(db):
    hashed = hash_password(PASSWORD)
    page = web(db, users={"m": hashed, "boss": hashed}, roles={"m": {"*": "viewer", "jail-a": "moderator"}})
    app = page.app()
    m = Browser(app)
    assert (await m.login("m", PASSWORD)).status == 303
    live = (await m.get("/live")).text
    forms = re.findall(r'<input type="hidden" name="server" value="([^"]+)">', live)
    assert forms and set(forms) == {"jail-a"}  # pardon forms on jail-a's entries only
    token = await m.csrf("/live")
    db_ = page.sources.sources[0].store.db
    a, b = (db_.execute("SELECT id FROM audit WHERE server = ? AND action = 'slay' ORDER BY id DESC LIMIT 1 OFFSET 1", (s,)).fetchone()[0]
            for s in ("jail-a", "jail-b"))
    refused = await m.post("/pardon", {"server": "jail-b", "id": str(b), "reason": "x"}, token)
    assert refused.status == 403 and "модератор" in refused.text
    assert (await m.post("/pardon", {"server": "jail-a", "id": str(a), "reason": "x"}, token)).status == 303
    ctban = {"do": "add", "steamid": "STEAM_1:0:5", "minutes": "30", "reason": "x"}
    assert (await m.post("/ctbans", {**ctban, "server": "jail-b"}, token)).status == 403
    assert (await m.post("/ctbans", {**ctban, "server": "jail-a"}, token)).status == 303
    rows = [tuple(r) for r in db_.execute("SELECT server, steamid FROM ctban_requests")]
    assert rows == [("jail-a", "STEAM_1:0:5")]
    assert (await m.get("/accounts")).status == 403  # accounts are an owner's
    page.sources.close()
