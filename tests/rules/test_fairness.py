"""Scenarios for fairness.freekill: 004 4.5, written from the rulebooks."""

from __future__ import annotations

from tests.logtext import run
from tests.scenes import ADMIN, WARDEN, setup


def test_n8_freekill_and_freedamage_compensation():
    log, ts = setup()
    log.kill(WARDEN, ts[0]).start_here()
    log.trig(ADMIN, "jb_freekill", f' (victim "#{ts[0].userid}") (kind "kill")')
    log.trig(ADMIN, "jb_freekill", f' (victim "#{ts[1].userid}") (kind "damage")')
    actions, _ = run("", log)
    assert [(a.action, a.amount, a.target.userid) for a in actions] == [
        ("money", 100, ts[0].userid), ("respawn", None, ts[0].userid), ("money", 50, ts[1].userid)
    ]


def test_n8_freekill_after_the_round_gives_a_freeday_next_round():
    log, ts = setup()
    log.kill(WARDEN, ts[0]).round_end().start_here()
    log.trig(ADMIN, "jb_freekill", f' (victim "#{ts[0].userid}") (kind "kill")').round_start()
    actions, _ = run("", log)
    assert [a.action for a in actions] == ["money", "freeday", "say"]
    assert ts[0].name in actions[-1].reason
