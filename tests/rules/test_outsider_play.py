"""Issue 31, what an outsider's lawful play found (`tests/outsider.py`: seasons written from
the rulebooks alone and read by `jailcore replay`): each test quotes its clause, plays the
lawful moment as wardens and players really do it, and failed before (a punishment then);
the clause's own case is still caught beside it. docs/rules.md says each reading."""

from __future__ import annotations

import pytest

from tests.logtext import run
from tests.scenes import GUARD, WARDEN, setup

A = '[server]\nrulebook = ["001", "000"]\n'
B = '[server]\nrulebook = ["004", "000"]\n'


def decided(actions, rule=None):
    return [(a.action, a.rule) for a in actions if a.action not in ("say", "hud", "door") and (rule is None or a.rule == rule)]


# --- 000 Саймон «Завершение: Начальник завершает игру фразой …»: by voice, not `!endgame` -----


@pytest.mark.parametrize("cfg", [A, B])
def test_simon_ended_by_voice_then_a_new_order_the_guards_kill_for_is_an_admins_call(cfg):
    """000 Саймон говорит «Завершение: Начальник завершает игру фразой «Саймон говорит, что
    игра «Саймон говорит» закончилась…»» and «а) Убивает только Начальник»: the warden who
    ends Simon by voice and registers a new order has the guards kill those who break it.
    Whether the game still ran is what the log cannot show: the first such kill is put to an
    admin, the next ones of that game are not asked again; before, each was a warning, then
    a move to T."""
    log, ts = setup()
    log.game(WARDEN, "Саймон говорит").kill(WARDEN, ts[0]).order(WARDEN, "все в клетку")
    log.kill(GUARD, ts[1]).kill(GUARD, ts[2])
    assert decided(run(cfg, log)[0]) == [("propose", "games.only_warden_kills")]


def test_simon_s_own_registered_command_keeps_the_game_and_its_clear_case():
    """000 Саймон «Саймон начинает давать приказы по форме "Саймон говорит: *приказ*"»: such
    an order is the game's own, and another guard's kill after it is the clause's case."""
    log, ts = setup()
    log.game(WARDEN, "Саймон говорит").order(WARDEN, "Саймон говорит: присесть").kill(GUARD, ts[1])
    assert decided(run(A, log)[0]) == [("warn", "games.only_warden_kills")]


def test_a_privilege_after_a_game_ended_by_voice_and_a_new_order_is_an_admins_call():
    """001 Привилегии 3 «Любые привилегии во время любых игр»: a game the warden ended by
    voice (no `!endgame`) and a registered order after it: a privilege then is put to an
    admin, once; during the game, before anything else, it is the clause's case."""
    log, ts = setup()
    log.game(WARDEN, "Математика").order(WARDEN, "стоим у стены")
    log.trig(ts[0], "jb_privilege", ' (kind "hook")').trig(ts[1], "jb_privilege", ' (kind "speed")')
    assert decided(run(A, log)[0], "conduct.game_privileges") == [("propose", "conduct.game_privileges")]
    log2, ts2 = setup()
    log2.game(WARDEN, "Математика").trig(ts2[0], "jb_privilege", ' (kind "hook")')
    assert decided(run(A, log2)[0], "conduct.game_privileges") == [("warn", "conduct.game_privileges")]


# --- 001 ФД 1, ФД 2: the day written on the HUD is no order ---------------------------------


@pytest.mark.parametrize(("text", "punished"), [
    ("ФД", False), ("сегодня фд, не шалим", False), ("Свободный день, гуляем", False), ("ФД всем!", False),
    ("все в клетку", True), ("ФД окончено, строимся", True),
])
def test_monday_an_order_that_only_names_the_freeday_orders_nothing(text, punished):
    """001 ФД 1 «Понедельник - всегда ФД!» and ФД 2 «Во время ФД … действуют все правила,
    кроме тех, что связывают Зеков и приказы»: a warden who writes «ФД» with `!order` puts
    the day on the HUD; he orders nothing. Taking it back, or an order, is the clause's case."""
    log, _ = setup(rounds_before=0)  # round 1: Monday
    log.order(WARDEN, text)
    assert decided(run(A, log)[0]) == ([("teamswap", "calendar.freeday")] if punished else [])


# --- 001 Дуэли 4: players' words for the clause's own stakes ----------------------------------


@pytest.mark.parametrize(("choice", "decision"), [
    # the clause's stakes as players write them: money, the voice, a freeday paid next round
    ("дуэль на ножах на лавэ", None), ("дуэль на awp на бабосы", None), ("дуэль на ножах на кэш", None),
    ("дуэль на ножах на размут", None), ("дуэль на ножах на снятие мута", None), ("дуэль на калашах на фдшку", None),
    ("дуэль на диглах на фд на следующий раунд", None), ("дуэль на ножах на фд на след раунд", None),
    ("дуэль на деагле на фд", None), ("дуэль на тейзерах", None), ("дуэль на р8 на фд", None), ("дуэль на ножах на хп", None),
    # plainly not the clause's: the ladder at once
    ("дуэль на ножах на респаун", "warn"), ("дуэль за awp", "warn"), ("дуэль на скаутах за скин", "warn"),
    ("дуэль на ножах на кт", "warn"),
    # a word no list knows: maybe slang, maybe a stake: an admin judges
    ("дуэль на ножах на пиццу", "propose"), ("дуэль на ножах на ключи", "propose"),
])
def test_duels_4_players_words_for_money_and_voice_are_the_clauses_own(choice, decision):
    """001 Дуэли 4 «Дуэль можно играть только на одиночное Фд, Голос, деньги (себе или
    другому заключенному). А так же, просто так.»: «лавэ», «бабосы» are money, «размут» the
    voice, «на следующий раунд» when the freeday is paid; before, each was a warning. A
    stake read only by elimination (a word no list knows) goes to an admin."""
    log, ts = setup(prisoners=1)
    log.start_here().trig(ts[0], "jb_lr", f' (choice "{choice}")')
    assert decided(run(A, log)[0]) == ([(decision, "lastrequest.duel_stakes")] if decision else [])


# --- 004 6.3: «установить» during the game ---------------------------------------------------


def test_004_6_3_two_standing_from_before_the_game_and_one_set_in_it_is_an_admins_call():
    """004 6.3 «Во время одной игры разрешается установить одновременно не более двух
    запретов. Наказание: устное предупреждение → отмена лишнего запрета.»: two set before
    the game and one in it are three standing, but one set («установить») in the game: read
    either way, so an admin judges; three set in the game is the clause's case."""
    log, _ = setup()
    log.prohibit(WARDEN, "не прыгать").prohibit(WARDEN, "не бегать").game(WARDEN, "Светофор").prohibit(WARDEN, "не садиться")
    assert decided(run(B, log)[0]) == [("propose", "prohibitions.max")]
    log2, _ = setup()
    log2.game(WARDEN, "Светофор").prohibit(WARDEN, "не прыгать").prohibit(WARDEN, "не бегать").prohibit(WARDEN, "не садиться")
    assert decided(run(B, log2)[0]) == [("warn", "prohibitions.max")]


# --- 001 Начальник обязан 3 on a special day and in a global game ---------------------------


@pytest.mark.parametrize(("day", "game", "decision"), [("Зомби", None, None), (None, "Прятки", "propose"), (None, None, "warn")])
def test_the_warden_who_kills_the_last_prisoner_of_a_special_day_owes_him_no_request(day, game, decision):
    """001 Начальник обязан 3 «Оставить одного заключенного в живых» (ПЗ 1 «ПЗ имеет 10 секунд
    на выбор желания»): a special day is a fight to the end (000 6.5's days: no last request
    in them), so the warden's kill of its last prisoner is no offence; in a global game
    (Прятки: the guards find every hider) it is an admin's call; in his ordinary round it is
    the clause's case."""
    log, ts = setup(prisoners=3)
    if day:
        log.specialday(WARDEN, day)
    if game:
        log.game(WARDEN, game).wait(30)
    log.kill(GUARD, ts[0]).kill(GUARD, ts[1]).wait(2).kill(WARDEN, ts[2])
    assert decided(run(A, log)[0], "warden.last_prisoner") == ([(decision, "warden.last_prisoner")] if decision else [])


# --- bots: srcds's `<BOT>` players ----------------------------------------------------------


def test_a_bot_is_never_punished_nor_put_to_an_admin():
    """000 Саймон «Убивает только Начальник», 004 4.8 «Охрана обязана объяснить причину
    убийства в чате»: a server's bot (`<BOT>`) among the guards kills as bots do; it has no
    intent and cannot answer, and no rule is its to break (before: a warning, a move to T,
    a question to an admin about its silence)."""
    from tests.logtext import P
    bot = P("Bot Gleb", 99, "BOT")
    log, ts = setup(prisoners=9)
    log.connect(bot, "CT").game(WARDEN, "Саймон говорит").kill(bot, ts[0]).wait(5).say(ts[0], "за что?").wait(90)
    log.say(ts[1], "ок").round_end()
    assert decided(run('[server]\nrulebook = "all"\n', log)[0]) == []


# --- the calendar: CS:GO's warm-up ends with Match_Start ------------------------------------


def test_csgo_warm_up_ended_by_match_start_is_no_day():
    """001 ФД 1 «Понедельник - всегда ФД!» counts days as rounds played (docs/rules.md:
    «Restart_Round, Game_Commencing and warm-up do not count as days»). CS:GO ends a map's
    warm-up (`mp_warmuptime`) with a restart and `World triggered "Match_Start"`, before the
    plugin's round line: the warm-up round is no day, and the first round played is Monday
    (before: Tuesday, and every map change moved Monday by a day)."""
    from tests.logtext import Log
    log = Log()
    log.add('Loading map "jb_summer_jail_v3"').add('Started map "jb_summer_jail_v3" (CRC "1")')
    log.add('World triggered "jb_round_start" (freeze "5") (seq "1")').add("Starting Freeze period").wait(5)
    log.add('World triggered "Round_Start"').wait(60)
    log.add("Starting Freeze period").add('World triggered "Match_Start" on "jb_summer_jail_v3"')
    log.add('World triggered "jb_round_start" (freeze "5") (seq "2")').wait(5).add('World triggered "Round_Start"')
    _, engine = run(A, log)
    assert (engine.public_state()["round"], engine.public_state()["day"]) == (1, 1)


# --- 000 VI: the games as wardens type them -------------------------------------------------


@pytest.mark.parametrize(("typed", "game"), [
    ("Играем в злого короля", "Король"), ("добрый король", "Король"), ("Король (злой)", "Король"),
    ("Кoроль", "Король"),  # a Latin «o»
    ("светафор", "Светофор"), ("Матиматика", "Математика"), ("комунизм", "Коммунизм"), ("саимон", "Саймон говорит"),
    ("в короля", "Король"), ("на реакцию", "Реакция"), ("3 лишний", "Третий лишний"),
    ("Первая и последняя реакция", "Первая-последняя реакция"),
])
def test_a_standard_game_typed_as_wardens_type_it_is_that_game(typed, game):
    """000 VI names each game; 000 Король «Если З хочет быть злым королём…»: «злой король» is
    Король. A warden's typo, a Latin look-alike letter or a bare «в …» is the game he means,
    with its rules (before: «нестандартная игра», a warning)."""
    log, _ = setup(prisoners=8)
    log.game(WARDEN, typed)
    actions, engine = run(A, log)
    assert decided(actions) == [] and engine.public_state()["game"]["name"] == game


@pytest.mark.parametrize("typed", ["кораблики", "Сталкер", "Королева", "Реакционер"])
def test_another_word_is_not_a_game_it_resembles(typed):
    """004 5.17 «При онлайне более 8 заключённых запрещается проводить … «Король»»: a game
    whose name only begins like Король («кораблики», «Королева») is not Король, so 5.17 does
    not judge it (before: a warning for Король on B); what it is, an admin says (000 6.0)."""
    log, _ = setup(prisoners=10)
    log.game(WARDEN, typed)
    assert decided(run(B, log)[0]) == [("propose", "games.unknown")]


def test_000_6_0_an_unknown_game_is_put_to_an_admin():
    """000 6.0 «Любая нестандартная игра должна получить одобрение Администрации (Игры на
    картах не в счет)»: a name the catalogue does not know may be a non-standard game, a
    map's own or a standard one under its own name: the clause's answer is the admin's, so
    he is asked (before: a warning at once)."""
    log, _ = setup()
    log.game(WARDEN, "Паркур")
    assert decided(run(A, log)[0]) == [("propose", "games.unknown")]


# --- a round voided by mp_restartgame is played again: what was announced in it was not played ----


def test_a_global_game_of_a_round_voided_by_a_restart_is_not_one_of_the_weeks_two():
    """001 Глобальные 1 «Начальник проводит Глобальные игры не больше 2х раз в игровую
    неделю»: an admin's `mp_restartgame` voids the round (no day); a global game announced in
    it was never played, and the round played again may hold one (before: the week's third,
    a move to T)."""
    from tests.scenes import next_day
    log, _ = setup()
    log.game(WARDEN, "Прятки")
    next_day(log).game(WARDEN, "Прятки").add('World triggered "Restart_Round_(1_second)"')
    log.round_start().warden(WARDEN).game(WARDEN, "Прятки")
    assert decided(run(A, log)[0]) == []
    next_day(log).game(WARDEN, "Оборона")
    assert decided(run(A, log)[0]) == [("teamswap", "calendar.global_games")]


def test_a_game_of_a_round_voided_by_a_restart_is_no_round_of_a_streak():
    """004 5.5 «не злоупотребляя однотипными играми»: the warden's Саймон of a round voided by
    a restart, and the round played again without it, then Саймон twice: two rounds
    running, not three (before: the voided round's game counted, a warning)."""
    from tests.scenes import next_day
    log, _ = setup()
    log.game(WARDEN, "Математика")
    next_day(log).game(WARDEN, "Саймон говорит").add('World triggered "Restart_Round_(1_second)"')
    log.round_start().warden(WARDEN).game(WARDEN, "Алфавит")
    next_day(log).game(WARDEN, "Саймон говорит")
    next_day(log).game(WARDEN, "Саймон говорит")
    assert decided(run(B, log)[0]) == []
