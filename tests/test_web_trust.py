"""The web page's roles hold across servers and files (issue 25): each test drives the real
application from outside (ASGI, as uvicorn calls it) over real config files and a real
SQLite database, and each attack worked before."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import sqlite3
import stat
from datetime import datetime

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")

from jailcore.config.config import Config
from jailcore.sim.simserver import SimServer
from jailcore.web.app import Web
from jailcore.web.auth import hash_password
from jailcore.web.data import Sources
from tests.webkit import Browser, fill

PASSWORD = "correct horse battery"
HASH = hash_password(PASSWORD)


def write_configs(tmp_path, db, roles: str, secret_b: str = "222") -> list[Config]:
    """jail-a holds the page's accounts; both servers log to one port, each with its own secret."""
    a = tmp_path / "jail-a.toml"
    a.write_text(f'[server]\nname = "jail-a"\nrulebook = "all"\n[rcon]\npassword = "rcon-secret-a"\n'
                 f'[log]\nlisten = "0.0.0.0:27500"\nsecret = "111"\nallow = ["10.0.0.0/24"]\n[state]\npath = "{db}"\n'
                 f'[orders]\nref = "1.1"\n'
                 f'[web]\n[web.users]\nboss = "{HASH}"\nadm = "{HASH}"\nmod = "{HASH}"\n[web.roles]\n{roles}', encoding="utf-8")
    b = tmp_path / "jail-b.toml"
    b.write_text(f'[server]\nname = "jail-b"\nrulebook = "all"\n[rcon]\npassword = "rcon-secret-b"\n'
                 f'[log]\nlisten = "0.0.0.0:27500"\nsecret = "{secret_b}"\nallow = ["10.0.0.0/24"]\n[state]\npath = "{db}"\n', encoding="utf-8")
    for f in (a, b):
        os.chmod(f, 0o600)
    return [Config.from_toml(a, {}), Config.from_toml(b, {})]


ROLES = 'boss = "owner"\nadm = "admin"\nmod = { "*" = "viewer", "jail-a" = "moderator" }\n'


@pytest.fixture
def site(tmp_path):
    db = tmp_path / "state.sqlite3"
    fill(db, 200)
    configs = write_configs(tmp_path, db, ROLES)
    web = Web(Sources(configs), configs[0].web, poll=0.05, clock=lambda: datetime(2026, 11, 30, 22, 0))
    yield tmp_path, db, web
    web.sources.close()


async def logged_in(app, name: str) -> tuple[Browser, str]:
    who = Browser(app)
    assert (await who.login(name, PASSWORD)).status == 303
    return who, await who.csrf("/live")


def propose(db, server: str, step: str = "slay") -> int:
    con = sqlite3.connect(db)
    cur = con.execute("INSERT INTO audit (server, time, round, day, action, rule, ref, userid, steamid, name, reason, detail, command, status, reply) "
                      "VALUES (?, '2026-11-30T21:59:00', 9, 1, 'propose', 'killing.freekill', '2.1', 7, 'STEAM_1:0:77', 'Вася', 'r', ?, '', 'proposed', '')",
                      (server, json.dumps({"action": "propose", "step": step, "index": 1})))
    con.commit()
    con.close()
    return int(cur.lastrowid)


async def test_a_moderator_of_one_server_cannot_answer_another_servers_proposal_by_posting_his_own(site):
    _, db, web = site
    app = web.app()
    mod, token = await logged_in(app, "mod")
    theirs, ours = propose(db, "jail-b"), propose(db, "jail-a")
    forged = await mod.post("/answer", {"server": "jail-a", "id": str(theirs), "answer": "confirm"}, token)
    assert forged.status in (403, 404)
    honest = await mod.post("/answer", {"server": "jail-b", "id": str(theirs), "answer": "confirm"}, token)
    assert honest.status == 403  # a viewer on jail-b
    assert (await mod.post("/answer", {"server": "jail-a", "id": str(ours), "answer": "confirm"}, token)).status == 303
    con = sqlite3.connect(db)
    assert [tuple(r) for r in con.execute("SELECT server, action_id FROM answers")] == [("jail-a", ours)]
    con.close()


async def test_the_rule_editor_edits_rule_tables_only(site):
    tmp_path, _, web = site
    app = web.app()
    adm, token = await logged_in(app, "adm")
    path = tmp_path / "jail-a.toml"
    before = path.read_text(encoding="utf-8")
    for rule, body in (("web.roles", 'adm = "owner"'), ("web.users", f'eve = "{HASH}"'), ("rcon", 'password = "mine"'),
                       ("log", 'secret = "999"'), ("network", 'key = "0123456789abcdef0123"'), ("server", 'mode = "observe"')):
        for route in ("/config/preview", "/config/save"):
            answer = await adm.post(route, {"server": "jail-a", "rule": rule, "body": body}, token)
            assert answer.status in (400, 409) and "rule tables only" in answer.text, (rule, route, answer.status)
    assert path.read_text(encoding="utf-8") == before
    assert web.settings.role("adm", "*") == "admin"
    # a rule table still is his
    preview = await adm.post("/config/preview", {"server": "jail-a", "rule": "orders", "body": 'ref = "1.2"'}, token)
    assert preview.status == 200 and "1.2" in preview.text


async def test_an_admins_first_edit_of_a_rule_whose_parent_table_the_file_lacks_is_his(site):
    """jail-a's file has no [specialday.*] table: the admin's first edit adds `[specialday.cooldown]`,
    which makes a `specialday` table appear in the parsed file; that table is the rule's, not an owner's."""
    tmp_path, _, web = site
    app = web.app()
    adm, token = await logged_in(app, "adm")
    path = tmp_path / "jail-a.toml"
    assert "specialday" not in path.read_text(encoding="utf-8")
    fields = {"server": "jail-a", "rule": "specialday.cooldown", "body": 'ref = "6.5"\nrounds = 4'}
    preview = await adm.post("/config/preview", fields, token)
    assert preview.status == 200 and "only an owner" not in preview.text, preview.text[:400]
    base = preview.text.split('name="base" value="', 1)[1].split('"', 1)[0]
    assert (await adm.post("/config/save", {**fields, "base": base}, token)).status == 303
    assert Config.from_toml(path, {}).rules["specialday.cooldown"].rounds == 4


async def rollback_to_version_with(adm: Browser, token: str, web: Web, path, change) -> tuple:
    """An owner-only change kept as a version: the file written by hand, then an admin's edit keeps it."""
    text = path.read_text(encoding="utf-8")
    path.write_text(change(text), encoding="utf-8")
    web.sources.configs["jail-a"] = Config.from_toml(path, {})
    fields = {"server": "jail-a", "rule": "orders", "body": 'ref = "7.7"'}
    preview = await adm.post("/config/preview", fields, token)
    base = preview.text.split('name="base" value="', 1)[1].split('"', 1)[0]
    assert (await adm.post("/config/save", {**fields, "base": base}, token)).status == 303
    return text


async def test_a_rollback_that_would_change_accounts_or_secrets_is_an_owners(site):
    tmp_path, _, web = site
    app = web.app()
    adm, token = await logged_in(app, "adm")
    path = tmp_path / "jail-a.toml"
    # The owner made adm an owner for a minute (by hand), then took it back: the old file is a version now.
    await rollback_to_version_with(adm, token, web, path, lambda t: t.replace('adm = "admin"', 'adm = "owner"'))
    path.write_text(path.read_text(encoding="utf-8").replace('adm = "owner"', 'adm = "admin"'), encoding="utf-8")
    configs = [Config.from_toml(path, {}), web.sources.configs["jail-b"]]
    web = Web(Sources(configs), configs[0].web, poll=0.05)  # the page started again on the file as it is now
    adm, token = await logged_in(web.app(), "adm")
    versions = sorted(os.listdir(f"{path}.versions"))
    for route in ("/config/preview", "/config/save"):
        answer = await adm.post(route, {"server": "jail-a", "version": versions[-1]}, token)
        assert answer.status in (400, 409) and "only an owner" in answer.text and "web" in answer.text
    assert 'adm = "admin"' in path.read_text(encoding="utf-8")
    web.sources.close()


async def test_a_changed_password_ends_the_sessions_opened_with_it(site):
    _, _, web = site
    app = web.app()
    boss, token = await logged_in(app, "boss")
    other_boss, _ = await logged_in(app, "boss")  # the same owner on his phone
    leaked, _ = await logged_in(app, "adm")  # someone who has adm's password
    assert (await leaked.get("/live")).status == 200
    changed = await boss.post("/accounts", {"name": "adm", "role": "admin", "password": "a new long password"}, token)
    assert changed.status == 303
    assert (await leaked.get("/servers")).status == 303  # to the login: that session is over
    assert (await boss.get("/accounts")).status == 200
    own = await boss.post("/accounts", {"name": "boss", "role": "owner", "password": "another long password"}, token)
    assert own.status == 303
    assert (await boss.get("/accounts")).status == 200  # he keeps the session he changed it from
    assert (await other_boss.get("/accounts")).status == 303  # his others end


async def test_an_admin_cannot_give_a_server_the_sv_logsecret_of_another_on_its_port(site):
    """The fleet refuses two servers on one log port with one secret at start; the page did not,
    and the live reload then took the other server's lines for this one's."""
    tmp_path, _, web = site
    app = web.app()
    adm, token = await logged_in(app, "adm")
    path = tmp_path / "jail-b.toml"
    before = path.read_text(encoding="utf-8")
    # [log] is not a rule table; an owner's rollback to a version with the clash is refused the same way.
    boss_like = path.read_text(encoding="utf-8").replace('secret = "222"', 'secret = "111"')
    path.write_text(boss_like, encoding="utf-8")
    web.sources.configs["jail-b"] = Config.from_toml(path, {})  # as if the page had been started on it
    refused = await adm.post("/config/preview", {"server": "jail-b", "rule": "orders", "body": 'ref = "3"'}, token)
    assert refused.status == 400 and "shares the log port" in refused.text and "jail-a" in refused.text
    path.write_text(before, encoding="utf-8")
    web.sources.configs["jail-b"] = Config.from_toml(path, {})
    assert (await adm.post("/config/preview", {"server": "jail-b", "rule": "orders", "body": 'ref = "3"'}, token)).status == 200


async def test_three_admins_saving_one_config_at_once_one_wins_the_others_are_told(site):
    tmp_path, _, web = site
    app = web.app()
    path = tmp_path / "jail-a.toml"
    admins = [await logged_in(app, "adm") for _ in range(3)]
    forms = []
    for i, (who, token) in enumerate(admins):
        fields = {"server": "jail-a", "rule": "orders", "body": f'ref = "9.{i}"'}
        preview = await who.post("/config/preview", fields, token)
        forms.append({**fields, "base": preview.text.split('name="base" value="', 1)[1].split('"', 1)[0]})
    answers = await asyncio.gather(*(who.post("/config/save", form, token) for (who, token), form in zip(admins, forms, strict=True)))
    statuses = sorted(a.status for a in answers)
    assert statuses == [303, 409, 409], statuses
    assert all("conflicts" in a.text for a in answers if a.status == 409)
    won = next(i for i, a in enumerate(answers) if a.status == 303)
    assert f'ref = "9.{won}"' in path.read_text(encoding="utf-8")
    assert len(os.listdir(f"{path}.versions")) == 1


async def test_kept_versions_have_the_configs_own_permissions(site):
    tmp_path, _, web = site
    app = web.app()
    adm, token = await logged_in(app, "adm")
    path = tmp_path / "jail-a.toml"
    await rollback_to_version_with(adm, token, web, path, lambda t: t)
    folder = f"{path}.versions"
    (kept,) = os.listdir(folder)
    assert stat.S_IMODE(os.stat(os.path.join(folder, kept)).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(folder).st_mode) & 0o077 == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with open(os.path.join(folder, kept), encoding="utf-8") as f:
        assert "rcon-secret-a" in f.read()  # why it matters


async def test_csv_export_defuses_formulas_in_every_field_a_semicolon_could_split_off(site):
    _, db, web = site
    con = sqlite3.connect(db)
    for name in ("Вася;=HYPERLINK(\"http://x\")", "a;@SUM(1)", "=cmd", "b,+1", "\tx", "c;\r=1"):
        con.execute("INSERT INTO audit (server, time, round, day, action, rule, ref, userid, steamid, name, reason, detail, command, status, reply) "
                    "VALUES ('jail-a', '2026-11-30T21:59:30', 9, 1, 'warn', 'orders', '1', 3, 'STEAM_1:0:3', ?, 'r', '{}', '', 'delivered', 'ok')", (name,))
    con.commit()
    con.close()
    app = web.app()
    adm, _ = await logged_in(app, "adm")
    answer = await adm.get("/live.csv?action=warn")
    assert answer.status == 200
    text = answer.text
    for row in csv.reader(io.StringIO(text)):
        for field in row:
            for piece in field.replace(",", ";").replace("\t", ";").replace("\r", ";").replace("\n", ";").split(";"):
                assert piece[:1] not in ("=", "+", "-", "@"), (field, piece)
    # A spreadsheet that splits every line on ";" sees no cell that starts a formula either.
    for line in text.splitlines():
        for cell in line.split(";"):
            assert cell.lstrip('"')[:1] not in ("=", "+", "-", "@"), line


async def test_a_config_page_call_never_answers_5xx_for_hostile_bodies(site):
    _, _, web = site
    app = web.app()
    adm, token = await logged_in(app, "adm")
    for body in ("x = " + "[" * 600 + "]" * 600, "ladder = [" + "[" * 2000, '"\\ud800" = 1', "a = 1\n" * 5000):
        answer = await adm.post("/config/preview", {"server": "jail-a", "rule": "orders", "body": body}, token)
        assert answer.status < 500, (body[:40], answer.status)


# -- 600 nested TOML arrays: one line, like any bad config (the fleet, the page, a live reload) ----

DEEP = "[orders]\nref = " + "[" * 600 + "]" * 600 + "\n"


async def test_a_deeply_nested_config_is_refused_in_the_fleet_and_the_good_servers_enforce(tmp_path):
    from tests.test_fleet import fleet_of, free_udp_port, server_config
    from tests.test_live import populate, sent, special_days, until

    listen = f"127.0.0.1:{free_udp_port()}"
    sim = SimServer(password="pw", secret="1111")
    good = server_config(tmp_path / "good.toml", "good", await sim.start(), tmp_path / "s.sqlite3", listen, "1111")
    bad = server_config(tmp_path / "bad.toml", "bad", 1, tmp_path / "s.sqlite3", listen, "2222")
    with open(bad, "a", encoding="utf-8") as f:
        f.write(DEEP)
    async with fleet_of([good, bad]) as fleet:
        assert [d.server for d in fleet.daemons] == ["good"]
        (why,) = [w for p, w in fleet.refused.items() if p.endswith("bad.toml")]
        assert "nested too deep" in why and "bad.toml:" in why
        await sim.log_to_daemon(("127.0.0.1", int(listen.rsplit(":", 1)[1])))
        warden, _ = populate(sim)
        special_days(sim, warden, 2)
        sim.flush()
        await until(lambda: sent(sim, f"jb_slay #{warden.userid}"), timeout=10)
    await sim.stop()


async def test_a_deeply_nested_config_on_a_live_reload_is_refused_and_the_watcher_goes_on(tmp_path):
    from jailcore.config.config import Config
    from tests.test_live import config_text, running, until

    sim = SimServer(password="pw")
    port = await sim.start()
    path = tmp_path / "server.toml"
    text = config_text(port, tmp_path / "r.sqlite3", rest="[specialday.cooldown]\nrounds = 3\n")
    path.write_text(text, encoding="utf-8")
    async with running(Config.from_toml(path, env={}), sim, config_path=str(path), watch_interval=0.05) as daemon:
        await asyncio.sleep(0.1)
        path.write_text(text + DEEP, encoding="utf-8")
        await until(lambda: len(daemon.reloads) == 1, timeout=5)
        assert "refused" in daemon.reloads[0] and "nested too deep" in daemon.reloads[0]
        await asyncio.sleep(0.1)
        path.write_text(text.replace("rounds = 3", "rounds = 1"), encoding="utf-8")  # the watcher still watches
        await until(lambda: len(daemon.reloads) == 2, timeout=5)
        assert daemon.engine.config.rules["specialday.cooldown"].rounds == 1


async def test_the_page_preview_refuses_a_deeply_nested_table_with_one_line(site):
    _, _, web = site
    adm, token = await logged_in(web.app(), "adm")
    answer = await adm.post("/config/preview", {"server": "jail-a", "rule": "orders", "body": "ref = " + "[" * 600 + "]" * 600}, token)
    assert answer.status == 400 and "nested too deep" in answer.text
