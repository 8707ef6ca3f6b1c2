"""Lawful play at the edges of the rules (issue 18): every case below was once punished,
or once missed, and each quotes the clause that decides it."""

from __future__ import annotations

from pathlib import Path

import pytest

from jailcore.config.config import Config
from tests.logtext import run
from tests.scenes import ADMIN, GUARD, WARDEN, rules_of, setup

ROOT = Path(__file__).resolve().parents[2]
ATTACK = '{a} [1 2 3] attacked {v} [4 5 6] with "glock" (damage "{d}") (damage_armor "0") (health "{h}") (armor "0") (hitgroup "chest")'


def shipped(name: str) -> Config:
    return Config.from_toml(ROOT / "configs" / f"{name}.toml", env={})


def attack(log, attacker, victim, health=90):
    return log.add(ATTACK.format(a=attacker.ident(), v=victim.ident(), d=100 - health, h=health))


def punishing(actions):
    return [(a.action, a.rule) for a in actions if a.action not in ("say", "hud", "door")]


# --- 001 ФД 1 and ФД 5 -------------------------------------------------------------------


@pytest.mark.parametrize(("dead", "punished"), [(3, True), (4, False)])
def test_monday_freeday_may_be_taken_once_half_are_dead(dead, punished):
    """001 ФД 5 «Общее ФД можно забрать, если Половина/Большинство игроков - Мертвы»: of 8
    players (6 prisoners, 2 guards), 4 dead lets the warden give orders on Monday."""
    log, ts = setup(rounds_before=0)  # round 1: Monday
    for t in ts[:dead]:
        log.suicide(t)
    log.order(WARDEN, "все в клетку")
    actions, _ = run(shipped("server-a"), log)
    assert punishing(actions) == ([("teamswap", "calendar.freeday")] if punished else [])


# --- 000 Саймон «Убивает только Начальник (Исключение — Бунт)» ------------------------------


def test_only_the_warden_kills_means_the_warden_now_after_a_handover():
    log, ts = setup()
    log.game(WARDEN, "Саймон говорит").trig(WARDEN, "jb_warden_removed", ' (reason "resigned")').warden(GUARD)
    log.kill(GUARD, ts[0])
    actions, _ = run("", log)
    assert punishing(actions) == []


def test_a_prisoner_who_attacked_a_guard_earlier_in_the_round_is_a_rebel_in_simon():
    log, ts = setup()
    attack(log, ts[1], GUARD).game(WARDEN, "Саймон говорит").kill(GUARD, ts[1]).kill(GUARD, ts[2])
    actions, _ = run("[calendar.rebellion]\nenabled = false\n", log)
    assert [(a.action, a.rule, a.target.userid) for a in actions] == [("warn", "games.only_warden_kills", GUARD.userid)]


# --- 004 5.5 «не злоупотребляя однотипными играми и приказами» -----------------------------


def test_a_repeat_is_the_wardens_own_streak_not_the_servers():
    log, _ = setup(rounds_before=0)
    for _ in range(2):
        log.round_end().round_start().warden(GUARD).game(GUARD, "Светофор")
    log.round_end().round_start().warden(WARDEN).game(WARDEN, "Светофор")
    actions, _ = run("", log)
    assert [a for a in actions if a.rule == "games.repeat"] == []
    log.round_end().round_start().warden(WARDEN).game(WARDEN, "Светофор")
    log.round_end().round_start().warden(WARDEN).game(WARDEN, "светофор")
    actions, _ = run("", log)
    assert [(a.action, a.target.userid, a.round) for a in actions if a.rule == "games.repeat"] == [("warn", WARDEN.userid, 6)]


@pytest.mark.parametrize("orders", [False, True])
def test_the_same_order_round_after_round_is_read_only_when_asked(orders):
    log, _ = setup(rounds_before=0)
    for _ in range(3):
        log.round_end().round_start().warden(WARDEN).order(WARDEN, "Все в клетку")
    log.round_end()
    actions, _ = run(f"[games.repeat]\norders = {str(orders).lower()}\n", log)
    # (issue 31: the round's whole programme, a question for an admin at its end, never a warning)
    assert [(a.action, a.rule, a.round) for a in actions if a.rule == "games.repeat"] == ([("propose", "games.repeat", 4)] if orders else [])


# --- 000 Математика «Н пишет в чат математический пример, а З пишут ответ» ------------------


def test_a_guards_answer_does_not_win_a_chat_game():
    log, ts = setup()
    log.game(WARDEN, "Математика").say(WARDEN, "2+2*2").say(GUARD, "6").say(ts[0], "6")
    actions, _ = run("[server]\nlanguage = 'en'\n", log)
    (verdict,) = [a.reason for a in actions if a.rule == "referee"]
    assert "first right answer by T0" in verdict and GUARD.name not in verdict


# --- 000 Король, Морской бой: «до уничтожения половины заключенных» -------------------------


def test_sea_battle_last_cell_may_take_more_than_half():
    """000 Морской бой: the admiral names a cell, «Н убивают всех, кто находится в выбранной
    камере… Игра ведется до уничтожения половины»: the last cell may pass the half."""
    log, ts = setup(6)
    log.game(WARDEN, "Морской бой").kill(GUARD, ts[0]).wait(20).kill(GUARD, ts[1]).kill(GUARD, ts[2]).kill(WARDEN, ts[3])
    actions, engine = run("", log)
    assert punishing(actions) == [] and engine.public_state()["game"] is None


def test_king_ended_by_its_host_and_a_rule_breaker_killed_later_is_not_the_games():
    """000 Король: the game is its host's until he ends it; after it the game's cap on
    prohibitions (004 6.3 «Во время одной игры») no longer applies either."""
    log, ts = setup(6)
    log.prohibit(WARDEN, "не прыгать").prohibit(WARDEN, "не бегать").game(WARDEN, "Король")
    log.kill(GUARD, ts[0]).kill(GUARD, ts[1]).kill(GUARD, ts[2]).wait(3).trig(WARDEN, "jb_game_end").wait(15).kill(GUARD, ts[3])
    log.prohibit(WARDEN, "не сидеть")
    actions, engine = run("[prohibitions.max]\nonly_during_game = true\n", log)
    assert punishing(actions) == [] and engine.public_state()["game"] is None


def test_king_a_kill_past_the_half_with_nothing_between_is_put_to_an_admin():
    """000 Король «В злом и добром короле запрещено убивать больше половины от играющих в
    него заключённых»; «Игра завершается тогда, когда умрет половина заключенных»: the
    fourth of six killed 40 s after the third, nothing else between, is put to an admin on
    the host's ladder, once (issue 31: not warned by itself; after a new order it would not
    be the game's)."""
    log, ts = setup(6)
    log.game(WARDEN, "Король").kill(GUARD, ts[0]).kill(GUARD, ts[1]).kill(GUARD, ts[2]).wait(40).kill(GUARD, ts[3]).kill(GUARD, ts[4])
    actions, _ = run("", log)
    assert [(a.action, a.rule, a.step) for a in actions] == [("propose", "games.deaths", "warn")] and actions[-1].target.userid == WARDEN.userid


def test_a_rebel_killed_during_king_is_not_one_of_its_dead():
    log, ts = setup(6)
    log.game(WARDEN, "Король")
    attack(log, ts[5], GUARD).kill(GUARD, ts[5]).kill(GUARD, ts[0]).kill(GUARD, ts[1])
    _, engine = run("[calendar.rebellion]\nenabled = false\n", log)
    assert engine.public_state()["game"]["name"] == "Король"  # 2 of 6 dead by the game: not yet half
    log.kill(GUARD, ts[2]).kill(GUARD, ts[3])
    actions, _ = run("[calendar.rebellion]\nenabled = false\n", log)
    assert [(a.action, a.rule) for a in actions if a.rule == "games.deaths"] == [("propose", "games.deaths")]


def test_a_last_request_overtakes_the_game():
    log, ts = setup(3)
    log.game(WARDEN, "Саймон говорит").kill(WARDEN, ts[1]).kill(WARDEN, ts[2]).trig(ts[0], "jb_lr", ' (choice "дуэль")')
    log.kill(GUARD, ts[0])
    actions, engine = run("", log)
    assert punishing(actions) == [] and engine.public_state()["game"] is None


# --- 001 Общие 7 is 001's own ---------------------------------------------------------------


@pytest.mark.parametrize(("server", "cleared"), [("server-a", True), ("server-b", False)])
def test_orders_end_with_the_warden_only_where_the_rulebook_says(server, cleared):
    """001 Общие 7 «После смерти начальника все приказы отменяются»; 004 has no such clause."""
    log, ts = setup()
    log.order(WARDEN, "все в клетку").kill(ts[0], WARDEN)
    _, engine = run(shipped(server), log)
    assert (engine.public_state()["orders"] == []) == cleared


# --- 001 ФД 8 «(Исключение: выигрыш в дуэли)» -------------------------------------------------


def test_a_lost_duel_does_not_exempt_the_second_freeday():
    log, ts = setup(prisoners=6)
    fd = f' (scope "personal") (target "#{ts[0].userid}")'
    log.trig(WARDEN, "jb_freeday", fd).round_end().round_start().warden(WARDEN)
    for t in ts[1:]:
        log.kill(WARDEN, t)
    log.trig(ts[0], "jb_lr", ' (choice "дуэль")').kill(GUARD, ts[0])
    log.round_end().round_start().warden(WARDEN).trig(WARDEN, "jb_freeday", fd)
    actions, _ = run("", log)
    assert [a.action for a in actions if a.rule == "calendar.personal_freeday"] == ["say", "warn"]


# --- 001 ПЗ 1 «[Убийство Охраной и выдача ФД, если зек не бунтует]» -------------------------


@pytest.mark.parametrize("rebelled", [False, True])
def test_the_last_prisoner_killed_after_his_time_is_owed_a_freeday(rebelled):
    log, ts = setup(prisoners=6)
    for t in ts[1:]:
        log.kill(WARDEN, t)
    log.wait(11).say(GUARD, "время вышло")
    if rebelled:
        attack(log, ts[0], GUARD)
    log.kill(GUARD, ts[0])
    actions, _ = run("[calendar.rebellion]\nenabled = false\n", log)
    given = [(a.action, a.target.userid) for a in actions if a.rule == "lastrequest.timeout" and a.action == "freeday"]
    assert given == ([] if rebelled else [("freeday", ts[0].userid)])


# --- 001 Глобальные 1 «Смотритель может дать разрешение» --------------------------------------


def test_an_admin_may_allow_a_third_global_game():
    log, _ = setup(rounds_before=1)
    for game in ("Прятки", "Оборона"):
        log.game(WARDEN, game).round_end().round_start().warden(WARDEN)
    log.trig(ADMIN, "jb_game_approve", ' (game "прятки")').game(WARDEN, "Прятки")
    actions, _ = run("", log)
    assert [a for a in actions if a.rule == "calendar.global_games"] == []


# --- 001 Начальник обязан 3 «Оставить одного заключенного в живых» -----------------------------


def test_the_warden_killing_the_last_two_at_once_is_seen():
    log, ts = setup(prisoners=2)
    # one grenade: both damage lines come before both kill lines
    attack(attack(log, WARDEN, ts[0], health=0), WARDEN, ts[1], health=0)
    log.kill(WARDEN, ts[0]).kill(WARDEN, ts[1])
    actions, _ = run("", log)
    assert [(a.action, a.target.userid) for a in actions if a.rule == "warden.last_prisoner"] == [("warn", WARDEN.userid)]


# --- 004 4.4 «При отсутствии желающих КТ обязаны взять на себя роль Начальника» ----------------


def test_a_second_gap_in_command_gets_the_whole_time_again():
    log, ts = setup()
    log.wait(40).kill(ts[0], WARDEN)  # the first gap is the round's start; he took the role
    log.start_here().wait(25).say(GUARD, "кто начальник?")
    actions, _ = run("[calendar.rebellion]\nenabled = false\n", log)
    assert punishing(actions) == [] and [a.rule for a in actions] == []
    log.wait(10).say(GUARD, "...")
    actions, _ = run("[calendar.rebellion]\nenabled = false\n", log)
    assert [a.action for a in actions if a.rule == "teams.no_warden"] == ["say"]
    log.wait(31).say(GUARD, "...")
    actions, _ = run("[calendar.rebellion]\nenabled = false\n", log)
    assert [(a.action, a.rule) for a in actions if a.rule == "teams.no_warden"] == [("say", "teams.no_warden"), ("teamswap", "teams.no_warden")]


# --- names as wardens write them; 000 6.0 «Игры на картах не в счет» ----------------------------


@pytest.mark.parametrize(("typed", "game"), [
    ("Играем в третьего лишнего", "Третий лишний"),
    ("Играем в 'Американца'", "Американец"),
    ("Играем в Мертвого Короля!", "Мёртвый король"),
    ("«Мертвый король»", "Мёртвый король"),
    ("Играем в «Алфавит»", "Алфавит"),
    ("ИГРАЕМ В КОРОЛЯ", "Король"),
    ("первую-последнюю реакцию", "Первая-последняя реакция"),
])
def test_games_are_known_as_wardens_write_them(typed, game):
    log, _ = setup()
    log.game(WARDEN, typed)
    actions, engine = run("", log)
    assert punishing(actions) == [] and engine.public_state()["game"]["name"] == game


@pytest.mark.parametrize("server", ["server-a", "server-b"])
def test_a_maps_own_game_is_never_judged(server):
    log, ts = setup(6)
    log.game(WARDEN, "Футбол").kill(GUARD, ts[0]).game(WARDEN, "Играем в баскетбол")
    actions, _ = run(shipped(server), log)
    assert punishing(actions) == []
    log.game(WARDEN, "Бадминтон")
    actions, _ = run(shipped(server), log)
    assert rules_of(actions)[-1] == ("warn", "games.unknown")


# --- what a careful admin would not punish either ------------------------------------------------


def test_the_same_global_game_again_in_a_round_is_one_game():
    """001 Глобальные 1 counts games, not announcements."""
    log, _ = setup()
    log.game(WARDEN, "Прятки").game(WARDEN, "Прятки").round_end().round_start().warden(WARDEN).game(WARDEN, "Оборона")
    actions, _ = run("", log)
    assert [a for a in actions if a.rule == "calendar.global_games"] == []


def test_privileges_on_a_freeday_wait_for_no_order():
    """001 ФД 2 «Во время ФД … действуют все правила, кроме тех, что связывают Зеков и приказы»."""
    log, ts = setup(rounds_before=0)
    log.trig(ts[0], "jb_privilege", ' (kind "vip_gun")')
    assert [a for a in run("", log)[0] if a.rule == "conduct.privileges"] == []


def test_grenades_on_a_special_day_are_the_days_fight():
    log, ts = setup()
    log.specialday(WARDEN, "Голодные игры")
    for _ in range(5):
        log.add(f"{ts[0].ident()} threw hegrenade [1 2 3]")
    assert punishing(run("", log)[0]) == []


@pytest.mark.parametrize("when", ["special", "last"])
def test_no_warden_is_needed_on_a_special_day_or_for_the_last_request(when):
    log, ts = setup()
    if when == "special":
        log.specialday(WARDEN, "Голодные игры").kill(ts[0], WARDEN)
    else:
        for t in ts[1:]:
            log.kill(WARDEN, t)
        log.trig(ts[0], "jb_lr", ' (choice "дуэль")').kill(ts[0], WARDEN)
    log.wait(70).say(GUARD, "...").wait(40).say(GUARD, "...")
    actions, _ = run("[calendar.rebellion]\nenabled = false\n", log)
    assert [a for a in actions if a.rule == "teams.no_warden"] == []


def test_a_host_moved_to_the_prisoners_hosts_nothing_after():
    """A cascade: the warden punished with a move to T is not then judged for his game."""
    log, _ = setup(9)
    log.game(WARDEN, "Светофор").game(WARDEN, "Король").game(WARDEN, "Повар").wait(400).round_end()
    actions, _ = run("[orders]\nend_with_warden = false\n", log)  # as on B: only the host's own going ends his game
    assert [a.rule for a in actions if a.action in ("warn", "teamswap")] == ["games.online_limit", "games.online_limit"]


def test_a_game_in_a_sentence():
    log, _ = setup()
    log.game(WARDEN, "Сейчас играем в математику, все в линию")
    actions, engine = run("", log)
    assert punishing(actions) == [] and engine.public_state()["game"]["name"] == "Математика"


@pytest.mark.parametrize("how", ["suicide", "freeday"])
def test_a_long_game_decided_otherwise_than_by_a_guards_shot(how):
    """004 5.11: a prisoner who fell in Светофор lost; a freeday given is a winner's reward."""
    log, ts = setup()
    log.game(WARDEN, "Светофор").wait(200)
    if how == "suicide":
        log.suicide(ts[0])
    else:
        log.trig(WARDEN, "jb_freeday", f' (scope "personal") (target "#{ts[1].userid}")')
    log.wait(200).round_end()
    assert punishing(run("", log)[0]) == []


def test_a_global_game_is_won_by_those_left_alive():
    log, _ = setup()
    log.game(WARDEN, "Прятки").wait(400).round_end()
    assert punishing(run("", log)[0]) == []


def test_a_freeday_owed_by_last_request_timeout_is_not_a_second_one():
    """001 ПЗ 1 «…и выдача ФД, если зек не бунтует»: given next round by the rules, it is not
    one the prisoner «приобретает» twice a week (ФД 8)."""
    log, ts = setup(prisoners=6)
    fd = f' (scope "personal") (target "#{ts[0].userid}")'
    log.trig(WARDEN, "jb_freeday", fd)
    for t in ts[1:]:
        log.kill(WARDEN, t)
    log.wait(11).say(GUARD, "время вышло").kill(GUARD, ts[0]).round_end().round_start().warden(WARDEN).trig(WARDEN, "jb_freeday", fd)
    actions, _ = run("", log)
    assert [a for a in actions if a.rule == "calendar.personal_freeday"] == []


def test_a_team_mate_killed_by_a_grenade_is_no_intended_teamkill():
    """001 Общие 17 «Намеренно убивать членов команды»."""
    log, _ = setup()
    log.kill(GUARD, WARDEN, weapon="hegrenade")
    assert [a for a in run("", log)[0] if a.rule == "conduct.teamkill"] == []


def test_winners_named_in_chat_decide_a_long_game():
    """004 5.11 «…должны быть определены победители»: «Победитель — T1» is that."""
    log, ts = setup()
    log.game(WARDEN, "Светофор").wait(350).say(WARDEN, f"Победитель {ts[1].name}, молодец").wait(60).round_end()
    assert punishing(run("", log)[0]) == []


def test_a_special_days_fight_makes_no_rebel():
    """The day sets prisoners against guards: no «бунт», so ПЗ 1's freeday is still owed."""
    log, ts = setup(prisoners=6)
    log.specialday(WARDEN, "Голодные игры")
    attack(log, ts[0], GUARD)
    for t in ts[1:]:
        log.kill(WARDEN, t)
    log.wait(11).say(GUARD, "время вышло").kill(GUARD, ts[0])
    actions, _ = run("", log)
    assert [(a.action, a.target.userid) for a in actions if a.rule == "lastrequest.timeout" and a.action == "freeday"] == [("freeday", ts[0].userid)]


def test_no_cascade_after_a_warden_is_moved_in_a_log_that_goes_on_without_the_move():
    """A replayed log does not obey jailcore: after its move of the warden (here for a
    repeat, 004 5.5) the log goes on as before, and that is judged no further."""
    log, ts = setup(9, rounds_before=0)
    for _ in range(2):
        log.round_end().round_start().warden(WARDEN).game(WARDEN, "Светофор")
    log.round_end().round_start().warden(WARDEN).game(WARDEN, "Светофор").game(WARDEN, "Светофор")
    log.game(WARDEN, "Саймон говорит").kill(WARDEN, ts[0]).wait(90).say(GUARD, "...")
    actions, _ = run("", log)
    assert [(a.action, a.rule) for a in actions if a.action in ("warn", "teamswap", "slay")] == [
        ("warn", "games.repeat"), ("teamswap", "games.repeat")]
