"""The network's messages from outside: signed, typed, and refused (counted, never stored)
when they do not fit. A real mosquitto, real daemons, publishers that are not jailcore."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from contextlib import asynccontextmanager

import aiomqtt

from jailcore.config.config import load
from jailcore.engine.engine import Engine
from jailcore.engine.state import dump
from jailcore.io.mqtt import CTBANS
from jailcore.log.inbound import seal
from jailcore.sim.simserver import SimServer
from jailcore.store.sqlite import Store
from tests.test_live import ROOT, config_text, running, until
from tests.test_mqtt import broker, needs_broker  # noqa: F401 - the fixture

KEY = "k3y-of-the-network-0123456789abcdef"


@asynccontextmanager
async def daemon_at(tmp_path, port: int, name: str, sim: SimServer, key: str = "", wait: bool = True):
    sim_port = sim.port or await sim.start()
    rest = f'[mqtt]\nurl = "mqtt://127.0.0.1:{port}"\n' + (f'[network]\nkey = "{key}"\n' if key else "")
    text = config_text(sim_port, tmp_path / f"{name}.sqlite3", rest=rest).replace('name = "t"', f'name = "{name}"')
    async with running(load(text, "<test>", {}), sim, stop_sim=False) as daemon:
        daemon.mqtt.backoff_min, daemon.mqtt.backoff_max = 0.1, 0.5
        if wait:
            await asyncio.wait_for(daemon.mqtt.connected.wait(), 60)
        yield daemon


async def publish(port: int, topic: str, payloads: list, retain: bool = False) -> None:
    async with aiomqtt.Client("127.0.0.1", port, identifier="outsider") as client:
        for p in payloads:
            await client.publish(topic, p if isinstance(p, str | bytes) else json.dumps(p), qos=1, retain=retain)


def ban(steamid: str, id_: str, **more) -> dict:
    return {"id": id_, "origin": "x", "steamid": steamid, "name": "N", "until": None, "rounds": 3, "ref": "1", "reason": "r", **more}


def now_ms() -> int:
    return int(time.time() * 1000)


@needs_broker
async def test_only_bans_signed_with_the_network_key_and_fresh_are_taken(tmp_path, broker):  # noqa: F811
    sim = SimServer(password="pw")
    async with daemon_at(tmp_path, broker.port, "b", sim, key=KEY) as b:
        good, other = KEY.encode(), b"another-key-of-someone-else-000"
        await publish(broker.port, CTBANS, [
            ban("STEAM_1:0:1", "u"),                                                     # unsigned
            seal(ban("STEAM_1:0:2", "w"), other, "x", now_ms()),                         # another key
            {**seal(ban("STEAM_1:0:3", "c"), good, "x", now_ms()), "rounds": 99},        # changed after signing
            seal(ban("STEAM_1:0:4", "s"), good, "x", now_ms() - 2 * 86_400_000),         # stale
            seal(ban("STEAM_1:0:5", "f"), good, "x", now_ms() + 3_600_000),              # from the future
            seal(ban("STEAM_1:0:6", "o", origin="y"), good, "x", now_ms()),              # signed by x, says y
            seal(ban("STEAM_1:0:7", "ok"), good, "x", now_ms()),                         # the network's
            seal(ban("STEAM_1:0:8", "old"), good, "x", now_ms() - 600_000),              # older than x's newest: a replay
        ])
        await until(lambda: "STEAM_1:0:7" in b.engine.state.ctbans and b.mqtt.refused.total >= 7, timeout=10)
        assert sorted(b.engine.state.ctbans) == ["STEAM_1:0:7"]
        causes = " | ".join(b.mqtt.refused.counts)
        for word in ("unsigned", "bad signature", "stale", "future", "origin is not its signer", "replayed"):
            assert word in causes, causes
        assert b.mqtt.refused.counts["bad signature"] == 2
        # What an operator sees: the counts beside the dropped datagrams (jailcore status, the link row).
        await until(lambda: "mqtt unsigned 1" in b.session.drops, timeout=10)
    await sim.stop()


@needs_broker
async def test_a_daemon_with_a_key_signs_what_it_sends_and_its_peer_takes_it(tmp_path, broker):  # noqa: F811
    """Two keyed daemons: a ban given on A reaches B signed (the signature checked there)."""
    sim_a, sim_b = SimServer(password="pw"), SimServer(password="pw")
    async with daemon_at(tmp_path, broker.port, "a", sim_a, key=KEY) as a, daemon_at(tmp_path, broker.port, "b", sim_b, key=KEY) as b:
        got: list = []
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="reader") as reader:
            await reader.subscribe(CTBANS, qos=1)
            a.share_ctban(ban("STEAM_1:1:42", "a:1", origin="a"))

            async def first():
                async for m in reader.messages:
                    got.append(json.loads(m.payload))
                    return
            await asyncio.wait_for(first(), 10)
        await until(lambda: "STEAM_1:1:42" in b.engine.state.ctbans, timeout=10)
        assert got[0]["sig"]["by"] == "a" and len(got[0]["sig"]["mac"]) == 64
        assert b.mqtt.refused.total == 0
    await sim_a.stop()
    await sim_b.stop()


@needs_broker
async def test_hostile_ban_messages_are_refused_never_stored_and_the_next_start_is_clean(tmp_path, broker):  # noqa: F811
    """A keyless network (it trusts its broker): still, a ban that does not fit is refused.
    `rounds` a string used to be stored and stop every daemon at its next start; a numeric
    `until` made every Round_End raise; a retained `[]` killed the link."""
    sim = SimServer(password="pw")
    async with daemon_at(tmp_path, broker.port, "b", sim) as b:
        await publish(broker.port, CTBANS, [[]], retain=True)
        await publish(broker.port, CTBANS, [
            ban("STEAM_1:0:1", "r", rounds="5"), ban("STEAM_1:0:2", "u", until=5), "not json", b"\xff\xfe",
            ban("STEAM_1:0:3", "l", lift="yes"), ban("BOT", "bot"), ban("STEAM_1:0:4", "n", rounds=-3),
            "[" * 5000 + "]" * 5000, ban("STEAM_1:0:9", "fine"),
        ])
        await until(lambda: "STEAM_1:0:9" in b.engine.state.ctbans, timeout=10)
        assert sorted(b.engine.state.ctbans) == ["STEAM_1:0:9"]
        assert b.mqtt.refused.total >= 8 and b.mqtt.connected.is_set()
        # A Round_End counts the good ban down: the round-end rules still run.
        before = b.engine.state.ctbans["STEAM_1:0:9"].rounds
        for _ in range(2):
            sim.round_start()
            sim.round_end()
        sim.flush()
        await until(lambda: b.engine.state.ctbans.get("STEAM_1:0:9") is None or b.engine.state.ctbans["STEAM_1:0:9"].rounds < before)
        b.save()
    # The next start reads what was saved.
    async with daemon_at(tmp_path, broker.port, "b", sim) as again:
        assert set(again.engine.state.ctbans) <= {"STEAM_1:0:9"}
    await sim.stop()


def test_a_bad_ban_already_saved_is_refused_alone_and_the_rest_kept(tmp_path):
    """A state written by a version that stored network bans as they came: `status` and the
    daemon read it, the bad bans left out and said, the good one and the rest kept."""
    config = load('[server]\nname = "s"\nrulebook = "all"\n', "<t>", {})
    engine = Engine(config)
    engine.import_ctban(ban("STEAM_1:0:9", "fine"))
    engine.state.round = 17
    snapshot = dump(engine.state)
    good = snapshot["ctbans"]["STEAM_1:0:9"]
    snapshot["ctbans"]["STEAM_1:0:1"] = {**good, "steamid": "STEAM_1:0:1", "rounds": "five"}
    snapshot["ctbans"]["STEAM_1:0:2"] = {**good, "steamid": "STEAM_1:0:2", "rounds": None, "until": 5}
    snapshot["ctbans"]["STEAM_1:0:3"] = 7
    db = tmp_path / "state.sqlite3"
    store = Store(str(db))
    store.save_state("s", snapshot, "2026-12-01T09:00:00")
    store.commit()
    store.close()
    restored = Engine(config, Store(str(db)).load_state("s"))
    assert sorted(restored.state.ctbans) == ["STEAM_1:0:9"] and restored.state.round == 17
    out = subprocess.run([sys.executable, "-m", "jailcore", "status", "--state-db", str(db), "--json"],
                         capture_output=True, text=True, timeout=60, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    shown = json.loads(out.stdout.splitlines()[0])
    assert [b["steamid"] for b in shown["ctbans"]] == ["STEAM_1:0:9"] and shown["round"] == 17
    assert "refused" in out.stderr and "rounds" in out.stderr


def test_the_engine_refuses_a_numeric_until_and_keeps_counting_down():
    config = load('[server]\nname = "s"\nrulebook = "all"\n', "<t>", {})
    engine = Engine(config)
    assert engine.import_ctban({"steamid": "STEAM_1:0:2", "until": 5}) == []
    assert engine.import_ctban({"steamid": "STEAM_1:0:3", "rounds": "5"}) == []
    assert engine.apply_status({"players": "all of them"}) == []
    assert engine.state.ctbans == {} and engine.refused.total == 2


@needs_broker
async def test_status_over_mqtt_shows_the_good_servers_beside_a_bad_retained_state(tmp_path, broker):  # noqa: F811
    await publish(broker.port, "jailcore/bad/state", [{"server": "bad", "orders": 5}], retain=True)
    await publish(broker.port, "jailcore/junk/state", ["[]"], retain=True)
    await publish(broker.port, "jailcore/good/state", [{"server": "good", "round": 4, "orders": [{"text": "стоять"}], "link": None}],
                  retain=True)
    out = subprocess.run([sys.executable, "-m", "jailcore", "status", "--mqtt", f"mqtt://127.0.0.1:{broker.port}"],
                         capture_output=True, text=True, timeout=60, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    assert "good" in out.stdout and "стоять" in out.stdout and "bad" not in out.stdout
    assert "2 retained message(s) that were not a state's JSON were skipped" in out.stderr and "orders" in out.stderr
    # With the network's key, a state that is not signed with it is not shown either.
    out = subprocess.run([sys.executable, "-m", "jailcore", "status", "--mqtt", f"mqtt://127.0.0.1:{broker.port}"],
                         capture_output=True, text=True, timeout=60, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT), "JAILCORE_NETWORK_KEY": KEY})
    assert out.returncode == 1 and "unsigned" in out.stderr


@needs_broker
async def test_a_daemon_started_while_the_broker_is_away_delivers_what_it_decided_in_order(tmp_path, broker):  # noqa: F811
    """Issue 28: the broker absent at start. The daemon enforces meanwhile; when the broker
    comes, every action decided before the first connection reaches it, oldest first."""
    from tests.test_live import populate, sent
    from tests.test_mqtt import watching

    async with watching(broker.port, "jailcore/late/actions", "late-watcher") as got:
        await asyncio.sleep(1.5)  # the broker saves the watcher's session
        broker.stop()
        sim = SimServer(password="pw")
        async with daemon_at(tmp_path, broker.port, "late", sim, wait=False) as daemon:
            warden, _ = populate(sim)
            sim.flush()
            await until(lambda: daemon.engine.state.warden == warden.userid, timeout=10)
            for i in range(5):
                sim.say(warden, f"!prohibit p{i}")  # three refused: a warn and a cancel each
            sim.flush()
            await until(lambda: len(sent(sim, "jb_cancel_prohibition")) == 3, timeout=10)
            assert not daemon.mqtt.connected.is_set() and daemon.mqtt.waiting >= 6
            await broker.start()
            await until(lambda: len([m for m in got if m.get("rule") == "prohibitions.max"]) == 12, timeout=30)
        await sim.stop()
    pending = [m["id"] for m in got if m.get("rule") == "prohibitions.max" and m["status"] == "pending"]
    assert len(pending) == 6 and pending == sorted(pending)


@needs_broker
async def test_jailcore_run_started_while_the_broker_is_away_delivers_in_order(tmp_path, broker):  # noqa: F811
    """The same from outside: `jailcore run` (uvloop, its own process) with the broker down."""
    import socket

    from tests.test_live import populate, sent
    from tests.test_mqtt import watching

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        udp = s.getsockname()[1]
    sim = SimServer(password="pw")
    port = await sim.start()
    text = config_text(port, tmp_path / "late.sqlite3", rest=f'[mqtt]\nurl = "mqtt://127.0.0.1:{broker.port}"\n')
    path = tmp_path / "late.toml"
    path.write_text(text.replace('name = "t"', 'name = "late"').replace("127.0.0.1:0", f"127.0.0.1:{udp}"), encoding="utf-8")
    async with watching(broker.port, "jailcore/late/actions", "late-run-watcher") as got:
        await asyncio.sleep(1.5)
        broker.stop()
        proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "jailcore", "run", "--config", str(path), cwd=ROOT,
                                                    env={**os.environ, "PYTHONPATH": str(ROOT)},
                                                    stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        try:
            await sim.log_to_daemon(("127.0.0.1", udp))
            await until(lambda: bool(sim.received), timeout=20)
            warden, _ = populate(sim)
            sim.flush()
            await asyncio.sleep(1.0)
            for i in range(5):
                sim.say(warden, f"!prohibit p{i}")
            sim.flush()
            await until(lambda: len(sent(sim, "jb_cancel_prohibition")) == 3, timeout=20)
            await asyncio.sleep(3.0)  # the daemon backs off while the broker stays away
            await broker.start()
            await until(lambda: len([m for m in got if m.get("rule") == "prohibitions.max"]) >= 12, timeout=60)
        finally:
            proc.terminate()
            await proc.wait()
            await sim.stop()
    pending = [m["id"] for m in got if m.get("rule") == "prohibitions.max" and m["status"] == "pending"]
    assert len(pending) == 6 and pending == sorted(pending)


def _blocks(kind: str) -> list[str]:
    text = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    return [part.split("```", 1)[0] for part in text.split(f"```{kind}\n")[1:]]


@needs_broker
async def test_the_documented_mosquitto_config_holds_passwords_acl_and_tls(tmp_path):
    """docs/security.md's three blocks, pasted (with a test's paths and port): TLS, no anonymous
    client, each daemon writes only its topics, the viewer only reads."""
    import shutil
    import ssl

    from tests.test_mqtt import MOSQUITTO, free_port

    if shutil.which("mosquitto_passwd") is None or shutil.which("openssl") is None:
        import pytest

        pytest.skip("mosquitto_passwd and openssl are needed")
    port = free_port()
    (conf,), (acl,), (commands,) = _blocks("conf"), _blocks("acl"), _blocks("sh")
    paths = {"/etc/mosquitto/certs/": f"{tmp_path}/", "/etc/mosquitto/": f"{tmp_path}/", "/var/lib/mosquitto/": f"{tmp_path}/",
             "listener 8883": f"listener {port} 127.0.0.1", "DNS:broker.lan": "IP:127.0.0.1"}
    for old, new in paths.items():
        conf, commands = conf.replace(old, new), commands.replace(old, new)
    (tmp_path / "jailcore.acl").write_text(acl, encoding="utf-8")
    if os.geteuid() == 0:  # a test's files are root's: a broker started as root must not drop to the mosquitto user
        conf += "user root\n"
    (tmp_path / "mosquitto.conf").write_text(conf, encoding="utf-8")
    for line in commands.replace("\\\n", " ").splitlines():
        if line.startswith("mosquitto_passwd"):
            user = line.split()[-1]
            args = ["mosquitto_passwd", "-b", *(["-c"] if " -c " in line else []), f"{tmp_path}/passwd", user, f"pw-{user}"]
            subprocess.run(args, check=True, capture_output=True, timeout=30)
        elif line.startswith("openssl"):
            subprocess.run(line, shell=True, check=True, capture_output=True, timeout=60)
    process = subprocess.Popen([MOSQUITTO, "-c", str(tmp_path / "mosquitto.conf")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        tls = ssl.create_default_context(cafile=str(tmp_path / "broker.crt"))

        def client(user: str | None, ident: str) -> aiomqtt.Client:
            return aiomqtt.Client("127.0.0.1", port, username=user, password=f"pw-{user}" if user else None, tls_context=tls,
                                  identifier=ident, timeout=5)

        up_by = asyncio.get_running_loop().time() + 60  # it answers as soon as it is up; a loaded box may take a while
        while True:
            try:
                async with client("viewer", "probe"):
                    break
            except aiomqtt.MqttError:
                assert asyncio.get_running_loop().time() < up_by, "the broker did not answer within 60 s"
                await asyncio.sleep(0.1)
        got: list = []
        async with client("jail-a", "jailcore-jail-a") as a:
            await a.subscribe(CTBANS, qos=1)
            async with client("viewer", "v") as viewer:  # the viewer may read, never write a ban
                await viewer.publish(CTBANS, json.dumps(ban("STEAM_1:0:1", "v")), qos=1)
            async with client("jail-b", "jailcore-jail-b") as b:
                await b.publish(CTBANS, json.dumps(ban("STEAM_1:0:2", "b")), qos=1)

            async def read() -> None:  # up to b's: the viewer's, published before it, would have come first
                async for m in a.messages:
                    got.append(json.loads(m.payload))
                    if got[-1]["id"] == "b":
                        return
            await asyncio.wait_for(read(), 60)
        assert [m["id"] for m in got] == ["b"]
        try:
            async with client(None, "anonymous"):
                raise AssertionError("an anonymous client was let in")
        except aiomqtt.MqttError:
            pass
        try:
            async with aiomqtt.Client("127.0.0.1", port, username="viewer", password="pw-viewer", identifier="plain", timeout=3):
                raise AssertionError("a client without TLS was let in")
        except aiomqtt.MqttError:
            pass
    finally:
        process.terminate()
        process.wait(10)
