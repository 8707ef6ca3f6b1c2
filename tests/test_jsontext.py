"""The fast JSON of saved states and network messages reads back as the standard library's
would, and what orjson refuses is still written (never a failed save): an integer past 64 bits,
and a lone surrogate (`\\ud83d`, valid JSON), as U+FFFD; a network message holding one is refused
where it comes in (`log.inbound.json_of`), so that the session runs on and the state is saved and published."""

from __future__ import annotations

import json
import sqlite3

import aiomqtt

from jailcore.log import jsontext
from jailcore.sim.simserver import SimServer
from tests.test_live import populate, until
from tests.test_mqtt import broker, daemon_on, needs_broker, watching  # noqa: F401  (broker: the fixture)


def test_the_text_reads_back_as_json_writes_it_with_int_keys_and_unicode():
    value = {"map": "jb_summer", 7: {"name": "Начальник ★", "alive": True, "rounds": [1, 2]}, "seats": (1, 2), "none": None}
    text = jsontext.dumps(value)
    assert json.loads(text) == json.loads(json.dumps(value, ensure_ascii=False))
    assert "Начальник ★" in text  # UTF-8, not \\u escapes: the web page and the database read it as written


def test_an_integer_past_64_bits_is_written_not_refused():
    value = {"rounds": 2 ** 70, "ok": 1}
    assert json.loads(jsontext.dumps(value)) == value


# A name cut inside an emoji's surrogate pair, as a careless client escapes it, and a reason alike.
BAN = ('{"id": "x:1", "origin": "x", "steamid": "STEAM_1:0:424242", "name": "\\ud83d cut emoji", '
       '"until": null, "rounds": 3, "ref": "", "reason": "r\\udc00", "by": "admin"}')


def test_a_lone_surrogate_is_written_as_u_fffd_and_deep_nesting_is_written():
    text = jsontext.dumps({"name": "\ud83d cut", 7: [1]})
    text.encode("utf-8")  # what SQLite and the broker take: no surrogate left in it
    assert json.loads(text) == {"name": "\ufffd cut", "7": [1]}
    deep: list = []
    for _ in range(300):  # past orjson's nesting limit
        deep = [deep]
    assert json.loads(jsontext.dumps(deep)) == deep
    assert jsontext.dumps({"a": [1, 2], "b": "ж"}) == '{"a":[1,2],"b":"ж"}'  # the common case: orjson's text


@needs_broker
async def test_a_network_ct_ban_with_a_lone_surrogate_is_refused_and_counted_and_the_daemon_runs_on(tmp_path, broker):  # noqa: F811
    sim = SimServer(password="pw")
    good = BAN.replace("x:1", "x:2").replace("424242", "424243").replace("\\ud83d cut emoji", "Вася").replace("r\\udc00", "r")
    async with watching(broker.port, "jailcore/a/state", "state-watcher") as states:
        async with daemon_on(tmp_path, broker, "a", sim) as daemon:
            populate(sim)
            sim.flush()
            await until(lambda: daemon.engine.state.round == 2)
            async with aiomqtt.Client("127.0.0.1", broker.port, identifier="peer") as peer:
                await peer.publish("jailcore/network/ctbans", BAN, qos=1)
                await peer.publish("jailcore/network/ctbans", good, qos=1)
            await until(lambda: "STEAM_1:0:424243" in daemon.engine.state.ctbans, timeout=10)  # the good one after it
            assert "STEAM_1:0:424242" not in daemon.engine.state.ctbans  # no text: refused where it came in
            await until(lambda: "lone surrogate" in daemon.session.drops, timeout=5)  # and counted where status shows it
            await until(lambda: "STEAM_1:0:424243" in json.dumps((daemon.store.load_state("a") or {}).get("ctbans")), timeout=10)
            await until(lambda: any("STEAM_1:0:424243" in json.dumps(m.get("ctbans")) for m in states), timeout=10)
            assert daemon.stop_reason is None
            assert not daemon.task_failures, daemon.task_failures
        assert daemon.exit_code == 0  # and it stopped cleanly, its last save written
    with sqlite3.connect(tmp_path / "a.sqlite3") as db:
        (snapshot,) = db.execute("SELECT snapshot FROM state WHERE server = 'a'").fetchone()
    assert "STEAM_1:0:424242" not in json.loads(snapshot)["ctbans"]
