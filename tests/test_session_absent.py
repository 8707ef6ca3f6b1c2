"""Leaving escapes nothing, as the session writes it (issue 26): a punishment decided for a
player who has left is written `owed`, not `delivered` (nothing was done yet); its carrying
out at his return is a row that names it; when he does not come back in time the owed row
says `expired`, and why. A server ban for him goes at once by SteamID through the shim's
`jb_addban`, with the exactly-once ` @<id>` token every command carries."""

from __future__ import annotations

from jailcore.engine.actions import Action, Ban, Target
from jailcore.log.parse import records
from jailcore.session import inputs as i
from jailcore.session.effects import Mark, Record, Send
from jailcore.session.session import Ids, Session
from tests.logtext import P, config
from tests.scenes import WARDEN, setup
from tests.test_session import opened, rows, sends

B = '[server]\nrulebook = ["004", "000"]\n'


def session(extra: str = "") -> Session:
    ids = Ids()
    ids.give(5000, 1000)
    return Session(config(f"[rcon]\ntimeout = 1.0\n{B}{extra}"), None, ids)


def feed_lines(s: Session, lines: list[str], now: float = 1.0) -> list:
    out: list = []
    for rec in records(lines):
        out += s.handle(i.LogRecord(rec.encode()), now)
    return out


def host_leaves():
    """004 5.11 «Если игра продолжается более 5 минут, в ней обязательно должны быть
    определены победители. Наказание: устное предупреждение → перевод за ТТ»: the host
    leaves his undecided game past 5 minutes."""
    log, _ = setup()
    log.game(WARDEN, "Светофор").wait(5 * 60 + 10).say(WARDEN, "зелёный").disconnect(WARDEN)
    return log


def owed_row(out: list) -> Record:
    (row,) = [r for r in rows(out, Record) if r.action.rule == "games.duration" and r.action.action == "warn"]
    return row


def test_a_warning_for_one_who_left_is_written_owed_not_delivered_and_its_carrying_out_names_it():
    s = session()
    opened(s)
    log = host_leaves()
    out = feed_lines(s, log.lines)
    owed = owed_row(out)
    assert (owed.status, owed.action.absent, owed.command) == ("owed", True, None)
    assert not [e for e in sends(out) if e.text.startswith("jb_warn")]  # nothing to a #userid nobody has
    log.start_here().wait(60).connect(P(WARDEN.name, 90, WARDEN.steamid), "CT")
    out = feed_lines(s, log.lines[log.mark:])
    (done,) = [r for r in rows(out, Record) if r.action.rule == "games.duration"]
    assert (done.action.owed, done.action.owed_row, done.action.target.userid, done.status) == (True, owed.id, 90, "pending")
    assert Mark(owed.id, "owed", f"исполнено при возвращении: #{done.id}") in rows(out, Mark)
    (send,) = [e for e in sends(out) if e.text.startswith("jb_warn #90 ")]
    assert send.audit == done.id and send.text.endswith(f" @{done.id}")


def test_an_owed_row_expires_when_he_does_not_return_in_time_and_says_why():
    s = session("[games.duration]\nreturn_minutes = 60\n")
    opened(s)
    log = host_leaves()
    owed = owed_row(feed_lines(s, log.lines))
    log.start_here().wait(61 * 60).round_end().round_start()  # the next round start, past the hour
    out = feed_lines(s, log.lines[log.mark:])
    (mark,) = [m for m in rows(out, Mark) if m.id == owed.id]
    assert mark.status == "expired" and "не вернулся до" in (mark.reply or "")
    assert s.engine.state.owing == {}
    assert not [r for r in rows(out, Record) if r.action.rule == "games.duration"]  # a lapse is no row of its own


def absent_ban(steamid: str = "STEAM_1:0:4242") -> Action:
    return Ban("2026-11-30T20:00:00", 3, "games.duration", "5.11", "Реклама", Target(7, steamid, "Спамер"), minutes=0,
               absent=True)


def test_a_ban_for_one_who_left_goes_by_steamid_through_the_shim_with_its_id_and_is_not_expired_for_his_absence():
    s = session()
    opened(s)
    out = s.carry_out([absent_ban()])
    (row,) = rows(out, Record)
    assert row.status == "pending"
    (send,) = [e for e in sends(out) if e.audit == row.id]
    assert send.text == f'jb_addban "STEAM_1:0:4242" 0 "Реклама" @{row.id}'  # not sm_addban: it would read @id as its reason
    out = s.handle(i.Reply(send.ticket, "ok"), 1.5)
    assert rows(out, Mark) == [Mark(row.id, "delivered", "ok")]


def test_a_ban_by_steamid_whose_answer_was_lost_is_sent_again_after_a_restart_with_the_same_id():
    """The shim remembers the id and answers a repeat `ok` without banning twice."""
    action = absent_ban()
    pending = i.Pending(88, 'jb_addban "STEAM_1:0:4242" 0 "Реклама"', action.to_json(), sent=True)
    s = session()
    assert not rows(s.handle(i.Resume((pending,)), 0.0), Mark)  # his absence does not expire it
    (resent,) = [e for e in sends(opened(s)) if e.audit == 88]
    assert resent.text == 'jb_addban "STEAM_1:0:4242" 0 "Реклама" @88'


def reply_to(s: Session, out: list, prefix: str, now: float = 2.0) -> tuple[Send, list]:
    (send,) = [e for e in sends(out) if e.text.startswith(prefix)]
    return send, s.handle(i.Reply(send.ticket, "ok"), now)


def test_an_owed_ct_ban_is_marked_done_once_the_door_holds_it_at_his_return():
    s = session('[games.duration]\nladder = ["ctban 30m"]\n')
    opened(s)
    log = host_leaves()
    out = feed_lines(s, log.lines)
    (owed,) = [r for r in rows(out, Record) if r.action.action == "ctban"]
    assert owed.status == "owed"
    log.start_here().wait(60).connect(P(WARDEN.name, 90, WARDEN.steamid), "CT")
    out = feed_lines(s, log.lines[log.mark:])
    assert not [m for m in rows(out, Mark) if m.id == owed.id]  # not before the shim holds it
    _, answered = reply_to(s, out, "jb_ctban_set #90 ")
    assert Mark(owed.id, "delivered", "исполнено при возвращении: jb_ctban_set") in rows(answered, Mark)
    log.start_here().wait(5).disconnect(P(WARDEN.name, 90, WARDEN.steamid)).wait(5).connect(P(WARDEN.name, 91, WARDEN.steamid), "CT")
    out = feed_lines(s, log.lines[log.mark:])
    _, again = reply_to(s, out, "jb_ctban_set #91 ", 3.0)  # the ban holds at every door; its row is done once
    assert not [m for m in rows(again, Mark) if m.id == owed.id]


def test_an_owed_autoslay_is_marked_done_by_his_first_slay_after_his_return():
    s = session('[games.duration]\nladder = ["autoslay 2"]\n')
    opened(s)
    log = host_leaves()
    out = feed_lines(s, log.lines)
    (owed,) = [r for r in rows(out, Record) if r.action.action == "autoslay"]
    assert owed.status == "owed"
    log.start_here().wait(60).connect(P(WARDEN.name, 90, WARDEN.steamid), "CT").round_end().round_start()
    out = feed_lines(s, log.lines[log.mark:])
    (slay,) = [r for r in rows(out, Record) if r.action.action == "slay"]
    assert (slay.action.owed, slay.action.owed_row) == (True, owed.id)
    _, answered = reply_to(s, out, "jb_slay #90 ")
    assert Mark(owed.id, "delivered", f"исполнено при возвращении: #{slay.id}") in rows(answered, Mark)
    log.start_here().round_end().round_start()  # the second of his two: a slay of its own, the owed row already done
    out = feed_lines(s, log.lines[log.mark:])
    (second,) = [r for r in rows(out, Record) if r.action.action == "slay"]
    assert second.action.owed_row is None
