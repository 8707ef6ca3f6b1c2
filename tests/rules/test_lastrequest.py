"""Scenarios for lastrequest.timeout (001 ПЗ 1) and lastrequest.guard_suicide (004 4.12), written from the rulebooks."""

from __future__ import annotations

import pytest

from tests.logtext import run
from tests.scenes import GUARD, WARDEN, rules_of, setup


def last_prisoner():
    log, ts = setup(prisoners=6)
    for t in ts[1:]:
        log.kill(WARDEN, t)
    return log, ts


@pytest.mark.parametrize(("seconds", "late"), [(10, False), (11, True)])
def test_n6_ten_seconds_to_choose(seconds, late):
    log, _ = last_prisoner()
    log.start_here().wait(seconds - 1).say(GUARD, "ну?")
    actions, _ = run("", log)
    assert rules_of(actions) == ([("say", "lastrequest.timeout")] if late else [])


def test_n6_a_request_in_time_stops_the_clock():
    log, ts = last_prisoner()
    log.wait(5).trig(ts[0], "jb_lr", ' (choice "дуэль")').start_here().wait(30).say(GUARD, "x")
    actions, _ = run("", log)
    assert actions == []


def test_n7_a_guard_who_dies_on_purpose_pays_the_last_prisoner():
    log, ts = last_prisoner()
    log.trig(ts[0], "jb_lr", ' (choice "дуэль")').start_here().suicide(GUARD)
    actions, _ = run("", log)
    assert [(a.action, a.rule, a.amount, a.target.userid) for a in actions] == [
        ("money", "lastrequest.guard_suicide", 100, ts[0].userid)
    ]


@pytest.mark.parametrize("how", ["team", "disconnect"])
def test_n6_the_clock_starts_however_the_second_last_prisoner_goes(how):
    """001 ПЗ 1 «ПЗ имеет 10 секунд на выбор желания»: the last prisoner is last whether the
    one before him was killed, moved to another team or left the server."""
    log, ts = setup(prisoners=6)
    for t in ts[2:]:
        log.kill(WARDEN, t)
    if how == "team":
        log.join(ts[1], "Spectator")
    else:
        log.disconnect(ts[1])
    log.start_here().wait(11).say(GUARD, "ну?")
    actions, _ = run("", log)
    assert rules_of(actions) == [("say", "lastrequest.timeout")]
    assert ts[0].name in actions[0].reason
