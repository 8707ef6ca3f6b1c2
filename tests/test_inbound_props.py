"""Every parser of what comes from outside, fed random and hostile values (issue 25): MQTT
payloads (signed or not), the shim's jb_status reply, RCON packets, log datagrams and shim
lines, request rows, saved states and TOML. No exception leaves any of them but the one
each documents as its refusal."""

from __future__ import annotations

import asyncio
import json
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jailcore.config.config import ConfigError, load
from jailcore.engine.engine import Engine
from jailcore.engine.punish import count_down_bans
from jailcore.engine.state import SnapshotError, State, restore
from jailcore.io.logsource import unwrap
from jailcore.io.mqtt import MqttLink
from jailcore.io.rconproto import RconProtocolError, read_packet
from jailcore.log import inbound, shapes
from jailcore.log.parse import LogParser

PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KEY = "a-network-key-of-32-characters!!"
CONFIG = load('[server]\nname = "p"\nrulebook = "all"\n', "<props>", {})

hostile_text = st.one_of(
    st.text(max_size=60),
    st.sampled_from(["", "STEAM_1:0:1", "STEAM_0:1:99999999999", "[U:1:5]", "BOT", "#5", "2026-11-30T21:04:05", "9999-99-99T99:99:99",
                     "\ud800", "\x00", "'; DROP TABLE audit; --", "=HYPERLINK(1)", "true", "null", "1e309", "x" * 5000]),
)
scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
                    st.floats(allow_nan=True, allow_infinity=True), hostile_text)
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(hostile_text, inner, max_size=5),
                           max_leaves=20)

BAN_KEYS = ["id", "origin", "steamid", "name", "until", "rounds", "ref", "reason", "by", "lift", "sig", "since", "fresh", "rule"]
STATE_KEYS = ["server", "daemon", "round", "day", "week", "map", "freeday", "time", "online", "warden", "orders", "prohibitions", "game",
              "specialday", "cooldown_rounds", "ctbans", "link"]
ACTION_KEYS = ["server", "id", "status", "time", "round", "action", "target", "rule", "ref", "reason", "minutes", "rounds", "pardon", "step"]
STATUS_KEYS = ["round", "map", "warden", "players"]
PLAYER_KEYS = ["userid", "steamid", "name", "team", "alive", "gagged"]
ROW_KEYS = ["id", "steamid", "name", "minutes", "rounds", "reason", "by", "lift", "detail"]


def shaped(keys: list[str], inner=json_values):
    """Objects with the schema's own keys and any values: where a parser is most likely to trip."""
    return st.dictionaries(st.sampled_from(keys), inner, max_size=len(keys))


players = st.lists(shaped(PLAYER_KEYS), max_size=4)
status_objects = st.one_of(shaped(STATUS_KEYS), st.fixed_dictionaries({"players": players}, optional={"warden": json_values}))
payloads = st.one_of(
    st.binary(max_size=300),
    json_values.map(json.dumps),
    shaped(BAN_KEYS).map(json.dumps),
    shaped(BAN_KEYS).map(lambda d: json.dumps(inbound.seal(d, KEY.encode(), str(d.get("origin", "x"))[:50], int(time.time() * 1000)))),
    st.integers(0, 3000).map(lambda n: "[" * n + "]" * n),
)


def refused() -> inbound.Refusals:
    return inbound.Refusals("props", say=lambda _: None)


@PROPS
@given(payload=payloads, keyed=st.booleans())
def test_the_mqtt_link_takes_any_payload_without_raising(payload, keyed):
    got: list = []
    link = MqttLink("mqtt://127.0.0.1:1", "here", got.append, key=KEY if keyed else "")
    link.take(payload)
    link.take(payload)  # a second delivery of the same (QoS 1)
    for ban in got:
        assert isinstance(ban, inbound.NetworkBan | inbound.NetworkLift)
        assert inbound.STEAMID.fullmatch(ban.steamid)


@PROPS
@given(message=st.one_of(json_values, shaped(BAN_KEYS)))
def test_a_network_ban_into_the_engine_never_raises_and_never_stores_a_misfit(message):
    engine = Engine(CONFIG)
    engine.import_ctban(message if isinstance(message, dict) else {"steamid": message})
    for ban in engine.state.ctbans.values():
        assert ban.rounds is None or type(ban.rounds) is int
        assert ban.until is None or inbound.is_time(ban.until)
    count_down_bans(engine.ctx)  # at every Round_End: a numeric `until` made it raise


@PROPS
@given(data=st.one_of(json_values, shaped(STATE_KEYS)), key=st.sampled_from([b"", KEY.encode()]))
def test_a_retained_state_is_typed_or_refused_and_status_shows_what_is_typed(data, key):
    from jailcore.cli.status import block, standing

    state = inbound.read_message(json.dumps(data), shapes.state_message, refused(), "jailcore/x/state", key, int(time.time() * 1000))
    if state is not None:
        block(standing("x", state, None, state.get("link"), "mqtt"), colour=False)


@PROPS
@given(data=st.one_of(json_values, shaped(ACTION_KEYS)))
def test_an_action_message_is_typed_or_refused(data):
    from argparse import Namespace

    from jailcore.cli.tail import Network

    shapes.action_message(data, refused())
    network = Network(Namespace(server=None, player=None, rule=None, action=None, since=None, json=True))
    network.row("jailcore/x/actions", json.dumps(data).encode())


@PROPS
@given(reply=st.one_of(st.text(max_size=200), status_objects.map(json.dumps), json_values.map(json.dumps)))
def test_a_jb_status_reply_is_typed_or_refused_and_reconciles_without_raising(reply):
    status = shapes.status_reply(reply, refused())
    engine = Engine(CONFIG)
    engine.apply_status(status if status is not None else {"players": reply})
    try:
        engine.apply_status(json.loads(reply))
    except ValueError:
        pass


@PROPS
@given(row=shaped(ROW_KEYS))
def test_request_rows_are_typed_or_refused(row):
    shapes.ctban_row(row, refused())
    shapes.detail_row(row.get("detail"), refused(), "pardon 1")


@PROPS
@given(snapshot=st.one_of(shaped(["round", "ctbans", "players", "orders", "version", "rules"]),
                          st.fixed_dictionaries({"ctbans": st.dictionaries(hostile_text, shaped(BAN_KEYS), max_size=3)})))
def test_a_saved_state_restores_or_is_refused_as_not_ours(snapshot):
    try:
        state = restore(snapshot, {})
    except SnapshotError:
        return
    assert isinstance(state, State)


@PROPS
@given(datagram=st.one_of(st.binary(max_size=300), st.binary(max_size=200).map(lambda b: b"\xff\xff\xff\xffS42" + b),
                          hostile_text.map(lambda t: b"\xff\xff\xff\xffRL 11/30/2026 - 21:04:05: " + t.encode("utf-8", "replace"))))
def test_log_datagrams_and_shim_lines_never_raise(datagram):
    record = unwrap(datagram, "42")
    parser = LogParser()
    parser.parse(datagram)
    if isinstance(record, bytes):
        parser.parse(record)


@PROPS
@given(text=st.one_of(hostile_text, st.from_regex(r'L 11/30/2026 - 21:0[0-9]:0[0-9]: "[^"]{0,20}<\d{1,3}><STEAM_1:0:\d><>" triggered "jb_[a-z_]{1,20}"'
                                                    r'( \([a-z]{1,6} "[^"]{0,20}"\)){0,3}', fullmatch=True)))
def test_shim_lines_never_raise(text):
    LogParser().parse(text.encode("utf-8", "replace"))


@PROPS
@given(data=st.binary(max_size=200))
def test_rcon_packets_are_read_or_refused(data):
    async def read() -> None:
        reader = asyncio.StreamReader()
        reader.feed_data(data)
        reader.feed_eof()
        try:
            while True:
                await read_packet(reader)
        except (asyncio.IncompleteReadError, RconProtocolError):
            pass

    asyncio.run(read())


toml_texts = st.one_of(
    st.text(max_size=200),
    st.integers(0, 2000).map(lambda n: "x = " + "[" * n + "]" * n),
    st.integers(0, 2000).map(lambda n: "x = " + "{a = " * n + "1" + "}" * n),
    st.lists(st.sampled_from(["[server]", 'name = "p"', "[orders]", "ref = 5", 'ladder = ["warn", 3]', "[rcon]", "port = 99999",
                              "[[games.catalogue]]", 'name = ""', "[web.users]", 'x = "y"', "[network]", 'key = "short"', "max_age = -1",
                              "[log]", 'secret = "abc"', "[mqtt]", 'url = "ftp://x"', "enabled = 3"]), max_size=12).map("\n".join),
)


@PROPS
@given(text=toml_texts)
def test_toml_is_loaded_or_refused_with_lines(text):
    try:
        load(text, "props.toml", {})
    except ConfigError as exc:
        assert exc.problems and all(p.startswith(("props.toml:", "environment:")) for p in exc.problems), exc.problems
