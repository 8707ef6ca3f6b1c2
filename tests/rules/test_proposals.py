"""`confirm = "admin"`: a rule's punishment proposed to an admin, carried out only on his
word, with the ladder climbed then; dismissed, or lapsed unanswered, it does nothing."""

from __future__ import annotations

from tests.logtext import Log, config, restored, run
from tests.scenes import setup

ADS = '[conduct.advertising]\nconfirm = "admin"\nconfirm_minutes = 5\nladder = ["ban 0"]\n'
SLAY = '[conduct.teamkill]\nconfirm = "admin"\nladder = ["slay", "kick"]\n'


def test_a_proposal_is_made_instead_of_the_ban_and_the_ladder_waits():
    log, ts = setup()
    log.say(ts[0], "заходите на наш сервер 212.129.25.133:27015")
    actions, engine = run(ADS, log)
    (a,) = actions
    assert (a.action, a.rule, a.step, a.index, a.target.userid) == ("propose", "conduct.advertising", "ban 0", 1, ts[0].userid)
    assert "Общие 19" in a.reason
    assert engine.state.ladders.get(f"conduct.advertising|{ts[0].steamid}") is None
    assert [p.number for p in restored(engine).state.proposals] == [1]  # a restart keeps it


def test_the_same_offence_again_is_not_asked_twice():
    log, ts = setup()
    log.say(ts[0], "http://a.ru").say(ts[0], "http://b.ru")
    actions, _ = run(ADS, log)
    assert [a.action for a in actions] == ["propose"]


def test_confirming_carries_out_the_punishment_as_it_would_have_been():
    log, ts = setup()
    log.say(ts[0], "заходите 212.129.25.133:27015")
    _, engine = run(ADS, log)
    out, why = engine.confirm(1, "Админ")
    assert why is None
    (ban,) = [a for a in out if a.action != "hud"]
    assert (ban.action, ban.minutes, ban.target.userid, ban.rule, ban.by) == ("ban", 0, ts[0].userid, "conduct.advertising", "Админ")
    assert engine.state.ladders[f"conduct.advertising|{ts[0].steamid}"] == 1
    assert engine.state.proposals == []
    assert engine.confirm(1, "Админ") == ([], "gone")  # answered once


def test_a_confirmed_slay_kills_and_the_next_step_follows():
    log, ts = setup()
    log.kill(ts[0], ts[1])
    _, engine = run(SLAY, log)
    out, _ = engine.confirm(1, "Админ")
    assert [a.action for a in out if a.action != "hud"] == ["slay"]
    assert not engine.state.players[ts[0].userid].alive
    more = Log(start="2026-11-30T21:00:00").kill(ts[0], ts[2])
    actions, _ = run(SLAY, more, engine=engine)
    assert [(a.action, a.step) for a in actions] == [("propose", "kick")]  # the ladder climbed at the confirmation


def test_dismissing_leaves_the_ladder_where_it_was():
    log, ts = setup()
    log.say(ts[0], "http://a.ru")
    _, engine = run(ADS, log)
    assert engine.dismiss(1) is True
    assert engine.dismiss(1) is False
    assert engine.state.ladders == {} and engine.state.proposals == []


def test_an_unanswered_proposal_lapses_after_its_minutes():
    log, ts = setup()
    log.say(ts[0], "http://a.ru").wait(4 * 60).say(ts[1], "привет").wait(61).say(ts[1], "ну")
    actions, engine = run(ADS, log)
    assert [a.action for a in actions] == ["propose", "lapse"]
    lapse = actions[1]
    assert (lapse.index, lapse.target.userid) == (1, ts[0].userid) and "5 мин" in lapse.reason
    assert engine.state.proposals == [] and engine.state.ladders == {}


def test_a_proposed_slay_lapses_with_its_round():
    log, ts = setup()
    log.kill(ts[0], ts[1]).round_end().round_start()
    actions, engine = run(SLAY, log)
    assert [a.action for a in actions if a.action in ("propose", "lapse")] == ["propose", "lapse"]
    assert engine.confirm(1, "Админ") == ([], "gone")


def test_a_confirmed_ban_for_an_absent_player_goes_by_his_steamid():
    """001 Общие 19 «[Бан Навсегда]»: the offender left before the admin's word; the ban is
    not lost nor left waiting: it goes at once by SteamID, through the shim's jb_addban
    (SourceMod's BanIdentity; a #userid names nobody once he has left)."""
    from jailcore.engine.actions import render

    log, ts = setup()
    log.say(ts[0], "http://a.ru").disconnect(ts[0])
    _, engine = run(ADS, log)
    out, why = engine.confirm(1, "Админ")
    assert why is None and engine.state.proposals == []
    assert [(a.action, a.absent, a.target.steamid) for a in out] == [("ban", True, ts[0].steamid)]
    assert render(out[0]).startswith(f'jb_addban "{ts[0].steamid}" 0 "')


def test_confirm_is_a_setting_every_rule_has_and_is_checked():
    assert config('[orders]\nconfirm = "admin"\n').rules["orders"].confirm == "admin"
    try:
        config('[orders]\nconfirm = "yes"\n')
    except ValueError as exc:
        assert "confirm" in str(exc) and "'admin'" in str(exc)
    else:
        raise AssertionError("a wrong confirm value was accepted")
