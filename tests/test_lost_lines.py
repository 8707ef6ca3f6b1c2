"""Lost shim lines and an old plugin (issue 31), sans-IO. Every shim line carries `(seq "N")`
(protocol section 1): a gap is a line UDP lost. It is counted (`status`), the game is asked
for its state (`jb_status`), and until the round's state is known again no punishment that
reads the warden, the orders or the game is decided from a guess: it goes to an admin. A
`jb_hello` (seq "0") is a plugin reload, not a gap. A plugin older than the daemon expects is
said once in its log, in `status` (text and JSON) and on the web page."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

from jailcore.log.parse import records
from jailcore.log.plugin import PLUGIN_UPDATE, PLUGIN_VERSION
from jailcore.session import inputs as i
from jailcore.session.effects import Record, Send, Write
from jailcore.session.session import Ids, Session
from tests.logtext import Log, config
from tests.scenes import GUARD, WARDEN, setup

ROOT = Path(__file__).resolve().parents[1]


def session(extra: str = "", snapshot: dict | None = None) -> Session:
    ids = Ids()
    ids.give(5000, 1000)
    s = Session(config(f"[rcon]\ntimeout = 1.0\n{extra}"), snapshot, ids)
    s.handle(i.LinkOpened(), 1.0)
    return s


def feed(s: Session, log: Log, start: int = 0) -> list:
    out: list = []
    for rec in list(records(log.text().splitlines()))[start:]:
        out += s.handle(i.LogRecord(rec.encode()), 1.0)
    return out


def recorded(effects: list) -> list[Record]:
    return [e.row for e in effects if isinstance(e, Write) and isinstance(e.row, Record)]


def answer(s: Session, effects: list, warden: int | None) -> list[str]:
    """Every command answered as the shim would, `jb_status` with this warden: what was sent."""
    sent, waiting = [], [e for e in effects if isinstance(e, Send)]
    while waiting:
        send = waiting.pop(0)
        sent.append(send.text)
        st = s.engine.state
        players = [{"userid": p.userid, "steamid": p.steamid, "name": p.name, "team": p.team, "alive": p.alive, "gagged": False}
                   for p in st.players.values()]
        reply = json.dumps({"round": st.round, "map": st.map, "warden": warden, "players": players}) if send.text == "jb_status" else "ok"
        waiting += [e for e in s.handle(i.Reply(send.ticket, reply), 1.0) if isinstance(e, Send)]
    return sent


def shim_round(log: Log) -> Log:
    """The round restarts as the plugin of today writes it: its round line, then srcds's."""
    return log.round_end().wait(5).round_begins(0).round_start()


def a_round_with_its_warden_line_lost() -> tuple[Session, list, Log]:
    log, _ = setup()
    shim_round(log)
    s = session()
    feed(s, log)
    assert s.engine.state.lost == 0 and not s.engine.state.doubt
    mark = len(log.lines)
    log.seq += 1  # the guard's `jb_warden` (this seq) never came: UDP lost it
    log.wait(5).order(WARDEN, "все в клетку")  # the warden's order, the next shim line, shows the gap
    return s, feed(s, log, start=mark), log


def test_a_gap_in_the_shims_count_is_counted_and_the_game_is_asked_for_its_state():
    s, out, _ = a_round_with_its_warden_line_lost()
    assert s.engine.state.lost == 1 and s.engine.state.doubt
    assert "jb_status" in [e.text for e in out if isinstance(e, Send)]
    answer(s, out, WARDEN.userid)
    assert s.engine.state.warden == WARDEN.userid  # the game said who commands
    standing = json.loads(s.save().row.standing)
    assert standing["lost_lines"] == 1 and standing["doubt"] is True


def test_000_vi_in_a_round_whose_lines_were_lost_a_game_by_another_goes_to_an_admin_not_a_warning():
    """000 VI «Любую игру проводит только Начальник Тюрьмы»: the log lost a line of this round
    (a hand-over could have been it), so the host's warning is a question to an admin. The next
    round, begun by the shim's own line, is known again and judged as usual."""
    s, out, log = a_round_with_its_warden_line_lost()
    answer(s, out, WARDEN.userid)
    mark = len(log.lines)
    log.wait(5).game(GUARD, "Светофор")
    rows = recorded(feed(s, log, start=mark))
    assert [(r.action.action, r.action.rule, r.status) for r in rows] == [("propose", "games.host", "proposed")]
    assert "потеряны" in rows[0].action.reason
    mark = len(log.lines)
    shim_round(log).warden(WARDEN).wait(5).game(GUARD, "Светофор")
    rows = recorded(feed(s, log, start=mark))
    assert not s.engine.state.doubt and s.engine.state.lost == 1
    assert [(r.action.action, r.action.rule) for r in rows] == [("warn", "games.host")]


def test_004_4_4_a_warden_whose_line_was_the_last_lost_is_not_punished_for_no_warden():
    """004 4.4 «При отсутствии желающих КТ обязаны взять на себя роль Начальника»: the guard's
    `jb_warden` was lost and no shim line came after it to show the gap. Before punishing, the
    daemon asks the game who commands (when it asks the guards, at 30 s), and the game says."""
    log, _ = setup()
    shim_round(log)
    s = session('[server]\nrulebook = ["004", "000"]\n[teams.no_warden]\n')
    log.round_end().wait(5).round_begins(0).round_start()
    log.seq += 1  # the `jb_warden` of this round: lost
    out = feed(s, log.wait(31).say(GUARD, "кто начальник?"))
    sent = answer(s, out, WARDEN.userid)
    assert "jb_status" in sent and s.engine.state.warden == WARDEN.userid
    mark = len(log.lines)
    out = feed(s, log.wait(40).say(GUARD, "понятно"), start=mark)
    assert not [r for r in recorded(out) if r.action.action in ("teamswap", "propose")]


def test_004_4_4_without_the_game_s_answer_the_guards_are_still_punished():
    """The same clause, when no warden was claimed: the game says none, and the guard who
    should have taken command is moved as before (a lost line must not cost recall)."""
    log, _ = setup()
    s = session('[server]\nrulebook = ["004", "000"]\n[teams.no_warden]\n')
    log.round_end().wait(5).round_begins(0).round_start()
    answer(s, feed(s, log.wait(31).say(GUARD, "кто начальник?")), None)
    mark = len(log.lines)
    out = feed(s, log.wait(40).say(GUARD, "никто"), start=mark)
    assert [(r.action.action, r.action.rule) for r in recorded(out) if r.action.rule == "teams.no_warden"][-1] == ("teamswap", "teams.no_warden")


def test_a_hello_is_a_reload_not_a_gap_and_a_round_begun_without_the_shims_line_asks_again():
    log, _ = setup()
    shim_round(log)
    s = session()
    feed(s, log)
    mark = len(log.lines)
    log.hello(PLUGIN_VERSION).warden(WARDEN)  # seq 0, then 1: the plugin reloaded
    feed(s, log, start=mark)
    assert s.engine.state.lost == 0 and not s.engine.state.doubt
    mark = len(log.lines)
    log.seq += 2  # two lines lost, then the order shows it
    out = feed(s, log.order(WARDEN, "стоять"), start=mark)
    answer(s, out, WARDEN.userid)
    assert s.engine.state.lost == 2 and s.engine.state.doubt
    mark = len(log.lines)
    out = feed(s, log.round_end().wait(5).round_start(), start=mark)  # this round's jb_round_start lost too: no gap seen yet
    assert s.engine.state.doubt and "jb_status" in [e.text for e in out if isinstance(e, Send)]


# -- an old plugin -------------------------------------------------------------------------------


def test_the_daemon_expects_the_version_the_plugin_writes():
    source = (ROOT / "sourcemod_bridge" / "scripting" / "jailcore_bridge.sp").read_text(encoding="utf-8")
    (written,) = re.findall(r'#define JB_VERSION "([^"]+)"', source)
    from jailcore.sim.standin import VERSION

    assert written == PLUGIN_VERSION == VERSION


def test_a_plugin_older_than_the_daemon_expects_is_said_once_in_its_log_and_in_status(caplog):
    from jailcore.cli.status import block, standing

    log, _ = setup()
    s = session()
    with caplog.at_level(logging.WARNING, logger="jailcore"):
        feed(s, log.hello("1.1.0").warden(WARDEN).round_end().hello("1.1.0"))
    said = [r.getMessage() for r in caplog.records if "older than" in r.getMessage()]
    assert len(said) == 1 and "1.1.0" in said[0] and PLUGIN_VERSION in said[0] and "make plugin" in said[0]
    saved = json.loads(s.save().row.standing)
    assert saved["plugin"] == {"version": "1.1.0", "expected": PLUGIN_VERSION, "old": True}
    shown = standing("t", saved, None, None, "db")
    assert shown["plugin"]["update"] == PLUGIN_UPDATE  # `status --json`
    text = block(shown, colour=False)
    assert f"plugin 1.1.0 is older than the {PLUGIN_VERSION} this daemon expects" in text and "make plugin" in text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="jailcore"):
        again = Session(config("[rcon]\ntimeout = 1.0\n"), json.loads(s.save().row.snapshot), Ids())  # a restart says it again, once
        feed(again, Log().hello(PLUGIN_VERSION))
    assert len([r for r in caplog.records if "older than" in r.getMessage()]) == 1
    assert not json.loads(again.save().row.standing)["plugin"]["old"]


def test_the_status_json_of_a_daemon_with_an_old_plugin_and_lost_lines(tmp_path):
    import subprocess
    import sys

    from jailcore.store.sqlite import Store

    s, _, _ = a_round_with_its_warden_line_lost()
    feed(s, Log(start="2026-11-30T21:00:00").hello("1.0.0"))
    save = s.save().row
    store = Store(tmp_path / "state.sqlite3")
    store.save_standing(save.server, save.standing, save.when)
    store._put_state(save.server, save.snapshot, save.when)
    store.commit()
    store.close()
    done = subprocess.run([sys.executable, "-m", "jailcore", "status", "--state-db", str(tmp_path / "state.sqlite3"), "--json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    (shown,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert shown["plugin"]["old"] and shown["plugin"]["version"] == "1.0.0" and "make plugin" in shown["plugin"]["update"]
    assert shown["lost_lines"] == 1
    done = subprocess.run([sys.executable, "-m", "jailcore", "status", "--state-db", str(tmp_path / "state.sqlite3")],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert "plugin 1.0.0 is older than" in done.stdout and "lost plugin lines: 1" in done.stdout


async def test_the_web_pages_server_view_says_the_old_plugin_and_the_lost_lines(tmp_path):
    pytest.importorskip("starlette", reason="the web extra is not installed")
    from jailcore.store.sqlite import Store
    from jailcore.web.auth import hash_password
    from tests.webkit import Browser, web

    s, _, _ = a_round_with_its_warden_line_lost()
    feed(s, Log(start="2026-11-30T21:00:00").hello("1.1.0"))
    save = s.save().row
    path = tmp_path / "state.sqlite3"
    store = Store(path)
    store.db.execute("INSERT INTO state (server, snapshot, updated) VALUES (?, ?, ?)", ("jail-a", save.snapshot, save.when))
    store.commit()
    store.close()
    page = web(path, users={"m": hash_password("correct horse battery")}, roles={"m": {"*": "viewer"}})
    try:
        m = Browser(page.app())
        assert (await m.login("m", "correct horse battery")).status == 303
        shown = (await m.get("/servers")).text
        assert "версия 1.1.0 старше ожидаемой" in shown and "make plugin" in shown
        assert "Потеряно строк плагина" in shown
    finally:
        page.sources.close()


@pytest.mark.parametrize("shim_first", [True, False])
def test_lines_lost_before_a_round_are_forgotten_when_it_begins_in_order_either_way(shim_first):
    """The shim's round line shows a gap (the daemon was away, or UDP lost what came before):
    the round it begins is known all the same, whether srcds's Round_Start came first or not."""
    log, _ = setup()
    shim_round(log)
    s = session()
    feed(s, log)
    mark = len(log.lines)
    log.seq += 3
    log.round_end().wait(5)
    if shim_first:
        log.round_begins(0).round_start()
    else:
        log.round_start().round_begins(0)
    feed(s, log.warden(WARDEN), start=mark)
    assert s.engine.state.lost == 3 and not s.engine.state.doubt
