"""Scenarios for calendar.freeday_end: 001 ФД 4 and ФД 5, written from the rulebooks."""

from __future__ import annotations

from tests.logtext import run
from tests.scenes import GUARD, WARDEN, rules_of, setup


def test_a_personal_freeday_ends_when_two_plain_prisoners_are_left():
    """001 ФД 4 «Персональное ФД забирается, если осталось 2 и менее простых заключенных»."""
    log, ts = setup(prisoners=5)
    log.trig(WARDEN, "jb_freeday", f' (scope "personal") (target "#{ts[0].userid}")')
    log.kill(GUARD, ts[1])  # plain prisoners left: 3
    assert [a for a in run("", log)[0] if a.rule == "calendar.freeday_end"] == []
    log.kill(GUARD, ts[2])  # 2 left
    actions, _ = run("", log)
    assert rules_of([a for a in actions if a.rule == "calendar.freeday_end"]) == [("say", "calendar.freeday_end")]
    assert ts[0].name in actions[-1].reason and "ФД 4" in actions[-1].reason


def test_the_general_freeday_may_be_taken_when_half_the_players_are_dead():
    """001 ФД 5 «Общее ФД можно забрать, если Половина/Большинство игроков - Мертвы»."""
    log, ts = setup(prisoners=6)  # 8 players with the two guards
    log.trig(WARDEN, "jb_freeday", ' (scope "all")')
    for t in ts[:3]:
        log.kill(GUARD, t)
    assert [a for a in run("", log)[0] if a.rule == "calendar.freeday_end"] == []
    log.kill(GUARD, ts[3])
    actions, _ = run("", log)
    said = [a for a in actions if a.rule == "calendar.freeday_end"]
    assert len(said) == 1 and "ФД 5" in said[0].reason and "4 из 8" in said[0].reason
