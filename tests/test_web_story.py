"""A round's story in words (issue 20): connects, kicks and disconnects said as sentences,
chat without its colour bytes, «убийство» for a kill and «слэй» for what an admin gives."""

from __future__ import annotations

import pytest

pytest.importorskip("jinja2", reason="the web extra is not installed: pip install -e '.[web]'")

from jailcore.web.i18n import Words
from jailcore.web.story import tell

P = '"Вася<7><STEAM_1:0:7><TERRORIST>"'
LINES = [
    'L 11/30/2026 - 20:00:01: "Вася<7><STEAM_1:0:7><>" connected, address "10.0.0.7:27005"',
    'L 11/30/2026 - 20:00:02: "Вася<7><STEAM_1:0:7><>" entered the game',
    f'L 11/30/2026 - 20:00:03: {P} say "\x04Привет \x07FF0000всем\x01"',
    f'L 11/30/2026 - 20:00:04: {P} killed "Петя<8><STEAM_1:0:8><CT>" with "ak47"',
    f'L 11/30/2026 - 20:00:05: {P} disconnected (reason "Kicked by Console : за рекламу")',
    'L 11/30/2026 - 20:00:06: "Петя<8><STEAM_1:0:8><CT>" disconnected (reason "Disconnect")',
]


def story(lang: str = "ru"):
    rows = [{"time": f"2026-11-30T20:00:0{i + 1}", "line": line, "audit": 0} for i, line in enumerate(LINES)]
    return tell(rows, [], lang)


def test_connects_kicks_and_disconnects_are_sentences():
    texts = [m.text for m in story().moments]
    assert texts[0] == "Вася #7 подключается"
    assert texts[1] == "Вася #7 вошёл в игру"
    assert texts[4] == "Вася #7 кикнут (Kicked by Console : за рекламу)"
    assert texts[5] == "Петя #8 вышел (Disconnect)"
    assert [m.minor for m in story().moments][:2] == [True, True] and not story().moments[4].minor
    assert story("en").moments[4].text == "Вася #7 was kicked (Kicked by Console : за рекламу)"


def test_chat_is_shown_without_its_colour_bytes():
    assert story().moments[2].text == "Вася #7: Привет всем"


def test_a_kill_is_an_убийство_and_a_slay_is_a_слэй():
    kill = story().moments[3]
    assert kill.category == "kill" and Words("ru")(f"cat.{kill.category}") == "убийство"
    assert Words("ru").action("slay") == "слэй" and Words("en").action("slay") == "slay"


def test_a_rule_has_one_colour_in_every_chart_and_long_labels_are_cut_with_the_whole_in_the_tooltip():
    from jailcore.web.charts import LABEL, colours, hbars, stacked

    series = {"games.repeat": [1, 2], "orders": [5, 5], "specialday.cooldown": [0, 1]}
    names = {"games.repeat": "5.5 Повтор игры", "orders": "3 Приказы", "specialday.cooldown": "6.5 Перерыв между особыми днями очень длинный"}
    chart = stacked(["2026-11-29", "2026-11-30"], series, names)
    legend = {item["name"]: item["colour"] for item in chart["legend"]}
    top = hbars([(k, names[k], sum(v)) for k, v in sorted(series.items(), key=lambda kv: -sum(kv[1]))], colours(series))
    for bar in top["bars"]:
        assert bar["colour"] == legend[bar["full"]]  # the same rule, the same colour
        assert len(bar["label"]) <= LABEL and bar["full"].startswith(bar["label"].rstrip("…"))
    assert legend["3 Приказы"] != legend["5.5 Повтор игры"]


# -- the round's start and its freeze period, as the engine reads them (issue 26) -----------------

W = '"Начальник<2><STEAM_1:0:42><>"'


def rows_of(lines: list[str]) -> list[dict]:
    return [{"time": f"2026-11-30T{line[15:23]}", "line": line, "audit": 0} for line in lines]


def test_the_shims_round_line_begins_the_round_and_round_start_ends_its_freeze():
    """srcds writes Round_Start when the freeze period ends; the shim's `jb_round_start
    (freeze "15")` at the round's real start comes first, and a `!w` typed in the freeze
    belongs to the round."""
    lines = ['L 11/30/2026 - 20:00:00: World triggered "jb_round_start" (freeze "15") (seq "7")',
             f'L 11/30/2026 - 20:00:05: {W} triggered "jb_warden" (seq "8")',
             'L 11/30/2026 - 20:00:15: World triggered "Round_Start"']
    told = tell(rows_of(lines), [], "ru")
    assert [(m.category, m.text, m.minor) for m in told.moments] == [
        ("round", "Начало раунда, заморозка 15 с", False), ("warden", "Начальник #2 — начальник", False),
        ("round", "Конец заморозки: игра началась", False)]
    assert (told.started, told.freeze, told.play) == ("2026-11-30T20:00:00", 15, "2026-11-30T20:00:15")
    assert tell(rows_of(lines), [], "en").moments[2].text == "Freeze period over: play begins"


@pytest.mark.parametrize("shim_first", [True, False])
def test_with_no_freeze_the_two_round_lines_are_one_start_in_either_order(shim_first):
    shim, srcds = ('World triggered "jb_round_start" (freeze "0") (seq "3")', 'World triggered "Round_Start"')
    lines = [f"L 11/30/2026 - 20:00:0{i}: {body}" for i, body in enumerate((shim, srcds) if shim_first else (srcds, shim))]
    told = tell(rows_of(lines), [], "ru")
    assert [m.minor for m in told.moments] == [False, True]  # the second line of the same start is hidden
    assert (told.started, told.freeze) == ("2026-11-30T20:00:00", 0)
    assert told.moments[0].text == ("Начало раунда, без заморозки" if shim_first else "Начало раунда")


def test_round_start_alone_is_the_start_without_a_freeze_seen():
    told = tell(rows_of(['L 11/30/2026 - 20:00:00: World triggered "Round_Start"']), [], "ru")
    assert (told.moments[0].text, told.started, told.freeze, told.play) == ("Начало раунда", "2026-11-30T20:00:00", None,
                                                                               "2026-11-30T20:00:00")


async def test_the_story_page_shows_the_rounds_start_and_freeze_from_the_daemons_kept_lines(tmp_path):
    """A real session handles the log and its kept lines go to a real SQLite file, so each line
    sits in the round the engine put it in; the page shows the start, the freeze and play."""
    from jailcore.log.parse import records
    from jailcore.session import inputs as i
    from jailcore.session.effects import Write
    from jailcore.session.session import Ids, Session
    from jailcore.store.sqlite import Store
    from jailcore.web.auth import hash_password
    from tests.logtext import Log
    from tests.scenes import WARDEN
    from tests.webkit import Browser, configs, web

    path = tmp_path / "state.sqlite3"
    log = Log()
    log.enter(WARDEN).join(WARDEN, "CT").round_start().round_end().wait(5)
    log.round_begins(15).say(WARDEN, "!w").trig(WARDEN, "jb_warden").wait(10).round_start().order(WARDEN, "все в клетку")
    ids = Ids()
    ids.give(1, 1000)
    session, store = Session(configs(path)[0], None, ids), Store(path)
    for rec in records(log.text().splitlines()):
        store.write([e.row for e in session.handle(i.LogRecord(rec.encode()), 1.0) if isinstance(e, Write)])
    store.write([e.row for e in session.handle(i.Stopping("2026-11-30T20:10:00"), 2.0) if isinstance(e, Write)])
    store.close()
    page = web(path, users={"admin": hash_password("a long password")})
    try:
        admin = Browser(page.app())
        await admin.login("admin", "a long password")
        html = (await admin.get("/story?server=jail-a&round=2")).text
        assert '<dd class="round-start">20:00:' in html and "заморозка 15 с" in html and "игра с 20:00:" in html
        assert html.index("Начало раунда, заморозка 15 с") < html.index("Начальник #2 — начальник") < html.index(
            "Конец заморозки: игра началась") < html.index("Приказ Начальник #2")
        first = (await admin.get("/story?server=jail-a&round=1")).text
        assert "по строке srcds (заморозки не видно)" in first and "Конец заморозки" not in first
    finally:
        page.sources.close()
