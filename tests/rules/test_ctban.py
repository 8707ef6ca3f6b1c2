"""Scenarios for ctban and ctban.return_block: the door to CT, written from the rulebooks."""

from __future__ import annotations

import pytest

from tests.logtext import Log, P, run
from tests.scenes import WARDEN, next_day, setup


def test_ct_ban_in_minutes_answers_a_join_with_time_left():
    log, _ = setup()
    log.specialday(WARDEN)  # allowed, then a round apart: slay, ctban 30m
    next_day(log).specialday(WARDEN)
    next_day(log).specialday(WARDEN)
    log.wait(60 * 10).join(WARDEN, "CT")
    quiet = "[teams.no_warden]\nenabled = false\n"  # half an hour with no warden would climb that ladder too
    actions, _ = run(quiet, log)
    assert [(a.action, a.rule) for a in actions[-1:]] == [("teamswap", "ctban")]
    assert "20 мин" in actions[-1].reason
    log.wait(60 * 25).join(WARDEN, "CT")
    actions2, _ = run(quiet, log)
    assert len(actions2) == len(actions)  # the ban has run out: no answer


# --- 001 guards 11: «Не заходить обратно за КТ 3 игровых раунда, если Вас перевели по
# следующим причинам: Нарушение баланса, Незнание правил, Плохое командование, Плохой микрофон»

EXTRA = P("Третий", 9, "STEAM_1:0:999")


def moved_for_balance() -> Log:
    log, _ = setup(prisoners=6)  # 6 prisoners: at most 2 guards (1 to 3), and there are 2
    log.connect(EXTRA, "CT")
    return log


def blocked(log: Log, extra: str = "") -> bool:
    log.join(EXTRA, "CT")
    actions, _ = run(extra, log)
    return [a.rule for a in actions[-1:]] == ["ctban.return_block"]


def test_a_move_for_balance_blocks_the_return_for_three_played_rounds():
    log = moved_for_balance()
    actions, _ = run("", log)
    assert [(a.action, a.rule) for a in actions] == [("teamswap", "teams.balance")]
    assert blocked(log)  # the round he was moved in
    log.round_end().rounds(2)
    log.round_start()
    assert blocked(log)  # the third round after it is still his to sit out
    log.round_end()
    assert not blocked(log.round_start())


def test_the_return_block_is_handed_to_the_shim_at_once():
    """The shim refuses his join to CT itself; the daemon's teamswap stays the fallback."""
    from jailcore.engine.actions import render
    from jailcore.engine.engine import Engine
    from jailcore.log.parse import LogParser
    from tests.logtext import config, records

    log, engine, parser = moved_for_balance(), Engine(config("")), LogParser()
    actions = [a for rec in records(log.text().splitlines()) if (e := parser.parse(rec)) for a in engine.handle(e)]
    door = [render(a) for a in actions if a.action == "door"]
    assert door == [f'jb_ctban_set #{EXTRA.userid} 0 "[Правило Охрана 11] Вас перевели за Т по правилам: за КТ можно через 3 р." "jailcore"']


def test_only_the_rules_it_names_block_the_return():
    log, _ = setup(9)
    log.game(WARDEN, "короля").game(WARDEN, "Повар")  # a warning, then a move to T for 004 5.17
    log.join(WARDEN, "CT")
    actions, _ = run('[ctban.return_block]\nafter = ["teams.balance"]\n', log)
    assert [a.rule for a in actions] == ["games.online_limit", "games.online_limit"]
    log, _ = setup(9)
    log.game(WARDEN, "короля").game(WARDEN, "Повар").join(WARDEN, "CT")
    actions, _ = run('[ctban.return_block]\nafter = ["teams.balance", "games.online_limit"]\n', log)
    assert [a.rule for a in actions][-1] == "ctban.return_block"


def test_a_move_for_breaking_a_rule_blocks_the_return():
    """001 Охрана 11 «Не заходить обратно за КТ 3 игровых раунда, если Вас перевели по
    следующим причинам: Нарушение баланса, Незнание правил, Плохое командование…»: jailcore's
    own move for a rule broken is one of them ("ladder" in `after`, shipped on server A)."""
    log, _ = setup(9)
    log.game(WARDEN, "короля").game(WARDEN, "Повар").join(WARDEN, "CT")
    actions, _ = run('[server]\nrulebook = ["001", "004", "000"]\n', log)
    assert [(a.action, a.rule) for a in actions][-1] == ("teamswap", "ctban.return_block")
    assert actions[-1].target.userid == WARDEN.userid


@pytest.mark.parametrize("reset", [True, False])
def test_the_block_counts_played_rounds_across_a_map_change(reset):
    extra = f"[calendar]\nreset_on_map_change = {str(reset).lower()}\n"
    log = moved_for_balance()
    log.round_end()  # the round he was moved in
    log.add('Loading map "jail_new"').add('Started map "jail_new" (CRC "1")')
    log.rounds(2)  # two rounds on the new map, whatever their numbers
    assert blocked(log.round_start(), extra)
    log.round_end()
    assert not blocked(log.round_start(), extra)


def test_a_round_cut_short_by_a_map_change_is_not_a_played_round():
    log = moved_for_balance()
    log.round_end().round_start()  # round 1 of 3 under way...
    log.add('Loading map "jail_new"').add('Started map "jail_new" (CRC "1")')  # ...cut short, not played out
    log.rounds(2).round_start()
    assert blocked(log)
    log.round_end()
    assert not blocked(log.round_start())


def test_a_restarted_round_is_void_and_does_not_count():
    log = moved_for_balance()
    log.round_end().round_start().add('World triggered "Restart_Round_(1_second)"')
    log.rounds(2).round_start()
    assert blocked(log)
