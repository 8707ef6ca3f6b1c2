"""Scenarios for the games rules: games.unknown, games.online_limit (004 5.17, 5.18),
games.min_players, games.host, games.duration (004 5.11), games.gagged (004 5.16),
games.host_death, games.repeat (004 5.5), written from the rulebooks."""

from __future__ import annotations

import pytest

from tests.logtext import run
from tests.scenes import ADMIN, GUARD, WARDEN, rules_of, setup


@pytest.mark.parametrize(("prisoners", "refused"), [(8, False), (9, True)])
def test_king_is_forbidden_above_eight_prisoners(prisoners, refused):
    log, _ = setup(prisoners)
    log.game(WARDEN, "Король")
    actions, engine = run("", log)
    if refused:
        assert [(a.action, a.rule, a.ref) for a in actions] == [("warn", "games.online_limit", "5.17")]
        assert "9" in actions[0].reason and engine.public_state()["game"] is None
    else:
        assert actions == [] and engine.public_state()["game"]["name"] == "Король"


@pytest.mark.parametrize(("prisoners", "refused"), [(13, False), (14, True)])
def test_turn_based_games_forbidden_above_thirteen(prisoners, refused):
    """004 5.18 «При онлайне более 13 заключённых запрещается проводить игры, в которых
    заключённые участвуют по одному, по очереди и имеют более одной попытки»."""
    log, _ = setup(prisoners)
    log.game(WARDEN, "Пенальти")
    actions, _ = run('[[games.catalogue]]\nname = "Пенальти"\ntags = ["turn_based"]\n', log)
    assert [(a.rule, a.ref) for a in actions] == ([("games.online_limit", "5.18")] if refused else [])


def test_online_limit_ladder_warn_then_teamswap():
    log, _ = setup(9)
    log.game(WARDEN, "короля").game(WARDEN, "Повар")
    actions, engine = run("", log)
    assert [(a.action, a.to_json().get("team")) for a in actions] == [("warn", None), ("teamswap", "T")]
    assert engine.public_state()["warden"] is None
    # a move for a game rule is 001 guards 11's «Незнание правил»: he may not come back yet
    log.join(WARDEN, "CT")
    actions, _ = run("", log)
    assert [a.rule for a in actions[2:]] == ["ctban.return_block"]


def test_first_last_reaction_carries_both_reactions_limit():
    """004 5.17 forbids «Первая реакция» and «Последняя реакция» above 8 prisoners; 000's
    «Первая-Последняя реакция» is both."""
    log, _ = setup(9)
    log.game(WARDEN, "Первая-последняя реакция")
    actions, _ = run("", log)
    assert [(a.rule, a.ref) for a in actions] == [("games.online_limit", "5.17")]


@pytest.mark.parametrize(("prisoners", "refused"), [(13, False), (14, True)])
def test_5_18_adds_the_deagle_throw_beyond_5_17s_list(prisoners, refused):
    """004 5.18 «При онлайне более 13 заключённых запрещается проводить игры, в которых
    заключённые участвуют по одному, по очереди и имеют более одной попытки»: 000 «Метание
    дигла» («Оба по очереди метают дигл»: throw after throw) is such a game, and not one of
    5.17's eight."""
    log, _ = setup(prisoners)
    log.game(WARDEN, "Метание дигла")
    actions, _ = run("", log)
    assert [(a.rule, a.ref) for a in actions] == ([("games.online_limit", "5.18")] if refused else [])


@pytest.mark.parametrize(("prisoners", "refused"), [(6, True), (7, False)])
def test_communism_needs_seven_players(prisoners, refused):
    log, _ = setup(prisoners)
    log.game(WARDEN, "Коммунизм")
    actions, _ = run("", log)
    assert [a.rule for a in actions] == (["games.min_players"] if refused else [])


def test_unknown_game_gets_a_clear_warning():
    log, _ = setup()
    log.game(WARDEN, "Бадминтон")
    actions, _ = run("", log)
    assert [(a.action, a.rule) for a in actions] == [("propose", "games.unknown")]  # an admin approves or warns (issue 31)
    assert "Бадминтон" in actions[0].reason


@pytest.mark.parametrize("typed", ["Математику", "математика", "MATH", "Играем в Математику", "«Математика»"])
def test_game_names_match_however_typed(typed):
    log, _ = setup()
    log.game(WARDEN, typed)
    _, engine = run("", log)
    assert engine.public_state()["game"]["name"] == "Математика"


def test_n1_only_the_warden_runs_games():
    log, _ = setup()
    log.game(GUARD, "Алфавит")
    actions, engine = run("", log)
    assert rules_of(actions) == [("warn", "games.host")] and engine.public_state()["game"] is None


def test_n1_a_game_outside_the_catalogue_needs_an_admins_approval():
    log, _ = setup()
    log.game(WARDEN, "Вышибалы")
    actions, _ = run("", log)
    assert rules_of(actions) == [("propose", "games.unknown")]
    log.start_here().trig(ADMIN, "jb_game_approve", ' (game "вышибалы")').game(WARDEN, "Вышибалы")
    actions, engine = run("", log)
    assert actions == [] and engine.public_state()["game"]["name"] == "Вышибалы"


@pytest.mark.parametrize(("after", "expected"), [(300, []), (301, [("say", "games.duration")])])
def test_n2_reminder_at_five_minutes(after, expected):
    log, _ = setup()
    log.game(WARDEN, "Светофор").start_here().wait(after - 1).say(GUARD, "ещё играем")
    actions, _ = run("", log)
    assert rules_of(actions) == expected


def test_n2_the_deadline_reading_punishes_after_the_grace():
    log, _ = setup()
    log.game(WARDEN, "Светофор").wait(301).say(GUARD, "x").start_here().wait(60).say(GUARD, "y")
    actions, _ = run('[games.duration]\nreading = "deadline"\n', log)
    assert rules_of(actions) == [("warn", "games.duration")] and actions[0].target.userid == WARDEN.userid


def test_n2_a_game_may_run_past_five_minutes_and_then_name_its_winners():
    """004 5.11 «Если игра продолжается более 5 минут, в ней обязательно должны быть
    определены победители»: a game past 5 minutes is lawful; its winners are what it owes
    (the shipped reading, "winners"): a loser killed, then the round ends: nothing."""
    log, ts = setup()
    log.game(WARDEN, "Светофор").wait(301).say(GUARD, "x").start_here().wait(200).kill(WARDEN, ts[0]).wait(30).round_end()
    actions, _ = run("", log)
    assert actions == []


def test_n2_a_round_that_ends_with_the_game_undecided_past_five_minutes():
    log, _ = setup()
    log.game(WARDEN, "Светофор").wait(301).say(GUARD, "x").start_here().wait(200).round_end()
    actions, _ = run("", log)
    assert rules_of(actions) == [("warn", "games.duration")] and actions[0].target.userid == WARDEN.userid
    assert "без победителей" in actions[0].reason


def test_n3_no_chat_game_while_a_participant_is_gagged():
    log, ts = setup()
    log.trig(ts[0], "jb_gag", ' (state "on")').game(WARDEN, "Математика")
    actions, engine = run("", log)
    assert rules_of(actions) == [("warn", "games.gagged")] and ts[0].name in actions[0].reason
    log.trig(ts[0], "jb_gag", ' (state "off")').game(WARDEN, "Математика")
    _, engine = run("", log)
    assert engine.public_state()["game"]["name"] == "Математика"


@pytest.mark.parametrize(("special", "ends"), [(False, True), (True, False)])
def test_n4_a_game_ends_when_its_host_dies_special_days_excepted(special, ends):
    log, ts = setup()
    if special:
        log.specialday(WARDEN, "Голодные игры")
    log.game(WARDEN, "Светофор").kill(ts[0], WARDEN)
    _, engine = run("", log)
    assert (engine.public_state()["game"] is None) == ends


def test_n5_the_same_game_three_rounds_in_a_row():
    log, _ = setup()
    for _ in range(2):
        log.game(WARDEN, "Светофор").round_end().round_start().warden(WARDEN)
    log.start_here().game(WARDEN, "Светофор")
    actions, _ = run("", log)
    assert rules_of(actions) == [("warn", "games.repeat")]


@pytest.mark.parametrize(("family", "punished"), [("Злой Саймон", True), ("simon", True), ("", False)])
def test_n5_a_servers_own_game_of_a_catalogue_type(family, punished):
    """004 5.5 «не злоупотребляя однотипными играми»: a game the server added in
    `[[games.catalogue]]` is of Саймон's type when its `family` says so (by any name of it)."""
    own = '[[games.catalogue]]\nname = "Саймон на корточках"\n' + (f'family = "{family}"\n' if family else "")
    log, _ = setup()
    for game in ("Саймон говорит", "Злой Саймон"):
        log.game(WARDEN, game).round_end().round_start().warden(WARDEN)
    log.start_here().game(WARDEN, "Саймон на корточках")
    actions, _ = run(own, log)
    assert rules_of(actions) == ([("warn", "games.repeat")] if punished else [])


def test_n5_a_new_type_two_of_the_servers_own_games_share():
    own = ('[[games.catalogue]]\nname = "Прятки в тире"\nfamily = "Тир"\n'
           '[[games.catalogue]]\nname = "Дуэль в тире"\nfamily = "тир"\n'
           '[[games.catalogue]]\nname = "Вышибалы"\n')
    log, _ = setup()
    for game in ("Прятки в тире", "Дуэль в тире"):
        log.game(WARDEN, game).round_end().round_start().warden(WARDEN)
    log.start_here().game(WARDEN, "Прятки в тире").round_end().round_start().warden(WARDEN).game(WARDEN, "Вышибалы")
    actions, _ = run(own, log)
    assert rules_of(actions) == [("warn", "games.repeat")]


def test_n5_another_game_between_breaks_the_streak():
    log, _ = setup()
    for game in ("Светофор", "Реакция", "Светофор"):
        log.game(WARDEN, game).round_end().round_start().warden(WARDEN)
    log.start_here().game(WARDEN, "Светофор")
    actions, _ = run("", log)
    assert actions == []


def test_core_limits_are_reported_before_the_rules_beyond_the_card():
    log, _ = setup()
    for _ in range(2):
        log.game(WARDEN, "Прятки").round_end().round_start().warden(WARDEN)
    log.start_here().game(WARDEN, "Прятки")  # a third global game, and a third round in a row
    actions, _ = run("", log)
    assert rules_of(actions) == [("teamswap", "calendar.global_games")]


def test_5_16_battleship_is_not_won_only_by_writing_in_chat():
    """004 5.16 «игры, в которых победа зависит исключительно от возможности писать сообщения
    в чат»: in Морской бой the admiral names cells, but a prisoner lives or dies where he
    stands: a gagged player in it earns the host nothing. Математика is such a game."""
    log, ts = setup()
    log.trig(ts[0], "jb_gag", ' (state "on")').game(WARDEN, "Морской бой")
    actions, _ = run("", log)
    assert [a for a in actions if a.rule == "games.gagged"] == []
    log.trig(WARDEN, "jb_game_end").game(WARDEN, "Математика")
    assert [a.rule for a in run("", log)[0] if a.rule == "games.gagged"] == ["games.gagged"]
