"""Scenarios for orders: 001 general 3 and 7, 004 5.3, written from the rulebooks."""

from __future__ import annotations

import pytest

from tests.logtext import run
from tests.scenes import GUARD, WARDEN, setup


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


@pytest.mark.parametrize("how", ["disconnect", "team", "left"])
def test_orders_end_when_the_warden_leaves_as_on_his_death(how):
    """001 general 7 «После смерти начальника все приказы отменяются, игры заканчиваются»:
    a warden who leaves the server or the guards ends his command as surely."""
    log, _ = setup()
    log.order(WARDEN, "стоять").game(WARDEN, "Математика")
    if how == "disconnect":
        log.disconnect(WARDEN)
    elif how == "team":
        log.join(WARDEN, "TERRORIST")
    else:
        log.trig(WARDEN, "jb_warden_removed", ' (reason "left")')
    _, engine = run("", log)
    state = engine.public_state()
    assert (state["orders"], state["game"], state["warden"]) == ([], None, None)


def test_orders_stand_when_the_warden_hands_over_command():
    log, _ = setup()
    log.order(WARDEN, "стоять").trig(WARDEN, "jb_warden_removed", ' (reason "resigned")')
    _, engine = run("", log)
    assert [o["text"] for o in engine.public_state()["orders"]] == ["стоять"]


@pytest.mark.parametrize("shim_first", [True, False])
def test_a_warden_moved_off_ct_ends_his_orders_whichever_line_comes_first(shim_first):
    """001 general 7, as on leaving the guards. Moved to T alive (an admin's move, a ladder's
    teamswap: CS_SwitchTeam, no death), the shim writes `jb_warden_removed (resigned)` from
    SourceMod's player_team hook and srcds writes `joined team` from the same event, in
    either order; read «resigned» first, his orders stood as at a hand-over (issue 26)."""
    log, _ = setup()
    log.order(WARDEN, "стоять").prohibit(WARDEN, "не прыгать").wait(20)
    resign = ' (reason "resigned")'
    if shim_first:
        log.trig(WARDEN, "jb_warden_removed", resign).join(WARDEN, "TERRORIST")
    else:
        log.join(WARDEN, "TERRORIST").trig(WARDEN, "jb_warden_removed", resign)
    _, engine = run("", log)
    state = engine.public_state()
    assert (state["orders"], state["warden"]) == ([], None)


def test_a_hand_over_then_the_old_warden_moving_later_leaves_the_new_wardens_orders():
    """A resign that is a hand-over (`!uw`, another guard takes command) is not undone by the
    old warden's team change a while later: the orders are the new warden's."""
    log, _ = setup()
    log.order(WARDEN, "стоять").trig(WARDEN, "jb_warden_removed", ' (reason "resigned")').wait(3).warden(GUARD)
    log.order(GUARD, "все в клетку").wait(30).join(WARDEN, "TERRORIST")
    _, engine = run("", log)
    assert [o["text"] for o in engine.public_state()["orders"]] == ["все в клетку"]
    log, _ = setup()
    log.order(WARDEN, "стоять").trig(WARDEN, "jb_warden_removed", ' (reason "resigned")').wait(30).join(WARDEN, "TERRORIST")
    _, engine = run("", log)
    assert [o["text"] for o in engine.public_state()["orders"]] == ["стоять"]  # his resign stood: a move later is no command's end
