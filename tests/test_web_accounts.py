"""The page's accounts live in the state database (store/accounts.py), on a SQLite file and on a
real MariaDB the tests start: two page processes on one database see the same accounts, a
password changed on one ends the sessions opened with it on the other, the configs'
`[web.users]` are taken once (a removed account does not come back), and `jailcore web
adduser --config` makes the first owner."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")

from jailcore.config.config import Config, WebConfig, load
from jailcore.log.errors import AdminRequestError
from jailcore.store.location import open_store
from jailcore.web import app as web_app
from jailcore.web.app import Web
from jailcore.web.auth import hash_password
from jailcore.web.data import Sources
from tests.mariadb import PASSWORD as DB_PASSWORD
from tests.mariadb import mariadb, mariadb_server
from tests.webkit import Browser

__all__ = ["mariadb", "mariadb_server"]

PASSWORD = "correct horse battery"
HASH = hash_password(PASSWORD)


def config(tmp_path, url: str = "", users: str = "") -> Config:
    state = f'path = "{tmp_path / "state.sqlite3"}"\n' + (f'url = "{url}"\n' if url else "")
    web = f"[web]\n[web.users]\n{users}" if users else ""
    return load(f'[server]\nname = "jail-a"\nrulebook = "all"\n[rcon]\npassword = "x"\n[state]\n{state}{web}', "<test>", {})


def page(c: Config, settings: WebConfig | None = None) -> Web:
    return Web(Sources([c]), settings if settings is not None else c.web, poll=0.05, clock=lambda: datetime(2026, 11, 30, 22, 0))


async def logged_in(app, name: str, password: str = PASSWORD) -> tuple[Browser, str]:
    who = Browser(app)
    assert (await who.login(name, password)).status == 303
    return who, await who.csrf("/live")


@pytest.fixture(params=["sqlite", "mariadb"])
def where(request, tmp_path):
    if request.param == "sqlite":
        open_store(str(tmp_path / "state.sqlite3")).close()
        return ""
    return request.getfixturevalue("mariadb")


async def test_two_pages_on_one_database_share_the_accounts_and_a_changed_password_ends_sessions_on_both(tmp_path, where, monkeypatch):
    monkeypatch.setattr(web_app, "ACCOUNTS_FRESH", 0.0)  # each request reads the table (2 s in production)
    c = config(tmp_path, where, f'boss = "{HASH}"\n[web.roles]\nboss = "owner"\n')
    first, second = page(c), page(c)
    try:
        a, b = first.app(), second.app()
        boss, token = await logged_in(a, "boss")
        added = await boss.post("/accounts", {"name": "petya", "role": "moderator", "password": "petya's first password"}, token)
        assert added.status == 303
        petya, _ = await logged_in(b, "petya", "petya's first password")  # added on one page, let in by the other
        assert (await petya.get("/live")).status == 200
        assert (await petya.get("/accounts")).status == 403  # with the role given on the first
        changed = await boss.post("/accounts", {"name": "petya", "role": "moderator", "password": "petya's second password"}, token)
        assert changed.status == 303
        assert (await petya.get("/servers")).status == 303  # his session on the other page ended with his password
        assert (await Browser(b).login("petya", "petya's first password")).status == 401
        petya, _ = await logged_in(b, "petya", "petya's second password")
        assert (await boss.post("/accounts", {"name": "petya", "do": "remove", "sure": "yes"}, token)).status == 303
        assert (await petya.get("/servers")).status == 303  # and with his account
        assert (await Browser(b).login("petya", "petya's second password")).status == 401
    finally:
        first.sources.close()
        second.sources.close()


async def test_the_configs_accounts_are_taken_once_and_a_removed_one_does_not_come_back(tmp_path, where):
    c = config(tmp_path, where, f'boss = "{HASH}"\nvasya = "{HASH}"\n[web.roles]\nboss = "owner"\nvasya = {{ "*" = "viewer", "jail-a" = "moderator" }}\n')
    web = page(c)
    try:
        assert web.settings.role("vasya", "jail-a") == "moderator" and web.settings.role("vasya", "jail-b") == "viewer"
        boss, token = await logged_in(web.app(), "boss")
        assert (await boss.post("/accounts", {"name": "vasya", "do": "remove", "sure": "yes"}, token)).status == 303
    finally:
        web.sources.close()
    again = page(c)  # the page started again on the same config: the table is the source
    try:
        assert "vasya" not in again.settings.users and "boss" in again.settings.users
    finally:
        again.sources.close()
    newer = page(c, WebConfig(users={"boss": HASH, "kolya": HASH}))  # a line pasted under [web.users] since: taken
    try:
        assert set(newer.settings.users) == {"boss", "kolya"} and newer.settings.role("kolya") == "admin"
        await logged_in(newer.app(), "kolya")
    finally:
        newer.sources.close()


def test_jailcore_web_adduser_writes_the_first_owner_into_the_database(tmp_path, mariadb):
    path = tmp_path / "jail-a.toml"
    path.write_text(f'[server]\nname = "jail-a"\n[rcon]\npassword = "x"\n[state]\npath = "{tmp_path / "s.sqlite3"}"\nurl = "{mariadb}"\n',
                    encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.getcwd()}

    def jc(*args: str, given: str = "") -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "jailcore", "web", *args], input=given, capture_output=True, text=True, timeout=60, env=env)

    made = jc("adduser", "boss", "--role", "owner", "--config", str(path), "--password-stdin", given=f"{PASSWORD}\n")
    assert made.returncode == 0 and "account boss added" in made.stdout and DB_PASSWORD not in made.stdout + made.stderr
    mod = jc("adduser", "kolya", "--role", "jail-a=moderator", "--role", "viewer", "--config", str(path), "--password-stdin",
             given="kolya's password\n")
    assert mod.returncode == 0
    listed = jc("users", "--config", str(path))
    assert "boss  owner" in listed.stdout and "kolya  viewer, jail-a: moderator" in listed.stdout
    assert jc("adduser", "x", "--role", "king", "--config", str(path), "--password-stdin", given=f"{PASSWORD}\n").returncode == 2
    web = page(Config.from_toml(path, {}), WebConfig())
    try:
        assert web.settings.role("boss") == "owner" and web.settings.role("kolya", "jail-a") == "moderator"
    finally:
        web.sources.close()
    assert jc("deluser", "kolya", "--config", str(path)).returncode == 0
    assert "kolya" not in jc("users", "--config", str(path)).stdout


async def test_an_owner_removes_an_account_only_once_he_confirms_and_never_the_last_owner(tmp_path, where):
    c = config(tmp_path, where, f'boss = "{HASH}"\npetya = "{HASH}"\nkolya = "{HASH}"\n[web.roles]\nboss = "owner"\nkolya = "owner"\n')
    web = page(c)
    try:
        app = web.app()
        boss, token = await logged_in(app, "boss")
        asked = await boss.post("/accounts", {"name": "petya", "do": "remove"}, token)
        assert asked.status == 200 and "Удалить администратора petya?" in asked.text and 'name="sure" value="yes"' in asked.text
        assert "petya" in web.settings.users  # asked, not done
        petya, petya_token = await logged_in(app, "petya")
        refused = await petya.post("/accounts", {"name": "kolya", "do": "remove", "sure": "yes"}, petya_token)
        assert refused.status == 403 and "kolya" in web.settings.users  # an admin is no owner: accounts are not his
        assert (await boss.post("/accounts", {"name": "petya", "do": "remove", "sure": "yes"}, token)).status == 303
        assert "petya" not in web.settings.users
        assert (await boss.post("/accounts", {"name": "kolya", "do": "remove", "sure": "yes"}, token)).status == 303  # one owner of two
        shown = (await boss.get("/accounts")).text
        assert "последний владелец" in shown and 'class="account-remove"' not in shown  # boss: the last, and himself
        assert web.sources.accounts is not None
        store = web.sources.accounts.store
        with pytest.raises(AdminRequestError, match="last owner"):
            store.remove_account("boss", "console (root)")
        with pytest.raises(AdminRequestError, match="last owner"):
            store.put_account("boss", None, {"*": "admin"}, "console (root)")
        activity = (await boss.get("/activity")).text
        assert '<b>boss</b> удалил администратора <b class="who">petya</b>' in activity
        assert '<b>boss</b> удалил администратора <b class="who">kolya</b>' in activity
    finally:
        web.sources.close()
