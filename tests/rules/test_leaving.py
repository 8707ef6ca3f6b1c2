"""Leaving escapes nothing: a punishment earned by a player who then disconnects is still
decided and written (its actions marked `absent`, printed with his SteamID), and carried
out when he returns within the rule's `return_minutes`: a slay at his next round alive, a
move to T at his connect, a CT ban at the door, a server ban at once by SteamID
(`jb_addban`), never by a #userid that names nobody (issue 26)."""

from __future__ import annotations

from jailcore.engine.actions import render
from jailcore.log.parse import LogParser
from tests.logtext import P, run
from tests.scenes import GUARD, WARDEN, setup

B = '[server]\nrulebook = ["004", "000"]\n'


def feed(engine, lines: list[str]) -> list:
    """More lines to an engine that has read the log before them."""
    parser, out = LogParser(), []
    for line in lines:
        event = parser.parse(line)
        if event is not None:
            out += engine.handle(event)
    return out


def back(p: P, userid: int) -> P:
    """The same player reconnected: a new userid, the same steamid."""
    return P(p.name, userid, p.steamid)


def test_5_11_a_host_who_leaves_his_undecided_game_past_5_minutes_is_punished_on_return():
    """004 5.11 «Если игра продолжается более 5 минут, в ней обязательно должны быть
    определены победители. Наказание: устное предупреждение → перевод за ТТ»."""
    log, _ = setup()
    log.game(WARDEN, "Светофор").wait(5 * 60 + 10).say(WARDEN, "зелёный").disconnect(WARDEN)
    actions, engine = run(B, log)
    punished = [a for a in actions if a.rule == "games.duration" and a.action != "say"]
    assert [(a.action, a.absent, a.target.steamid) for a in punished] == [("warn", True, WARDEN.steamid)]
    assert render(punished[0]) is None  # nothing sent to a #userid nobody has
    again = back(WARDEN, 90)
    log.start_here().wait(60).connect(again, "CT")
    actions, engine = run(B, log)
    assert [(a.action, a.rule, a.target.userid, a.to_json().get("absent")) for a in actions if a.target] == [("warn", "games.duration", 90, None)]
    assert engine.state.owing == {}


def test_5_11_a_host_who_ends_his_game_undecided_past_5_minutes():
    """5.10 lets him end it at any moment, not end it undecided past 5 minutes (5.11)."""
    log, _ = setup()
    log.game(WARDEN, "Светофор").wait(5 * 60 + 10).trig(WARDEN, "jb_game_end")
    actions, _ = run(B, log)
    assert [(a.action, a.rule) for a in actions if a.action != "say"] == [("warn", "games.duration")]
    log2, ts = setup()
    log2.game(WARDEN, "Светофор").wait(5 * 60 + 10).kill(GUARD, ts[0]).trig(WARDEN, "jb_game_end")  # a loser: decided
    assert [a for a in run(B, log2)[0] if a.rule == "games.duration" and a.action != "say"] == []


def test_a_slay_owed_by_one_who_left_comes_at_his_next_round_alive():
    """001 Общие 17 «Намеренно убивать членов команды… [Убийство/Кик/Бан до 15 минут]»: the
    admin confirms after the killer has left; the slay waits for him."""
    log, ts = setup()
    log.kill(ts[0], ts[1]).disconnect(ts[0])
    _, engine = run("", log)
    out, why = engine.confirm(1, "Админ")
    assert why is None and [(a.action, a.absent) for a in out] == [("slay", True)]
    again = back(ts[0], 91)
    log.start_here().wait(30).connect(again, "TERRORIST").round_end().round_start()
    actions = feed(engine, log.lines[log.mark:])
    assert [(a.action, a.rule, a.target.userid) for a in actions if a.action == "slay"] == [("slay", "conduct.teamkill", 91)]


def test_an_owed_punishment_lapses_after_return_minutes():
    log, _ = setup()
    log.game(WARDEN, "Светофор").wait(5 * 60 + 10).disconnect(WARDEN)
    log.wait(61 * 60).connect(back(WARDEN, 92), "CT")
    actions, engine = run(B + "[games.duration]\nreturn_minutes = 60\n", log)
    owed = [(a.action, a.to_json().get("absent")) for a in actions if a.rule == "games.duration" and a.action != "say"]
    assert owed == [("warn", True), ("lapse", None)]  # the lapse marks the owed row `expired`, and says why
    (lapse,) = [a for a in actions if a.action == "lapse"]
    assert lapse.target.userid == 92 and lapse.step == "warn" and "не вернулся" in lapse.reason
    assert engine.state.owing == {}


def test_a_ct_ban_owed_is_held_at_the_door():
    """000 6.5 |BanGuard(10-60)|: the ladder's CT ban for one who left is kept by his
    SteamID and handed to the shim's door when he connects."""
    log, _ = setup()
    log.specialday(WARDEN).round_end().round_start().warden(WARDEN).specialday(WARDEN)  # slay
    log.round_end().round_start().warden(WARDEN).disconnect(WARDEN)
    _, engine = run("", log)
    from jailcore.engine.state import Seat

    out = engine.ctx.punish("specialday.cooldown", Seat(WARDEN.userid, WARDEN.steamid, WARDEN.name), "6.5")
    assert [(a.action, a.absent) for a in out] == [("ctban", True)] and render(out[0]) is None
    log.start_here().connect(back(WARDEN, 93), "Unassigned")
    doors = [a for a in feed(engine, log.lines[log.mark:]) if a.action == "door"]
    assert [(a.target.userid, a.rule) for a in doors] == [(93, "specialday.cooldown")]
