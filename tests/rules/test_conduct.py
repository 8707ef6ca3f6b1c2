"""Scenarios for conduct.*: 001 privileges 1, general 16, 17, 19, 22, written from the rulebooks."""

from __future__ import annotations

import pytest

from tests.logtext import P, run
from tests.scenes import WARDEN, rules_of, setup


@pytest.mark.parametrize(("kind", "before_order", "slain"), [("hook", True, True), ("money", True, False), ("hook", False, False)])
def test_n12_privileges_before_the_first_order(kind, before_order, slain):
    log, ts = setup()
    if not before_order:
        log.order(WARDEN, "стоять")
    log.start_here().trig(ts[0], "jb_privilege", f' (kind "{kind}")')
    actions, _ = run("", log)
    assert rules_of(actions) == ([("slay", "conduct.privileges")] if slain else [])


def test_n13_team_kill_ladder_and_special_day_exception():
    log, ts = setup()
    log.kill(ts[0], ts[1]).kill(ts[0], ts[2])
    actions, _ = run("", log)
    assert rules_of(actions) == [("slay", "conduct.teamkill"), ("kick", "conduct.teamkill")]
    log, ts = setup()
    log.specialday(WARDEN, "Голодные игры").kill(ts[0], ts[1])
    actions, _ = run("", log)
    assert actions == []


def test_n14_advertising_is_a_permanent_ban():
    log, ts = setup()
    log.say(ts[0], "заходите на наш сервер 212.129.25.133:27015").say(ts[1], "в 20.30 играем")
    actions, _ = run("", log)
    assert [(a.action, a.rule, a.minutes, a.target.userid) for a in actions] == [("ban", "conduct.advertising", 0, ts[0].userid)]


@pytest.mark.parametrize(
    ("name", "kicked"),
    [("[ADMIN] Вася", True), ("(Админ)Петя", True), ("♥♥♥", True), ("Начальник", True), ("Вася", False), ("Admiral", False)],
)
def test_n14_impersonating_or_unreadable_names(name, kicked):
    log, _ = setup()
    log.connect(P(name, 70, "STEAM_1:0:7070"), "TERRORIST")
    actions, _ = run("", log)
    assert rules_of(actions) == ([("kick", "conduct.names")] if kicked else [])


@pytest.mark.parametrize(("grenades", "slain"), [(3, False), (4, True)])
def test_n15_grenade_spam(grenades, slain):
    log, ts = setup()
    for _ in range(grenades):
        log.add(f'{ts[0].ident()} threw hegrenade [1 2 3]')
    actions, _ = run("", log)
    assert rules_of(actions) == ([("slay", "conduct.grenade_spam")] if slain else [])
