"""Scenarios for prohibitions.max: 004 6.3, 001 ФД 3, written from the rulebooks."""

from __future__ import annotations

from tests.logtext import run
from tests.scenes import WARDEN, setup


def test_third_prohibition_is_refused_with_warning_and_cancel():
    log, _ = setup()
    log.prohibit(WARDEN, "не прыгать").order(WARDEN, "новый приказ").prohibit(WARDEN, "не сидеть")
    log.prohibit(WARDEN, "не бегать")
    actions, engine = run("", log)
    assert [p["text"] for p in engine.public_state()["prohibitions"]] == ["не прыгать", "не сидеть"]
    assert [(a.action, a.rule) for a in actions] == [("warn", "prohibitions.max"), ("cancel", "prohibitions.max")]
    warn, cancel = actions
    assert warn.target.userid == WARDEN.userid and warn.ref == "6.3"
    assert "не бегать" in warn.reason and "6.3" in warn.reason
    assert cancel.index == 3


def test_lifting_a_prohibition_makes_room():
    log, _ = setup()
    log.prohibit(WARDEN, "a").prohibit(WARDEN, "b").trig(WARDEN, "jb_prohibit_lift", ' (index "1")')
    log.prohibit(WARDEN, "c")
    actions, engine = run("", log)
    assert actions == []
    assert [p["text"] for p in engine.public_state()["prohibitions"]] == ["b", "c"]


def test_freeday_allows_three_prohibitions():
    log, _ = setup(rounds_before=0)  # round 1: Monday, a freeday
    for text in ("a", "b", "c"):
        log.prohibit(WARDEN, text)
    actions, engine = run("", log)
    assert engine.public_state()["day"] == 1
    assert actions == []
    log.prohibit(WARDEN, "d")
    actions, _ = run("", log)
    assert [a.action for a in actions if a.rule == "prohibitions.max"] == ["warn", "cancel"]


def test_004_caps_prohibitions_only_during_a_game():
    """004 6.3 «Во время одной игры разрешается установить одновременно не более двух запретов»."""
    cfg = "[prohibitions.max]\nonly_during_game = true\nfreeday_limit = 2\n"
    log, _ = setup()
    log.prohibit(WARDEN, "a").prohibit(WARDEN, "b").prohibit(WARDEN, "c")
    assert run(cfg, log)[0] == []
    log.game(WARDEN, "Светофор").prohibit(WARDEN, "d")
    actions, _ = run(cfg, log)
    assert [(a.action, a.rule) for a in actions] == [("warn", "prohibitions.max"), ("cancel", "prohibitions.max")]


def test_001_has_no_cap_but_three_on_a_freeday():
    """001 ФД 3 «Начальник может добавить 3 ограничения к стандартным»; no cap otherwise."""
    cfg = "[prohibitions.max]\nlimit = 0\nfreeday_limit = 3\n"
    log, _ = setup()
    for text in "abcde":
        log.prohibit(WARDEN, text)
    assert run(cfg, log)[0] == []
    log.round_end().round_start().warden(WARDEN).trig(WARDEN, "jb_freeday", ' (scope "all")')
    for text in "abcd":
        log.prohibit(WARDEN, text)
    actions, _ = run(cfg, log)
    assert [a.action for a in actions] == ["warn", "cancel"] and actions[1].index == 4
