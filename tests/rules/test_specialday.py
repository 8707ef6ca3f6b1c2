"""Scenarios for specialday.cooldown: 000 6.5, and the ladder it climbs, written from the rulebooks."""

from __future__ import annotations

from tests.logtext import run
from tests.scenes import GUARD, WARDEN, next_day, setup


def test_specialday_cooldown_boundary_r2_refused_r3_allowed():
    log, _ = setup()  # round 2
    log.specialday(WARDEN).round_end()
    log.round_start().round_end()  # round 3 = R+1
    log.round_start().warden(WARDEN).specialday(WARDEN, "Голодные игры")  # round 4 = R+2
    actions, engine = run("", log)
    assert [(a.action, a.rule, a.ref, a.round) for a in actions] == [("slay", "specialday.cooldown", "6.5", 4)]
    # 000 6.5 «раз в 3 раунда»: the refused day was played all the same, so the count starts again from it
    assert "1" in actions[0].reason and engine.public_state()["specialday"] == 4
    log.round_end().round_start().warden(WARDEN).specialday(WARDEN, "Голодные игры")  # round 5: one after the day played in 4
    actions, engine = run("", log)
    assert [(a.action, a.round) for a in actions] == [("slay", 4), ("ctban", 5), ("teamswap", 5)]
    log.round_end().rounds(2).round_start().warden(GUARD).specialday(GUARD, "Прятки")  # round 8 = 5 + 3
    actions, engine = run("", log)
    assert [a for a in actions[3:] if a.rule == "specialday.cooldown"] == [] and engine.public_state()["specialday"] == 8


def test_ladder_climbs_per_offender():
    log, _ = setup()
    # the first is allowed; each later one, a round apart, climbs the warden's ladder
    log.specialday(WARDEN)
    next_day(log).specialday(WARDEN)
    next_day(log).specialday(WARDEN)
    next_day(log, GUARD).specialday(GUARD)
    actions, engine = run("", log)
    steps = [(a.action, a.target.userid) for a in actions]
    assert steps == [
        ("slay", WARDEN.userid),
        ("ctban", WARDEN.userid),
        ("teamswap", WARDEN.userid),
        ("slay", GUARD.userid),  # the guard starts his own ladder
    ]
    assert actions[1].minutes == 30
    assert [b["steamid"] for b in engine.public_state()["ctbans"]] == [WARDEN.steamid]


def test_a_special_day_announced_twice_in_its_round_is_judged_once():
    """000 6.5 «Особые дни разрешены раз в 3 раунда»: a day is a round; the same day
    announced again in it is not another special day."""
    log, _ = setup()
    log.specialday(WARDEN).specialday(WARDEN, "Прятки")
    next_day(log).specialday(WARDEN).wait(5).specialday(WARDEN)
    actions, _ = run("", log)
    assert [(a.action, a.round) for a in actions] == [("slay", 3)]
