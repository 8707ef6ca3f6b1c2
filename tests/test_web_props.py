"""No parameter makes the web page fail (issue 20, attack 5): every route, every parameter,
any value (a superscript two, numbers past SQLite's, Unicode, nothing at all), as an admin
and as the public, answers below 500. Before, 16 of them were tracebacks, some anonymous."""

from __future__ import annotations

import asyncio
from urllib.parse import urlencode

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jailcore.web.auth import hash_password
from tests.webkit import Browser, call, fill, stream, web

PASSWORD = "correct horse battery"
ROUTES = {  # path: its parameters
    ("GET", "/login"): ("next",),
    ("GET", "/lang"): ("to", "next"),
    ("GET", "/live"): ("server", "player", "rule", "action", "since", "before"),
    ("GET", "/live/events"): ("server", "player", "rule", "action", "since", "cursor", "open"),
    ("GET", "/story"): ("server", "round", "id"),
    ("GET", "/players"): ("q",),
    ("GET", "/player"): ("key", "done"),
    ("POST", "/player/act"): ("do", "server", "key", "minutes", "reason"),
    ("POST", "/answer"): ("server", "id", "answer", "reason", "next"),
    ("GET", "/proposals"): (),
    ("GET", "/servers"): (),
    ("GET", "/charts"): ("weeks",),
    ("POST", "/pardon"): ("server", "id", "reason", "next"),
    ("POST", "/login"): ("name", "password", "next"),
    ("GET", "/live.csv"): ("server", "player", "rule", "action", "since", "before"),
    ("GET", "/ctbans"): ("server", "q", "by", "state"),
    ("GET", "/activity"): ("by",),
    ("POST", "/ctbans"): ("do", "server", "steamid", "minutes", "rounds", "reason", "next"),
    ("GET", "/config"): ("server", "saved"),
    ("GET", "/accounts"): (),
    ("GET", "/bans"): ("server", "state", "q", "by"),
    ("POST", "/accounts"): ("do", "name", "password", "role", "sure"),
    ("POST", "/config/preview"): ("server", "rule", "body", "version"),
    ("POST", "/config/save"): ("server", "rule", "body", "version", "base"),
}
ODD = ["", "²", "٣", "0", "-1", "1e309", "99999999999999999999", "#99999999999999999999", "99999999999999999999d", "9" * 400,
       "0:0:0", "0:99999999999999999999:0", "0:-1", "STEAM_1:0:1", "[U:1:2]", "#2", "%", "'", '"', "\\", "//evil.example", "\x00",
       "\u202eнимдА", "Ｊａｉｌ", "jail-a", "2026-11-30T20:00", "10000-01-01", "games", "ctban", "\ud7ff", "🙂" * 50]
VALUE = st.one_of(st.sampled_from(ODD), st.integers(-(2**70), 2**70).map(str),
                  st.text(st.characters(exclude_categories=("Cs",)), max_size=40))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    path = tmp_path_factory.mktemp("props") / "state.sqlite3"
    fill(path, 1500)
    runner = asyncio.Runner()

    async def start():
        page = web(path, users={"admin": hash_password(PASSWORD)}, public=True)
        app = page.app()
        admin = Browser(app)
        assert (await admin.login("admin", PASSWORD)).status == 303
        return page, app, admin, await admin.csrf("/live")

    page, app, admin, token = runner.run(start())
    yield runner, app, admin, token
    page.sources.close()
    runner.close()


async def status_of(app, method: str, path: str, params: dict[str, str], headers: dict[str, str]) -> int:
    if path == "/live/events":
        async with stream(app, f"{path}?{urlencode(params)}", headers) as (parts, _task):
            await asyncio.wait_for(parts.get(), 5)  # the first part: its status is decided by then
            return parts.status
    if method == "GET":
        return (await call(app, "GET", f"{path}?{urlencode(params)}", headers)).status
    body = urlencode(params).encode()
    return (await call(app, "POST", path, {**headers, "content-type": "application/x-www-form-urlencoded", "content-length": str(len(body))},
                       body)).status


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(route=st.sampled_from(sorted(ROUTES)), data=st.data(), as_admin=st.booleans())
def test_no_parameter_makes_any_route_fail(site, route, data, as_admin):
    runner, app, admin, token = site
    method, path = route
    params = {name: data.draw(VALUE, label=name) for name in ROUTES[route] if data.draw(st.booleans(), label=f"give {name}")}
    if method == "POST":
        params["csrf"] = token if as_admin else data.draw(VALUE, label="csrf")
    headers = admin.cookie_header() if as_admin else {}
    status = runner.run(status_of(app, method, path, params, headers))
    assert status < 500, (method, path, params, status)


def test_every_odd_value_in_every_parameter(site):
    """The odd values one by one in each parameter of each route, as an admin and as the public."""
    runner, app, admin, token = site
    failed = []
    for (method, path), names in sorted(ROUTES.items()):
        for name in names:
            for value in ODD:
                for headers in (admin.cookie_header(), {}):
                    params = {name: value, **({"csrf": token} if method == "POST" else {})}
                    try:
                        status = runner.run(status_of(app, method, path, params, headers))
                    except Exception as exc:  # a traceback is a 500 to the visitor
                        status = f"{type(exc).__name__}: {exc}"
                    if not isinstance(status, int) or status >= 500:
                        failed.append((method, path, name, value[:30], status))
    assert not failed, failed


def test_an_unknown_player_is_a_404_page_that_says_so(site):
    runner, app, admin, _token = site
    for target in ("/player?id=unknown", "/player?key=unknown", "/player?key=STEAM_1:0:424242"):
        answer = runner.run(call(app, "GET", target, admin.cookie_header()))
        assert answer.status == 404 and "не найден" in answer.text, target
