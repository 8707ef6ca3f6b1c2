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
