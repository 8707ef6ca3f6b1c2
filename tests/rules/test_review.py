"""Cases an adversarial review of this round found judged wrong, each fixed and kept here."""

from __future__ import annotations

import json

from jailcore.config.config import Config
from jailcore.engine.engine import Engine
from jailcore.log import events as ev
from tests.logtext import Log, P, config, run, team_of
from tests.scenes import GUARD, WARDEN, setup

ROOT_A = "configs/server-a.toml"


def test_a_guard_moved_to_t_stays_alive_and_counts_as_a_prisoner():
    """CS_SwitchTeam keeps him alive: the last prisoner is not the last while he lives (001
    warden must 3 and ПЗ 1 do not apply yet)."""
    extra = P("G3", 4, "STEAM_1:0:44")
    warden, guard = P("W", 2, "STEAM_1:0:42"), P("G", 3, "STEAM_1:0:43")
    ts = team_of(6, "TERRORIST")
    log = Log()
    for g in (warden, guard, extra):
        log.connect(g, "CT")
    for t in ts:
        log.connect(t, "TERRORIST")
    log.rounds(1).round_start()  # 3 guards to 6 prisoners: the newest goes to T, alive
    log.join(extra, "TERRORIST").warden(warden)  # the engine's own line for the switch
    for t in ts:
        log.kill(warden, t)
    actions, engine = run("", log)
    assert engine.state.players[extra.userid].alive and engine.state.last_prisoner.uid == extra.userid
    assert [a for a in actions if a.rule in ("warden.last_prisoner", "lastrequest.timeout")] == []


def test_a_return_block_given_between_rounds_lasts_three_rounds():
    """001 guards 11: «3 игровых раунда», whenever the move was."""
    new = P("New", 9, "STEAM_1:0:999")
    log, _ = setup(prisoners=6)
    log.connect(new, "TERRORIST").round_end().join(new, "CT")  # between rounds: moved, blocked
    blocked = []
    for _ in range(4):
        log.round_start().join(new, "CT").round_end()
        actions, _ = run("", log)
        blocked.append(actions[-1].rule == "ctban.return_block")
        log.join(new, "TERRORIST")
    assert blocked == [True, True, True, False]


def test_the_kings_half_counts_only_the_guards_kills():
    """000 Король «запрещено убивать больше половины»: not a prisoner killed by a prisoner."""
    log, ts = setup(prisoners=6)
    log.game(WARDEN, "Король").kill(ts[0], ts[1]).kill(ts[0], ts[2]).kill(GUARD, ts[3]).kill(GUARD, ts[4])
    actions, _ = run("[games.online_limit]\nenabled = false\n[conduct.teamkill]\nenabled = false\n", log)
    assert [a for a in actions if a.rule == "games.deaths"] == []


def test_a_special_day_refused_for_coming_too_soon_is_still_a_special_day_for_the_other_rules():
    """000 6.5 punishes the warden; the day itself is played, and its fights are no rebellion."""
    log, ts = setup()
    log.specialday(WARDEN).round_end().round_start().warden(WARDEN).specialday(WARDEN, "Голодные игры")
    log.kill(ts[0], GUARD).kill(ts[1], ts[2])
    actions, _ = run("", log)
    assert [a.rule for a in actions] == ["specialday.cooldown"]


def test_the_ask_and_the_punishment_of_no_warden_stay_apart_after_a_quiet_log():
    """004 4.4: asked at 30 s, punished at 60 s: never a second after the ask."""
    log, _ = setup()
    log.lines.pop()  # no warden this round
    log.start_here().wait(65).say(GUARD, "a").say(GUARD, "b")
    actions, _ = run("", log)
    assert [a.action for a in actions if a.rule == "teams.no_warden"] == ["say"]
    log.wait(31).say(GUARD, "c")
    actions, _ = run("", log)
    assert [a.action for a in actions if a.rule == "teams.no_warden"] == ["say", "teamswap"]


def test_the_game_reminder_and_its_punishment_stay_apart_after_a_quiet_log():
    """004 5.11: a reminder, then the whole grace before the ladder."""
    log, _ = setup()
    log.game(WARDEN, "Светофор").wait(370).say(GUARD, "a").say(GUARD, "b")
    actions, _ = run("[teams.no_warden]\nenabled = false\n", log)
    assert [a.action for a in actions if a.rule == "games.duration"] == ["say"]


def test_a_line_three_times_across_a_restore_is_handled_once():
    engine = Engine(config(""))
    start = ev.RoundStart("2026-11-30T20:00:00")
    engine.handle(start)
    engine.handle(start)
    engine = Engine(engine.config, json.loads(json.dumps(engine.snapshot())))
    assert engine.handle(start) == [] and engine.state.round == 1


def test_a_server_clock_near_the_year_9999_does_not_break_the_engine():
    engine = Engine(config(""))
    who = ev.Player("a", 2, "STEAM_1:0:1")
    engine.handle(ev.Connected("9999-12-31T23:59:00", who, ""))
    out = engine.handle(ev.CtBanGiven("9999-12-31T23:59:01", who, 1, 2, 30, None, "x"))
    assert [a.action for a in out if a.action != "hud"] == ["ctban"]


def test_server_a_shipped_config_judges_a_whole_round_without_error():
    ts = team_of(6, "TERRORIST")
    log = Log().connect(WARDEN, "CT")
    for t in ts:
        log.connect(t, "TERRORIST")
    log.rounds(1).round_start().warden(WARDEN)
    run(Config.from_toml(ROOT_A, env={}), log)


def test_the_config_page_says_waits_for_an_admin_only_where_a_rule_waits():
    """«Ждёт администратора» on the web config page: a rule with `confirm = "admin"` waits;
    `confirm = "none"` and a `confirm_minutes` setting wait for no one."""
    from jailcore.web.configedit import rules

    cfg = config('[conduct.names]\nconfirm = "admin"\n[games.host]\nconfirm = "none"\nconfirm_minutes = 10\n')
    waits = {r["key"]: r["waits"] for r in rules(cfg)}
    assert waits["conduct.names"] and not waits["games.host"] and not waits["orders"]
