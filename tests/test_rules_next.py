"""The rules beyond the design card (N1 to N19), as log scenarios from the rulebooks' own
wording, with their boundaries."""

from __future__ import annotations

import pytest

from jailcore.referee import NotArithmetic, evaluate
from tests.logtext import P, config, run, team_of
from tests.test_rules import GUARD, WARDEN, setup

ADMIN = P("Админ Сервера", 40, "STEAM_1:0:4040")


def rules_of(actions):
    return [(a.action, a.rule) for a in actions]


# --- games: N1 to N5 --------------------------------------------------------------------


def test_n1_only_the_warden_runs_games():
    log, _ = setup()
    log.game(GUARD, "Алфавит")
    actions, engine = run("", log)
    assert rules_of(actions) == [("warn", "games.host")] and engine.public_state()["game"] is None


def test_n1_a_game_outside_the_catalogue_needs_an_admins_approval():
    log, _ = setup()
    log.game(WARDEN, "Вышибалы")
    actions, _ = run("", log)
    assert rules_of(actions) == [("warn", "games.unknown")]
    log.start_here().trig(ADMIN, "jb_game_approve", ' (game "вышибалы")').game(WARDEN, "Вышибалы")
    actions, engine = run("", log)
    assert actions == [] and engine.public_state()["game"]["name"] == "Вышибалы"


@pytest.mark.parametrize(("after", "expected"), [(300, []), (301, [("say", "games.duration")])])
def test_n2_reminder_at_five_minutes(after, expected):
    log, _ = setup()
    log.game(WARDEN, "Светофор").start_here().wait(after - 1).say(GUARD, "ещё играем")
    actions, _ = run("", log)
    assert rules_of(actions) == expected


def test_n2_then_the_ladder_after_the_grace():
    log, _ = setup()
    log.game(WARDEN, "Светофор").wait(301).say(GUARD, "x").start_here().wait(60).say(GUARD, "y")
    actions, _ = run("", log)
    assert rules_of(actions) == [("warn", "games.duration")] and actions[0].target.userid == WARDEN.userid


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


def test_n5_another_game_between_breaks_the_streak():
    log, _ = setup()
    for game in ("Светофор", "Реакция", "Светофор"):
        log.game(WARDEN, game).round_end().round_start().warden(WARDEN)
    log.start_here().game(WARDEN, "Светофор")
    actions, _ = run("", log)
    assert actions == []


# --- last prisoner and fairness: N6 to N8 -----------------------------------------------


def last_prisoner():
    log, ts = setup(prisoners=6)
    for t in ts[1:]:
        log.kill(WARDEN, t)
    return log, ts


@pytest.mark.parametrize(("seconds", "late"), [(10, False), (11, True)])
def test_n6_ten_seconds_to_choose(seconds, late):
    log, _ = last_prisoner()
    log.start_here().wait(seconds - 1).say(GUARD, "ну?")
    actions, _ = run("", log)
    assert rules_of(actions) == ([("say", "lastrequest.timeout")] if late else [])


def test_n6_a_request_in_time_stops_the_clock():
    log, ts = last_prisoner()
    log.wait(5).trig(ts[0], "jb_lr", ' (choice "дуэль")').start_here().wait(30).say(GUARD, "x")
    actions, _ = run("", log)
    assert actions == []


def test_n7_a_guard_who_dies_on_purpose_pays_the_last_prisoner():
    log, ts = last_prisoner()
    log.trig(ts[0], "jb_lr", ' (choice "дуэль")').start_here().suicide(GUARD)
    actions, _ = run("", log)
    assert [(a.action, a.rule, a.amount, a.target.userid) for a in actions] == [
        ("money", "lastrequest.guard_suicide", 100, ts[0].userid)
    ]


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


# --- teams: N10, N11 -----------------------------------------------------------------------


@pytest.mark.parametrize(("guards", "moved"), [(3, False), (4, True)])
def test_n10_at_most_one_guard_per_three_prisoners(guards, moved):
    log, _ = setup(prisoners=9)  # the warden and one guard already
    extra = team_of(guards - 2, "CT", start=60, prefix="G")
    for g in extra:
        log.connect(g, "CT")
    actions, _ = run("", log)
    assert [(a.action, a.rule, a.target.userid) for a in actions] == (
        [("teamswap", "teams.balance", extra[-1].userid)] if moved else []
    )


def test_n10_the_warden_is_never_the_one_moved():
    log, ts = setup(prisoners=6)
    for t in ts[:3]:
        log.disconnect(t)
    log.round_end().start_here().round_start()  # 3 prisoners, 2 guards: the newest non-warden goes
    actions, _ = run("", log)
    assert [(a.rule, a.target.userid) for a in actions if a.rule == "teams.balance"] == [("teams.balance", GUARD.userid)]


@pytest.mark.parametrize(("seconds", "expected"), [(30, []), (31, [("say", "teams.no_warden")])])
def test_n11_no_warden_ask(seconds, expected):
    log = setup()[0]
    log.round_end().round_start().start_here().wait(seconds - 1).say(GUARD, "кто начальник?")
    actions, _ = run("", log)
    assert rules_of(actions) == expected


def test_n11_then_the_longest_serving_guard_is_punished():
    log = setup()[0]
    log.round_end().round_start().wait(31).say(GUARD, "x").start_here().wait(30).say(GUARD, "y")
    actions, _ = run("", log)
    assert [(a.action, a.rule, a.target.userid) for a in actions] == [("teamswap", "teams.no_warden", WARDEN.userid)]


# --- conduct: N12 to N17 -------------------------------------------------------------------


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


def test_n16_a_personal_freeday_once_a_game_week():
    log, ts = setup()
    fd = f' (scope "personal") (target "#{ts[0].userid}")'
    log.trig(WARDEN, "jb_freeday", fd).round_end().round_start().warden(WARDEN).trig(WARDEN, "jb_freeday", fd)
    actions, _ = run("", log)
    assert rules_of(actions) == [("warn", "calendar.personal_freeday")]
    log.start_here().rounds(7).round_start().warden(WARDEN).trig(WARDEN, "jb_freeday", fd)  # the next week
    actions, _ = run("", log)
    assert [a for a in actions if a.rule == "calendar.personal_freeday"] == []


def test_n17_warden_immortality_at_most_twice_a_week():
    log, _ = setup()
    for _ in range(3):
        log.order(WARDEN, "x").trig(WARDEN, "jb_privilege", ' (kind "immortality")').round_end().round_start().warden(WARDEN)
    actions, _ = run("", log)
    assert rules_of(actions) == [("slay", "warden.immortality")]


# --- N18: the referee --------------------------------------------------------------------


def referee(game: str, lines, lang: str = "en") -> list[str]:
    log, ts = setup()
    log.game(WARDEN, game)
    for who, text in lines:
        log.say(WARDEN if who == "W" else ts[who], text)
    actions, _ = run(f"[server]\nlanguage = '{lang}'\n", log)
    return [a.reason for a in actions if a.rule == "referee"]


def test_n18_a_b_reversed_combination():
    (verdict,) = referee("А-б", [("W", "абба"), (0, "абба"), (1, "бааб"), (2, "бааб")], lang="ru")
    assert "«бааб»: первым ответил T1" in verdict and "T0: «абба», T1: «бааб»" in verdict


def test_n18_a_b_at_most_five_letters():
    assert referee("А-б", [("W", "аббааб"), (0, "абббаа")]) == []


def test_n18_alphabet_and_colour_codes_do_not_hide_the_answer():
    (verdict,) = referee("Алфавит", [("W", "к"), (0, "м"), (1, "\x04л\x01")])
    assert "'л': first right answer by T1" in verdict


def test_n18_maths():
    (verdict,) = referee("Математика", [("W", "2+2*2"), (0, "8"), (1, "6")])
    assert "'6': first right answer by T1" in verdict


def test_n18_intuition_closest_ties_to_the_first():
    (verdict,) = referee("Интуиция", [(0, "30"), (1, "26"), (2, "28"), ("W", "27")])
    assert "closest T1 (26)" in verdict


@pytest.mark.parametrize(
    ("throws", "winner"),
    [
        (["камень", "ножницы"], "T0"),
        (["бумага", "бумага", "камень", "камень", "ножницы", "камень"], "T1"),
        (["бумага", "бумага", "камень", "камень", "ножницы", "ножницы"], None),
    ],
)
def test_n18_rock_paper_scissors_at_most_two_draws(throws, winner):
    verdicts = referee("Камень-ножницы-бумага", [(i % 2, t) for i, t in enumerate(throws)])
    last = verdicts[-1]
    if winner:
        assert last.split("] ", 1)[1].startswith(f"Камень-ножницы-бумага: {winner}:") and "beats" in last
    else:
        assert "both lose" in last


@pytest.mark.parametrize("text", ["__import__('os')", "2**99999", "1/0", "a+1", "()", "9" * 100])
def test_n18_the_evaluator_refuses_anything_but_arithmetic(text):
    with pytest.raises(NotArithmetic):
        evaluate(text)


# --- N19: rebellion feeds C3 -------------------------------------------------------------


def test_n19_a_grenade_at_guards_counts_as_rebellion():
    log, ts = setup()
    attack = (
        f'{ts[0].ident()} [1 2 3] attacked {GUARD.ident()} [4 5 6] with "hegrenade" '
        '(damage "40") (damage_armor "0") (health "60") (armor "0") (hitgroup "generic")'
    )
    log.add(attack).round_end().round_start().add(attack)
    actions, _ = run("", log)
    assert rules_of(actions) == [("ban", "calendar.rebellion")]


@pytest.mark.parametrize("key", ["games.host", "games.duration", "teams.balance", "conduct.teamkill", "referee", "conduct.names"])
def test_every_next_rule_can_be_switched_off(key):
    text = f"[{key}]\nenabled = false\n"
    assert not config(text).on(key)


def test_core_limits_are_reported_before_the_rules_beyond_the_card():
    log, _ = setup()
    for _ in range(2):
        log.game(WARDEN, "Прятки").round_end().round_start().warden(WARDEN)
    log.start_here().game(WARDEN, "Прятки")  # a third global game, and a third round in a row
    actions, _ = run("", log)
    assert rules_of(actions) == [("teamswap", "calendar.global_games")]
