"""The round begins when the game's round begins: at the freeze period's start, which only the
shim's `jb_round_start` marks (shared/srcds-facts.md, «Round boundaries and the freeze
period»: srcds writes `World triggered "Round_Start"` when the freeze ends, CS:S nothing at
the restart). A `!w` typed in the freeze belongs to the round; the freeze is neither warden
time (004 4.4) nor game time (004 5.11); without the shim, Round_Start alone still begins it."""

from __future__ import annotations

import pytest

from jailcore.log.parse import LogParser
from tests.logtext import run
from tests.scenes import GUARD, WARDEN, rules_of, setup

B = "[server]\nrulebook = [\"004\", \"000\"]\n[teams.no_warden]\n[games.host]\n[games.duration]\n[games.unknown]\n"


def frozen_round(log, freeze: int = 15):
    """The round restarts (the shim's line), the freeze period runs, Round_Start ends it."""
    return log.round_end().wait(5).round_begins(freeze).add("Starting Freeze period")


def test_000_vi_a_warden_who_claims_in_the_freeze_hosts_his_own_game():
    """000 VI «Любую игру проводит только Начальник Тюрьмы»: the warden of the freeze is the
    round's warden once Round_Start is read; before, the engine forgot him and warned him."""
    log, _ = setup()
    frozen_round(log).start_here().wait(3).warden(WARDEN).wait(12).round_start()
    log.wait(5).order(WARDEN, "все в клетку").game(WARDEN, "Светофор")
    actions, engine = run("", log)
    assert actions == [] and engine.state.warden == WARDEN.userid and engine.state.game.name == "Светофор"
    assert engine.state.round == 3  # one round: the shim's line and Round_Start are one round


def test_004_4_4_the_freeze_is_no_time_to_take_command():
    """004 4.4 «При отсутствии желающих КТ обязаны взять на себя роль Начальника»: asked 30 s
    into play; the 15 s freeze before Round_Start are not counted."""
    log, _ = setup()
    frozen_round(log).start_here().wait(15).round_start().wait(20).say(GUARD, "кто начальник?")
    actions, _ = run(B, log)
    assert rules_of(actions) == []  # 36 s after the round's start, 21 s of play
    log.wait(12).say(GUARD, "никто?")
    actions, _ = run(B, log)
    assert rules_of(actions) == [("say", "teams.no_warden")]


def test_004_4_4_a_lost_round_start_still_ends_the_freeze_by_the_clock():
    log, _ = setup()
    frozen_round(log).start_here().wait(15 + 27).say(GUARD, "кто начальник?")  # Round_Start lost: 29 s of play
    assert rules_of(run(B, log)[0]) == []
    log.wait(3).say(GUARD, "никто?")
    assert rules_of(run(B, log)[0]) == [("say", "teams.no_warden")]


def test_004_5_11_a_game_announced_in_the_freeze_is_timed_from_its_end():
    """004 5.11 «Если игра продолжается более 5 минут…»: the freeze's seconds are not the game's."""
    log, _ = setup()
    frozen_round(log).warden(WARDEN).game(WARDEN, "Светофор").start_here().wait(15).round_start()
    log.wait(5 * 60 - 12).say(WARDEN, "зелёный")
    assert rules_of(run(B, log)[0]) == []
    log.wait(20).say(WARDEN, "красный")
    assert rules_of(run(B, log)[0]) == [("say", "games.duration")]


@pytest.mark.parametrize("shim_first", [True, False])
def test_without_a_freeze_the_two_lines_are_one_round_in_either_order(shim_first):
    log, _ = setup()
    log.round_end().wait(5)
    if shim_first:
        log.round_begins(0).round_start()
    else:
        log.round_start().round_begins(0)
    log.warden(WARDEN).game(WARDEN, "Светофор")
    actions, engine = run("", log)
    assert (engine.state.round == 3 and engine.state.warden == WARDEN.userid and actions[-1:] == []) or rules_of(actions) == []
    assert not any(a.rule == "games.host" for a in actions)


def test_without_the_shim_round_start_alone_begins_the_round():
    log, _ = setup()
    log.round_end().wait(5).round_start().warden(WARDEN).game(WARDEN, "Светофор")
    log.round_end().wait(5).round_start()
    _, engine = run("", log)
    assert engine.state.round == 4 and engine.state.warden is None


def test_a_lost_shim_line_of_the_next_round_is_a_round_all_the_same():
    log, _ = setup()
    frozen_round(log).wait(15).round_start().round_end().wait(5).wait(15).round_start()  # the second jb_round_start lost
    _, engine = run("", log)
    assert engine.state.round == 4


def test_a_player_who_joins_in_the_freeze_spawns_with_the_round():
    """Counted alive: else the last prisoner (001 ПЗ 1) is found while two still live."""
    from tests.logtext import team_of

    log, ts = setup(prisoners=2)
    late = team_of(1, "TERRORIST", start=80, prefix="L")[0]
    log.connect(late, "Unassigned")
    frozen_round(log).join(late, "TERRORIST").wait(14).round_start().warden(WARDEN).order(WARDEN, "стоять")
    log.kill(WARDEN, ts[0])
    _, engine = run("", log)
    assert engine.state.last_prisoner is None and engine.state.players[late.userid].alive


# -- CS:GO's own line of the restart (issue 31) ------------------------------------------------
# A plugin older than `jb_round_start` (or one whose line was lost) leaves CS:GO's `Starting
# Freeze period` as the round's start: read so where the shim's line of that restart did not
# come, and one round when both do, in either order.


def old_plugin_round(log, freeze: int = 15):
    """The round restarts as a CS:GO server with a plugin older than the round line writes it."""
    return log.round_end().wait(5).add("Starting Freeze period")


def test_000_vi_with_an_old_plugin_the_warden_of_the_freeze_hosts_his_own_game():
    """000 VI «Любую игру проводит только Начальник Тюрьмы»: the warden who claims in the
    freeze is the round's warden when Round_Start ends the freeze, as with the shim's line."""
    log, _ = setup()
    old_plugin_round(log).start_here().wait(3).warden(WARDEN).wait(12).round_start()
    log.wait(5).order(WARDEN, "все в клетку").game(WARDEN, "Светофор")
    actions, engine = run(B, log)
    assert actions == [] and engine.state.warden == WARDEN.userid and engine.state.game.name == "Светофор"
    assert engine.state.round == 3 and not engine.state.round_by_shim


def test_004_4_4_with_an_old_plugin_the_freeze_is_no_time_to_take_command():
    """004 4.4 «При отсутствии желающих КТ обязаны взять на себя роль Начальника»: asked 30 s
    into play, the freeze before Round_Start not counted."""
    log, _ = setup()
    old_plugin_round(log).start_here().wait(15).round_start().wait(20).say(GUARD, "кто начальник?")
    assert rules_of(run(B, log)[0]) == []
    log.wait(12).say(GUARD, "никто?")
    assert rules_of(run(B, log)[0]) == [("say", "teams.no_warden")]


def test_with_an_old_plugin_a_lost_round_start_ends_the_freeze_after_a_minute_at_most():
    log, _ = setup()
    old_plugin_round(log).start_here().wait(60 + 27).say(GUARD, "кто начальник?")
    assert rules_of(run(B, log)[0]) == []
    log.wait(5).say(GUARD, "никто?")
    assert rules_of(run(B, log)[0]) == [("say", "teams.no_warden")]


@pytest.mark.parametrize("freeze_first", [False, True])
def test_the_shims_line_and_the_games_freeze_line_are_one_round_in_either_order(freeze_first):
    log, _ = setup()
    log.round_end().wait(5)
    if freeze_first:
        log.add("Starting Freeze period").round_begins(15)
    else:
        log.round_begins(15).add("Starting Freeze period")
    log.wait(3).warden(WARDEN).wait(12).round_start().wait(5).game(WARDEN, "Светофор")
    actions, engine = run(B, log)
    s = engine.state
    assert actions == [] and s.round == 3 and s.warden == WARDEN.userid and s.round_by_shim and s.round_by_freeze
    played = [line for line in log.text().splitlines() if "Round_Start" in line][-1]
    assert s.play_from == LogParser().parse(played).time  # play from Round_Start, as the shim's 15 s said


@pytest.mark.parametrize("order", ["SFR", "SRF", "FSR", "FRS", "RSF", "RFS"])
def test_without_a_freeze_the_three_lines_of_one_restart_are_one_round_in_any_order(order):
    log, _ = setup()
    log.round_end().wait(5)
    for line in order:
        if line == "S":
            log.round_begins(0)
        elif line == "F":
            log.add("Starting Freeze period")
        else:
            log.round_start()
    log.warden(WARDEN).game(WARDEN, "Светофор").wait(40).say(GUARD, "играем")
    actions, engine = run(B, log)
    assert engine.state.round == 3 and engine.state.warden == WARDEN.userid and rules_of(actions) == []


def test_an_old_plugins_rounds_follow_one_another_by_the_freeze_line():
    log, _ = setup()
    for _ in range(3):
        old_plugin_round(log).wait(15).round_start().wait(60)
    _, engine = run("", log)
    assert engine.state.round == 5
