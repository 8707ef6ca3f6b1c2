"""`observe` mode leaves nothing behind (issue 31): a server tried in observe mode, the way
docs/install.md starts one, writes what it would have done and keeps none of it. No ladder
counts an observed step, no CT ban, return block, autoslay or punishment owed stands, nothing
is sent later (after a switch to enforce by a reload or a restart), nothing goes to the
network, and an observed row is not offered for a pardon."""

from __future__ import annotations

import json

import pytest

from jailcore.engine.engine import Engine
from jailcore.log.parse import records
from jailcore.session import inputs as i
from jailcore.session.effects import InGameCtBan, Record, Send, TellPeers, Write
from jailcore.session.session import Ids, Session
from jailcore.store import PardonError
from jailcore.store.request_kinds import PardonRequest
from jailcore.store.sqlite import Store
from tests.logtext import Log, config, run
from tests.scenes import GUARD, WARDEN, next_day, setup

# 000 6.5 «Особый день проводится не чаще, чем раз в N раундов»: the warden who hosts one
# the round after another climbs this ladder; a move to T for a rule's step also blocks
# his return for 3 rounds (001 Охрана 11, `ctban.return_block` after "ladder").
LADDER = '[specialday.cooldown]\nladder = ["teamswap", "ctban 30m"]\n'
OBSERVE = f'[server]\nmode = "observe"\n{LADDER}'
ENFORCE = f'[server]\nmode = "enforce"\n{LADDER}'


def session(text: str, snapshot: dict | None = None) -> Session:
    ids = Ids()
    ids.give(5000, 1000)
    return Session(config(f"[rcon]\ntimeout = 1.0\n{text}"), snapshot, ids)


def feed(s: Session, log: Log, now: float = 1.0) -> list:
    out: list = []
    for rec in records(log.text().splitlines()):
        out += s.handle(i.LogRecord(rec.encode()), now)
    return out


def recorded(effects: list) -> list[Record]:
    return [e.row for e in effects if isinstance(e, Write) and isinstance(e.row, Record)]


def status_of(s: Session) -> str:
    """The shim's `jb_status` as the game has it: nobody was ever moved, the warden still commands."""
    st = s.engine.state
    players = [{"userid": p.userid, "steamid": p.steamid, "name": p.name, "team": p.team, "alive": True, "gagged": False}
               for p in st.players.values()]
    return json.dumps({"round": st.round, "map": st.map, "warden": WARDEN.userid, "players": players})


def answered(s: Session, effects: list, now: float = 2.0) -> list[Send]:
    """Every command sent is answered as the shim would (`jb_status` with the game's state),
    until nothing more goes: all that was sent, in order."""
    sent: list[Send] = []
    waiting = [e for e in effects if isinstance(e, Send)]
    while waiting:
        send = waiting.pop(0)
        sent.append(send)
        reply = status_of(s) if send.text == "jb_status" else "ok"
        waiting += [e for e in s.handle(i.Reply(send.ticket, reply), now) if isinstance(e, Send)]
    return sent


def two_special_days_late() -> Log:
    """The warden hosts a special day in three rounds running: the second and the third are
    offences against 000 6.5, the first step of his ladder and then the second."""
    log, _ = setup()
    log = next_day(log.specialday(WARDEN)).specialday(WARDEN)
    return next_day(log).specialday(WARDEN)


def observed_week() -> Session:
    s = session(OBSERVE)
    s.handle(i.LinkOpened(), 1.0)
    out = feed(s, two_special_days_late())
    rows = [r for r in recorded(out) if r.action.rule == "specialday.cooldown"]
    # The rows say what enforce would have done, each step as the ladder would have reached it.
    # (a CT ban given a guard moves him to T too)
    assert [(r.action.action, r.status) for r in rows] == [("teamswap", "observed"), ("ctban", "observed"), ("teamswap", "observed")]
    assert not [e for e in out if isinstance(e, Send)] and not [e for e in out if isinstance(e, TellPeers)]
    return s


def test_an_observed_step_climbs_no_ladder_and_leaves_no_ban_no_move_and_no_debt():
    s = observed_week()
    st = s.engine.state
    assert st.ladders == {} and st.ctbans == {} and st.autoslay == {} and st.owing == {}
    assert st.warden == WARDEN.userid  # never moved: he still commands, as the game says
    assert st.players[WARDEN.userid].team == "CT" and st.moved == []
    assert list(st.observed.values()) == [2]  # the step the rows name comes from here only
    standing = json.loads(s.save().row.standing)
    assert standing["ctbans"] == []


@pytest.mark.parametrize("switch", ["reload", "restart"])
def test_after_observe_the_switch_to_enforce_sends_nothing_observe_decided_and_starts_every_ladder_clean(switch):
    """`jb_ctban_set` for a warden who was never moved was the bug: the game must receive
    nothing for what was observed, and his next offence is his first."""
    s = observed_week()
    if switch == "reload":
        out = s.handle(i.ConfigRead("/etc/jailcore/servers/a.toml", config=config(f"[rcon]\ntimeout = 1.0\n{ENFORCE}")), 3.0)
        assert s.engine.state.observed == {}
    else:
        snapshot = json.loads(s.save().row.snapshot)
        s = session(ENFORCE, snapshot)
        out = s.handle(i.Resume(), 3.0) + s.handle(i.LinkOpened(), 3.0)
    sent = answered(s, out)
    # The state asked and the display shown again: not one jb_ctban_set, jb_teamswap or jb_warn.
    assert [e.text.split()[0] for e in sent] == ["jb_status", "jb_hud"]
    assert s.engine.state.ctbans == {} and s.engine.state.ladders == {}
    out = feed(s, next_day(Log(start="2026-11-30T22:00:00")).specialday(WARDEN))
    (row,) = [r for r in recorded(out) if r.action.rule == "specialday.cooldown"]
    assert (row.action.action, row.status) == ("teamswap", "pending")  # his first step, for real now
    assert s.engine.state.ladders == {f"specialday.cooldown|{WARDEN.steamid}": 1}


def test_an_admins_ct_ban_and_a_peers_are_kept_apart_in_observe_mode():
    """An admin's `!ctban` in game reaches the game only as the daemon's `jb_ctban_set`: in
    observe mode it is written as observed and held nowhere, told to no peer; a peer's ban,
    given by a server that enforces, is kept (it stands in the network) and held at the door
    once this server enforces."""
    s = session(OBSERVE)
    s.handle(i.LinkOpened(), 1.0)
    log, _ = setup()
    admin = type(WARDEN)("Админ", 40, "STEAM_1:0:4040")
    log.connect(admin, "CT").trig(admin, "jb_ctban", f' (target "#{GUARD.userid}") (length "30") (reason "мат")')
    out = feed(s, log)
    assert [(r.action.action, r.status) for r in recorded(out) if r.action.rule == "admin"] == [("ctban", "observed"), ("teamswap", "observed")]
    assert s.engine.state.ctbans == {}
    assert not [e for e in out if isinstance(e, TellPeers | Send)]
    assert not [e for e in out if isinstance(e, Write) and isinstance(e.row, InGameCtBan)]
    peer = {"id": "b:9", "origin": "server-b", "steamid": GUARD.steamid, "name": GUARD.name, "until": None, "rounds": 3,
            "ref": "7", "reason": "r", "by": "admin"}
    out = s.handle(i.PeerBan(peer), 2.0)
    assert GUARD.steamid in {b.steamid for b in s.engine.state.ctbans.values()}
    assert not [e for e in out if isinstance(e, Send)]  # observe sends nothing, the door's copy neither
    out = s.handle(i.ConfigRead(None, config=config(f"[rcon]\ntimeout = 1.0\n{ENFORCE}")), 3.0)
    sent = [e.text for e in answered(s, out)]
    assert [t for t in sent if t.startswith("jb_ctban_set")] == [f'jb_ctban_set #{GUARD.userid} 0 "r" "admin"']


def test_an_observed_punishment_of_one_who_left_is_not_kept_for_his_return():
    """A player who left before his punishment was decided is owed it (carried out at his
    return): an observed one is written, never owed."""
    s = session(OBSERVE)
    s.handle(i.LinkOpened(), 1.0)
    log, _ = setup()
    log = next_day(log.specialday(WARDEN)).specialday(WARDEN).disconnect(WARDEN)
    feed(s, log)
    assert s.engine.state.owing == {}
    out = feed(s, Log(start="2026-11-30T22:00:00").connect(WARDEN, "CT"))
    assert not recorded(out) and not [e for e in out if isinstance(e, Send)]


def test_replay_decides_as_a_server_that_enforces_whatever_the_mode():
    """`jailcore replay` prints what the rules decide on the lines: its steps are the ladder's,
    in every mode (the mode is the daemon's word on what it sends)."""
    from io import StringIO

    from jailcore.cli.replay import replay_files

    path = "/tmp/jailcore-observe-replay.log"  # written fresh: the test's own file
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(two_special_days_late().text())
    outs = []
    for mode in ("enforce", "observe"):
        out = StringIO()
        replay_files(config(f'[server]\nmode = "{mode}"\n{LADDER}'), [path], out, state=False, stats=False)
        outs.append(out.getvalue())
    assert outs[0] == outs[1] and '"ctban"' in outs[0]


def test_the_engine_says_each_observed_step_as_enforce_would_reach_it():
    actions, engine = run(config(OBSERVE), two_special_days_late())
    steps = [(a.action, a.rule) for a in actions if a.rule == "specialday.cooldown"]
    assert steps == [("teamswap", "specialday.cooldown"), ("ctban", "specialday.cooldown"), ("teamswap", "specialday.cooldown")]
    assert engine.state.ctbans == {} and engine.state.ladders == {}
    enforced = Engine(config(ENFORCE), engine.snapshot())
    assert enforced.state.observed == {}


def test_an_observed_row_is_refused_a_pardon_with_a_clear_line(tmp_path):
    from jailcore.engine.actions import Target, TeamSwap

    store = Store(tmp_path / "state.sqlite3")
    try:
        action = TeamSwap("2026-11-30T20:00:00", 3, "specialday.cooldown", "6.5", "r", Target(2, WARDEN.steamid, WARDEN.name))
        store.record("server-a", action, 3, None, "observed", row_id=1)
        store.record("server-a", action, 3, 'jb_teamswap #2 T "r"', "delivered", row_id=2)
        with pytest.raises(PardonError, match=r"only observed .* nothing to pardon"):
            store.submit(PardonRequest(1, "vasya", "r"))
        assert store.submit(PardonRequest(2, "vasya", "r"))
    finally:
        store.close()


async def test_the_web_page_offers_no_pardon_for_an_observed_row_and_refuses_one_posted(tmp_path):
    pytest.importorskip("starlette", reason="the web extra is not installed")
    import re

    from jailcore.engine.actions import Slay, Target
    from jailcore.web.auth import hash_password
    from tests.webkit import Browser, web

    path = tmp_path / "state.sqlite3"
    store = Store(path)
    action = Slay("2026-11-30T21:00:00", 3, "specialday.cooldown", "6.5", "r", Target(2, WARDEN.steamid, WARDEN.name))
    store.record("jail-a", action, 3, None, "observed", row_id=11)
    store.record("jail-a", action, 3, 'jb_slay #2 "r"', "delivered", row_id=12)
    store.commit()
    store.close()
    page = web(path, users={"m": hash_password("correct horse battery")}, roles={"m": {"*": "moderator"}})
    try:
        m = Browser(page.app())
        assert (await m.login("m", "correct horse battery")).status == 303
        live = (await m.get("/live")).text
        assert set(re.findall(r'<input type="hidden" name="id" value="(\d+)">', live)) == {"12"}
        token = await m.csrf("/live")
        refused = await m.post("/pardon", {"server": "jail-a", "id": "11", "reason": "x"}, token)
        assert refused.status == 409 and "only observed" in refused.text
    finally:
        page.sources.close()


def test_advise_mode_warns_of_each_step_and_holds_no_ban_at_the_door():
    """`advise` punishes nothing: it warns the player of what would have been done. A CT ban
    it advised was still held at the shim's door (`jb_ctban_set`), a real punishment; now it
    keeps none, and the switch to enforce starts every ladder clean."""
    s = session(f'[server]\nmode = "advise"\n{LADDER}')
    s.handle(i.LinkOpened(), 1.0)
    out = feed(s, two_special_days_late())
    rows = [(r.action.action, r.status) for r in recorded(out) if r.action.rule == "specialday.cooldown"]
    assert rows == [("teamswap", "advised"), ("warn", "pending"), ("ctban", "advised"), ("warn", "pending"),
                    ("teamswap", "advised"), ("warn", "pending")]
    sent = answered(s, out)
    assert [t.split()[0] for t in (e.text for e in sent)].count("jb_warn") == 3
    assert not [e for e in sent if e.text.startswith(("jb_ctban_set", "jb_teamswap"))] and s.engine.state.ctbans == {}
    out = s.handle(i.ConfigRead(None, config=config(f"[rcon]\ntimeout = 1.0\n{ENFORCE}")), 3.0)
    assert [e.text.split()[0] for e in answered(s, out)] == ["jb_status", "jb_hud"]
    assert s.engine.state.ladders == {} and s.engine.state.observed == {}
