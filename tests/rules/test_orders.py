"""Scenarios for orders: 001 general 3 and 7, 004 5.3, written from the rulebooks."""

from __future__ import annotations

from tests.logtext import run
from tests.scenes import WARDEN, setup


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
