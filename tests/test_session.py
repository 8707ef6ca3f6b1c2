"""The session without a socket: inputs in, effects compared, as the engine's tests compare
actions. What the driver must do is exactly what these effects say, in their order."""

from __future__ import annotations

import json

import pytest

from jailcore.log.parse import records
from jailcore.session import inputs as i
from jailcore.session.effects import (
    Applied,
    AskedInGame,
    DropLink,
    KeepLines,
    Mark,
    MarkSent,
    Publish,
    Record,
    SaveLink,
    SaveState,
    Send,
    TellPeers,
    Write,
)
from jailcore.session.session import Ids, IdsExhausted, Session
from tests.logtext import Log, config
from tests.scenes import WARDEN, next_day, setup

TIMEOUT = 1.0


def session(extra: str = "", first_id: int = 5000) -> Session:
    ids = Ids()
    ids.give(first_id, 1000)
    cfg = config(f"[rcon]\ntimeout = {TIMEOUT}\n{extra}")
    return Session(cfg, None, ids)


def feed(s: Session, log: Log, now: float = 1.0) -> list:
    out: list = []
    for rec in records(log.text().splitlines()):
        out += s.handle(i.LogRecord(rec.encode()), now)
    return out


def rows(effects: list, kind: type) -> list:
    return [e.row for e in effects if isinstance(e, Write) and isinstance(e.row, kind)]


def sends(effects: list) -> list[Send]:
    return [e for e in effects if isinstance(e, Send)]


def slay_log() -> Log:
    """The warden's special day the round after another: 000 6.5 slays him."""
    log, _ = setup()
    next_day(log.specialday(WARDEN)).specialday(WARDEN)
    return log


def opened(s: Session) -> list:
    return s.handle(i.LinkOpened(), 1.0)


def left(s: Session, effects: list, now: float = 1.0) -> list:
    """As the driver does once their rows are durable: these commands left for the game now."""
    out = sends(effects)
    s.handle(i.Sent(tuple(e.ticket for e in out)), now)
    return effects


def test_a_command_follows_the_write_of_its_pending_row_and_carries_its_id():
    s = session()
    opened(s)
    out = feed(s, slay_log())
    (slay,) = [r for r in rows(out, Record) if r.action.action == "slay"]
    assert slay.status == "pending" and 5000 <= slay.id < 6000
    (send,) = [e for e in sends(out) if e.text.startswith("jb_slay")]
    assert send.audit == slay.id and send.text.endswith(f" @{slay.id}")
    assert out.index(next(e for e in out if isinstance(e, Write) and e.row is slay)) < out.index(send)


def test_a_line_that_decides_is_kept_with_its_decision_not_at_the_next_tick():
    """The live page shows an enforcement as soon as its row is written and links to its
    round's story: the line that made it goes to the writer right behind its row (the
    command does not wait for it), so the story never lacks it."""
    s = session()
    opened(s)
    out = feed(s, slay_log())
    (slay,) = [r for r in rows(out, Record) if r.action.action == "slay"]
    kept = [line for batch in rows(out, KeepLines) for line in batch.lines]
    decided = [line for line in kept if 'triggered "jb_specialday"' in line[3] and line[4] >= slay.id]
    assert len(decided) == 1 and decided[0][4] == slay.id  # its mark is the row it decided
    row_at = out.index(next(e for e in out if isinstance(e, Write) and e.row is slay))
    send_at = out.index(next(e for e in sends(out) if e.audit == slay.id))
    kept_at = out.index(next(e for e in out if isinstance(e, Write) and isinstance(e.row, KeepLines) and decided[0] in e.row.lines))
    assert row_at < send_at < kept_at
    assert not any(line[3] == decided[0][3] for line in s.saver._lines)  # not left for the tick


def test_ids_come_from_the_reserved_block_and_its_end_is_a_bug_not_a_guess():
    ids = Ids(low=2)
    ids.give(10, 3)
    assert [ids.take(), ids.take()] == [10, 11] and ids.low
    ids.take()
    with pytest.raises(IdsExhausted):
        ids.take()


def test_observe_mode_records_and_sends_nothing():
    s = session('[server]\nmode = "observe"\n')
    opened(s)
    out = feed(s, slay_log())
    assert {r.status for r in rows(out, Record)} == {"observed"}
    assert not sends(out)


def test_advise_mode_records_the_punishment_and_sends_a_warning_that_says_it():
    s = session('[server]\nmode = "advise"\n')
    opened(s)
    out = feed(s, slay_log())
    statuses = [(r.action.action, r.status) for r in rows(out, Record) if r.action.rule == "specialday.cooldown"]
    assert statuses == [("slay", "advised"), ("warn", "pending")]
    assert not [e for e in sends(out) if e.text.startswith("jb_slay")]
    assert [e for e in sends(out) if e.text.startswith(f"jb_warn #{WARDEN.userid}")]


def test_a_reply_marks_the_row_and_a_lost_session_sends_it_again_then_fails_it():
    s = session()
    opened(s)
    out = feed(s, slay_log())
    (send,) = [e for e in sends(out) if e.text.startswith("jb_slay")]
    assert rows(s.handle(i.Reply(send.ticket, "ok\n"), 2.0), Mark) == [Mark(send.audit, "delivered", "ok")]
    s2 = session()
    opened(s2)
    out = sends(left(s2, feed(s2, slay_log())))
    (send,) = [e for e in out if e.text.startswith("jb_slay")]
    for other in out:  # all answered but the slay: it is the oldest in flight
        if other is not send:
            s2.handle(i.Reply(other.ticket, '{"players": []}' if other.text == "jb_status" else "ok"), 1.5)
    for attempt in range(3):
        lost = s2.handle(i.LinkLost("lost"), 2.0)
        if attempt < 2:
            assert not rows(lost, Mark)
            again = [e for e in sends(left(s2, opened(s2))) if e.audit == send.audit]
            assert again and again[0].text == send.text  # the same id: the shim runs it once
    assert Mark(send.audit, "failed", "no answer after 3 tries") in rows(lost, Mark)


def test_an_unanswered_command_past_the_timeout_drops_the_link_once():
    s = session()
    opened(s)
    left(s, feed(s, slay_log(), now=1.0))
    assert not [e for e in s.handle(i.Tick(1.5, "w"), 1.5) if isinstance(e, DropLink)]
    late = [e for e in s.handle(i.Tick(2.1, "w"), 2.1) if isinstance(e, DropLink)]
    assert len(late) == 1 and "no answer to 'jb_" in late[0].reason
    assert not [e for e in s.handle(i.Tick(2.2, "w"), 2.2) if isinstance(e, DropLink)]


def test_a_round_bound_command_expires_with_its_round_never_late():
    s = session()  # the link is not open: the slay waits
    out = feed(s, slay_log())
    (slay,) = [r for r in rows(out, Record) if r.action.action == "slay"]
    out = feed(s, Log(start="2026-11-30T20:30:00").round_end().round_start())
    out += opened(s)
    assert Mark(slay.id, "expired", f"round {slay.action.round} ended before it could be sent") in rows(out, Mark)
    assert not [e for e in sends(out) if e.text.startswith("jb_slay")]


def test_pending_rows_of_the_last_process_are_judged_again_under_the_config_in_force():
    detail = {"time": "2026-11-30T20:00:00", "round": 0, "action": "slay", "target": None, "rule": "specialday.cooldown", "ref": "6.5",
              "reason": "r"}  # its audit row's JSON, as the store reads it back
    pending = i.Pending(77, "jb_slay #2 \"r\"", detail, sent=True)
    s = session('[server]\nmode = "observe"\n')
    out = s.handle(i.Resume((pending,)), 0.0)
    assert rows(out, Mark) == [Mark(77, "dropped", "not sent: the server is in observe mode now")]
    s = session()
    s.handle(i.Resume((pending,)), 0.0)
    (resent,) = [e for e in sends(opened(s)) if e.audit == 77]
    assert resent.text == 'jb_slay #2 "r" @77'


def test_the_clock_saves_only_what_changed_and_says_the_link_lives():
    s = session()
    first = s.handle(i.Tick(0.0, "2026-12-01T10:00:00"), 0.0)
    assert rows(first, SaveState) and rows(first, SaveLink)
    quiet = s.handle(i.Tick(0.6, "2026-12-01T10:00:01"), 0.6)
    assert not rows(quiet, SaveState) and not rows(quiet, SaveLink)  # nothing changed, the heartbeat not due
    line = feed(s, Log().round_start(), now=0.7)  # Monday's freeday, said: a decision, saved with its row
    busy = s.handle(i.Tick(1.2, "2026-12-01T10:00:02"), 1.2)
    assert rows(line, SaveState) and not rows(busy, SaveState) and rows(busy, SaveLink)  # the last line's age moved


def test_a_ct_ban_given_here_is_told_to_the_peers_and_one_from_a_peer_is_held_at_the_door():
    s = session()
    opened(s)
    log, _ = setup()
    feed(s, log)
    out = s.handle(i.AdminRequests(ctbans=(i.CtBanRow(1, WARDEN.steamid, WARDEN.name, 30, None, False, "r", "vasya"),)), 2.0)
    (told,) = [e for e in out if isinstance(e, TellPeers)]
    assert told.ban["steamid"] == WARDEN.steamid and told.ban["origin"] == s.server
    again = s.handle(i.AdminRequests(ctbans=(i.CtBanRow(1, WARDEN.steamid, WARDEN.name, 30, None, False, "r", "vasya"),)), 2.1)
    assert not rows(again, Record)  # the same row seen again before its `applied` is durable: once
    other = session()
    opened(other)
    feed(other, setup()[0])
    out = other.handle(i.PeerBan({**told.ban, "id": "x:1"}), 3.0)
    assert [e for e in sends(out) if e.text.startswith(f"jb_ctban_set #{WARDEN.userid}")]


def test_a_ban_told_to_many_servers_goes_to_each_door_first_and_its_decisions_at_settle():
    """A fleet tells a CT ban to every server in one turn (`BanRelay`): each door at once, then each
    server's decisions, their rows and saved state before the commands that wait for them."""
    told = {"id": "x:1", "origin": "x", "steamid": WARDEN.steamid, "name": WARDEN.name, "until": None, "rounds": 3,
            "ref": "1.1", "reason": "r", "by": "vasya"}
    s = session()
    opened(s)
    feed(s, setup()[0])
    doors = s.handle(i.PeerBan(told, doors_first=True), 3.0)
    assert doors[0].text.startswith(f"jb_ctban_set #{WARDEN.userid}") and all(e.audit is None for e in doors)  # waiting for no row
    assert not [e for e in doors if "teamswap" in e.text]  # a decision: at `Settle`
    assert not rows(doors, Record) and not rows(doors, SaveState)
    assert WARDEN.steamid in s.engine.state.ctbans  # decided already: only carrying it out waits
    settled = s.handle(i.Settle(), 3.0)
    (move,) = [r for r in rows(settled, Record) if r.action.action == "teamswap"]
    (swap,) = [e for e in sends(settled) if e.text.startswith(f"jb_teamswap #{WARDEN.userid}")]
    saved = next(k for k, e in enumerate(settled) if isinstance(e, Write) and isinstance(e.row, SaveState))
    assert swap.audit == move.id and saved < settled.index(swap)  # the state saved with the row, before the command
    assert s.handle(i.Settle(), 3.1) == []  # settled once

    other = session()
    opened(other)
    feed(other, setup()[0])
    other.handle(i.PeerBan({**told, "id": "x:2"}, doors_first=True), 3.0)
    after = other.handle(i.Tick(3.2, "2026-12-01T10:00:03"), 3.2)  # anything else first settles what the doors went before
    assert [r for r in rows(after, Record) if r.action.action == "teamswap"] and rows(after, SaveState)


def test_in_game_answers_become_rows_and_a_refusal_is_said_to_the_admins():
    s = session()
    opened(s)
    log, _ = setup()
    log.trig(WARDEN, "jb_confirm", ' (id "12") (reason "")')
    out = feed(s, log)
    assert AskedInGame("confirm", 12, WARDEN.name, "", WARDEN.steamid) in out
    said = sends(s.handle(i.Refused("no proposal with id 12"), 2.0))
    assert said and said[0].text.startswith('jb_adminfeed "[jailcore] no proposal with id 12')


ADS = '[conduct.teamkill]\nconfirm = "admin"\nladder = ["slay", "kick"]\n'


def test_a_slay_confirmed_after_its_round_ended_is_not_sent():
    s = session(ADS)
    opened(s)
    log, ts = setup()
    log.kill(ts[0], ts[1])
    out = feed(s, log)
    (proposal,) = [r for r in rows(out, Record) if r.action.action == "propose"]
    feed(s, Log(start="2026-11-30T20:30:00").round_end())  # no line after the end: nothing lapsed it yet
    answer = i.AnswerRow(1, proposal.id, "confirm", "Админ", "", None, json.dumps(proposal.action.to_json()))
    out = s.handle(i.AdminRequests(answers=(answer,)), 3.0)
    assert not [e for e in sends(out) if e.text.startswith("jb_slay")]
    assert Mark(proposal.id, "expired", next(r.reply for r in rows(out, Mark) if r.id == proposal.id)) in rows(out, Mark)
    assert not [r for r in rows(out, Mark) if r.status == "confirmed"]


def test_a_command_sent_is_marked_sent_by_the_driver_not_the_session():
    s = session()
    opened(s)
    out = feed(s, slay_log())
    assert not rows(out, MarkSent)  # the driver writes it once the command really left
    assert not [e for e in out if isinstance(e, Publish)]  # no MQTT configured: nothing published


def test_a_ct_ban_request_before_the_servers_first_line_is_carried_out_not_crash_looped():
    s = session()
    s.handle(i.Tick(0.0, "2026-12-01T10:00:00"), 0.0)
    row = i.CtBanRow(1, "STEAM_1:0:99", "Вася", 30, None, False, "r", "vasya")
    out = s.handle(i.AdminRequests(ctbans=(row,)), 0.1)
    assert [r for r in rows(out, Applied) if r.id == 1]
    (ban,) = s.engine.state.ctbans.values()
    assert ban.until == "2026-12-01T10:30:00"  # the box's clock stood in for the server's unknown one


def test_a_ct_ban_and_the_state_that_holds_it_are_written_before_its_command():
    s = session()
    opened(s)
    feed(s, setup()[0])
    out = s.handle(i.AdminRequests(ctbans=(i.CtBanRow(1, WARDEN.steamid, WARDEN.name, 30, None, False, "r", "vasya"),)), 2.0)
    (record,) = [r for r in rows(out, Record) if r.action.action == "ctban"]
    (send,) = [e for e in sends(out) if e.audit == record.id]
    saves = [k for k, e in enumerate(out) if isinstance(e, Write) and isinstance(e.row, SaveState)]
    assert saves and saves[0] < out.index(send)  # one batch, one transaction: the row and the ban together
    assert WARDEN.steamid in json.loads(out[saves[0]].row.snapshot)["ctbans"]


ADVERTISING = '[conduct.advertising]\nconfirm = "admin"\nconfirm_minutes = 5\nladder = ["ban 0"]\n'


def test_a_proposal_lapses_by_the_clock_on_a_quiet_server():
    s = session(ADVERTISING)
    opened(s)
    log, ts = setup()
    log.say(ts[0], "заходите на наш сервер 212.129.25.133:27015")
    out = feed(s, log, now=10.0)
    (proposal,) = [r for r in rows(out, Record) if r.action.action == "propose"]
    assert not [m for m in rows(s.handle(i.Tick(200.0, "w"), 200.0), Mark) if m.id == proposal.id]
    late = rows(s.handle(i.Tick(10.0 + 5 * 60 + 1, "w"), 10.0 + 5 * 60 + 1), Mark)
    assert [m.status for m in late if m.id == proposal.id] == ["expired"]
    assert s.engine.state.proposals == []


def test_a_restart_does_not_lapse_a_proposal_by_the_time_the_box_has_been_up():
    s = session(ADVERTISING)
    log, ts = setup()
    log.say(ts[0], "заходите на наш сервер 212.129.25.133:27015")
    feed(s, log, now=10.0)
    again = Session(s.config, s.engine.snapshot(), s.ids)
    again.handle(i.Tick(90_000.0, "w"), 90_000.0)  # a loop clock far from zero, as on a box up for a day
    assert [p.number for p in again.engine.state.proposals] == [1]


def test_a_ladder_step_is_saved_with_its_row_before_its_command_once_for_the_line():
    """A plain line's state waits up to SNAPSHOT_EVERY; the ladder step a decision climbed may
    not: the next offence after a kill -9 must reach the next step."""
    s = session()
    opened(s)
    log = slay_log()
    out = feed(s, log)
    cut = max(k for k, e in enumerate(out) if isinstance(e, Write) and isinstance(e.row, Record) and e.row.action.action == "slay")
    line = out[cut:]  # from the line that decided the slay
    (send,) = [e for e in sends(line) if e.text.startswith("jb_slay")]
    saves = [k for k, e in enumerate(line) if isinstance(e, Write) and isinstance(e.row, SaveState)]
    assert len(saves) == 1 and saves[0] < line.index(send)
    assert not [e for e in line[:saves[0]] if isinstance(e, Send | TellPeers)]  # the driver commits row and state together
    assert json.loads(line[saves[0]].row.snapshot)["ladders"] == {f"specialday.cooldown|{WARDEN.steamid}": 1}
    assert not rows(s.handle(i.Tick(1.1, "w"), 1.1), SaveState)  # nothing left for the clock


def test_a_ct_ban_is_told_to_the_peers_after_the_state_that_holds_it():
    s = session()
    opened(s)
    feed(s, setup()[0])
    out = s.handle(i.AdminRequests(ctbans=(i.CtBanRow(1, WARDEN.steamid, WARDEN.name, 30, None, False, "r", "vasya"),)), 2.0)
    (told,) = [k for k, e in enumerate(out) if isinstance(e, TellPeers)]
    (record,) = [k for k, e in enumerate(out) if isinstance(e, Write) and isinstance(e.row, Record) and e.row.action.action == "ctban"]
    saves = [k for k, e in enumerate(out) if isinstance(e, Write) and isinstance(e.row, SaveState)]
    assert record < saves[0] < told


def test_an_admins_word_in_game_travels_the_engine_like_any_shim_line():
    """`!jcpardon` is a shim line with its seq: the engine counts it (the next line is no gap,
    so no `jb_status` is asked) and drops it when its datagram comes twice."""
    s = session()
    opened(s)
    log, _ = setup()
    log.trig(WARDEN, "jb_pardon", ' (id "12") (reason "ошибка")')
    pardon = log.text().splitlines()[-1]
    log.specialday(WARDEN)
    out = feed(s, log)
    assert AskedInGame("pardon", 12, WARDEN.name, "ошибка", WARDEN.steamid) in out  # his SteamID with it: SourceBans++ credits him by it
    assert not [e for e in sends(out) if e.text.startswith("jb_status")]
    again = s.handle(i.LogRecord(next(iter(records([pardon]))).encode()), 2.0)
    assert not [e for e in again if isinstance(e, AskedInGame)]


def test_a_busy_server_writes_its_link_row_and_retained_state_every_few_seconds_not_every_tick():
    s = session('[mqtt]\nurl = "mqtt://127.0.0.1:1883"\n')
    opened(s)
    log, ts = setup()
    for send in sends(feed(s, log)):
        s.handle(i.Reply(send.ticket, ""), 1.0)
    links: list[SaveLink] = []
    states: list[Publish] = []
    now = 10.0
    for k in range(16):  # 8 s of a busy server: a plain line before each tick of 0.5 s
        log.start_here()
        log.wait(0.5).say(ts[0], f"строка {k}")
        out = []
        for rec in records(log.lines[log.mark:]):  # the new line only
            out += s.handle(i.LogRecord(rec.encode()), now)
        for send in sends(out):  # the game answers: nothing waits in the outbox
            s.handle(i.Reply(send.ticket, ""), now)
        out = s.handle(i.Tick(now, "2026-12-01T10:00:00"), now)
        links += rows(out, SaveLink)
        states += [e for e in out if isinstance(e, Publish) and e.state]
        now += 0.5
    assert 3 <= len(links) <= 5, len(links)  # every LINE_EVERY (2 s), not 16 rows
    assert 3 <= len(states) <= 5, len(states)  # every STATE_EVERY (2 s)
    out = s.handle(i.Tick(now + 2.0, "2026-12-01T10:00:09"), now + 2.0)  # the last change is not lost: it goes out late
    (state,) = [e for e in out if isinstance(e, Publish) and e.state]
    (link,) = rows(out, SaveLink)
    assert link.last_line == state.payload["link"]["last_line"] == s.engine.state.time


def test_the_retained_state_carries_a_proposal_made_in_the_same_second_as_the_line_before():
    """`status --mqtt` lists the proposals from the retained state: one decided in the second of
    the line before it (the link row unchanged) is published at the next tick all the same."""
    s = session(ADS + '[mqtt]\nurl = "mqtt://127.0.0.1:1"\n')

    def answered(out: list) -> None:  # the server answers every command at once: the outbox is empty again
        for send in sends(out):
            answered(s.handle(i.Reply(send.ticket, '{"players": []}' if send.text == "jb_status" else "ok"), 4.0))

    answered(opened(s))
    log, ts = setup()
    answered(feed(s, log))
    first = [e for e in s.handle(i.Tick(5.0, "2026-12-01T10:00:05"), 5.0) if isinstance(e, Publish)]
    assert first and first[-1].payload["proposals"] == []
    same = Log(start=s.engine.state.time)
    same.kill(ts[0], ts[1])
    out = feed(s, same, 5.1)
    (proposal,) = [r for r in rows(out, Record) if r.action.action == "propose"]
    answered(out)
    assert not s.outbox and not s.saver._link_changed()  # the line's second and the outbox as the last tick saw them
    published = [e for e in s.handle(i.Tick(7.5, "2026-12-01T10:00:07"), 7.5) if isinstance(e, Publish)]  # past STATE_EVERY
    assert published, "the state with the proposal was never published"
    (shown,) = published[-1].payload["proposals"]
    assert (shown["id"], shown["step"], shown["steamid"], shown["rule"]) == (proposal.id, "slay", ts[0].steamid, "conduct.teamkill")


def test_a_change_held_back_by_the_state_interval_is_not_published_as_running_after_the_stop():
    """The retained state is published at most every STATE_EVERY; a change just before a clean stop
    waits for that, and the clock ticks on while the broker drains: the state must stay `stopped`."""
    s = session('[mqtt]\nurl = "mqtt://127.0.0.1:1883"\n')
    opened(s)
    log, ts = setup()
    for send in sends(feed(s, log)):
        s.handle(i.Reply(send.ticket, ""), 1.0)
    states = [e for e in s.handle(i.Tick(10.0, "2026-12-01T10:00:00"), 10.0) if isinstance(e, Publish) and e.state]
    assert states  # the first state goes out at once
    log.start_here()
    log.wait(1).say(ts[0], "строка")
    for rec in records(log.lines[log.mark:]):
        s.handle(i.LogRecord(rec.encode()), 10.2)
    s.saver.dirty = True  # a change of the state within STATE_EVERY of the last publish: held back
    out = s.handle(i.Tick(10.6, "2026-12-01T10:00:01"), 10.6)
    assert not [e for e in out if isinstance(e, Publish) and e.state]
    out = s.handle(i.Stopping("2026-12-01T10:00:01"), 10.8)
    (stopped,) = [e for e in out if isinstance(e, Publish) and e.state]
    assert stopped.payload["link"]["daemon"] == "stopped"
    later: list = []
    for k in range(4):  # the clock's ticks while the broker takes what is queued
        now = 11.2 + 0.5 * k
        later += s.handle(i.Tick(now, "2026-12-01T10:00:02"), now)
    assert [e.payload["link"]["daemon"] for e in later if isinstance(e, Publish) and e.state] in ([], ["stopped"])
    assert {link.daemon for link in rows(later, SaveLink)} <= {"stopped"}


def test_a_command_held_for_its_rows_is_timed_from_when_it_left_not_from_its_flush():
    s = session()
    opened(s)
    out = feed(s, slay_log())
    (first, *_) = sends(out)
    s.handle(i.Sent((first.ticket,)), 1.0 + 4 * TIMEOUT)  # the driver held it for its rows four timeouts long
    quiet = s.handle(i.Tick(1.0 + 4.5 * TIMEOUT, "2026-12-01T10:00:05"), 1.0 + 4.5 * TIMEOUT)
    assert not [e for e in quiet if isinstance(e, DropLink)]  # the game has had it for half a timeout: no silence yet
    late = s.handle(i.Tick(1.0 + 5.1 * TIMEOUT, "2026-12-01T10:00:06"), 1.0 + 5.1 * TIMEOUT)
    assert [e for e in late if isinstance(e, DropLink)]  # a whole timeout since it left: the link is dropped


def test_a_command_still_held_for_its_rows_is_never_timed_out_nor_spends_a_try():
    """A database away holds a command for its rows for seconds (the writer's hang watch); the clock
    ticking meanwhile must not take the game's silence for it, nor a lost session count it as a try:
    with `[rcon] timeout = 1.0` it was marked failed after 3 such ticks, never having been sent."""
    s = session()
    opened(s)
    out = feed(s, slay_log())
    (slay,) = [e for e in sends(out) if e.text.startswith("jb_slay")]
    for k in range(1, 6):
        now = 1.0 + k * 2 * TIMEOUT  # held all the while: no DropLink, no deadline
        assert not [e for e in s.handle(i.Tick(now, "w"), now) if isinstance(e, DropLink)]
    for _ in range(5):  # sessions lost while it was held: none of them asked the game anything
        assert not rows(s.handle(i.LinkLost("lost"), 12.0), Mark)
        flushed = sends(opened(s))
        assert [e.text for e in flushed if e.audit == slay.audit] == [slay.text]
    s.handle(i.Sent(tuple(e.ticket for e in flushed)), 20.0)
    (head,) = [item for item in s.outbox if item.tag == slay.audit]
    assert head.attempts == 0 and head.left and s.outbox.deadline(TIMEOUT) is not None


def test_the_relays_place_is_saved_with_the_state_and_skipped_only_under_the_same_run():
    """`run --workers`: a worker started again skips what the saved state already holds of its parent's
    relay (the parent sends again all it did not hear kept), and only under the run that numbered it."""
    s = session()
    assert s.relayed_by("run-1") == 0
    log, _ = setup()
    for place, rec in enumerate(records(log.text().splitlines()), start=1):
        s.handle(i.LogRecord(rec.encode(), place), 1.0)
    saved = s.save().row
    assert isinstance(saved, SaveState)
    snapshot = json.loads(saved.snapshot)
    assert snapshot["relay"] == ["run-1", place]
    again = Session(s.config, snapshot, Ids())
    assert again.relayed_by("run-1") == place and again.place == place
    assert Session(s.config, snapshot, Ids()).relayed_by("run-2") == 0  # another parent numbers afresh
    assert "relay" not in json.loads(session().save().row.snapshot)  # straight from a socket: nothing to follow


def test_an_admins_warning_and_ban_from_the_web_page_are_carried_out_and_audited_by_name():
    s = session()
    opened(s)
    feed(s, setup()[0])
    warn = i.ActRow(1, WARDEN.steamid, WARDEN.name, "warn", None, "мат в чате", "vasya")
    gone = i.ActRow(2, "STEAM_1:0:99", "Ушёл", "ban", 0, "читы", "vasya")
    here = i.ActRow(3, WARDEN.steamid, WARDEN.name, "ban", 30, "обман", "petya")
    bad = i.ActRow(4, "not a steamid", "?", "ban", 30, "x", "vasya")
    out = s.handle(i.AdminRequests(acts=(warn, gone, here, bad)), 2.0)
    assert sorted(r.id for r in rows(out, Applied) if r.table == "act_requests") == [1, 2, 3, 4]  # each once, the bad one too
    written = {r.action.action + ("" if r.action.target is None else f" {r.action.target.steamid}"): r for r in rows(out, Record)}
    said = [e.text for e in sends(out)]
    assert any(t.startswith(f"jb_warn #{WARDEN.userid} ") and "vasya" in t and "мат в чате" in t for t in said)
    assert any(t.startswith('jb_addban "STEAM_1:0:99" 0 ') for t in said)  # he has left: by his SteamID, for ever
    assert any(t.startswith(f"jb_ban #{WARDEN.userid} 30 ") and "petya" in t for t in said)
    assert written[f"ban {WARDEN.steamid}"].action.by == "petya" and written[f"ban {WARDEN.steamid}"].action.rule == "admin"
    assert not [t for t in said if "not a steamid" in t]  # a row no tool of ours wrote is refused, never carried out
    again = s.handle(i.AdminRequests(acts=(warn,)), 2.1)
    assert not rows(again, Record)  # seen again before its `applied` is durable: once
    away = s.handle(i.AdminRequests(acts=(i.ActRow(5, "STEAM_1:0:98", "Нет", "warn", None, "x", "vasya"),)), 2.2)
    assert not rows(away, Record) and any("not on the server" in e.text or "не на сервере" in e.text for e in sends(away))
