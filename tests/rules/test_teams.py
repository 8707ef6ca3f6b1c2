"""Scenarios for teams.balance (001 general 5) and teams.no_warden (004 4.4), written from the rulebooks."""

from __future__ import annotations

import pytest

from tests.logtext import run, team_of
from tests.scenes import GUARD, WARDEN, rules_of, setup


@pytest.mark.parametrize(("guards", "moved"), [(3, False), (4, True)])
def test_n10_at_most_one_guard_per_three_prisoners(guards, moved):
    log, _ = setup(prisoners=9)  # the warden and one guard already
    extra = team_of(guards - 2, "CT", start=60, prefix="G")
    for g in extra:
        log.connect(g, "CT")
    actions, _ = run("", log)
    assert [(a.action, a.rule, a.target.userid) for a in actions] == (
        [("teamswap", "teams.balance", extra[-1].userid)] if moved else []
    )


def test_n10_the_warden_is_never_the_one_moved():
    log, ts = setup(prisoners=6)
    for t in ts[:3]:
        log.disconnect(t)
    log.round_end().start_here().round_start()  # 3 prisoners, 2 guards: the newest non-warden goes
    actions, _ = run("", log)
    assert [(a.rule, a.target.userid) for a in actions if a.rule == "teams.balance"] == [("teams.balance", GUARD.userid)]


@pytest.mark.parametrize(("seconds", "expected"), [(30, []), (31, [("say", "teams.no_warden")])])
def test_n11_no_warden_ask(seconds, expected):
    log = setup()[0]
    log.round_end().round_start().start_here().wait(seconds - 1).say(GUARD, "кто начальник?")
    actions, _ = run("", log)
    assert rules_of(actions) == expected


def test_n11_then_the_longest_serving_guard_is_punished():
    log = setup()[0]
    log.round_end().round_start().wait(31).say(GUARD, "x").start_here().wait(30).say(GUARD, "y")
    actions, _ = run("", log)
    assert [(a.action, a.rule, a.target.userid) for a in actions] == [("teamswap", "teams.no_warden", WARDEN.userid)]
