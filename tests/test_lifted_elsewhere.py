"""A punishment lifted by another road than its appeal (issue 32): a CT ban lifted while its
player is away is still a lift (audited, told to the admins' sinks, nothing sent to a #userid
nobody has), and every open appeal of a punishment lifted elsewhere (a pardon on the command
line, in game or from SourceBans++, a CT ban lifted anywhere) is answered by the lift: granted,
by whoever lifted it, so the player's link says so and no admin answers it again."""

from __future__ import annotations

import json

import pytest

from jailcore.config.notifyconfig import sinks_of
from jailcore.io.notify.notifier import Watch
from jailcore.session import inputs as i
from jailcore.session.effects import CloseAppeals, Record
from jailcore.store import settle_appeal
from jailcore.store.appeals import Appeals
from jailcore.store.mariadb import MariaStore
from jailcore.store.portable import Db
from jailcore.store.sqlite import Store
from tests import logtext
from tests.mariadb import mariadb, mariadb_server
from tests.test_session import rows, sends, session

__all__ = ["mariadb", "mariadb_server"]
AWAY = "STEAM_1:0:99"


def test_a_ct_ban_lifted_while_he_is_away_is_audited_as_done_and_closes_its_appeals():
    s = session()
    s.handle(i.Tick(0.0, "2026-12-01T10:00:00"), 0.0)
    s.handle(i.AdminRequests(ctbans=(i.CtBanRow(1, AWAY, "Вася", 30, None, False, "r", "vasya"),)), 0.1)
    assert s.engine.state.ctbans  # given to one who is not on the server: held for his return
    out = s.handle(i.AdminRequests(ctbans=(i.CtBanRow(2, AWAY, "Вася", None, None, True, "ошибся", "petya"),)), 0.2)
    (lift,) = [r for r in rows(out, Record) if r.action.action == "unctban"]
    assert (lift.status, lift.command, lift.action.absent, lift.action.by) == ("delivered", None, True, "petya")
    assert not s.engine.state.ctbans
    assert not [e for e in sends(out) if "ctban_clear" in e.text]  # no #userid: nobody to clear it on
    (close,) = rows(out, CloseAppeals)
    assert (close.server, close.action_ids, close.ctbans_of, close.by) == (s.server, (), (AWAY,), "petya")
    assert "ошибся" in close.reason


def test_a_pardon_answers_the_open_appeal_of_its_punishment():
    s = session()
    s.handle(i.Tick(0.0, "2026-12-01T10:00:00"), 0.0)
    entry = {"action": "warn", "rule": "games.duration", "ref": "5.11", "round": 3,
             "target": {"userid": 7, "steamid": AWAY, "name": "Вася"}, "reason": "x"}
    out = s.handle(i.AdminRequests(pardons=(i.PardonRow(4, 1234, "petya", "не он", json.dumps(entry)),)), 0.1)
    assert CloseAppeals(s.server, (1234,), (), "petya", "не он", "2026-12-01T10:00:00") in rows(out, CloseAppeals)


@pytest.fixture(params=["sqlite", "mariadb"])
def backend(request, tmp_path):
    if request.param == "sqlite":
        path = str(tmp_path / "s.sqlite3")
        store = Store(path)
        yield store, path
    else:
        url = request.getfixturevalue("mariadb")
        store = MariaStore(url)
        yield store, url
    store.close()


def test_the_store_answers_only_the_open_appeals_of_what_was_lifted_on_that_server(backend):
    store, where = backend
    appeals = Appeals(Db(where))
    try:
        ctban = appeals.file("a", 10, "ctban", "STEAM_0:0:99", "Вася", "не виноват", "", "10.0.0.1", "t1")  # another form of AWAY
        warn = appeals.file("a", 11, "warn", AWAY, "Вася", "и тут", "", "10.0.0.1", "t2")
        pardoned = appeals.file("a", 12, "slay", AWAY, "Вася", "и это", "", "10.0.0.1", "t3")
        upheld = appeals.file("a", 13, "ctban", AWAY, "Вася", "старый", "", "10.0.0.1", "t4")
        elsewhere = appeals.file("b", 10, "ctban", AWAY, "Вася", "другой сервер", "", "10.0.0.1", "t5")
        appeals.answer(upheld, "upheld", "admin", "был прав")
        store.write([CloseAppeals("a", (), (AWAY,), "petya", "снят: ошибся", "2026-12-01T10:05:00"),
                     CloseAppeals("a", (12,), (), "kolya", "помилован", "2026-12-01T10:06:00")])
        store.commit()
        got = {n: appeals.get(n) for n in (ctban, warn, pardoned, upheld, elsewhere)}
        assert (got[ctban]["status"], got[ctban]["by"], got[ctban]["reason"], got[ctban]["answered"]) == (
            "granted", "petya", "снят: ошибся", "2026-12-01T10:05:00")
        assert (got[pardoned]["status"], got[pardoned]["by"]) == ("granted", "kolya")
        assert got[warn]["status"] == "open" and got[elsewhere]["status"] == "open"  # not lifted / another server's
        assert (got[upheld]["status"], got[upheld]["by"]) == ("upheld", "admin")  # an answer stands
    finally:
        appeals.db.close()


def test_an_admin_granting_an_appeal_the_daemon_already_closed_is_told_granted_not_refused(tmp_path):
    path = str(tmp_path / "s.sqlite3")
    store = Store(path)
    try:
        store.record("a", _ban_action(), 1, None, "delivered", row_id=77)
        store.commit()
        appeals = Appeals(Db(path))
        number = appeals.file("a", 77, "ban", AWAY, "Вася", "не я", "", "10.0.0.1", "t1")

        class ClosingStore:  # the daemon applies the pardon between the request and the answer
            def __getattr__(self, name):
                return getattr(store, name)

        def pardon_then_close(request):
            got = store.submit(request)
            store.write([CloseAppeals("a", (77,), (), "daemon-side", "pardon", "2026-12-01T10:07:00")])
            store.commit()
            return got

        closing = ClosingStore()
        closing.submit = pardon_then_close
        row, pardon = settle_appeal(closing, None, "", appeals, number, "grant", "admin", "верно")
        assert row["status"] == "granted" and pardon is not None
    finally:
        store.close()


def _ban_action():
    from jailcore.engine.actions import Ban, Target

    return Ban("2026-12-01T10:00:00", 3, "conduct.advertising", "19", "Реклама", Target(7, AWAY, "Вася"), minutes=0)


def test_the_watcher_tells_the_sinks_of_a_lift_for_one_who_is_away(tmp_path):
    path = str(tmp_path / "s.sqlite3")
    store = Store(path)
    config = logtext.config('[server]\nname = "a"\nrulebook = "004"\n[notify.webhook]\nurl = "http://127.0.0.1:9/x"\n')
    watch = Watch(path, sinks_of([config]))
    try:
        watch.once({"a": config})  # the mark: from now on
        from jailcore.engine.actions import Target, Unctban

        lift = Unctban("2026-12-01T10:00:00", 3, "admin", "", "снят", Target(0, AWAY, "Вася"), by="petya", absent=True)
        store.record("a", lift, 1, None, "delivered", row_id=501)
        store.commit()
        queued, _ = watch.once({"a": config})
        assert queued == len(watch.sinks) >= 1
    finally:
        watch.close()
        store.close()


def test_a_process_with_no_sink_reads_no_decision_and_keeps_its_places_near_now(tmp_path, monkeypatch):
    """No sink hears a decision: the watcher reads none of them (hundreds a second on a busy network), and
    the servers' audit places move to the newest every UNHEARD seconds, so that a sink set up later does
    not start in the past."""
    from jailcore.engine.actions import Target, Unctban
    from jailcore.io.notify import notifier

    path = str(tmp_path / "s.sqlite3")
    store = Store(path)
    config = logtext.config('[server]\nname = "a"\nrulebook = "004"\n')
    watch = Watch(path, sinks_of([config]))
    assert not watch.sinks
    read: list[int] = []
    real = watch.notices.decisions_after
    watch.notices.decisions_after = lambda place, actions, limit=500: (read.append(place), real(place, actions, limit))[1]  # type: ignore[method-assign]
    try:
        watch.once({"a": config})
        for k in range(3):
            lift = Unctban("2026-12-01T10:00:00", 3, "admin", "", "снят", Target(0, AWAY, "Вася"), by="petya", absent=True)
            store.record("a", lift, 1, None, "delivered", row_id=601 + k)
        store.commit()
        newest = watch.notices.newest_place()
        assert watch.once({"a": config}) == (0, []) and watch.notices.mark("audit:a") < newest  # not yet UNHEARD on
        monkeypatch.setattr(notifier, "UNHEARD", 0.0)
        watch._unheard_at = float("-inf")
        watch.once({"a": config})
        assert watch.notices.mark("audit:a") == newest and not read
    finally:
        watch.close()
        store.close()
