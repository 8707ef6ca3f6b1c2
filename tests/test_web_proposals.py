"""The web page's list of punishments waiting for an admin, in a real headless Chromium
beside a real daemon and the simulated server: a proposed permanent ban (001 Общие 19,
`confirm = "admin"`) is listed, and the Confirm button has the daemon carry it out."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
playwright = pytest.importorskip("playwright.async_api", reason="Playwright is not installed: pip install -e '.[web]'")

from jailcore.config.config import load  # noqa: E402
from jailcore.sim.simserver import SimServer  # noqa: E402
from jailcore.web.serve import bound_port, build, server  # noqa: E402
from tests.audit_rows import entries  # noqa: E402
from tests.test_live import config_text, running, sent, settled, until  # noqa: E402
from tests.test_web import ARGS, CHROMIUM, DESKTOP, HASH, log_in, pytestmark  # noqa: E402, F401

RULE = '[conduct.advertising]\nconfirm = "admin"\nladder = ["ban 0"]\n'


async def test_an_admin_confirms_a_proposal_on_the_web_page(tmp_path):
    sim = SimServer(password="pw")
    port = await sim.start()
    config = load(config_text(port, tmp_path / "state.sqlite3", rest=f'{RULE}[web]\n[web.users]\nadmin = "{HASH}"\n'), "<test>", {})
    async with running(config, sim) as daemon:
        web_page = build([config])
        srv = server(web_page, "127.0.0.1:0")
        task = asyncio.create_task(srv.serve())
        await until(lambda: srv.started)
        base = f"http://127.0.0.1:{bound_port(srv)}"
        async with playwright.async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                _, ts = await settled(sim, daemon)
                stranger = await p.request.new_context(base_url=base)
                assert (await stranger.get("/proposals", max_redirects=0)).status == 303  # admins only
                await stranger.dispose()
                context, page = await log_in(browser, base, DESKTOP)
                await page.goto(f"{base}/proposals")
                assert await page.locator("#proposals-empty").count() == 1
                sim.say(ts[0], "го на мой сервер 10.1.2.3:27015")
                sim.flush()
                await until(lambda: entries(daemon.store, "action = 'propose'"))
                (row,) = entries(daemon.store, "action = 'propose'")
                await page.goto(f"{base}/proposals")
                item = page.locator(f"#p0-{row['id']}")
                assert "Предложено: бан навсегда" in await item.inner_text() and ts[0].name in await item.inner_text()  # in words, as the chat says it
                assert not sent(sim, "jb_ban")
                await item.locator("button[value=confirm]").click()
                await page.wait_for_url(f"{base}/proposals")
                await until(lambda: sent(sim, f"jb_ban #{ts[0].userid} 0"), timeout=3)
                assert entries(daemon.store, "id = ?", (row["id"],))[0]["reply"] == "by admin"
                await page.goto(f"{base}/proposals")
                assert await page.locator(f"#p0-{row['id']}").count() == 0
                await context.close()
            finally:
                await browser.close()
                web_page.stopping = srv.should_exit = True
                await task
                web_page.sources.close()
