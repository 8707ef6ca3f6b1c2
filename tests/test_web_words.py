"""The panel's words (issue 33), without a browser: Russian dates (ДД.ММ, the year only when it is
not this one), a punishment in words as the chat says it, every rule with a title in both
languages and its clause's word said once, the teams and a warden's end in the page's language,
and the day charts' geometry (today's bar has its date, the tallest bar stays under a numbered line)."""

from __future__ import annotations

import pytest

pytest.importorskip("jinja2", reason="the web extra is not installed: pip install -e '.[web]'")

from jailcore.engine.rules import ORDER
from jailcore.web.charts import WIDTH, stacked
from jailcore.web.i18n import RULES, Words
from jailcore.web.story import tell


def test_dates_are_day_and_month_in_russian_with_the_year_only_when_it_is_not_this_one():
    ru, en = Words("ru", 2026), Words("en", 2026)
    assert ru.when("2026-12-01T20:39:35") == "01.12 20:39:35" and ru.when("2026-12-01T20:39:35", False) == "01.12 20:39"
    assert ru.when("2025-03-09T08:00:00") == "09.03.2025 08:00:00" and ru.date("2026-11-30") == "30.11"
    assert en.when("2026-12-01T20:39:35") == "1 Dec 20:39:35" and en.date("2025-11-30") == "30 Nov 2025"
    assert ru.when("") == "" and ru.when(None) == "" and ru.when("not a time") == "not a time"  # what is no time is shown as it is


def test_a_punishment_is_said_in_words_as_the_chat_says_it():
    ru, en = Words("ru"), Words("en")
    assert ru.step("ban 0") == "бан навсегда" and en.step("ban 0") == "permanent ban"
    assert ru.step("ctban 30m") == "запрет за КТ 30 мин" and ru.step("ban 10") == "бан 10 мин" and ru.step("slay") == "слэй"


def test_every_rule_has_a_title_in_both_languages_and_its_clause_word_is_said_once():
    assert sorted(r.key for r in ORDER if r.key not in RULES) == []
    assert all(ru and en and ru != en for ru, en in RULES.values())
    ru = Words("ru")
    assert ru.titled("calendar.freeday", "ФД 1") == "ФД 1 по дням недели"  # not «ФД 1 ФД по дням недели»
    assert ru.titled("calendar.global_games", "Глобальные 1") == "Глобальные 1 игры по дням"
    assert ru.titled("specialday.cooldown", "6.5") == "6.5 Перерыв между особыми днями" and ru.titled("orders", "") == "Приказы"


def test_the_story_says_teams_and_a_wardens_end_in_the_pages_language():
    lines = ['L 11/30/2026 - 20:00:01: "Вася<7><STEAM_1:0:7><Unassigned>" joined team "Spectator"',
             'L 11/30/2026 - 20:00:02: "Петя<8><STEAM_1:0:8><CT>" triggered "jb_warden_removed" (reason "resigned") (seq "1")',
             'L 11/30/2026 - 20:00:03: "Петя<8><STEAM_1:0:8><CT>" committed suicide with "world"']
    rows = [{"time": f"2026-11-30T20:00:0{i + 1}", "line": line, "audit": 0} for i, line in enumerate(lines)]
    assert [m.text for m in tell(rows, [], "ru").moments] == ["Вася #7: без команды → наблюдатели",
                                                              "Петя #8 больше не начальник (сложил полномочия)",
                                                              "Петя #8 погиб (урон от карты)"]
    assert tell(rows, [], "en").moments[0].text == "Вася #7: no team → spectators"


def test_todays_bar_has_its_date_and_the_tallest_bar_stays_under_a_numbered_line():
    dates = [f"2026-11-{d:02d}" for d in range(3, 31)]  # four weeks up to today, 30 November
    chart = stacked(dates, {"orders": [0] * 27 + [767]}, day=Words("ru", 2026).date)
    assert chart["labels"][-1]["text"] == "30.11" and chart["labels"][-1]["x"] == WIDTH  # inside the card, at its edge
    assert 5 <= len(chart["labels"]) <= 7
    top = max(g["text"] for g in chart["grid"])
    assert top >= 767 and min(b["y"] for b in chart["bars"]) >= min(g["y"] for g in chart["grid"])
