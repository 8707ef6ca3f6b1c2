"""Scenarios for the game week: calendar.freeday (001 ФД 1), calendar.global_games (001 global 1),
calendar.rebellion (001 prisoners 5, general 9), calendar.personal_freeday (001 ФД 8), the
round counter, written from the rulebooks."""

from __future__ import annotations

import pytest

from tests.logtext import Log, run
from tests.scenes import GUARD, WARDEN, rules_of, setup


def test_monday_is_announced_as_freeday_every_week():
    log = Log().rounds(8)
    actions, engine = run("", log)
    says = [a for a in actions if a.action == "say"]
    assert [(a.round, a.rule) for a in says] == [(1, "calendar.freeday"), (8, "calendar.freeday")]
    assert engine.public_state()["round"] == 8 and engine.public_state()["day"] == 1


def test_restart_round_and_warmup_do_not_count_as_days():
    log = Log().rounds(2).round_start().add('World triggered "Restart_Round_(1_second)"').round_start()
    _, engine = run("", log)
    assert engine.public_state()["round"] == 3
    log.round_end().add('World triggered "Game_Commencing"').add('World triggered "Warmup_Start"')
    log.round_start().round_end().add('World triggered "Warmup_End"').round_start()
    _, engine = run("", log)
    assert engine.public_state()["round"] == 4


@pytest.mark.parametrize(("reset", "expected"), [(True, 1), (False, 4)])
def test_map_change_resets_the_counter_only_when_configured(reset, expected):
    log = Log().rounds(3).add('Loading map "jb_summer_jail_v3"').add('Started map "jb_summer_jail_v3" (CRC "1")')
    log.round_start()
    _, engine = run(f"[calendar]\nreset_on_map_change = {str(reset).lower()}", log)
    assert engine.public_state()["round"] == expected


def test_order_or_game_on_monday_breaks_the_freeday():
    log, _ = setup(rounds_before=0)
    log.game(WARDEN, "Математика")
    actions, engine = run("", log)
    assert [(a.action, a.rule) for a in actions if a.rule != "calendar.freeday" or a.action != "say"] == [
        ("warn", "calendar.freeday")
    ]
    assert engine.public_state()["game"] is None


def test_third_global_game_in_a_week_is_punished():
    log, _ = setup()
    for _ in range(2):
        log.game(WARDEN, "Прятки").round_end().round_start().warden(WARDEN)
    log.game(WARDEN, "Голодные игры")
    actions, engine = run("", log)
    assert [(a.action, a.rule) for a in actions] == [("teamswap", "calendar.global_games")]
    assert engine.public_state()["global_games"] == 2


def test_rebellion_two_days_in_a_row_is_banned():
    log, ts = setup()
    log.kill(ts[0], GUARD).round_end().round_start().kill(ts[0], GUARD)
    actions, _ = run('[calendar.rebellion]\nconfirm = "none"\n', log)
    assert [(a.action, a.rule, a.minutes, a.target.userid) for a in actions] == [
        ("ban", "calendar.rebellion", 10, ts[0].userid)
    ]
    # a 10-minute ban on a reading of damage lines waits for an admin by default
    actions, _ = run("", log)
    assert [(a.action, a.step, a.target.userid) for a in actions] == [("propose", "ban 10m", ts[0].userid)]


def test_rebellion_with_a_day_between_is_allowed():
    log, ts = setup()
    log.kill(ts[0], GUARD).round_end().rounds(1).round_start().kill(ts[0], GUARD)
    actions, _ = run("", log)
    assert actions == []


def test_n16_a_personal_freeday_once_a_game_week():
    """001 ФД 8 «Приобретать ФД чаще, чем раз в неделю»: the freeday is taken from the
    prisoner (not a punishment of the warden who gave it)."""
    log, ts = setup()
    fd = f' (scope "personal") (target "#{ts[0].userid}")'
    log.trig(WARDEN, "jb_freeday", fd).round_end().round_start().warden(WARDEN).trig(WARDEN, "jb_freeday", fd)
    actions, _ = run("", log)
    assert rules_of(actions) == [("say", "calendar.personal_freeday"), ("warn", "calendar.personal_freeday")]
    assert actions[1].target.userid == ts[0].userid and "ФД снят" in actions[1].reason
    log.start_here().rounds(7).round_start().warden(WARDEN).trig(WARDEN, "jb_freeday", fd)  # the next week
    actions, _ = run("", log)
    assert [a for a in actions if a.rule == "calendar.personal_freeday"] == []


def test_n19_a_grenade_at_guards_counts_as_rebellion():
    log, ts = setup()
    attack = (
        f'{ts[0].ident()} [1 2 3] attacked {GUARD.ident()} [4 5 6] with "hegrenade" '
        '(damage "40") (damage_armor "0") (health "60") (armor "0") (hitgroup "generic")'
    )
    log.add(attack).round_end().round_start().add(attack)
    actions, _ = run('[calendar.rebellion]\nconfirm = "none"\n', log)
    assert rules_of(actions) == [("ban", "calendar.rebellion")]


def test_n16_a_freeday_won_in_a_duel_is_not_taken():
    """001 ФД 8 «(Исключение: выигрыш в дуэли)»."""
    log, ts = setup(prisoners=2)
    fd = f' (scope "personal") (target "#{ts[0].userid}")'
    log.trig(WARDEN, "jb_freeday", fd).kill(WARDEN, ts[1]).trig(ts[0], "jb_lr", ' (choice "дуэль")').kill(ts[0], GUARD)
    log.round_end().round_start().warden(WARDEN).trig(WARDEN, "jb_freeday", fd)
    actions, _ = run("", log)
    assert [a for a in actions if a.rule == "calendar.personal_freeday"] == []


@pytest.mark.parametrize("day", ["special", "global"])
def test_fighting_guards_on_a_special_day_or_in_a_global_game_is_no_rebellion(day):
    """001 prisoners 5 counts rebellions; a special day or a global game («Прятки») sets
    prisoners against the guards by design."""
    log, ts = setup()
    for _ in range(2):
        if day == "special":
            log.specialday(WARDEN, "Голодные игры")
        else:
            log.game(WARDEN, "Прятки")
        log.kill(ts[0], GUARD).round_end().round_start().warden(WARDEN)  # the next day
    actions, _ = run("[specialday.cooldown]\nrounds = 1\n", log)
    assert [a for a in actions if a.rule == "calendar.rebellion"] == []
    log.kill(ts[0], GUARD)  # a plain day right after: this one counts, but only once
    actions, _ = run("[specialday.cooldown]\nrounds = 1\n", log)
    assert [a for a in actions if a.rule == "calendar.rebellion"] == []
