"""Opt-in rules of rulebook 001 that the log and the shim can show, each scenario quoting
its clause: privileges during games (Привилегии 3, Хук 7), one wish per duel (ПЗ 2), what a
duel may be played for (Дуэли 4), the prisoners' head start in a global game (Глобальные 2)."""

from __future__ import annotations

import pytest

from tests.logtext import run
from tests.scenes import GUARD, WARDEN, rules_of, setup

ONLY = '[server]\nrulebook = []\n'


# Привилегии 3 «Любые привилегии во время любых игр (мини игры Начальника, глобальные и
# тд.) [Предупреждение/Убийство игрока/Снятие привилегий]»; Хук 7 «Использовать во время
# любых игр (мини игры Начальника, глобальные и тд.)».
@pytest.mark.parametrize(("kind", "in_game", "ref"), [("hook", True, "Хук 7"), ("money", True, "Привилегии 3"),
                                                      ("hook", False, None), ("voice", False, None)])
def test_privileges_3_and_hook_7_no_privilege_during_a_game(kind, in_game, ref):
    log, ts = setup()
    log.order(WARDEN, "стоять")
    if in_game:
        log.game(WARDEN, "Саймон говорит")
    log.start_here().trig(ts[0], "jb_privilege", f' (kind "{kind}")')
    actions, _ = run(ONLY + "[conduct.game_privileges]\n", log)
    assert [(a.action, a.rule, a.ref) for a in actions] == ([("warn", "conduct.game_privileges", ref)] if ref else [])


def test_privileges_3_after_the_game_ended_is_allowed():
    log, ts = setup()
    log.order(WARDEN, "стоять").game(WARDEN, "Саймон говорит").trig(WARDEN, "jb_game_end")
    log.start_here().trig(ts[0], "jb_privilege", ' (kind "hook")')
    assert run(ONLY + "[conduct.game_privileges]\n", log)[0] == []


# ПЗ 2 «Одна дуэль с Охранником - одно желание заключённого».
def test_pz_2_one_wish_per_duel():
    log, ts = setup(prisoners=1)
    log.start_here().trig(ts[0], "jb_lr", ' (choice "дуэль на ножах на фд")').trig(ts[0], "jb_lr", ' (choice "и ещё голос")')
    actions, _ = run(ONLY + "[lastrequest.one_wish]\n", log)
    (a,) = actions
    assert (a.action, a.rule, a.target.userid) == ("warn", "lastrequest.one_wish", ts[0].userid) and "ПЗ 2" in a.reason


def test_pz_2_a_duel_won_earns_the_next_wish():
    log, ts = setup(prisoners=1)
    log.start_here().trig(ts[0], "jb_lr", ' (choice "дуэль на ножах")').kill(ts[0], GUARD, "knife")
    log.trig(ts[0], "jb_lr", ' (choice "дуэль с начальником на дигле")')
    assert run(ONLY + "[lastrequest.one_wish]\n", log)[0] == []


# Дуэли 4 «Дуэль можно играть только на одиночное Фд, Голос, деньги (себе или другому
# заключенному). А так же, просто так.» «Дуэль на дробовиках играется ПРОСТО ТАК.»
@pytest.mark.parametrize(("choice", "warned"), [
    ("дуэль на ножах на фд", False), ("дуэль на диглах на голос", False), ("дуэль на awp на 5000$", False),
    ("дуэль на ножах на фд Васе", False), ("дуэль на ножах просто так", False), ("дуэль на дробовиках", False),
    ("дуэль на ножах на общее фд", True), ("дуэль на диглах на фд всем", True), ("дуэль на ножах на бессмертие", True),
    ("дуэль на ножах за кт", True), ("дуэль на дробовиках на фд", True), ("shotgun duel for voice", True),
])
def test_duels_4_what_a_duel_may_be_played_for(choice, warned):
    log, ts = setup(prisoners=1)
    log.start_here().trig(ts[0], "jb_lr", f' (choice "{choice}")')
    actions, _ = run(ONLY + "[lastrequest.duel_stakes]\n", log)
    assert rules_of(actions) == ([("warn", "lastrequest.duel_stakes")] if warned else [])


# Глобальные 2 «После открытия клеток, дать заключенным от 15 до 30 секунд, чтобы
# разбежаться.» [Перевод за Заключенных, Запрет за Охрану]
@pytest.mark.parametrize(("wait", "rebel", "moved"), [(5, False, True), (14, False, True), (15, False, False), (5, True, False)])
def test_global_2_the_prisoners_head_start(wait, rebel, moved):
    log, ts = setup()
    log.game(WARDEN, "Прятки")
    if rebel:
        log.add(f'{ts[0].ident()} attacked {GUARD.ident("CT")} with "glock" (damage "20") (damage_armor "0") (health "80") (armor "0") (hitgroup "chest")')
    log.wait(wait - 1 if not rebel else wait - 2).start_here().kill(GUARD, ts[0], "m4a1")
    actions, _ = run(ONLY + "[games.head_start]\n", log)
    assert rules_of(actions) == ([("teamswap", "games.head_start")] if moved else [])


def test_global_2_is_about_global_games_only():
    log, ts = setup()
    log.game(WARDEN, "Саймон говорит").start_here().kill(GUARD, ts[0], "m4a1")
    assert run(ONLY + "[games.head_start]\n", log)[0] == []
