"""Scenarios for warden.immortality (001 warden 8) and warden.last_prisoner (001 warden
must 3), written from the rulebooks."""

from __future__ import annotations

import pytest

from tests.logtext import run
from tests.scenes import GUARD, WARDEN, rules_of, setup


def test_n17_warden_immortality_at_most_twice_a_week():
    log, _ = setup()
    for _ in range(3):
        log.order(WARDEN, "x").trig(WARDEN, "jb_privilege", ' (kind "immortality")').round_end().round_start().warden(WARDEN)
    actions, _ = run("", log)
    assert rules_of(actions) == [("slay", "warden.immortality")]


# --- 001 warden must 3 «Оставить одного заключенного в живых» -------------------------------


def two_left():
    log, ts = setup(prisoners=3)
    log.kill(WARDEN, ts[2])
    return log, ts


def test_the_warden_who_kills_the_last_prisoner_before_his_request_is_punished():
    log, ts = two_left()
    log.kill(GUARD, ts[1]).wait(3).kill(WARDEN, ts[0])
    actions, _ = run("", log)
    assert [(a.action, a.rule, a.target.userid) for a in actions if a.rule == "warden.last_prisoner"] == [
        ("warn", "warden.last_prisoner", WARDEN.userid)
    ]


@pytest.mark.parametrize("how", ["chose", "late", "rebelled"])
def test_the_last_prisoner_may_be_killed_after_his_request_his_time_or_his_rebellion(how):
    log, ts = two_left()
    log.kill(GUARD, ts[1])
    if how == "chose":
        log.trig(ts[0], "jb_lr", ' (choice "дуэль")')
    elif how == "late":
        log.wait(11)  # 001 ПЗ 1: ten seconds to choose
    else:
        log.add(f'{ts[0].ident()} [1 2 3] attacked {GUARD.ident()} [4 5 6] with "glock" (damage "10") (damage_armor "0") '
                '(health "90") (armor "0") (hitgroup "chest")')  # ПЗ 4: rebels instead of wishing
    log.kill(WARDEN, ts[0])
    actions, _ = run("", log)
    assert [a for a in actions if a.rule == "warden.last_prisoner"] == []
