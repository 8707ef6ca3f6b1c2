"""Scenarios for fairness.freekill: 004 4.5, written from the rulebooks."""

from __future__ import annotations

import pytest

from jailcore.engine.actions import render
from tests.logtext import run
from tests.scenes import ADMIN, WARDEN, setup


def test_n8_freekill_and_freedamage_compensation():
    """004 4.5: FreeKill 100$ and the prisoner «самостоятельно выбирает между возрождением и
    Свободным днём»; FreeDamage 50$."""
    log, ts = setup()
    log.kill(WARDEN, ts[0]).start_here()
    log.trig(ADMIN, "jb_freekill", f' (victim "#{ts[0].userid}") (kind "kill")')
    log.trig(ADMIN, "jb_freekill", f' (victim "#{ts[1].userid}") (kind "damage")')
    actions, _ = run("[fairness.guard_freekill]\nenabled = false\n", log)  # 004 has no punishment of the guard
    assert [(a.action, a.to_json().get("amount"), a.target.userid) for a in actions] == [
        ("money", 100, ts[0].userid), ("offer", None, ts[0].userid), ("money", 50, ts[1].userid)
    ]
    assert render(actions[1]) == f'jb_fk_offer #{ts[0].userid} "{actions[1].reason}"'


@pytest.mark.parametrize(("choice", "then"), [("respawn", ["respawn"]), ("freeday", ["freeday"])])
def test_n8_the_prisoner_chooses_respawn_or_freeday(choice, then):
    log, ts = setup()
    log.kill(WARDEN, ts[0]).trig(ADMIN, "jb_freekill", f' (victim "#{ts[0].userid}") (kind "kill")').start_here()
    log.trig(ts[0], "jb_fk_choice", f' (choice "{choice}")')
    actions, _ = run("", log)
    assert [a.action for a in actions] == then


def test_n8_no_choice_before_the_round_ends_gives_the_freeday():
    """«Если возрождение невозможно по правилам, автоматически выдаётся Свободный день»."""
    log, ts = setup()
    log.kill(WARDEN, ts[0]).trig(ADMIN, "jb_freekill", f' (victim "#{ts[0].userid}") (kind "kill")').start_here()
    log.round_end().round_start()
    actions, _ = run("", log)
    assert [a.action for a in actions] == ["freeday", "say"] and ts[0].name in actions[-1].reason


def test_n8_freekill_after_the_round_gives_a_freeday_next_round():
    log, ts = setup()
    log.kill(WARDEN, ts[0]).round_end().start_here()
    log.trig(ADMIN, "jb_freekill", f' (victim "#{ts[0].userid}") (kind "kill")').round_start()
    actions, _ = run("[fairness.guard_freekill]\nenabled = false\n", log)  # 004 has no punishment of the guard
    assert [a.action for a in actions] == ["money", "freeday", "say"]
    assert ts[0].name in actions[-1].reason


def test_001_guards_11_a_confirmed_freekill_climbs_the_guards_ladder():
    """001 Охрана 11 (Запрещено) «Убивать, Ранить игроков и выдать ФД без причины. [Кик, Бан
    до 30 минут, Запрет за Кт]»: the admin's confirmation (`!fk`) is the finding; the guard
    who last hurt the prisoner climbs his ladder."""
    log, ts = setup()
    log.kill(WARDEN, ts[0]).start_here()
    log.trig(ADMIN, "jb_freekill", f' (victim "#{ts[0].userid}") (kind "kill")')
    actions, _ = run('[server]\nrulebook = ["001"]\n', log)
    assert [(a.action, a.rule, a.ref, a.target.userid) for a in actions] == [("kick", "fairness.guard_freekill", "Охрана 11", WARDEN.userid)]
