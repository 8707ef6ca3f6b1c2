"""The players search by name looks at every name the log holds (issue 28: it looked only at
the newest 20,000 entries), in any case and in part, a page at a time; a database written
before the `names` table is filled from its audit log when a daemon opens it."""

from __future__ import annotations

import sqlite3

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")

from jailcore.store.sqlite import Store
from jailcore.web import data
from jailcore.web.auth import hash_password
from tests.webkit import Browser, fill, web

OLD_NAME = "Старый Дед Мороз"


def add(path, rows: list[tuple[str, str, str, str]]) -> None:
    """Audit rows (server, time, steamid, name), as the daemon writes them."""
    db = sqlite3.connect(path, isolation_level=None)
    db.executemany("INSERT INTO audit (server, time, round, day, action, rule, ref, userid, steamid, name, reason, detail, status) "
                   "VALUES (?, ?, 1, 1, 'warn', 'orders', '3', 5, ?, ?, 'r', '{}', 'delivered')", rows)
    db.close()


@pytest.fixture(scope="module")
def deep(tmp_path_factory):
    """A name seen only once, in the oldest entry, under 30,000 newer ones."""
    path = tmp_path_factory.mktemp("players") / "state.sqlite3"
    Store(path).close()
    add(path, [("jail-a", "2020-01-01T10:00:00", "STEAM_1:0:999", OLD_NAME)])
    fill(path, 30_000)
    return path


def test_a_name_is_found_under_thirty_thousand_newer_entries_in_any_case_and_part(deep):
    page = web(deep)
    try:
        for query in ("дед мороз", "ДЕД", "ый д", "ед"):  # trigrams and two letters (no trigram: the names are scanned)
            found = data.find_players(page.sources, query)
            assert [p["steamid"] for p in found] == ["STEAM_1:0:999"], query
            assert found[0]["name"] == OLD_NAME and found[0]["count"] == 1
        assert data.find_players(page.sources, "мороз\"") == []  # a quote in the query is text, not FTS syntax
    finally:
        page.sources.close()


async def test_the_search_is_paged_and_every_player_comes_once(deep):
    page = web(deep, users={"admin": hash_password("a long password")})
    try:
        everyone = data.find_players(page.sources, "игрок", limit=10_000)
        db = sqlite3.connect(deep)
        names = db.execute("SELECT steamid, name FROM audit").fetchall()
        online = [r[0] for r in db.execute("SELECT snapshot FROM state")]
        db.close()
        steamids = {s for s, n in names if "игрок" in n.casefold()}
        assert {p["steamid"] for p in everyone if p["count"]} == steamids  # every one of the whole log, not of its newest 20,000
        assert len(everyone) == len({p["key"] for p in everyone}) and len(steamids) > 150 and online is not None
        seen = []
        for number in range(3):
            shown = data.find_players(page.sources, "игрок", 50, number)
            assert len(shown) == 51  # a page, and one more to say there is a next
            seen += [p["key"] for p in shown[:50]]
        assert seen == [p["key"] for p in everyone[:150]] and len(set(seen)) == 150
        counts = [p["count"] for p in everyone]
        assert counts == sorted(counts, reverse=True) and sum(counts) == sum(1 for _, n in names if "игрок" in n.casefold())
        admin = Browser(page.app())
        await admin.login("admin", "a long password")
        first = (await admin.get("/players?q=%D0%B8%D0%B3%D1%80%D0%BE%D0%BA")).text
        assert 'rel="next"' in first and 'rel="prev"' not in first
        second = (await admin.get("/players?q=%D0%B8%D0%B3%D1%80%D0%BE%D0%BA&page=1")).text
        assert 'rel="prev"' in second and second.count('class="card"') == 50
        assert (await admin.get("/players?q=x&page=%C2%B2")).status == 200  # '²' is no page number
    finally:
        page.sources.close()


def test_a_database_from_before_the_names_table_is_filled_when_opened(tmp_path):
    path = tmp_path / "state.sqlite3"
    Store(path).close()
    add(path, [("jail-a", f"2026-11-30T20:00:{i:02d}", "STEAM_1:1:7", "Вася") for i in range(3)]
        + [("jail-b", "2026-11-30T21:00:00", "STEAM_1:1:7", "Василий")])
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript("DROP TRIGGER audit_names; DROP TABLE names_fts; DROP TABLE names;")  # as a file of the version before
    db.close()
    page = web(path)
    try:
        (p,) = data.find_players(page.sources, "вас")  # no names table: the newest entries are looked at, as before
        assert p["count"] == 4
    finally:
        page.sources.close()
    Store(path).close()  # a daemon of this version opens it
    add(path, [("jail-a", "2026-11-30T22:00:00", "STEAM_1:1:7", "Вася")])
    names = sqlite3.connect(path).execute("SELECT server, name, n, last FROM names ORDER BY server").fetchall()
    assert names == [("jail-a", "Вася", 4, "2026-11-30T22:00:00"), ("jail-b", "Василий", 1, "2026-11-30T21:00:00")]
    page = web(path)
    try:
        (p,) = data.find_players(page.sources, "ВАСИ")
        assert (p["name"], p["count"], sorted(p["servers"])) == ("Василий", 1, ["jail-b"])
    finally:
        page.sources.close()
