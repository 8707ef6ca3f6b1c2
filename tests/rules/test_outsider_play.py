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


# --- the last request, privileges, freedays, head start, as players and wardens really do ---------


def test_a_prisoners_early_lr_is_no_wish_and_his_real_one_is_his_first():
    """001 ПЗ 2 «Одна дуэль с Охранником - одно желание заключённого»: the plugin reports any
    prisoner's `!lr`; one typed while others are still alive is no request (before: his real
    request as the last prisoner was his «second», a warning)."""
    log, ts = setup(prisoners=4)
    log.trig(ts[0], "jb_lr", ' (choice "дуэль")')
    for t in ts[1:]:
        log.kill(GUARD, t)
    log.trig(ts[0], "jb_lr", ' (choice "дуэль на ножах на фд")')
    assert decided(run(A, log)[0]) == []


@pytest.mark.parametrize(("command", "slain"), [("game", False), ("prohibit", False), ("specialday", False), (None, True)])
def test_a_privilege_after_the_wardens_game_or_prohibition_is_after_his_first_command(command, slain):
    """001 Привилегии 1 «Любые привилегии до 1 приказа Начальника»: a warden who gives his
    orders by voice (001 Обязан 1 «Говорить в микрофон … Так же отдавать приказы») and
    registers his game, or a prohibition, has commanded; a privilege after it is no
    offence (before: a slay). Before any command it is the clause's case."""
    log, ts = setup()
    if command == "game":
        log.game(WARDEN, "Математика").trig(WARDEN, "jb_game_end")
    elif command == "prohibit":
        log.prohibit(WARDEN, "не прыгать")
    elif command == "specialday":
        log.specialday(WARDEN, "Зомби")
    log.trig(ts[0], "jb_privilege", ' (kind "hook")')
    assert decided(run(A, log)[0]) == ([("slay", "conduct.privileges")] if slain else [])


def test_a_personal_freeday_typed_twice_in_a_round_is_one():
    """001 ФД 8 «Приобретать ФД чаще, чем раз в неделю»: «!fd #5» typed twice in one round is
    one freeday (before: the second taken back, the prisoner warned)."""
    log, ts = setup()
    fd = f' (scope "personal") (target "#{ts[0].userid}")'
    log.trig(WARDEN, "jb_freeday", fd).trig(WARDEN, "jb_freeday", fd)
    assert decided(run(A, log)[0]) == []


@pytest.mark.parametrize(("after_first", "moved"), [(20, False), (5, True)])
def test_a_global_game_typed_twice_has_one_head_start_from_the_first(after_first, moved):
    """001 Глобальные 2 «После открытия клеток, дать заключенным от 15 до 30 секунд»: the
    warden who types «!game прятки» and then «!game Прятки» plays one game; its head start runs
    from the first (before: from the second, a kill 20 s into the game was a move to T)."""
    log, ts = setup()
    log.game(WARDEN, "прятки").wait(after_first - 8 if after_first > 8 else 1).game(WARDEN, "Прятки")
    log.wait(max(1, after_first - (after_first - 8 if after_first > 8 else 1) - 1)).kill(GUARD, ts[0])
    assert decided(run(A, log)[0]) == ([("teamswap", "games.head_start")] if moved else [])


@pytest.mark.parametrize(("weapon", "paid"), [("hegrenade", False), ("world", True)])
def test_004_4_12_a_guards_own_grenade_is_no_death_on_purpose(weapon, paid):
    """004 4.12 «охраннику запрещается намеренно погибать»: his own grenade shows no intent
    (before: 100$ to the prisoner as for a guard who died on purpose)."""
    log, ts = setup(prisoners=2)
    log.kill(WARDEN, ts[1]).wait(3).suicide(GUARD, weapon)
    assert decided(run(B, log)[0], "lastrequest.guard_suicide") == ([("money", "lastrequest.guard_suicide")] if paid else [])


@pytest.mark.parametrize(("humans", "bots", "decision"), [(8, 2, "propose"), (9, 0, "warn"), (8, 0, None)])
def test_004_5_17_bots_are_prisoners_online_by_one_reading_only(humans, bots, decision):
    """004 5.17 «При онлайне более 8 заключённых запрещается проводить … «Король»»: bots on the
    prisoners' team are online by one reading, not by another: 8 people and 2 bots is an
    admin's call (before: a warning); 9 people is the clause's case."""
    from tests.logtext import P
    log, _ = setup(prisoners=humans)
    for i in range(bots):
        log.connect(P(f"Bot {i}", 90 + i, "BOT"), "TERRORIST")
    log.game(WARDEN, "Король")
    assert decided(run(B, log)[0]) == ([(decision, "games.online_limit")] if decision else [])


@pytest.mark.parametrize(("dead", "decision"), [(2, "propose"), (0, None)])
def test_communism_seven_players_alive_or_on_the_team_is_an_admins_call(dead, decision):
    """000 Коммунизм «Минимальное количество игроков: 7»: 8 prisoners on the team, 6 of them
    alive, is enough by one reading and not by the other: an admin judges (before: a
    warning)."""
    log, ts = setup(prisoners=8)
    for t in ts[:dead]:
        log.kill(GUARD, t)
    log.game(WARDEN, "Коммунизм")
    assert decided(run(A, log)[0]) == ([(decision, "games.min_players")] if decision else [])


@pytest.mark.parametrize(("when", "decision"), [("duel", None), ("rebel", None), ("plain", "slay")])
def test_general_22_grenades_in_a_duel_or_a_rebellion_are_no_flood(when, decision):
    """001 Общие 22 «"Спамить" любыми гранатами»: the last prisoner's grenade duel is its own
    fight; Общие 9 «Любая брошенная граната в сторону КТ приравнивается к бунту»: a rebel's
    grenades are his rebellion (before: a slay for flood); otherwise four in 10 s is the clause's."""
    log, ts = setup(prisoners=3)
    t = ts[0]
    if when == "duel":
        log.kill(GUARD, ts[1]).kill(GUARD, ts[2]).trig(t, "jb_lr", ' (choice "дуэль на гранатах")')
    elif when == "rebel":
        log.add(f'"{t.name}<{t.userid}><{t.steamid}><TERRORIST>" attacked "{GUARD.name}<{GUARD.userid}><{GUARD.steamid}><CT>" '
                'with "glock" (damage "20") (damage_armor "0") (health "80") (armor "0") (hitgroup "chest")')
    else:
        log.order(WARDEN, "все в клетку")
    for _ in range(4):
        log.wait(2).add(f'"{t.name}<{t.userid}><{t.steamid}><TERRORIST>" threw hegrenade [1 2 3]')
    assert decided(run(A, log)[0], "conduct.grenade_spam") == ([(decision, "conduct.grenade_spam")] if decision else [])


@pytest.mark.parametrize(("ordered", "decision"), [(True, None), (False, "propose")])
def test_fd_3_the_three_restrictions_are_the_freedays_and_it_ends_when_taken(ordered, decision):
    """001 ФД 3 «Начальник может добавить 3 ограничения к стандартным» on a freeday, ФД 5
    «Общее ФД можно забрать, если Половина/Большинство игроков - Мертвы»: once half are dead
    and the warden gives orders, the freeday is taken and the round is an ordinary one, with
    no cap on A (before: a fourth prohibition was warned and cancelled); half dead and no
    order yet, he may take it at any moment: an admin judges."""
    log, ts = setup(prisoners=6, rounds_before=0)  # Monday
    for text in ("не прыгать", "не бегать", "не садиться"):
        log.prohibit(WARDEN, text)
    for t in ts[:4]:
        log.kill(GUARD, t)
    if ordered:
        log.order(WARDEN, "все в клетку")
    log.prohibit(WARDEN, "не стрелять")
    assert decided(run(A, log)[0], "prohibitions.max") == ([(decision, "prohibitions.max")] if decision else [])


# --- 001 Общие 18: мат as players write it ------------------------------------------------------


@pytest.mark.parametrize("line", ["да бля опять", "я охуел", "нихуя не видно", "отъебись от меня", "ебло закрой", "долбаеб ты",
                                  "suka blyat"])
def test_general_18_the_commonest_mat_as_players_write_it_is_put_to_an_admin(line):
    """001 Общие 18 «Неадекватное поведение (Маты, оскорбления…)»: the server's list missed the
    commonest forms players write («бля», «охуел», «нихуя», «отъебись», «ебло», «долбаеб»,
    translit «suka»): now each is put to an admin, as the rule does with all of them."""
    log, ts = setup()
    log.say(ts[0], line)
    assert decided(run(A, log)[0]) == [("propose", "conduct.language")]
