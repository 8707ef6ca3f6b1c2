"""Scenarios for the engine as a whole: languages, snapshots, switches, duplicate and lost lines, written from the rulebooks."""

from __future__ import annotations

import json

import pytest

from jailcore.engine.engine import Engine
from tests.logtext import Log, config, run
from tests.scenes import GUARD, WARDEN, next_day, setup


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
    next_day(log.specialday(WARDEN)).specialday(WARDEN)
    log.lines.append(log.lines[-1])  # the same datagram again
    actions, _ = run("", log)
    assert [a.action for a in actions] == ["slay"]


def test_a_replayed_shim_line_is_ignored_but_a_reloaded_plugin_is_not():
    log, _ = setup()
    next_day(log.specialday(WARDEN)).specialday(WARDEN)
    replay = log.lines[-1]
    log.order(WARDEN, "x")
    log.lines.append(replay)  # an old line again, after others
    actions, engine = run("", log)
    assert [a.action for a in actions] == ["slay"]
    log.seq = 0  # the plugin reloaded and its hello was lost
    next_day(log).specialday(WARDEN)
    actions, engine = run("", log)
    assert [a.action for a in actions] == ["slay", "ctban", "teamswap"] and engine.resync_wanted


def test_an_old_shim_line_read_again_after_a_restart_is_not_acted_on():
    log, _ = setup()
    next_day(log.specialday(WARDEN)).specialday(WARDEN)
    old = log.lines[-1]  # the line that cost the warden a slay
    _, engine = run("", log)
    restarted = Engine(engine.config, json.loads(json.dumps(engine.snapshot())))  # the daemon restarted
    later = Log(start="2026-11-30T21:00:00")
    later.say(GUARD, "снова в строю")
    later.lines.append(old)  # and the old line arrives again
    actions, _ = run(engine.config, later, engine=restarted)
    assert actions == []


@pytest.mark.parametrize("key", ["games.host", "games.duration", "teams.balance", "conduct.teamkill", "referee", "conduct.names"])
def test_every_next_rule_can_be_switched_off(key):
    text = f"[{key}]\nenabled = false\n"
    assert not config(text).on(key)
