"""The parser: HL Log Standard lines of CS:S and CS:GO, hostile names and chat, junk."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from jailcore.log import events as ev
from jailcore.log import lines
from jailcore.log.parse import ALL_KINDS, SHIM_TRIGGERS, LogParser, decode, records
from tests import corpus, reference_parse


def one(line: str | bytes):
    parser = LogParser()
    event = parser.parse(line)
    return event, parser.stats


def test_css_joined_team_and_csgo_switched():
    e, _ = one('L 11/30/2026 - 20:00:00: "Вася<5><STEAM_0:1:123><Unassigned>" joined team "CT"')
    assert isinstance(e, ev.JoinedTeam) and (e.player.userid, e.old, e.new) == (5, "Unassigned", "CT")
    e, _ = one('L 02/12/2014 - 11:09:36: "Erik<164><BOT>" switched from team <Unassigned> to <TERRORIST>')
    assert isinstance(e, ev.JoinedTeam) and (e.player.name, e.new) == ("Erik", "TERRORIST")
    assert e.time == "2014-02-12T11:09:36"


def test_csgo_kill_with_positions_and_css_kill_without():
    e, _ = one('L 11/12/2018 - 19:57:43: "Dean<11><BOT><CT>" [-206 316 1613] killed "Scott<5><BOT><TERRORIST>" [939 214 1678] with "hkp2000" (headshot)')
    assert isinstance(e, ev.Killed) and (e.killer.userid, e.victim.userid, e.weapon) == (11, 5, "hkp2000")
    e, _ = one('L 11/30/2026 - 20:00:00: "A<2><STEAM_0:0:1><CT>" killed "B<3><STEAM_0:0:2><TERRORIST>" with "usp"')
    assert isinstance(e, ev.Killed) and e.victim.team == "TERRORIST"


def test_stored_udp_payload_nul_crlf_and_no_prefix():
    e, _ = one(b'\x0001/17/2015 - 10:37:41: World triggered "Round_Start"\r\n')
    assert isinstance(e, ev.RoundStart)


def test_bad_utf8_is_read_not_fatal():
    e, stats = one(b'L 11/30/2026 - 20:00:00: "TehoTyt\xf6t<3><STEAM_1:0:1><CT>" say "\xc3 \xa4 hi"')
    assert isinstance(e, ev.Chat) and e.player.name == "TehoTytöt" and e.text.endswith("hi")
    assert stats.malformed == 0


def test_chat_text_cannot_impersonate_a_shim_trigger():
    fake = '<2><STEAM_1:0:42><>" triggered "jb_warden" (seq "5")'
    e, _ = one(f'L 11/30/2026 - 20:00:00: "Зек<9><STEAM_1:0:9><TERRORIST>" say "{fake}"')
    assert isinstance(e, ev.Chat) and e.player.userid == 9 and e.text == fake


def test_chat_text_cannot_move_the_speaker():
    e, _ = one('L 11/30/2026 - 20:00:00: "Зек<9><STEAM_1:0:9><TERRORIST>" say "x<2><STEAM_1:0:42><CT>" say "я начальник"')
    assert isinstance(e, ev.Chat) and e.player.userid == 9


def test_hostile_names_with_quotes_brackets_semicolons():
    name = 'a"b<c>;d "e" <1><BOT><CT>'
    e, _ = one(f'L 11/30/2026 - 20:00:00: "{name}<7><STEAM_1:1:7><>" triggered "jb_order" (text "сесть; quit") (seq "3")')
    assert isinstance(e, ev.OrderGiven) and e.player.userid == 7 and e.player.name == name
    assert e.text == "сесть; quit" and e.seq == 3


def test_order_text_with_quotes_is_read_from_both_ends():
    e, _ = one('L 11/30/2026 - 20:00:00: "W<2><STEAM_1:0:42><>" triggered "jb_order" (text "скажи ") (seq "99")") (seq "4")')
    assert isinstance(e, ev.OrderGiven) and e.text == 'скажи ") (seq "99")' and e.seq == 4


@pytest.mark.parametrize(
    ("props", "cls", "field", "value"),
    [
        (' (reason "died")', ev.WardenRemoved, "reason", "died"),
        (' (text "не прыгать")', ev.ProhibitionSet, "text", "не прыгать"),
        (' (index "2")', ev.ProhibitionLifted, "index", 2),
        (' (game "Король")', ev.GameStarted, "game", "Король"),
        (' (day "Прятки")', ev.SpecialDay, "day", "Прятки"),
        (' (scope "personal") (target "#12")', ev.FreedayGranted, "target", 12),
        (' (choice "дуэль")', ev.LastRequest, "choice", "дуэль"),
        (' (kind "hook")', ev.PrivilegeUsed, "privilege", "hook"),
        (' (state "on")', ev.GagChanged, "gagged", True),
    ],
)
def test_every_shim_trigger(props, cls, field, value):
    e, _ = one(f'L 11/30/2026 - 20:00:00: "P<4><STEAM_1:0:4><>" triggered "{cls.kind}"{props} (seq "8")')
    assert isinstance(e, cls) and getattr(e, field) == value and e.seq == 8


def test_shim_trigger_without_seq_is_malformed_not_an_event():
    e, stats = one('L 11/30/2026 - 20:00:00: "P<4><STEAM_1:0:4><>" triggered "jb_warden"')
    assert e is None and stats.unknown + stats.malformed == 1


def test_hello_and_restart():
    e, _ = one('L 11/30/2026 - 20:00:00: World triggered "jb_hello" (version "1.0.0") (seq "0")')
    assert isinstance(e, ev.ShimHello) and e.version == "1.0.0"
    e, _ = one('L 11/30/2026 - 20:00:00: World triggered "Restart_Round_(3_seconds)"')
    assert isinstance(e, ev.RestartRound) and e.seconds == 3


def test_multiline_disconnect_record():
    lines = [b'\x0001/17/2015 - 10:37:41: "Zunnu<3><STEAM_1:0:1><CT>" disconnected (reason "No Steam logon\n', b'")\n']
    recs = list(records(lines))
    assert len(recs) == 1
    e, _ = one(recs[0])
    assert isinstance(e, ev.Disconnected) and e.reason.startswith("No Steam logon")


def test_junk_is_counted_as_malformed():
    parser = LogParser()
    for junk in ("hello", "L 99/99/2026 - 20:00:00: x", 'L 11/30/2026 - 20:00:00: "no identity" say "x"'):
        assert parser.parse(junk) is None
    assert parser.stats.malformed == 3 and parser.stats.lines == 3


def test_whole_and_byte_split_give_the_same_events():
    text = 'L 11/30/2026 - 20:00:00: World triggered "Round_Start"\nL 11/30/2026 - 20:00:01: "A<2><BOT><CT>" say "hi"\n'
    whole = [LogParser().parse(r) for r in records(text.splitlines(keepends=True))]
    pieces = [LogParser().parse(r) for r in records(text.encode().splitlines(keepends=True))]
    assert whole == pieces and all(whole)


def test_shim_trigger_list_covers_every_shim_event():
    kinds = {c.kind for c in ev.shim_events()} | {ev.ShimHello.kind}
    assert kinds == set(SHIM_TRIGGERS)


# --- the real corpus --------------------------------------------------------------------

@pytest.mark.parametrize("path", corpus.files(), ids=lambda p: p.name[:40])
def test_every_corpus_line_is_read(path):
    parser = LogParser()
    with path.open("rb") as fh:
        for rec in records(fh):
            parser.parse(rec)
    s = parser.stats
    assert s.lines > 0 and sum(s.events.values()) + s.unknown + s.malformed == s.lines
    if "tf-log-parser" not in path.name:  # the CS:GO files: under 1% unread
        assert (s.unknown + s.malformed) / s.lines < 0.01, s


# --- the same answers as the parser before the fast path (tests/reference_parse.py) ----------

GOLDEN = Path(__file__).resolve().parent / "golden"
# Kinds a small rule set might read: every other line must still be counted the same.
FEW = frozenset({"chat", "jb_order", "jb_warden", "round_start"})


def golden_stats(path: Path) -> dict:
    """The `--stats` line that `jailcore replay` printed for this corpus file before the change."""
    rows = (GOLDEN / f"example.{path.stem}.jsonl").read_text(encoding="utf-8").splitlines()
    return json.loads(rows[-1])["stats"]


def agree(recs, needed=None) -> tuple[LogParser, reference_parse.LogParser]:
    """Feed the same records to the reference parser and to ours; every answer must match."""
    reference, parser = reference_parse.LogParser(), LogParser(needed)
    for rec in recs:
        expected = reference.parse(rec)
        if needed is not None and expected is not None and expected.kind not in needed:
            expected = None
        got = parser.parse(rec)
        assert got == expected, rec
        assert type(got) is type(expected), rec
    assert parser.stats.to_json() == reference.stats.to_json()
    return parser, reference


@pytest.mark.parametrize("needed", [None, FEW], ids=["all", "few"])
@pytest.mark.parametrize("path", corpus.files(), ids=lambda p: p.name[:40])
def test_corpus_stats_equal_the_golden_replay(path, needed):
    parser = LogParser(needed)
    with path.open("rb") as fh:
        for rec in records(fh):
            parser.parse(rec)
    assert parser.stats.to_json() == golden_stats(path)


@pytest.mark.parametrize("path", corpus.files(), ids=lambda p: p.name[:40])
def test_every_corpus_line_reads_as_before(path):
    with path.open("rb") as fh:
        recs = list(records(fh))
    for needed in (None, FEW, ALL_KINDS - {"attacked", "purchased", "rcon"}):
        agree(recs, needed)
        agree([decode(rec) for rec in recs], needed)  # text records take the same paths


def test_a_new_second_is_read_once():
    parser, _ = agree([f'L 11/30/2026 - 20:00:0{i // 3}: World triggered "Round_Start"' for i in range(9)] * 2)
    assert sorted(parser._times.values()) == [f"2026-11-30T20:00:0{i}" for i in range(3)]


def test_identity_caches_stay_bounded():
    parser = LogParser()
    for uid in range(3 * lines._CACHE_SIZE):
        who = f'"P{uid}<{uid}><STEAM_1:0:{uid}><CT>"'
        parser.parse(f'L 11/30/2026 - 20:00:00: {who} killed {who} with "ak47"'.encode())
    assert parser.stats.events["killed"] == 3 * lines._CACHE_SIZE
    assert len(parser._actors) <= lines._CACHE_SIZE + 1 and len(parser._identities) <= lines._CACHE_SIZE + 1


def test_the_same_identity_text_is_the_same_player():
    parser = LogParser()
    a = parser.parse(b'L 11/30/2026 - 20:00:00: "A<2><STEAM_1:0:2><CT>" say "x"')
    b = parser.parse(b'L 11/30/2026 - 20:00:01: "A<2><STEAM_1:0:2><CT>" killed "B<3><BOT><TERRORIST>" with "ak47"')
    assert a.player is b.killer


def test_needed_names_real_kinds():
    assert {"killed", "chat", "jb_order", "rcon", "purchased", "cvar"} <= ALL_KINDS
    with pytest.raises(ValueError, match="kiled"):
        LogParser({"kiled"})


def test_events_are_built_without_validators():
    # The parser builds thousands of events a second: their classes check nothing on the way.
    classes = [ev.Player, ev.Noted, *ev.Event.__subclasses__(), *ev.ShimEvent.__subclasses__(), *ev.shim_events()]
    assert all(f.validator is None and f.converter is None for cls in classes for f in attrs.fields(cls))


def test_a_bug_in_a_reader_is_raised_not_counted(monkeypatch):
    def broken(rest):
        raise TypeError("our bug")

    monkeypatch.setattr(lines, "_chat_text", broken)
    for line in ('L 11/30/2026 - 20:00:00: "A<2><BOT><CT>" say "hi"', 'L 11/30/2026 - 20:00:00: "A"B<2><BOT><CT>" say "hi"'):
        with pytest.raises(TypeError, match="our bug"):
            LogParser().parse(line)


# Lines that look like what srcds, SourceMod and the shim write, with hostile pieces where a
# name, a text or a number goes: every shape MASTER proves, and the ones it must refuse.
_NAME = st.text(st.sampled_from([*'aZ <>"[]0-9 ;_', "Ж", "\u00a0", "\x1c", "\n", "\x00", "(", ")"]), max_size=10)
_UID = st.sampled_from(["5", "-1", "0", "1234567890", "12345678901", "١٢", "", "x"])
_STEAMID = st.sampled_from(["STEAM_1:0:1", "BOT", "[U:1:2]", "", "a>b", "<", "2"])
_TEAM = st.sampled_from(["CT", "TERRORIST", "", "Unassigned", "Spectator", "<", None])
_WORD = st.lists(st.sampled_from([*'ab "()<>[]', "\u00a0", " with ", '" (dead)', "\x00", "jb_"]), max_size=6).map("".join)
_NUMBER = st.sampled_from(["0", "27", "-5", "²", "١٢", "9" * 5000, "", "x"])
_POS = st.sampled_from(["", "[1 2 3] ", "[-1 -2 -3] ", "[a b c] ", "[1 2] ", "[١ 2 3] "])


@st.composite
def identities(draw) -> str:
    team = draw(_TEAM)
    return f"{draw(_NAME)}<{draw(_UID)}><{draw(_STEAMID)}>" + ("" if team is None else f"<{team}>")


@st.composite
def player_lines(draw) -> str:
    who, other, word, n = draw(identities()), draw(identities()), draw(_WORD), draw(_NUMBER)
    pos, vpos = draw(_POS), draw(st.sampled_from(["", " [1 2 3]", ' [x" y]', " [a]"]))
    tail = draw(
        st.sampled_from(
            [
                f'purchased "{word}"',
                f"picked up item {word}",
                "money change 800+300 = $1100 (tracked)",
                f'triggered "{word}"',
                f'triggered "headshot"{word}',
                f'triggered "jb_order" (text "{word}") (seq "{n}")',
                f'triggered "jb_warden" (seq "{n}")',
                f'triggered "jb_prohibit_lift" (index "{n}") (seq "4")',
                f'triggered "jb_freeday" (scope "all"){word} (seq "1")',
                f'{pos}attacked "{other}"{vpos} with "{word}" (damage "{n}") (damage_armor "0") (health "73") (armor "94") (hitgroup "chest")',
                f'{pos}attacked "{other}"{vpos} with "ak47" (damage "27") (damage_armor "0") (health "{n}"){word}',
                f'{pos}killed "{other}"{vpos} with "{word}"',
                f'{pos}killed "{other}"{vpos} with "ak47"{word}',
                f'{pos}say "{word}"',
                f"{pos}say_team {word}",
                f'say "{word}" (dead)',
                f'joined team "{word}"',
                f"switched from team <{word}> to <CT>",
                f"entered the game{word}",
                f'connected, address "{word}"',
                f'disconnected (reason "{word}")',
                "STEAM USERID validated",
                f'{pos}committed suicide with "{word}"',
                f'changed name to "{word}"',
                f'changed role to "{word}"',
                f"{pos}was killed by the bomb.",
                f"threw {word} [1 2 3]",
                f'spawned as "{word}"',
                word,
            ]
        )
    )
    return f'"{who}" {tail}'


_BODIES = st.sampled_from(
    [
        *(f'World triggered "{name}"' for name in ("Round_Start", "Round_End", "Game_Commencing", "Warmup_End", "jb_hello", "killlocation")),
        'World triggered "Restart_Round_(3_seconds)"',
        'World triggered "Restart_Round_(99999999999_seconds)"',
        'World triggered "jb_hello" (version "1.0") (seq "2")',
        "World triggered x",
        'Team "CT" scored "0" with "5" players',
        'rcon from "1.2.3.4:5": command "status"',
        "rcon from junk",
        'Loading map "de_x"',
        'Started map "de_x" (CRC "1")',
        '"sv_cheats" = "0"',
        '"sv<x>" = "0"',
        *(prefix for prefix, _, _ in lines._BODIES),
        "",
        "nothing we know",
    ]
)
_STAMPS = st.sampled_from(
    [
        "L 11/30/2026 - 20:00:00: ",
        "11/30/2026 - 20:00:01: ",
        "\x00L 12/31/2026 - 23:59:60: ",
        "L 11/30/2026 - 20:00:00.123: ",
        "L 11/30/2026 - 20:00:00 - ",
        "L 13/30/2026 - 20:00:00: ",
        "L 11/30/2026 - 24:00:00: ",
        "L ١١/30/2026 - 20:00:00: ",
        "\ufeffL 11/30/2026 - 20:00:00: ",
        "L 11/30/2026 - 20:00:00:",
    ]
)


@st.composite
def log_records(draw) -> str:
    body = draw(st.one_of(player_lines(), _BODIES, st.text(max_size=30)))
    return draw(_STAMPS) + body + draw(st.sampled_from(["", "\x00", "\r\n", "\n\x00", "\ufeff", " "]))


@settings(max_examples=1500, deadline=None)
@given(st.lists(log_records(), min_size=1, max_size=4), st.sets(st.sampled_from(sorted(ALL_KINDS))), st.booleans())
@example(['L 11/30/2026 - 20:00:00: "<5><STEAM_1:0:1><CT>" changed name to ""\ufeff'], set(), True)  # not `changed role`
def test_generated_lines_read_as_before(recs, needed, as_bytes):
    recs = [rec.encode("utf-8", "surrogatepass") if as_bytes else rec for rec in recs]
    agree(recs)
    agree(recs, needed)


@settings(max_examples=500, deadline=None)
@given(st.sampled_from([b"", b'"A<2><STEAM_1:0:2><CT>" ', b'"A<2><BOT><CT>" [1 2 3] killed "']), st.binary(max_size=80))
def test_undecodable_bytes_read_as_before(head, data):
    # Latin-1 bytes in UTF-8 text: MASTER cuts the bytes where the decoded text is cut.
    agree([b"L 11/30/2026 - 20:00:00: " + head + data, b"L 11/30/2026 - 20:00:00: " + head + data + b'" with "ak47"'])


# --- properties -----------------------------------------------------------------------------

GOOD = [
    'L 11/30/2026 - 20:00:00: "W<2><STEAM_1:0:42><>" triggered "jb_order" (text "сесть") (seq "4")',
    'L 11/12/2018 - 19:57:43: "Dean<11><BOT><CT>" [-206 316 1613] killed "Scott<5><BOT><TERRORIST>" [939 214 1678] with "hkp2000"',
    'L 11/30/2026 - 20:00:00: "Вася<5><STEAM_0:1:123><Unassigned>" joined team "CT"',
]


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_never_raise(data):
    parser = LogParser()
    parser.parse(data)
    assert parser.stats.lines <= 1
    # The same bytes said in chat come back whole: reading them is not allowed to fail.
    chat = parser.parse(b'L 11/30/2026 - 20:00:00: "A<2><STEAM_1:0:2><CT>" say "' + data + b'"')
    assert isinstance(chat, ev.Chat) and chat.text == decode(data) and chat.player.userid == 2
    assert parser.stats.malformed + parser.stats.unknown <= 1


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(GOOD), st.integers(min_value=0, max_value=200), st.text(max_size=40))
def test_truncated_and_spliced_lines_never_raise(line, cut, junk):
    parser = LogParser()
    parser.parse(line[:cut] + junk)
    parser.parse(junk + line[cut:])
    chat = parser.parse(f'L 11/30/2026 - 20:00:00: "Зек<9><STEAM_1:0:9><TERRORIST>" say_team "{junk}"')
    assert isinstance(chat, ev.Chat) and chat.text == junk and chat.team_only
    s = parser.stats
    assert sum(s.events.values()) + s.unknown + s.malformed == s.lines
    assert s.events["chat"] >= 1


@pytest.mark.parametrize("stamp", ["02/31/2026 - 20:00:00", "04/31/2026 - 20:00:00", "02/29/2026 - 20:00:00", "11/30/2026 - 20:00:60"])
def test_a_time_the_calendar_lacks_is_a_malformed_line_and_the_engine_carries_on(stamp):
    """A date the calendar does not have made the engine fail on every later line of the
    round; such a line is counted malformed, and the lines after it are read and judged."""
    from jailcore.config.config import load
    from jailcore.engine.engine import Engine

    parser, engine = LogParser(), Engine(load('[server]\nrulebook = "all"\n', "<t>", {}))
    good = ['L 11/30/2026 - 20:00:00: World triggered "Round_Start"',
            f'L {stamp}: "A<2><STEAM_1:0:1><TERRORIST>" say "x"',
            'L 11/30/2026 - 20:00:05: "A<2><STEAM_1:0:1><TERRORIST>" say "заходи на www.example.ru"']
    actions = [a for line in good if (e := parser.parse(line)) is not None for a in engine.handle(e)]
    assert parser.stats.malformed == 1
    assert [a.rule for a in actions if a.action not in ("hud", "say")] == ["conduct.advertising"]
