"""Random values of every field the store writes, across its whole allowed range and beyond
(texts at and past each column's width in one-, two- and four-byte letters, lone surrogates,
quotes and NULs; whole numbers past INT and BIGINT), through both stores (the SQLite file and
MariaDB, as the daemon's writer writes: its rows batched, then one commit) and through the
SourceBans++ bridge into a `utf8` and a `utf8mb4` SourceBans++. Enforcement goes on (every
commit and every pass succeeds, nothing is set aside) and nothing is lost (every row is there,
each value as written or cut to its column as log/limits.py says: never refused)."""

from __future__ import annotations

import time
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jailcore.config.netsettings import SourceBansSettings
from jailcore.engine.actions import Ban, Target, Warn
from jailcore.log import limits
from jailcore.session import effects as fx
from jailcore.store.location import open_reader
from jailcore.store.mariadb import MariaStore
from jailcore.store.request_kinds import PardonRequest
from jailcore.store.sourcebans import SourceBans
from jailcore.store.sqlite import Store
from tests.mariadb import mariadb_server
from tests.test_sourcebans_own import install, query

__all__ = ["mariadb_server"]

LETTERS = ["a", "Я", "😀", "\ud800", "'", "\\", "%", "<", "&", "\x00", " "]
LENGTHS = [0, 1, 31, 32, 33, 39, 40, 41, 63, 64, 65, 127, 128, 129, 190, 191, 192, 254, 255, 256, 4096, 16_383, 16_384, 70_000]
texts = st.builds(lambda head, letter, n: head + letter * n, st.text(max_size=6), st.sampled_from(LETTERS), st.sampled_from(LENGTHS))
numbers = st.one_of(st.sampled_from([0, -1, 2**31 - 1, 2**31, -(2**31) - 1, 2**63 - 1, 2**63, -(2**63) - 1, 10**30]), st.integers())
times = st.one_of(st.just("2026-12-01T10:00:00"), texts)

ACTION = st.fixed_dictionaries({"time": times, "round": numbers, "rule": texts, "ref": texts, "reason": texts, "userid": numbers,
                                "steamid": texts, "name": texts, "day": numbers, "command": st.one_of(st.none(), texts),
                                "status": texts, "reply": st.one_of(st.none(), texts), "line": texts, "by": texts, "minutes": numbers})


def clean(text: str) -> str:
    return text.replace("\ud800", "\ufffd")


def expected(row: dict) -> dict:
    """What the store keeps of a row: each text cut to its column, each number held to it (log/limits.py)."""
    big = 2**63 - 1
    return {"time": limits.fit(row["time"], limits.TIME), "round": limits.fit_int(row["round"]), "rule": limits.fit(row["rule"], limits.KEY),
            "ref": limits.fit(row["ref"], limits.KEY), "reason": limits.fit_text(row["reason"]),
            "userid": max(-big - 1, min(big, row["userid"])), "steamid": limits.fit(row["steamid"], limits.STEAMID),
            "name": limits.fit(row["name"], limits.NAME), "day": limits.fit_int(row["day"]),
            "command": None if row["command"] is None else limits.fit_text(row["command"]),
            "status": limits.fit(row["status"], limits.WORD), "reply": None if row["reply"] is None else limits.fit_text(row["reply"])}


def write(store, server: str, rows: list[dict], first: int) -> None:
    """As the daemon's writer: the session's rows, then one commit."""
    out: list = []
    for k, r in enumerate(rows):
        action = Warn(time=r["time"], round=r["round"], target=Target(r["userid"], r["steamid"], r["name"]), rule=r["rule"],
                      ref=r["ref"], reason=r["reason"])
        out += [fx.Record(first + k, server, action, r["day"], r["command"], "pending"), fx.Mark(first + k, r["status"], r["reply"]),
                fx.KeepLines(((server, r["round"], "2026-12-01T10:00:00", r["line"], first + k),), 14),  # (a line's time is the parser's)
                fx.InGameCtBan(server, r["steamid"], r["name"], r["minutes"], r["round"], r["reason"], r["by"], False, r["time"])]
    store.write(out)
    store.commit()


def check(db_rows: list[dict], lines: list[dict], bans: list[dict], rows: list[dict]) -> None:
    assert len(db_rows) == len(rows) and len(lines) == len(rows) and len(bans) == len(rows)  # nothing lost
    for got, r, line, ban in zip(db_rows, rows, lines, bans, strict=True):
        want = expected(r)
        assert {k: got[k] for k in want} == want
        assert line["line"] == limits.fit_text(r["line"]) and line["round"] == limits.fit_int(r["round"])
        assert (ban["steamid"], ban["name"], ban["by"], ban["reason"]) == (want["steamid"], want["name"], limits.fit(r["by"], limits.KEY),
                                                                           want["reason"])
        assert ban["minutes"] == limits.fit_int(r["minutes"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(rows=st.lists(ACTION, min_size=1, max_size=3))
def test_any_value_through_the_sqlite_file(tmp_path_factory, rows):
    store = Store(tmp_path_factory.mktemp("props") / "state.sqlite3")
    try:
        write(store, "jail", rows, 1)
        got = [dict(r) for r in store.db.execute("SELECT * FROM audit ORDER BY id")]
        lines = [dict(r) for r in store.db.execute("SELECT * FROM loglines ORDER BY id")]
        bans = [dict(r) for r in store.db.execute("SELECT * FROM ctban_requests ORDER BY id")]
        check(got, lines, bans, rows)
    finally:
        store.close()


@pytest.fixture(scope="module")
def maria(mariadb_server, tmp_path_factory):
    url = mariadb_server.database()
    store = MariaStore(url, str(tmp_path_factory.mktemp("journal") / "state.journal"))
    yield url, store
    store.close()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(rows=st.lists(ACTION, min_size=1, max_size=3))
def test_any_value_through_mariadb_as_the_daemon_writes(maria, rows):
    url, store = maria
    server = uuid.uuid4().hex  # each example its own server, in the one database
    first = store.reserve_ids(10)
    write(store, server, rows, first)
    assert store.set_aside == 0 and store.away is None  # enforcement goes on: nothing refused, nothing held
    got = query(url, "SELECT * FROM audit WHERE server = %s ORDER BY id", (server,))
    lines = query(url, "SELECT * FROM loglines WHERE server = %s ORDER BY id", (server,))
    bans = query(url, "SELECT * FROM ctban_requests WHERE server = %s ORDER BY id", (server,))
    check(got, lines, bans, rows)


BAN = st.fixed_dictionaries({"name": texts, "reason": texts, "ref": texts, "by": texts, "pardon": texts,
                             "minutes": st.one_of(st.none(), st.integers(min_value=0, max_value=60 * 24 * 365 * 30))})


def shown(text: str, charset: str, chars: int | None = None, octets: int | None = None) -> str:
    """What a SourceBans++ column of this charset and width holds of a text."""
    text = clean(text)
    if charset == "utf8":
        text = "".join(c if ord(c) <= 0xFFFF else "\ufffd" for c in text)
    if chars is not None:
        text = text[:chars]
    if octets is not None:
        text = text.encode()[:octets].decode("utf-8", "ignore")
    return text


@pytest.fixture(scope="module")
def sourcebans(mariadb_server):
    jailcore = mariadb_server.database()
    return jailcore, {charset: install(mariadb_server, charset) for charset in ("utf8", "utf8mb4")}


@pytest.mark.parametrize("charset", ["utf8", "utf8mb4"])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(bans=st.lists(BAN, min_size=1, max_size=3))
def test_any_ban_through_sourcebans_in_either_charset(sourcebans, charset, bans):
    url, sbs = sourcebans
    sb = sbs[charset]
    server = uuid.uuid4().hex
    store = MariaStore(url)
    reader = open_reader(url)
    bridge = SourceBans(SourceBansSettings(sb, "sb", server_id=3, admin_id=7), server, "props", reader,
                        lambda action_id, by, reason: store.submit(PardonRequest(action_id, by, reason)))
    try:
        ids = []
        for k, b in enumerate(bans):
            action = Ban(time=time.strftime("%Y-%m-%dT%H:%M:%S"), round=1, rule="r", ref=b["ref"], reason=b["reason"],
                            target=Target(k, f"STEAM_1:0:{k + 1}", b["name"]), minutes=b["minutes"])
            row = store.record(server, action, 1, "jb_ban", "pending")
            store.mark(row, "delivered", "ok")
            ids.append(row)
        store.commit()
        bridge.sync()
        for row, b in zip(ids, bans, strict=True):
            store.submit(PardonRequest(row, b["by"], b["pardon"]))
        bridge.sync()
        assert bridge.aside == {} and bridge.passes == 2  # every pass went through, nothing set aside
        got = query(sb, "SELECT b.name, b.reason, b.ureason, b.length, b.created, b.ends, b.RemoveType FROM sb_bans b JOIN sb_jailcore l ON l.bid = b.bid "
                        "WHERE l.server = %s ORDER BY l.audit_id", (server,))
        assert len(got) == len(bans)  # nothing lost
        for row, b in zip(got, bans, strict=True):
            name = limits.fit(b["name"], limits.NAME)  # as jailcore's own audit keeps it
            assert row["name"] == shown(name or "unnamed", charset, chars=128)
            assert row["RemoveType"] == "U" and row["length"] == min((b["minutes"] or 0) * 60, 2**31 - 1 - row["created"])  # INT: 2038
            assert row["ends"] == row["created"] + row["length"]
            assert len(row["reason"].encode()) <= 65_535 and len(row["ureason"].encode()) <= 65_535
            assert "<" not in row["ureason"] and ">" not in row["ureason"]
    finally:
        bridge.close()
        reader.close()
        store.close()


def test_the_schema_and_the_limits_agree(mariadb_server):
    """Every text column of jailcore's MariaDB tables is as wide as log/limits.py says, read from the server."""
    url = mariadb_server.database()
    MariaStore(url).close()
    columns = query(url, "SELECT TABLE_NAME AS t, COLUMN_NAME AS c, CHARACTER_MAXIMUM_LENGTH AS n, DATA_TYPE AS kind "
                         "FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND DATA_TYPE IN ('varchar', 'char')")
    widths = {limits.KEY, limits.STEAMID, limits.NAME, limits.WORD, limits.SHORT_WORD, limits.TIME, limits.TOPIC, limits.ACCOUNT}
    odd = [(c["t"], c["c"], c["n"]) for c in columns if c["n"] not in widths and (c["t"], c["c"]) not in
           {("accounts", "password"), ("account_imports", "pair"), ("jailcore_schema", "name"), ("id_blocks", "name"),
            ("journal_applied", "origin")}]
    assert not odd, odd
    audit = {c["c"]: c["n"] for c in columns if c["t"] == "audit"}
    assert (audit["ref"], audit["name"], audit["steamid"], audit["rule"], audit["server"]) == (
        limits.KEY, limits.NAME, limits.STEAMID, limits.KEY, limits.KEY)




# The admins' requests' tables as MariaDB databases have held them since schema version 6 (each
# written in store/mariadb.py then): the tables written once for both backends are these.
_REQUEST_TABLES_BEFORE = [
    f"""CREATE TABLE pardons (
        id BIGINT AUTO_INCREMENT PRIMARY KEY, server VARCHAR({limits.KEY}) NOT NULL, action_id BIGINT NOT NULL UNIQUE, `by` VARCHAR({limits.KEY}) NOT NULL,
        reason TEXT NOT NULL, time VARCHAR({limits.TIME}) NOT NULL, applied_at VARCHAR({limits.TIME}), steamid VARCHAR({limits.STEAMID}))""",
    f"""CREATE TABLE ctban_requests (
        id BIGINT AUTO_INCREMENT PRIMARY KEY, server VARCHAR({limits.KEY}) NOT NULL, steamid VARCHAR({limits.STEAMID}) NOT NULL,
        name VARCHAR({limits.NAME}) NOT NULL DEFAULT '', minutes INT, rounds INT, lift INT NOT NULL DEFAULT 0, reason TEXT NOT NULL,
        `by` VARCHAR({limits.KEY}) NOT NULL, time VARCHAR({limits.TIME}) NOT NULL, applied_at VARCHAR({limits.TIME}))""",
    f"""CREATE TABLE act_requests (
        id BIGINT AUTO_INCREMENT PRIMARY KEY, server VARCHAR({limits.KEY}) NOT NULL, steamid VARCHAR({limits.STEAMID}) NOT NULL,
        name VARCHAR({limits.NAME}) NOT NULL DEFAULT '', act VARCHAR({limits.SHORT_WORD}) NOT NULL, minutes INT, reason TEXT NOT NULL,
        `by` VARCHAR({limits.KEY}) NOT NULL, time VARCHAR({limits.TIME}) NOT NULL, applied_at VARCHAR({limits.TIME}),
        KEY act_requests_waiting (server, applied_at))""",
    f"""CREATE TABLE answers (
        id BIGINT AUTO_INCREMENT PRIMARY KEY, server VARCHAR({limits.KEY}) NOT NULL, action_id BIGINT NOT NULL UNIQUE,
        answer VARCHAR({limits.SHORT_WORD}) NOT NULL, `by` VARCHAR({limits.KEY}) NOT NULL, reason TEXT NOT NULL, time VARCHAR({limits.TIME}) NOT NULL,
        note TEXT, applied_at VARCHAR({limits.TIME}))""",
]


def _request_tables(url: str) -> tuple[list[dict], list[dict], list[dict]]:
    where = "TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('pardons', 'ctban_requests', 'act_requests', 'answers')"
    return (query(url, f"SELECT TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT, COLUMN_KEY, EXTRA "
                       f"FROM information_schema.COLUMNS WHERE {where} ORDER BY TABLE_NAME, ORDINAL_POSITION"),
            query(url, f"SELECT TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, NON_UNIQUE FROM information_schema.STATISTICS WHERE {where} "
                       "ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX"),
            query(url, f"SELECT TABLE_NAME, ENGINE, TABLE_COLLATION FROM information_schema.TABLES WHERE {where} ORDER BY TABLE_NAME"))


def test_the_requests_tables_written_once_are_the_ones_mariadb_databases_have_held(mariadb_server):
    new = mariadb_server.database()
    MariaStore(new).close()
    old = mariadb_server.database()
    for ddl in _REQUEST_TABLES_BEFORE:
        query(old, ddl + " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci")
    got, want = _request_tables(new), _request_tables(old)
    assert len(got[0]) == 8 + 11 + 10 + 9 and len(got[2]) == 4  # the four tables, every column
    assert got == want
