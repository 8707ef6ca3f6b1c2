"""Admins over the engine's decisions: a pardon undoes one enforcement's effect on the state
and says what to undo in the game; CT bans given and lifted by admins; the door list."""

from __future__ import annotations

from jailcore.engine.actions import render
from jailcore.engine.admin import ctban_from_outside, pardon
from tests.logtext import run
from tests.scenes import WARDEN, next_day, setup


def specialday_twice_thrice():
    log, _ = setup()
    log.specialday(WARDEN)  # allowed; then a round apart: slay, then ctban 30m
    next_day(log).specialday(WARDEN)
    next_day(log).specialday(WARDEN)
    return run("[teams.no_warden]\nenabled = false\n", log)


def test_a_pardon_of_a_ct_ban_lifts_it_and_steps_the_ladder_back():
    actions, engine = specialday_twice_thrice()
    ctban = next(a for a in actions if a.action == "ctban")
    key = f"specialday.cooldown|{WARDEN.steamid}"
    assert engine.state.ladders[key] == 2 and WARDEN.steamid in engine.state.ctbans
    undo = engine.admin(pardon, ctban.to_json(), "Админ", "ошибка начальника")
    assert engine.state.ladders[key] == 1 and WARDEN.steamid not in engine.state.ctbans
    assert [a.action for a in undo if a.action != "hud"] == ["pardon", "unctban"]
    assert render(undo[1]) == f"jb_ctban_clear #{WARDEN.userid}" and "Админ" in undo[1].reason
    # the next offence climbs from where the pardon left the ladder: a slay, not a CT ban
    again = engine.handle(engine_event(engine))
    assert [a.action for a in again if a.action != "hud"] == []


def engine_event(engine):
    from jailcore.log import events as ev

    return ev.RoundEnd(engine.state.time)


def test_a_pardon_of_a_slay_only_steps_the_ladder_back():
    actions, engine = specialday_twice_thrice()
    slay = next(a for a in actions if a.action == "slay")
    engine.admin(pardon, slay.to_json(), "Админ", "")
    assert engine.state.ladders[f"specialday.cooldown|{WARDEN.steamid}"] == 1
    assert WARDEN.steamid in engine.state.ctbans  # the CT ban came from another enforcement


def test_a_pardon_of_a_server_ban_unbans():
    log, ts = setup()
    log.say(ts[0], "заходите на www.example.ru")
    actions, engine = run("", log)
    (ban,) = [a for a in actions if a.action == "ban"]
    undo = engine.admin(pardon, ban.to_json(), "Админ", "")
    assert [render(a) for a in undo if a.action == "unban"] == [f'jb_unban "{ts[0].steamid}"']


def test_an_admin_ct_ban_is_held_at_the_door_and_lifted():
    log, ts = setup()
    _, engine = run("", log)
    out = engine.admin(ctban_from_outside, ts[0].steamid, ts[0].name, 30, None, "грубил", "Админ")
    assert [render(a) for a in out] == [f'jb_ctban_set #{ts[0].userid} 1800 "Запрет за КТ (30 мин). Запрет за КТ от администратора Админ: грубил." "Админ"']
    assert engine.state.ctbans[ts[0].steamid].by == "Админ"
    door = [render(a) for a in engine.door()]
    assert door == [f'jb_ctban_set #{ts[0].userid} 1800 "Запрет за КТ от администратора Админ: грубил." "Админ"']
    lift = engine.lift_ctban(ts[0].steamid, "Админ")
    assert [render(a) for a in lift] == [f"jb_ctban_clear #{ts[0].userid}"] and engine.door() == []


def test_an_admin_ct_ban_given_in_game():
    """`!ctban #U 3r тест` in game: the shim's `jb_ctban` line, a ban of three rounds."""
    log, ts = setup()
    log.trig(WARDEN, "jb_ctban", f' (target "#{ts[1].userid}") (length "3r") (reason "тест")')
    log.trig(WARDEN, "jb_unctban", f' (target "#{ts[2].userid}")')
    actions, engine = run("", log)
    ban = engine.state.ctbans[ts[1].steamid]
    assert (ban.rounds, ban.until, ban.by, ban.rule) == (3, None, WARDEN.name, "admin")
    said = "Запрет за КТ (3 р.). Запрет за КТ от администратора Начальник: тест."
    assert [render(a) for a in actions] == [f'jb_ctban_set #{ts[1].userid} 0 "{said}" "Начальник"']
