"""Appeals (issue 32), whole: a real `jailcore run` (its own process) bans an advertiser on the
simulated server, with SourceBans++ on a real MariaDB beside it; in a real headless Chromium the
player, without an account, finds the ban on `/appeal` by another form of his SteamID, with the
clause and the round's story, and files an appeal; the admins hear of it (the in-game feed and
Telegram's stand-in) and SourceBans++ has it as a protest; an admin grants it on `/appeals`; the
ban is lifted in the game, in the store and in SourceBans++ (the protest archived), and the
player's own link shows the answer. And the public page's edges: a vanity link said politely, a
bad SteamID refused, a form without its token refused, never a 5xx."""

from __future__ import annotations

import asyncio
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
playwright = pytest.importorskip("playwright.async_api", reason="Playwright is not installed: pip install -e '.[web]'")

from jailcore.config.config import Config  # noqa: E402
from jailcore.sim.simserver import SimServer  # noqa: E402
from jailcore.web.serve import bound_port, build, server  # noqa: E402
from tests.mariadb import mariadb_server  # noqa: E402
from tests.standins import Telegram  # noqa: E402
from tests.test_durable import heard_from, jailcore_run, server_toml  # noqa: E402
from tests.test_fleet import free_udp_port  # noqa: E402
from tests.test_live import populate, sent, until  # noqa: E402
from tests.test_sourcebans import sourcebans_db, sql  # noqa: E402
from tests.test_web import ARGS, CHROMIUM, DESKTOP, HASH, PHONE, log_in, pytestmark  # noqa: E402, F401

__all__ = ["mariadb_server"]
ROOT = Path(__file__).resolve().parents[1]
PROTESTS = ("CREATE TABLE sb_protests (pid INT NOT NULL AUTO_INCREMENT PRIMARY KEY, bid INT NOT NULL, datesubmitted INT NOT NULL, "
            "reason TEXT NOT NULL, email VARCHAR(128) NOT NULL, archiv TINYINT DEFAULT 0, archivedby INT NULL, pip VARCHAR(64) NOT NULL, KEY bid (bid))")


def sb_rows(url: str, table: str) -> list[dict]:
    db = sql(url)
    try:
        with db.cursor() as cur:
            cur.execute(f"SELECT * FROM {table}")
            return list(cur.fetchall())
    finally:
        db.close()


async def test_a_player_appeals_a_ban_in_chromium_an_admin_grants_it_and_it_is_lifted_everywhere(tmp_path, mariadb_server):
    sb = sourcebans_db(mariadb_server)
    db = sql(sb)
    with db.cursor() as cur:
        cur.execute(PROTESTS)
    db.close()
    telegram = Telegram()
    await telegram.start()
    sim = SimServer(password="pw")
    listen = f"127.0.0.1:{free_udp_port()}"
    rules = (f'[conduct.advertising]\nconfirm = "none"\nladder = ["ban 0"]\n[conduct.names]\nenabled = false\n'
             f'[sourcebans]\nurl = "{sb}"\nprefix = "sb"\nserver_id = 3\nadmin_id = 7\n'
             f'[notify.telegram]\ntoken = "{telegram.token}"\nchat = "-100"\napi = "{telegram.api}"\nevents = ["appeal"]\n'
             f'[web]\npublic_url = "https://jail.example.ru"\n[web.users]\nadmin = "{HASH}"\n')
    state = tmp_path / "a.sqlite3"
    cfg = server_toml(tmp_path / "a.toml", "a", await sim.start(), state, listen, rules)
    try:
        async with jailcore_run(tmp_path, cfg) as proc:
            await heard_from(sim, 0)
            host, port = listen.rsplit(":", 1)
            await sim.log_to_daemon((host, int(port)))
            populate(sim)
            spammer = sim.add_player("Рекламщик", "T", steamid="STEAM_1:1:4242")
            sim.say(spammer, "заходите на www.cheap-skins.ru")
            sim.flush()
            await until(lambda: sent(sim, f"jb_ban #{spammer.userid} 0"), timeout=15)
            await until(lambda: sb_rows(sb, "sb_bans"), timeout=15)  # the bridge wrote it to SourceBans++
            (sb_ban,) = sb_rows(sb, "sb_bans")

            web_page = build([Config.from_toml(cfg)])
            srv = server(web_page, "127.0.0.1:0")
            task = asyncio.create_task(srv.serve())
            await until(lambda: srv.started)
            base = f"http://127.0.0.1:{bound_port(srv)}"
            try:
                async with playwright.async_playwright() as p:
                    browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                    try:
                        player = await browser.new_context(viewport=PHONE, locale="ru-RU")
                        page = await player.new_page()
                        await page.goto(f"{base}/appeal")
                        await page.fill("input[name=steamid]", "steamcommunity.com/id/reklamshik")
                        await page.click("form.appeal-ask button")
                        assert "без Steam" in await page.locator("#appeal-problem").inner_text()  # a vanity link: said politely
                        await page.fill("input[name=steamid]", "[U:1:8485]")  # his account as [U:1:N]; the log wrote STEAM_1:1:4242
                        await page.click("form.appeal-ask button")
                        item = page.locator("ol.appeal-items li.entry")
                        assert await item.count() == 1
                        text = await item.inner_text()
                        assert "Общие 19" in text and "заходите на www.cheap-skins.ru" in text  # the clause and his chat in the round
                        assert not re.search(r"STEAM_\d:\d:\d", await page.content())  # no one's SteamID on the public page
                        await item.locator("textarea[name=text]").fill("Это была ссылка на мой профиль, не реклама")
                        await item.locator("input[name=contact]").fill("reklamshik@example.ru")
                        await item.locator("button[value=file]").click()
                        await page.wait_for_url(f"{base}/appeal/**")
                        link = page.url
                        assert "ждёт ответа" in await page.locator("#appeal-state").inner_text()

                        await until(lambda: sent(sim, 'jb_adminfeed "[jailcore] обжалование #1'), timeout=15)  # the admins online
                        await telegram.until(lambda: any("Обжалование #1" in r["_plain"] for r in telegram.received))
                        (note,) = [r for r in telegram.received if "Обжалование #1" in r["_plain"]]
                        assert "Это была ссылка на мой профиль" in note["_plain"] and "https://jail.example.ru/appeals" in note["_plain"]
                        await until(lambda: sb_rows(sb, "sb_protests"), timeout=15)
                        (protest,) = sb_rows(sb, "sb_protests")
                        assert (protest["bid"], protest["archiv"], protest["email"], protest["pip"]) == (sb_ban["bid"], 0, "reklamshik@example.ru",
                                                                                                       "127.0.0.1")
                        assert "Это была ссылка" in protest["reason"]

                        admin, admin_page = await log_in(browser, base, DESKTOP)
                        await admin_page.goto(f"{base}/proposals")
                        assert "Обжалований ждёт ответа: 1" in await admin_page.inner_text("main")  # beside the proposals
                        await admin_page.goto(f"{base}/appeals")
                        entry = admin_page.locator("ol.appeals li.entry")
                        assert await entry.count() == 1
                        shown = await entry.inner_text()
                        assert "Это была ссылка" in shown and "Общие 19" in shown and "reklamshik@example.ru" in shown
                        await entry.locator("input[name=reason]").fill("Проверили: ссылка на профиль Steam")
                        await entry.locator("button[value=grant]").click()
                        await admin_page.wait_for_url(f"{base}/appeals")
                        assert await admin_page.locator("#appeals-empty").count() == 1

                        await until(lambda: sent(sim, 'jb_unban "STEAM_1:1:4242"'), timeout=15)  # lifted in the game
                        await until(lambda: sb_rows(sb, "sb_bans")[0]["RemoveType"] == "U", timeout=15)  # and in SourceBans++
                        await until(lambda: sb_rows(sb, "sb_protests")[0]["archiv"] == 4, timeout=15)  # its protest archived
                        with sqlite3.connect(state) as con:
                            pardon = con.execute("SELECT by, reason, applied_at FROM pardons").fetchone()
                            assert pardon[0] == "admin" and "Проверили" in pardon[1] and pardon[2]  # and in the store, applied

                        await page.goto(link)  # the player's own link
                        assert "удовлетворено" in await page.locator("#appeal-state").inner_text()
                        assert "Проверили: ссылка на профиль Steam" in await page.locator("#appeal-answer").inner_text()
                        await page.goto(f"{base}/appeal?steamid=%5BU%3A1%3A8485%5D")
                        assert await page.locator("#appeal-nothing").count() == 1  # nothing stands against him now

                        await admin_page.goto(f"{base}/activity")
                        assert "удовлетворил обжалование" in await admin_page.inner_text("main")  # who answered, and when
                        await admin.close()
                        await player.close()
                    finally:
                        await browser.close()
            finally:
                web_page.stopping = srv.should_exit = True
                await task
                web_page.sources.close()
            listed = subprocess.run([sys.executable, "-m", "jailcore", "appeals", "list", "--all", "--config", str(cfg)], cwd=ROOT,
                                    capture_output=True, text=True, timeout=60)
            assert listed.returncode == 0 and "#1 granted a ban" in listed.stdout and "granted by admin" in listed.stdout
            proc.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(proc.wait(), 30) == 0
    finally:
        await sim.stop()
        await telegram.stop()


# -- the public page's edges, over the ASGI application (no browser, no daemon) ----------------------


def _bans(path: Path, players: list[tuple[int, str, str]], lines: tuple[str, ...] = ()) -> list[int]:
    """A state file with a server ban in force of each player (userid, steamid, name) on jail-a
    in round 7, and these lines of that round (kept with the first ban)."""
    from jailcore.engine.actions import Ban, Target
    from jailcore.store.sqlite import Store

    store = Store(path)
    rows = [store.record("jail-a", Ban(time="2026-11-30T21:00:05", round=7, rule="conduct.advertising", ref="Общие 19",
                                          reason="реклама", target=Target(userid=userid, steamid=steamid, name=name), minutes=0),
                         2, f"jb_ban #{userid} 0", "delivered") for userid, steamid, name in players]
    for line in lines:
        store.db.execute("INSERT INTO loglines (server, round, time, line, audit) VALUES ('jail-a', 7, '2026-11-30T21:00:05', ?, ?)",
                         (line, rows[0]))
    store.commit()
    store.save_standing("jail-a", '{"round": 7, "day": 2}', "2026-11-30T21:00:05")  # what `status` reads of a server without its config
    store.save_state("jail-a", {}, "2026-11-30T21:00:05")
    store.close()
    return rows


def _banned(path: Path) -> int:
    """A state file with one server ban in force, of STEAM_1:1:4242, and its round's lines."""
    return _bans(path, [(6, "STEAM_1:1:4242", "Рекламщик")],
                 ('L 11/30/2026 - 21:00:05: "Рекламщик<6><STEAM_1:1:4242><TERRORIST>" say "заходите на www.cheap-skins.ru"',))[0]


async def test_the_public_page_refuses_what_it_must_and_answers_every_request_below_500(tmp_path):
    from tests.webkit import Browser, web

    path = tmp_path / "s.sqlite3"
    row = _banned(path)
    page = web(path, users={"admin": HASH}, roles={"admin": "moderator"})
    app = page.app()
    player = Browser(app)
    assert (await player.get("/appeal")).status == 200 and player.session  # a visitor's session: the form's token
    bad = await player.get("/appeal?steamid=%3Cscript%3E")
    assert bad.status == 400 and "Это не SteamID" in bad.text and "<script>" not in bad.text
    vanity = await player.get("/appeal?steamid=https%3A%2F%2Fsteamcommunity.com%2Fid%2Fnick")
    assert vanity.status == 400 and "без Steam" in vanity.text
    found = await player.get("/appeal?steamid=76561197960274213")  # his SteamID64
    assert found.status == 200 and "Общие 19" in found.text and "заходите на www.cheap-skins.ru" in found.text
    assert (await player.post("/appeal", {"steamid": "STEAM_1:1:4242", "server": "jail-a", "id": str(row), "text": "x"}, token="")).status == 403
    other = await player.post("/appeal", {"steamid": "STEAM_1:0:1", "server": "jail-a", "id": str(row), "text": "не я"})
    assert other.status == 409 and "не ваше" in other.text  # a punishment that is not his
    empty = await player.post("/appeal", {"steamid": "STEAM_1:1:4242", "server": "jail-a", "id": str(row), "text": "  "})
    assert empty.status == 400
    huge = await player.post("/appeal", {"steamid": "STEAM_1:1:4242", "server": "jail-a", "id": str(row), "text": "я " * 5000})
    assert huge.status == 413  # a form past 16 KB is refused as it arrives
    filed = await player.post("/appeal", {"steamid": "STEAM_1:1:4242", "server": "jail-a", "id": str(row), "text": "ы" * 2200,
                                          "contact": "tg @me"})
    assert filed.status == 303 and filed.header("location").startswith("/appeal/")
    link = filed.header("location")
    again = await player.post("/appeal", {"steamid": "STEAM_1:1:4242", "server": "jail-a", "id": str(row), "text": "ещё"})
    assert again.status == 409 and "appealed already" in again.text  # one appeal per punishment
    assert "Уже обжаловано" in (await player.get("/appeal?steamid=STEAM_0:1:4242")).text
    assert (await player.get("/appeal/not-a-real-token-at-all")).status == 404
    mine = await player.get(link)
    assert mine.status == 200 and "ждёт ответа" in mine.text and "ы" * 2000 in mine.text and "ы" * 2001 not in mine.text  # cut

    admin = Browser(app, client=("127.0.0.1", 50001))
    assert (await admin.login("admin", "correct horse battery")).status == 303
    listing = await admin.get("/appeals")
    assert listing.status == 200 and "tg @me" in listing.text
    assert 'value="grant"' not in listing.text  # granting an appeal of a server ban is an admin's, not a moderator's
    nothing = await admin.post("/appeals/answer", {"src": "0", "id": "1", "do": "uphold", "reason": ""})
    assert nothing.status == 409 and "needs a reason" in nothing.text
    assert (await admin.post("/appeals/answer", {"src": "0", "id": "1", "do": "grant", "reason": "ok"})).status == 403
    assert (await admin.post("/appeals/answer", {"src": "0", "id": "1", "do": "uphold", "reason": "реклама была"})).status == 303
    answered = await player.get(link)
    assert "отклонено" in answered.text and "реклама была" in answered.text
    assert (await admin.post("/appeals/answer", {"src": "0", "id": "1", "do": "uphold", "reason": "ещё"})).status == 409

    flood = Browser(app, client=("10.0.0.9", 40000))
    codes = [(await flood.get("/appeal?steamid=STEAM_1:1:4242")).status for _ in range(31)]
    assert codes[:30] == [200] * 30 and codes[30] == 429  # lookups limited per address
    assert (await player.get("/appeal?steamid=STEAM_1:1:4242")).status == 200  # another address is not
    page.sources.close()
    page.appeal_desk.close()


PASTED = ["STEAM_0:1:4242", "steam_1:1:4242", "STEAM_1:1: 4242", "[U:1:8485]", "[u:1:8485]", "U:1:8485", "76561197960274213",
          "https://steamcommunity.com/profiles/76561197960274213", "https://www.steamcommunity.com/profiles/76561197960274213/",
          "https://steamcommunity.com/profiles/76561197960274213/?l=russian", "HTTPS://STEAMCOMMUNITY.COM/profiles/76561197960274213/home",
          "m.steamcommunity.com/profiles/76561197960274213#top", "  steamcommunity.com/profiles/76561197960274213  "]


async def test_every_form_of_his_steamid_a_player_pastes_finds_his_ban_and_no_account_out_of_range_does(tmp_path):
    from jailcore.web.steamids import account
    from tests.webkit import Browser, web

    path = tmp_path / "s.sqlite3"
    _banned(path)
    page = web(path)
    player = Browser(page.app())
    for pasted in PASTED:
        assert account(pasted) == 8485, pasted
        found = await player.get("/appeal?" + urlencode({"steamid": pasted}))
        assert found.status == 200 and "Общие 19" in found.text, pasted
    for junk in ("STEAM_0:0:0", "[U:1:0]", "[U:1:4294967296]", "STEAM_0:1:9999999999", "76561197960265728", "76561202255233024",
                 "steamcommunity.com/profiles/123", "STEAM_2:1:4242", "x" * 10_000):
        assert account(junk) is None, junk
        assert (await player.get("/appeal?" + urlencode({"steamid": junk}))).status == 400
    vanity = await player.get("/appeal?" + urlencode({"steamid": "https://steamcommunity.com/id/nick/?l=russian"}))
    assert vanity.status == 400 and "без Steam" in vanity.text
    page.sources.close()
    page.appeal_desk.close()


async def test_filings_sent_at_once_from_one_address_are_still_five_an_hour_and_a_post_is_a_look(tmp_path):
    from tests.webkit import Browser, web

    path = tmp_path / "s.sqlite3"
    rows = _bans(path, [(6 + i, f"STEAM_1:1:{5000 + i}", f"Игрок {i}") for i in range(12)])
    page = web(path)
    app = page.app()
    flood = Browser(app, client=("203.0.113.7", 40000))
    token = await flood.csrf()
    answers = await asyncio.gather(*[flood.post("/appeal", {"steamid": f"STEAM_1:1:{5000 + i}", "server": "jail-a", "id": str(row), "text": "не я"},
                                                token=token) for i, row in enumerate(rows)])
    assert sorted(a.status for a in answers) == [303] * 5 + [429] * 7  # five an hour, however many arrive together
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT COUNT(*) FROM appeals").fetchone()[0] == 5

    prober = Browser(app, client=("203.0.113.8", 40000))  # posts that file nothing still read what stands: counted as looks
    token = await prober.csrf()
    codes = [(await prober.post("/appeal", {"steamid": f"STEAM_1:1:{5000 + i % 12}", "server": "jail-a", "id": "1", "text": "x"}, token=token)).status
             for i in range(31)]
    assert codes[:30] == [409] * 30 and codes[30] == 429
    assert (await prober.get("/appeal?steamid=STEAM_1:1:5000")).status == 429

    for k in range(30):  # one IPv6 /64 is one visitor: a home or a server is given a whole /64
        assert (await Browser(app, client=(f"2001:db8:1:2::{k + 1:x}", 40000)).get("/appeal?steamid=STEAM_1:1:5000")).status == 200
    assert (await Browser(app, client=("2001:db8:1:2:ffff::1", 40000)).get("/appeal?steamid=STEAM_1:1:5000")).status == 429
    assert (await Browser(app, client=("2001:db8:1:3::1", 40000)).get("/appeal?steamid=STEAM_1:1:5000")).status == 200
    page.sources.close()
    page.appeal_desk.close()


def test_a_protest_sourcebans_archived_itself_keeps_its_mark_when_the_appeal_is_answered(mariadb_server):
    from jailcore.store.appeals import sync_protests

    sb = sourcebans_db(mariadb_server)
    db = sql(sb)
    try:
        with db.cursor() as cur:
            cur.execute(PROTESTS)
        appeal = {"id": 1, "action_id": 10, "time": "2026-12-01T10:00:00", "text": "не я", "contact": "me@example.ru", "address": "198.51.100.4",
                  "status": "open", "by": None}
        assert sync_protests(db.cursor, lambda: None, "sb", "origin", "a", 7, [appeal], {10: 5}) == 1
        (protest,) = sb_rows(sb, "sb_protests")
        assert (protest["bid"], protest["archiv"], protest["email"], protest["pip"]) == (5, 0, "me@example.ru", "198.51.100.4")
        with db.cursor() as cur:  # an admin unbans it in SourceBans++'s panel, which archives its protests as 4 (page.banlist.php)
            cur.execute("UPDATE sb_protests SET archiv = 4 WHERE bid = 5")
        assert sync_protests(db.cursor, lambda: None, "sb", "origin", "a", 7, [{**appeal, "status": "upheld", "by": "admin"}], {10: 5}) == 1
        assert sb_rows(sb, "sb_protests")[0]["archiv"] == 4  # not 1: the panel says the ban was unbanned, as it was
        second = {**appeal, "id": 2, "action_id": 11}
        sync_protests(db.cursor, lambda: None, "sb", "origin", "a", 7, [second], {11: 6})
        sync_protests(db.cursor, lambda: None, "sb", "origin", "a", 7, [{**second, "status": "upheld", "by": "admin"}], {11: 6})
        assert [r["archiv"] for r in sb_rows(sb, "sb_protests")] == [4, 1]  # one still open there: archived as upheld
    finally:
        db.close()


async def test_a_broken_database_is_a_page_that_says_so_on_every_appeal_route_and_beside_the_proposals(tmp_path):
    from tests.webkit import Browser, web

    path = tmp_path / "s.sqlite3"
    row = _banned(path)
    page = web(path, users={"admin": HASH}, roles={"admin": "admin"})
    app = page.app()
    player = Browser(app)
    link = (await player.post("/appeal", {"steamid": "STEAM_1:1:4242", "server": "jail-a", "id": str(row), "text": "не я"})).header("location")
    admin = Browser(app, client=("127.0.0.1", 50001))
    assert (await admin.login("admin", "correct horse battery")).status == 303
    token = await admin.csrf("/appeals")
    for leftover in tmp_path.glob("s.sqlite3-*"):
        leftover.unlink()
    path.write_bytes(b"not a database " * 1000)  # a disk that failed, a file written over
    for who, target in ((admin, "/proposals"), (admin, "/appeals"), (player, "/appeal?steamid=STEAM_1:1:4242"), (player, link)):
        answer = await who.get(target)  # a connection may still read what it had cached; none answers a 500
        assert answer.status in (200, 409), (target, answer.status)
    assert (await player.post("/appeal", {"steamid": "STEAM_1:1:4242", "server": "jail-a", "id": str(row), "text": "x"})).status == 409
    assert (await admin.post("/appeals/answer", {"src": "0", "id": "1", "do": "uphold", "reason": "r"}, token=token)).status in (303, 409)
    page.sources.close()
    page.appeal_desk.close()
