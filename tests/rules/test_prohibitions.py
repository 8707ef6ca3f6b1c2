"""Scenarios for prohibitions.max: 004 6.3, 001 ФД 3, written from the rulebooks."""

from __future__ import annotations

from tests.logtext import run
from tests.scenes import WARDEN, setup


def test_6_3_ladder_a_warning_first_then_the_extra_prohibition_cancelled():
    """004 6.3 «Наказание: устное предупреждение → отмена лишнего запрета»: the first extra
    prohibition earns a warning and stands; the next one is cancelled."""
    log, _ = setup()
    log.game(WARDEN, "Светофор").prohibit(WARDEN, "a").prohibit(WARDEN, "b").prohibit(WARDEN, "c")
    cfg = '[prohibitions.max]\nladder = ["warn", "cancel"]\n'
    actions, engine = run(cfg, log)
    assert [(a.action, a.rule) for a in actions] == [("warn", "prohibitions.max")]
    assert [p["text"] for p in engine.public_state()["prohibitions"]] == ["a", "b", "c"]
    log.start_here().prohibit(WARDEN, "d")
    actions, engine = run(cfg, log)
    assert [(a.action, a.rule, a.index) for a in actions] == [("cancel", "prohibitions.max", 4)]
    assert [p["text"] for p in engine.public_state()["prohibitions"]] == ["a", "b", "c"]


def test_third_prohibition_is_refused_with_warning_and_cancel():
    log, _ = setup()
    log.prohibit(WARDEN, "не прыгать").order(WARDEN, "новый приказ").prohibit(WARDEN, "не сидеть")
    log.prohibit(WARDEN, "не бегать")
    actions, engine = run('[prohibitions.max]\nladder = ["warn"]\n', log)
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
    actions, _ = run('[prohibitions.max]\nladder = ["warn"]\n', log)
    assert [a.action for a in actions if a.rule == "prohibitions.max"] == ["warn", "cancel"]


def test_004_caps_prohibitions_only_during_a_game():
    """004 6.3 «Во время одной игры разрешается установить одновременно не более двух запретов»."""
    cfg = '[prohibitions.max]\nonly_during_game = true\nfreeday_limit = 2\nladder = ["warn"]\n'
    log, _ = setup()
    log.prohibit(WARDEN, "a").prohibit(WARDEN, "b").prohibit(WARDEN, "c")
    assert run(cfg, log)[0] == []
    log.game(WARDEN, "Светофор").prohibit(WARDEN, "d")
    actions, _ = run(cfg, log)
    # four standing, one set during the game: «установить» read as standing, an admin's call (issue 31)
    assert [(a.action, a.rule) for a in actions] == [("propose", "prohibitions.max")]
    log2, _ = setup()
    log2.game(WARDEN, "Светофор").prohibit(WARDEN, "a").prohibit(WARDEN, "b").prohibit(WARDEN, "c")
    actions, _ = run(cfg, log2)
    assert [(a.action, a.rule) for a in actions] == [("warn", "prohibitions.max"), ("cancel", "prohibitions.max")]


def test_001_has_no_cap_but_three_on_a_freeday():
    """001 ФД 3 «Начальник может добавить 3 ограничения к стандартным»; no cap otherwise."""
    cfg = '[prohibitions.max]\nlimit = 0\nfreeday_limit = 3\nladder = ["warn"]\n'
    log, _ = setup()
    for text in "abcde":
        log.prohibit(WARDEN, text)
    assert run(cfg, log)[0] == []
    log.round_end().round_start().warden(WARDEN).trig(WARDEN, "jb_freeday", ' (scope "all")')
    for text in "abcd":
        log.prohibit(WARDEN, text)
    actions, _ = run(cfg, log)
    assert [a.action for a in actions] == ["warn", "cancel"] and actions[1].index == 4


def test_fd_3_counts_the_three_added_in_the_freeday_not_those_before_it():
    """001 ФД 3 «Начальник может добавить 3 ограничения к стандартным»: prohibitions set
    before a general freeday began are not among the three it lets him add."""
    log, _ = setup()
    log.prohibit(WARDEN, "a").prohibit(WARDEN, "b").trig(WARDEN, "jb_freeday", ' (scope "all")')
    for text in "cde":
        log.prohibit(WARDEN, text)
    cfg = '[server]\nrulebook = ["001"]\n'
    assert [a for a in run(cfg, log)[0] if a.rule == "prohibitions.max"] == []
    log.trig(WARDEN, "jb_prohibit_lift", ' (index "1")').prohibit(WARDEN, "f")  # a lift of one before: still three added
    actions, _ = run(cfg, log)
    assert [(a.action, a.to_json().get("index")) for a in actions if a.rule == "prohibitions.max"] == [("warn", None), ("cancel", 5)]
