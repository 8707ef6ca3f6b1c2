"""MQTT with a real mosquitto broker started by the test."""

from __future__ import annotations

import asyncio
import getpass
import json
import shutil
import socket
import subprocess
from contextlib import asynccontextmanager
from pathlib import Path

import aiomqtt
import pytest

from jailcore.config.config import load
from jailcore.sim.simserver import SimServer
from tests.test_live import config_text, populate, running, sent, special_days, until

MOSQUITTO = shutil.which("mosquitto") or next((p for p in ("/usr/sbin/mosquitto",) if Path(p).exists()), None)
needs_broker = pytest.mark.skipif(MOSQUITTO is None, reason="mosquitto is not installed (.ci/run installs it)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    def __init__(self, tmp: Path):
        self.dir = tmp / "mosquitto"
        self.dir.mkdir(exist_ok=True)
        self.conf = self.dir / "mosquitto.conf"
        self.started = False
        self._listen_on(free_port())
        self.proc: subprocess.Popen | None = None

    def _listen_on(self, port: int) -> None:
        self.port = port
        # `user`: started as root, mosquitto drops to the `mosquitto` user, which may not write
        # pytest's private folder; its sessions were then never saved and a restart lost them.
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence true\n"
            f"persistence_location {self.dir}/\nautosave_interval 1\nuser {getpass.getuser()}\n"
            f"log_dest file {self.dir}/mosquitto.log\n",
            encoding="utf-8",
        )

    async def start(self) -> None:
        """Up once its port takes a connection (60 s at most: it ends as soon as it does). Its port was free
        when chosen; one taken by another process meanwhile ends mosquitto at once, and a first start then
        takes another (a restart keeps its port: the daemons know it)."""
        loop = asyncio.get_running_loop()
        for tries in range(1, 4):
            self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            end = loop.time() + 60
            while self.proc.poll() is None:
                try:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                        pass
                except OSError:
                    if loop.time() > end:
                        self.stop()
                        raise RuntimeError("mosquitto did not take a connection within 60 s") from None
                    await asyncio.sleep(0.05)
                    continue
                if self.proc.poll() is None:  # and it is ours that answered
                    self.started = True
                    return
            code, self.proc = self.proc.returncode, None
            if self.started or tries == 3:
                raise RuntimeError(f"mosquitto ended at start with {code} (port {self.port})")
            self._listen_on(free_port())

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(60)
            self.proc = None


@pytest.fixture
async def broker(tmp_path):
    b = Broker(tmp_path)
    await b.start()
    yield b
    b.stop()


@asynccontextmanager
async def daemon_on(tmp_path, broker: Broker, name: str, sim: SimServer):
    port = await sim.start()
    text = config_text(port, tmp_path / f"{name}.sqlite3", rest=f'[mqtt]\nurl = "mqtt://127.0.0.1:{broker.port}"\n')
    async with running(load(text.replace('name = "t"', f'name = "{name}"'), "<test>", {}), sim) as daemon:
        daemon.mqtt.backoff_min, daemon.mqtt.backoff_max = 0.1, 0.5
        await asyncio.wait_for(daemon.mqtt.connected.wait(), 60)
        yield daemon


async def collect(port: int, topic: str, into: list, ready: asyncio.Event, identifier: str = "watcher"):
    while True:
        try:
            async with aiomqtt.Client("127.0.0.1", port, identifier=identifier, clean_session=False) as client:
                await client.subscribe(topic, qos=1)
                ready.set()
                async for message in client.messages:
                    into.append(json.loads(message.payload))
        except aiomqtt.MqttError:
            await asyncio.sleep(0.1)


@asynccontextmanager
async def watching(port: int, topic: str, identifier: str = "watcher"):
    """What arrives on `topic`, collected by a subscriber that is ready before the block runs and stopped after it."""
    got: list = []
    ready = asyncio.Event()
    watcher = asyncio.create_task(collect(port, topic, got, ready, identifier=identifier))
    try:
        await ready.wait()
        yield got
    finally:
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)


@needs_broker
async def test_actions_and_state_arrive_on_their_topics(tmp_path, broker):
    async with watching(broker.port, "jailcore/a/#") as got:
        sim = SimServer(password="pw")
        async with daemon_on(tmp_path, broker, "a", sim):
            warden, _ = populate(sim)
            special_days(sim, warden, 2)
            sim.flush()
            await until(lambda: any(m.get("rule") == "specialday.cooldown" for m in got), timeout=10)
            await until(lambda: any("round" in m and "ctbans" in m for m in got), timeout=10)
        action = next(m for m in got if m.get("rule") == "specialday.cooldown")
        assert (action["action"], action["server"], action["target"]["userid"]) == ("slay", "a", warden.userid)


@needs_broker
async def test_a_ct_ban_on_one_server_is_enforced_on_another(tmp_path, broker):
    sim_a, sim_b = SimServer(password="pw"), SimServer(password="pw")
    async with daemon_on(tmp_path, broker, "a", sim_a) as a, daemon_on(tmp_path, broker, "b", sim_b) as b:
        warden_a, _ = populate(sim_a)
        # the same person is a guard on server B
        on_b = sim_b.add_player(warden_a.name, "CT", steamid=warden_a.steamid)
        sim_b.round_start()
        sim_b.flush()
        await until(lambda: any(s.steamid == warden_a.steamid for s in b.engine.state.players.values()))
        special_days(sim_a, warden_a, 3)  # allowed, slay, CT ban
        sim_a.flush()
        await until(lambda: sent(sim_a, f"jb_teamswap #{warden_a.userid} T"), timeout=10)
        await until(lambda: sent(sim_b, f"jb_teamswap #{on_b.userid} T"), timeout=10)
        assert warden_a.steamid in b.engine.state.ctbans
        # and he cannot come back to CT on B either: B's shim holds the ban at the door
        await until(lambda: sent(sim_b, f"jb_ctban_set #{on_b.userid}"), timeout=10)
        assert sim_b.join(on_b, "CT") is False and on_b.team != "CT"
        del a


@needs_broker
async def test_broker_outage_loses_no_message(tmp_path, broker):
    async with watching(broker.port, "jailcore/a/actions", "outage-watcher") as got:
        sim = SimServer(password="pw")
        async with daemon_on(tmp_path, broker, "a", sim) as daemon:
            warden, _ = populate(sim)
            sim.flush()
            await until(lambda: daemon.engine.state.warden == warden.userid)
            await asyncio.sleep(1.5)  # the broker saves the watcher's session
            broker.stop()
            await until(lambda: not daemon.mqtt.connected.is_set())
            for i in range(5):
                sim.say(warden, f"!prohibit p{i}")  # three of these are refused: warn + cancel each
            sim.flush()
            await until(lambda: len(sent(sim, "jb_cancel_prohibition")) == 3, timeout=10)
            assert daemon.mqtt.waiting >= 6  # enforcement went on; the messages wait
            await broker.start()
            # Each entry twice: as decided (pending) and as the server answered (delivered).
            await until(lambda: len([m for m in got if m.get("rule") == "prohibitions.max"]) == 12, timeout=20)
            await until(lambda: daemon.mqtt.waiting == 0, timeout=10)  # the newest state may still be on its way
        ids = [m["id"] for m in got if m.get("rule") == "prohibitions.max" and m["status"] == "pending"]
        assert len(ids) == 6 and ids == sorted(ids)
        assert sorted(m["id"] for m in got if m.get("rule") == "prohibitions.max" and m["status"] == "delivered") == ids


def test_mqtt_urls_carry_user_password_and_tls():
    from jailcore.io.mqtt import parse_url

    plain = parse_url("mqtt://jail%20core:p%40ss@broker.lan:1884")
    assert (plain["hostname"], plain["port"], plain["username"], plain["password"], plain["tls_context"]) == (
        "broker.lan", 1884, "jail core", "p@ss", None
    )
    tls = parse_url("mqtts://broker.lan", insecure=True)
    assert tls["port"] == 8883 and tls["tls_context"] is not None and not tls["tls_context"].check_hostname
    with pytest.raises(ValueError, match="mqtt://"):
        parse_url("http://broker.lan")
