"""Scenarios for warden.immortality: 001 warden 8, written from the rulebooks."""

from __future__ import annotations

from tests.logtext import run
from tests.scenes import WARDEN, rules_of, setup


def test_n17_warden_immortality_at_most_twice_a_week():
    log, _ = setup()
    for _ in range(3):
        log.order(WARDEN, "x").trig(WARDEN, "jb_privilege", ' (kind "immortality")').round_end().round_start().warden(WARDEN)
    actions, _ = run("", log)
    assert rules_of(actions) == [("slay", "warden.immortality")]
