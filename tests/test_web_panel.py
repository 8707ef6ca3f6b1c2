"""The panel an admin works from (issue 33), in a real headless Chromium beside a real daemon and
the simulated server: a proposal answered where it shows (the live log, the round's story), the
menu's count of what waits, a server marked on every page when its RCON link is down or its
daemon stops, who is on each server now, and the warning, CT ban and ban an admin gives from a
player's page, each judged by his role on that server. Screenshots of every page, in Russian and
in English, go to build/screenshots/ (or $JAILCORE_SHOTS)."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from contextlib import asynccontextmanager
from pathlib import Path

import attrs
import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
playwright = pytest.importorskip("playwright.async_api", reason="Playwright is not installed: pip install -e '.[web]'")

from jailcore.config.config import load  # noqa: E402
from jailcore.io.daemon import Daemon  # noqa: E402
from jailcore.sim.simserver import SimServer  # noqa: E402
from jailcore.store.request_kinds import ActRequest, CtBanRequest, PardonRequest  # noqa: E402
from jailcore.web.serve import bound_port, build, server  # noqa: E402
from tests.audit_rows import entries  # noqa: E402
from tests.test_live import config_text, populate, sent, specialday_too_soon, until  # noqa: E402
from tests.test_web import ARGS, CHROMIUM, DESKTOP, HASH, PHONE  # noqa: E402
from tests.test_web import log_in as web_log_in  # noqa: E402
from tests.test_web import pytestmark as pytestmark  # noqa: E402  no Chromium: skipped with one line saying why, as test_web is

SHOTS = Path(os.environ.get("JAILCORE_SHOTS") or Path(__file__).resolve().parents[1] / "build" / "screenshots")
ADS = '[conduct.advertising]\nconfirm = "admin"\nladder = ["ban 0"]\n'  # 001 Общие 19: a ban for ever waits for an admin
USERS = f'boss = "{HASH}"\nmod = "{HASH}"\n[web.roles]\nboss = "owner"\nmod = "moderator"\n'


@attrs.define
class Panel:
    sim: SimServer
    daemon: Daemon
    task: asyncio.Task
    base: str
    browser: object
    state: Path

    async def stop_daemon(self) -> None:
        if not self.task.done():
            self.daemon.stop()
            await self.task

    def link(self) -> dict:
        db = sqlite3.connect(self.state)
        db.row_factory = sqlite3.Row
        try:
            row = db.execute("SELECT * FROM link WHERE server = 't'").fetchone()
            return dict(row) if row else {}
        finally:
            db.close()


@asynccontextmanager
async def panel(tmp_path, rest: str = ""):
    """Simulated server, daemon, the page (port 0) and a headless Chromium; each stopped after,
    whichever a test stopped before."""
    sim = SimServer(password="pw")
    port = await sim.start()
    state = tmp_path / "state.sqlite3"
    config = load(config_text(port, state, rest=f"{ADS}{rest}[web]\n[web.users]\n{USERS}"), "<test>", {})
    daemon = Daemon(config, rcon_backoff=(0.05, 0.2), auth_backoff=0.5)
    task = asyncio.create_task(daemon.run())
    await daemon.ready.wait()
    await sim.log_to_daemon(("127.0.0.1", daemon.log_port))
    web = build([config])
    srv = server(web, "127.0.0.1:0")
    serving = asyncio.create_task(srv.serve())
    await until(lambda: srv.started)
    try:
        async with playwright.async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                yield Panel(sim, daemon, task, f"http://127.0.0.1:{bound_port(srv)}", browser, state)
            finally:
                await browser.close()
    finally:
        web.stopping = srv.should_exit = True
        await serving
        web.sources.close()
        if not task.done():
            daemon.stop()
            await task
        daemon.store.close()
        await sim.stop()


async def log_in(p: Panel, name: str, viewport: dict = DESKTOP, lang: str = "ru"):
    context, page = await web_log_in(p.browser, p.base, viewport, name)
    if lang != "ru":
        await context.add_cookies([{"name": "jc_lang", "value": lang, "url": p.base}])
    return context, page


async def reload_until(page, url: str, check, timeout: float = 10.0) -> None:
    """The page loaded again until `check(page)` holds: what every page shows at its top is read
    again every 2 s, so an event shows within that (the margin is for a loaded machine)."""
    end = asyncio.get_running_loop().time() + timeout
    while True:
        await page.goto(url)
        if await check(page):
            return
        assert asyncio.get_running_loop().time() < end, f"{url}: not shown within {timeout} s"
        await page.wait_for_timeout(250)


def waiting_count(page):
    return page.locator('header nav a[href="/proposals"] .count')


async def shoot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


async def test_an_admin_answers_proposals_where_they_show_and_reads_the_waiting_count(tmp_path):
    async with panel(tmp_path) as p:
        warden, ts = populate(p.sim)
        p.sim.flush()
        await until(lambda: p.daemon.engine.state.warden == warden.userid)
        boss, page = await log_in(p, "boss")
        await page.locator("#live-state.on").wait_for(timeout=5000)
        assert await waiting_count(page).count() == 0  # nothing waits yet

        p.sim.say(ts[0], "заходите к нам: 212.129.25.133:27015")
        p.sim.say(ts[1], "го на мой сервер 10.1.2.3:27015")
        p.sim.flush()
        rows = page.locator("#live .entry.act-propose")
        await rows.nth(1).wait_for(timeout=5000)  # pushed by the live stream, not a reload
        first, second = sorted(entries(p.daemon.store, "action = 'propose'"), key=lambda r: r["id"])
        row = page.locator(f"#e0-{first['id']}")
        assert await row.locator(".badge.act").inner_text() == "Предложено: бан навсегда"  # in words, as the chat says it
        assert "Комментарий" in await row.locator("form.answer input[name=reason]").get_attribute("placeholder")
        confirm, dismiss = row.locator("button[value=confirm]"), row.locator("button[value=dismiss]")
        looks = "e => [getComputedStyle(e).backgroundColor, getComputedStyle(e).color]"
        assert await confirm.evaluate(looks) != await dismiss.evaluate(looks)  # the act and the letting go look different
        await reload_until(page, f"{p.base}/live", lambda pg: _text_is(waiting_count(pg), "2"))
        await shoot(page, "panel-live-proposals-ru")

        # a moderator may dismiss a proposed ban, not carry it out (that is an admin's, as lifting one is)
        mod, mod_page = await log_in(p, "mod")
        mine = mod_page.locator(f"#e0-{first['id']}")
        assert await mine.locator("button[value=dismiss]").count() == 1 and await mine.locator("button[value=confirm]").count() == 0
        assert "администратор" in await mine.locator("form.answer .hint").inner_text()
        assert await _text_is(waiting_count(mod_page), "2")  # he answers on this server: it waits for him too
        await mod.close()

        await row.locator("input[name=reason]").fill("это наш второй сервер")
        await dismiss.click()  # from the live log, back to it
        await page.wait_for_url(lambda url: url.startswith(f"{p.base}/live") and url.endswith(f"#e0-{first['id']}"))
        await until(lambda: entries(p.daemon.store, "id = ?", (first["id"],))[0]["status"] == "dismissed", timeout=6)
        assert entries(p.daemon.store, "id = ?", (first["id"],))[0]["reply"] == "by boss: это наш второй сервер"
        await page.locator(f"#e0-{first['id']}.st-dismissed").wait_for(timeout=5000)  # the stream replaces the row
        assert await page.locator(f"#e0-{first['id']} form.answer").count() == 0

        # the other one from its round's story
        await page.locator(f"#e0-{second['id']} .links a", has_text="история раунда").click()
        await page.wait_for_url(lambda url: "/story?" in url)
        await page.locator(f"#e0-{second['id']} button[value=confirm]").click()
        await page.wait_for_url(lambda url: "/story?" in url)
        await until(lambda: sent(p.sim, f"jb_ban #{ts[1].userid} 0"), timeout=6)
        assert not sent(p.sim, f"jb_ban #{ts[0].userid}")  # the dismissed one never reached the game
        await reload_until(page, f"{p.base}/story?server=t&id={second['id']}",
                           lambda pg: _has_class(pg.locator(f"#e0-{second['id']}"), "st-confirmed"))
        await reload_until(page, f"{p.base}/proposals", lambda pg: _count_is(waiting_count(pg), 0))  # nothing waits now
        assert await page.locator("#proposals-empty").count() == 1
        await boss.close()


async def _text_is(locator, text: str) -> bool:
    return await locator.count() == 1 and (await locator.inner_text()).strip() == text


async def _has_class(locator, name: str) -> bool:
    return await locator.count() == 1 and name in (await locator.get_attribute("class") or "").split()


async def test_a_server_is_marked_on_every_page_when_its_rcon_link_is_down_and_when_its_daemon_stops(tmp_path):
    async with panel(tmp_path) as p:
        populate(p.sim)
        p.sim.flush()
        await until(lambda: p.link().get("rcon") == "open", timeout=6)
        boss, page = await log_in(p, "boss")
        assert await page.locator("#health").count() == 0  # all well: no strip
        await page.goto(f"{p.base}/servers")
        assert "демон работает, RCON на связи" in await page.locator("#server-t .health-line").inner_text()

        await p.sim.stop_rcon()  # the game server goes away
        await until(lambda: p.link().get("rcon") not in (None, "open"), timeout=10)
        await reload_until(page, f"{p.base}/charts", lambda pg: _shows(pg, "нет связи RCON"))

        await p.stop_daemon()
        assert p.link()["daemon"] == "stopped"
        for path in ("/live", "/players", "/ctbans", "/config"):  # on every page
            await reload_until(page, f"{p.base}{path}", lambda pg: _shows(pg, "демон остановлен"))
        assert await page.locator('#health .sick[data-server="t"] a[href="/servers#server-t"]').count() == 1
        await shoot(page, "panel-health-ru")
        await page.goto(f"{p.base}/servers")
        assert await _has_class(page.locator("#server-t"), "sick")
        assert "демон остановлен" in await page.locator("#server-t .health-line").inner_text()
        await boss.close()


async def _shows(page, text: str) -> bool:
    strip = page.locator('#health .sick[data-server="t"]')
    return await strip.count() == 1 and text in await strip.inner_text()


async def test_who_is_on_each_server_and_a_moderator_gives_a_ct_ban_and_a_warning_from_a_players_page_an_admin_a_ban(tmp_path):
    async with panel(tmp_path) as p:
        warden, ts = populate(p.sim, prisoners=8)  # room for a second guard under the team balance
        guard = p.sim.add_player("Охранник", "CT")
        p.sim.flush()
        await until(lambda: p.daemon.engine.state.warden == warden.userid)
        await until(lambda: len((p.daemon.store.load_state("t") or {}).get("players", [])) == 10, timeout=6)
        mod, page = await log_in(p, "mod")
        await page.goto(f"{p.base}/servers")
        seated = page.locator("#server-t .players-now .seat")
        assert await seated.count() == 10
        assert "КТ" in await seated.first.locator(".badge.team").inner_text()  # the guards first
        await page.locator("#server-t .players-now a", has_text="Охранник").click()
        await page.wait_for_url(lambda url: "/player?key=" in url)
        assert "t" in await page.locator(".online-now").inner_text()
        assert await page.locator("form.act-ban").count() == 0  # a server ban is an admin's

        form = page.locator("form.act-ctban")
        await form.locator("input[name=minutes]").fill("30")
        await form.locator("input[name=reason]").fill("абуз КТ")
        await form.locator("button").click()
        await page.wait_for_url(lambda url: "/player?key=" in url and url.endswith("done=ctban"))
        assert "Запрет за КТ записан" in await page.locator(".saved").inner_text()
        await until(lambda: guard.steamid in p.daemon.engine.state.ctbans, timeout=6)  # the daemon applied the request row
        ban = p.daemon.engine.state.ctbans[guard.steamid]
        assert ban.by == "mod" and "абуз КТ" in ban.reason
        await until(lambda: sent(p.sim, f"jb_teamswap #{guard.userid} "), timeout=6)  # off CT at once
        await reload_until(page, page.url, lambda pg: _count_is(pg.locator(".ctbans-of li[data-server=t]"), 1))
        await shoot(page, "panel-player-ru")

        warn = page.locator("form.act-warn")
        await warn.locator("input[name=reason]").fill("мат в микрофон")
        await warn.locator("button").click()
        await page.wait_for_url(lambda url: "/player?key=" in url and url.endswith("done=warn"))
        await until(lambda: [c for c in sent(p.sim, f"jb_warn #{guard.userid} ") if "mod" in c and "мат в микрофон" in c], timeout=6)
        await mod.close()

        boss, page = await log_in(p, "boss")
        await page.goto(f"{p.base}/player?key={ts[0].steamid}")
        ban_form = page.locator("form.act-ban")
        await ban_form.locator("input[name=minutes]").fill("60")
        await ban_form.locator("input[name=reason]").fill("читы")
        await ban_form.locator("button").click()
        await page.wait_for_url(lambda url: "/player?key=" in url and url.endswith("done=ban"))
        await until(lambda: sent(p.sim, f"jb_ban #{ts[0].userid} 60 "), timeout=6)
        (row,) = entries(p.daemon.store, "action = 'ban'")
        assert row["rule"] == "admin" and "boss" in row["reason"] and row["steamid"] == ts[0].steamid
        await page.goto(f"{p.base}/activity")
        text = await page.locator(".activity").inner_text()
        assert "boss забанил" in text and "mod предупредил" in text and "mod выдал запрет за КТ" in text
        await boss.close()


async def _count_is(locator, n: int) -> bool:
    return await locator.count() == n


PAGES = ("/live", "/story", "/players?q=%D0%97%D0%B5%D0%BA", "/servers", "/charts", "/ctbans", "/bans", "/config", "/activity",
         "/proposals", "/accounts")


async def test_every_page_in_both_languages_reads_in_its_language(tmp_path):
    """Every page answers and is shot in Russian and in English, at desktop and phone width; a
    Russian page carries none of the English words it used to (a team, a mode, `r5`, ISO dates)."""
    async with panel(tmp_path) as p:
        warden, ts = populate(p.sim)
        specialday_too_soon(p.sim, warden)  # a CT ban by the rules
        p.sim.say(ts[0], "заходите к нам: 212.129.25.133:27015")  # a proposal
        p.sim.add_player("Смотритель", "Spectator")
        p.sim.flush()
        await until(lambda: entries(p.daemon.store, "action = 'propose'") and entries(p.daemon.store, "action = 'slay'"), timeout=6)
        (slay,) = entries(p.daemon.store, "action = 'slay'")
        p.daemon.store.submit(PardonRequest(slay["id"], "boss", "начальник не знал о перерыве"))  # a pardon, a ban and a CT ban by the page's road
        p.daemon.store.submit(ActRequest("t", ts[1].steamid, ts[1].name, "ban", 60, "читы", "boss"))
        p.daemon.store.submit(CtBanRequest("t", ts[2].steamid, ts[2].name, None, 3, "абуз", "mod"))
        await until(lambda: sent(p.sim, f"jb_ban #{ts[1].userid} 60 ") and p.daemon.engine.state.ctbans.get(ts[2].steamid), timeout=6)
        await until(lambda: p.daemon.idle.is_set())
        for lang in ("ru", "en"):
            for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
                context, page = await log_in(p, "boss", viewport, lang)
                for path in (*PAGES, f"/player?key={warden.steamid}"):
                    response = await page.goto(p.base + path)
                    assert response.status == 200, (lang, path, response.status)
                    text = await page.locator("body").inner_text()
                    if lang == "ru":
                        for english in ("Unassigned", "Spectator", "enforce", "confirm = none", "confirm_minutes"):
                            assert english not in text, (path, english)
                        assert "2026-" not in text, path  # dates are ДД.ММ
                    else:
                        assert "Предложено" not in text and "Журнал" not in text, path
                    if path == "/charts":  # every chart drawn, the rules that fire most among them
                        assert await page.locator("svg.plot rect").count() >= 2 and await page.locator(".hbars li").count() >= 1
                    name = path.strip("/").split("?")[0].replace("/", "-")
                    await shoot(page, f"panel-{name}-{lang}-{size}")
                await context.close()
                anonymous = await p.browser.new_context(viewport=viewport)
                await anonymous.add_cookies([{"name": "jc_lang", "value": lang, "url": p.base}])
                page = await anonymous.new_page()
                await page.goto(f"{p.base}/servers")  # pages need a login
                assert "/login" in page.url and await page.locator("#health, .count").count() == 0  # nothing of the servers shown
                await shoot(page, f"panel-login-{lang}-{size}")
                await anonymous.close()
