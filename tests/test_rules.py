"""The core rules C1 to C6, as log-text scenarios written from the rulebooks."""

from __future__ import annotations

import json

import pytest

from jailcore.engine import Engine
from tests.logtext import Log, P, config, run, team_of

WARDEN = P("Начальник", 2, "STEAM_1:0:42")
GUARD = P("Охранник", 3, "STEAM_1:1:77")


def setup(prisoners: int = 6, rounds_before: int = 1) -> tuple[Log, list[P]]:
    """A server on a Tuesday (day 2) by default, so the Monday freeday is out of the way."""
    log = Log()
    ts = team_of(prisoners, "TERRORIST")
    log.connect(WARDEN, "CT").connect(GUARD, "CT")
    for t in ts:
        log.connect(t, "TERRORIST")
    log.rounds(rounds_before)
    log.round_start().warden(WARDEN)
    return log.start_here(), ts


# --- C1: orders ---------------------------------------------------------------------------


def test_orders_replace_keeps_only_the_last():
    log, _ = setup()
    log.order(WARDEN, "все в клетки").order(WARDEN, "сесть")
    _, engine = run("[orders]\nmode = 'replace'", log)
    assert [o["text"] for o in engine.public_state()["orders"]] == ["сесть"]


def test_orders_stack_keeps_all_until_cancelled():
    log, _ = setup()
    log.order(WARDEN, "все в клетки").order(WARDEN, "сесть")
    _, engine = run("[orders]\nmode = 'stack'", log)
    assert [o["text"] for o in engine.public_state()["orders"]] == ["все в клетки", "сесть"]
    log.trig(WARDEN, "jb_order_cancel")
    _, engine = run("[orders]\nmode = 'stack'", log)
    assert engine.public_state()["orders"] == []


def test_warden_death_cancels_orders_and_ends_the_game():
    log, ts = setup()
    log.order(WARDEN, "стоять").prohibit(WARDEN, "не прыгать").game(WARDEN, "Математика")
    _, engine = run("", log)
    state = engine.public_state()
    assert state["game"]["name"] == "Математика" and state["orders"]
    log.kill(ts[0], WARDEN)
    _, engine = run("", log)
    state = engine.public_state()
    assert state["orders"] == [] and state["game"] is None and state["warden"] is None
    # prohibitions are a separate list (004 6.1): the warden's death does not lift them
    assert [p["text"] for p in state["prohibitions"]] == ["не прыгать"]


def test_round_end_clears_orders_prohibitions_and_game():
    log, _ = setup()
    log.order(WARDEN, "стоять").prohibit(WARDEN, "не прыгать").game(WARDEN, "Алфавит").round_end()
    _, engine = run("", log)
    state = engine.public_state()
    assert (state["orders"], state["prohibitions"], state["game"], state["warden"]) == ([], [], None, None)


# --- C2: prohibitions ---------------------------------------------------------------------


def test_third_prohibition_is_refused_with_warning_and_cancel():
    log, _ = setup()
    log.prohibit(WARDEN, "не прыгать").order(WARDEN, "новый приказ").prohibit(WARDEN, "не сидеть")
    log.prohibit(WARDEN, "не бегать")
    actions, engine = run("", log)
    assert [p["text"] for p in engine.public_state()["prohibitions"]] == ["не прыгать", "не сидеть"]
    assert [(a.action, a.rule) for a in actions] == [("warn", "prohibitions.max"), ("cancel", "prohibitions.max")]
    warn, cancel = actions
    assert warn.target.userid == WARDEN.userid and warn.ref == "6.3"
    assert "не бегать" in warn.reason and "6.3" in warn.reason
    assert cancel.index == 3


def test_lifting_a_prohibition_makes_room():
    log, _ = setup()
    log.prohibit(WARDEN, "a").prohibit(WARDEN, "b").trig(WARDEN, "jb_prohibit_lift", ' (index "1")')
    log.prohibit(WARDEN, "c")
    actions, engine = run("", log)
    assert actions == []
    assert [p["text"] for p in engine.public_state()["prohibitions"]] == ["b", "c"]


def test_freeday_allows_three_prohibitions():
    log, _ = setup(rounds_before=0)  # round 1: Monday, a freeday
    for text in ("a", "b", "c"):
        log.prohibit(WARDEN, text)
    actions, engine = run("", log)
    assert engine.public_state()["day"] == 1
    assert actions == []
    log.prohibit(WARDEN, "d")
    actions, _ = run("", log)
    assert [a.action for a in actions if a.rule == "prohibitions.max"] == ["warn", "cancel"]


# --- C3: round counter, game week, freeday, global games, rebellion ----------------------


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
    actions, _ = run("", log)
    assert [(a.action, a.rule, a.minutes, a.target.userid) for a in actions] == [
        ("ban", "calendar.rebellion", 10, ts[0].userid)
    ]


def test_rebellion_with_a_day_between_is_allowed():
    log, ts = setup()
    log.kill(ts[0], GUARD).round_end().rounds(1).round_start().kill(ts[0], GUARD)
    actions, _ = run("", log)
    assert actions == []


# --- C4: special-day cooldown ------------------------------------------------------------


def test_specialday_cooldown_boundary_r2_refused_r3_allowed():
    log, _ = setup()  # round 2
    log.specialday(WARDEN).round_end()
    log.round_start().round_end()  # round 3 = R+1
    log.round_start().warden(WARDEN).specialday(WARDEN, "Голодные игры")  # round 4 = R+2
    actions, engine = run("", log)
    assert [(a.action, a.rule, a.ref, a.round) for a in actions] == [("slay", "specialday.cooldown", "6.5", 4)]
    assert "1" in actions[0].reason and engine.public_state()["specialday"] == 2
    log.round_end().round_start().warden(WARDEN).specialday(WARDEN, "Голодные игры")  # round 5 = R+3
    actions, engine = run("", log)
    assert [a.round for a in actions] == [4]
    assert engine.public_state()["specialday"] == 5


def test_ladder_climbs_per_offender():
    log, _ = setup()
    # the first is allowed; each later one climbs the warden's ladder
    log.specialday(WARDEN).specialday(WARDEN).specialday(WARDEN).specialday(WARDEN)
    log.warden(GUARD).specialday(GUARD)
    actions, engine = run("", log)
    steps = [(a.action, a.target.userid) for a in actions]
    assert steps == [
        ("slay", WARDEN.userid),
        ("ctban", WARDEN.userid),
        ("teamswap", WARDEN.userid),
        ("ctban", WARDEN.userid),  # the last step repeats
        ("slay", GUARD.userid),  # the guard starts his own ladder
    ]
    assert actions[1].minutes == 30
    assert [b["steamid"] for b in engine.public_state()["ctbans"]] == [WARDEN.steamid]


# --- C5: online-based game limits --------------------------------------------------------


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
    log, _ = setup(prisoners)
    log.game(WARDEN, "Метание дигла")
    actions, _ = run("", log)
    assert [(a.rule, a.ref) for a in actions] == ([("games.online_limit", "5.18")] if refused else [])


def test_online_limit_ladder_warn_then_teamswap_then_return_block():
    log, _ = setup(9)
    log.game(WARDEN, "короля").game(WARDEN, "Повар")
    actions, engine = run("", log)
    assert [(a.action, a.team) for a in actions] == [("warn", None), ("teamswap", "T")]
    assert engine.public_state()["warden"] is None
    # 001 guards 11: may not come back to CT for 3 rounds
    log.join(WARDEN, "CT")
    actions, _ = run("", log)
    assert [(a.action, a.rule) for a in actions[2:]] == [("teamswap", "ctban.return_block")]
    log.round_end().rounds(2)  # rounds R+1, R+2 served
    log.round_start().join(WARDEN, "CT")  # R+3 still blocked
    actions, _ = run("", log)
    assert [a.rule for a in actions[2:]] == ["ctban.return_block", "ctban.return_block"]
    log.round_end().join(WARDEN, "CT")  # after R+3: free to return
    actions, _ = run("", log)
    assert len(actions) == 4


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
    assert [(a.action, a.rule) for a in actions] == [("warn", "games.unknown")]
    assert "Бадминтон" in actions[0].reason


@pytest.mark.parametrize("typed", ["Математику", "математика", "MATH", "Играем в Математику", "«Математика»"])
def test_game_names_match_however_typed(typed):
    log, _ = setup()
    log.game(WARDEN, typed)
    _, engine = run("", log)
    assert engine.public_state()["game"]["name"] == "Математика"


# --- C6: CT bans, languages, state --------------------------------------------------------


def test_ct_ban_in_minutes_answers_a_join_with_time_left():
    log, _ = setup()
    log.specialday(WARDEN).specialday(WARDEN).specialday(WARDEN)  # allowed, slay, ctban 30m
    log.wait(60 * 10).join(WARDEN, "CT")
    quiet = "[teams.no_warden]\nenabled = false\n"  # half an hour with no warden would climb that ladder too
    actions, _ = run(quiet, log)
    assert [(a.action, a.rule) for a in actions[-1:]] == [("teamswap", "ctban")]
    assert "20 мин" in actions[-1].reason
    log.wait(60 * 25).join(WARDEN, "CT")
    actions2, _ = run(quiet, log)
    assert len(actions2) == len(actions)  # the ban has run out: no answer


def test_english_messages():
    log, _ = setup()
    log.prohibit(WARDEN, "a").prohibit(WARDEN, "b").prohibit(WARDEN, "c")
    actions, _ = run("[server]\nlanguage = 'en'", log)
    assert actions[0].reason.startswith("[Rule 6.3]") and "Penalty: warning" in actions[0].reason


def test_snapshot_restores_exactly_and_continues_the_same():
    log, _ = setup()
    log.specialday(WARDEN).prohibit(WARDEN, "a").order(WARDEN, "x")
    first_half = Log(start="2026-11-30T21:00:00")
    first_half.seq = log.seq
    first_half.specialday(WARDEN).round_end().round_start().warden(WARDEN).specialday(WARDEN)
    cfg = config()
    whole, engine_whole = run(cfg, log.text() + first_half.text())
    _, engine_a = run(cfg, log.text())
    saved = json.loads(json.dumps(engine_a.snapshot()))
    engine_b = Engine(cfg, saved)
    assert engine_b.snapshot() == engine_a.snapshot()
    rest, engine_b = run(cfg, first_half, engine=engine_b)
    assert rest and [a.to_json() for a in rest] == [a.to_json() for a in whole[-len(rest) :]]
    assert engine_b.snapshot() == engine_whole.snapshot()


def test_config_disables_a_rule():
    log, _ = setup()
    log.specialday(WARDEN).specialday(WARDEN)
    actions, _ = run("[specialday.cooldown]\nenabled = false", log)
    assert actions == []


def test_seq_gap_asks_for_resync():
    log, _ = setup()
    log.seq += 5
    log.order(WARDEN, "x")
    _, engine = run("", log)
    assert engine.resync_wanted


def test_a_line_that_arrives_twice_punishes_once():
    log, _ = setup()
    log.specialday(WARDEN).specialday(WARDEN)
    log.lines.append(log.lines[-1])  # the same datagram again
    actions, _ = run("", log)
    assert [a.action for a in actions] == ["slay"]


def test_a_replayed_shim_line_is_ignored_but_a_reloaded_plugin_is_not():
    log, _ = setup()
    log.specialday(WARDEN).specialday(WARDEN)
    replay = log.lines[-1]
    log.order(WARDEN, "x")
    log.lines.append(replay)  # an old line again, after others
    actions, engine = run("", log)
    assert [a.action for a in actions] == ["slay"]
    log.seq = 0  # the plugin reloaded and its hello was lost
    log.specialday(WARDEN)
    actions, engine = run("", log)
    assert [a.action for a in actions] == ["slay", "ctban", "teamswap"] and engine.resync_wanted


def test_an_old_shim_line_read_again_after_a_restart_is_not_acted_on():
    log, _ = setup()
    log.specialday(WARDEN).specialday(WARDEN)
    old = log.lines[-1]  # the line that cost the warden a slay
    _, engine = run("", log)
    restarted = Engine(engine.config, json.loads(json.dumps(engine.snapshot())))  # the daemon restarted
    later = Log(start="2026-11-30T21:00:00")
    later.say(GUARD, "снова в строю")
    later.lines.append(old)  # and the old line arrives again
    actions, _ = run(engine.config, later, engine=restarted)
    assert actions == []
