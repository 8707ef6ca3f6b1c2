"""Scenarios for ctban and ctban.return_block: the door to CT, written from the rulebooks."""

from __future__ import annotations

from tests.logtext import run
from tests.scenes import WARDEN, setup


def test_ct_ban_in_minutes_answers_a_join_with_time_left():
    log, _ = setup()
    log.specialday(WARDEN).specialday(WARDEN).specialday(WARDEN)  # allowed, slay, ctban 30m
    log.wait(60 * 10).join(WARDEN, "CT")
    quiet = "[teams.no_warden]\nenabled = false\n"  # half an hour with no warden would climb that ladder too
    actions, _ = run(quiet, log)
    assert [(a.action, a.rule) for a in actions[-1:]] == [("teamswap", "ctban")]
    assert "20 мин" in actions[-1].reason
    log.wait(60 * 25).join(WARDEN, "CT")
    actions2, _ = run(quiet, log)
    assert len(actions2) == len(actions)  # the ban has run out: no answer
