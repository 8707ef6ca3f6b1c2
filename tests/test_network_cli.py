"""One view of the network over a real mosquitto: `jailcore tail -f --mqtt` follows every
server's actions as the daemons publish them, and `jailcore status --mqtt` reads their
retained states. The commands run as an admin runs them, in their own process."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from contextlib import asynccontextmanager

import aiomqtt

from jailcore.engine.actions import Action, CtBan, Slay, Target, Warn
from tests import test_mqtt
from tests.test_mqtt import free_port, needs_broker
from tests.test_tail import ROOT

WARDEN = Target(2, "STEAM_1:0:42", "Начальник")
ZEK = Target(7, "STEAM_1:1:7", "Зек\x1b[2J Вася")

pytestmark = needs_broker


mosquitto = test_mqtt.broker  # the fixture: a broker of its own for each test


def published(server: str, row_id: int, status: str, action: Action, **extra) -> dict:
    """An action as the daemon publishes it on jailcore/<server>/actions."""
    return {"server": server, "id": row_id, "status": status, **action.to_json(), **extra}


SLAY = Slay("2026-11-30T20:05:00", 3, "specialday.cooldown", "6.5", "особый день", WARDEN)
CTBAN = CtBan("2026-11-30T20:05:01", 3, "specialday.cooldown", "6.5", "особый день", WARDEN, minutes=30, rounds=None)
WARN = Warn("2026-11-30T20:06:00", 4, "prohibitions.max", "6.3", "третий запрет", ZEK)


async def jailcore(*args: str) -> asyncio.subprocess.Process:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("JAILCORE_MQTT_URL", None)
    return await asyncio.create_subprocess_exec(sys.executable, "-m", "jailcore", *args, cwd=ROOT, env=env,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)


async def line(stream: asyncio.StreamReader, seconds: float = 15) -> str:
    text = await asyncio.wait_for(stream.readline(), seconds)
    assert text, "the command ended without another line"
    return text.decode("utf-8").rstrip("\n")


async def following(proc: asyncio.subprocess.Process) -> None:
    """tail says on stderr once it is subscribed: what is published after that reaches it."""
    assert (await line(proc.stderr)).startswith("following jailcore/+/actions on 127.0.0.1:")


async def publish(port: int, *messages: tuple[str, dict | bytes], retain: bool = False) -> None:
    async with aiomqtt.Client("127.0.0.1", port, identifier="test-daemon") as client:
        for topic, payload in messages:
            body = payload if isinstance(payload, bytes) else json.dumps(payload, ensure_ascii=False)
            await client.publish(topic, body, qos=1, retain=retain)


@asynccontextmanager
async def tail(port: int, *args: str):
    """`jailcore tail -f --mqtt` on the test's broker, once it is subscribed; killed if a test leaves it running."""
    proc = await jailcore("tail", "-f", "--mqtt", f"mqtt://127.0.0.1:{port}", "--seconds", "40", *args)
    try:
        await following(proc)
        yield proc
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def ended(proc: asyncio.subprocess.Process, seconds: float = 15) -> tuple[int, str]:
    _, err = await asyncio.wait_for(proc.communicate(), seconds)
    return proc.returncode, err.decode("utf-8")


async def test_tail_follows_every_server_with_deliveries_and_pardons(mosquitto):
    async with tail(mosquitto.port, "--count", "5") as proc:
        await publish(mosquitto.port,
                      ("jailcore/north/actions", published("north", 11, "pending", SLAY)),
                      ("jailcore/south/actions", b"not json"),
                      ("jailcore/south/actions", published("south", 11, "pending", WARN)),
                      ("jailcore/north/actions", published("north", 11, "delivered", SLAY)),
                      ("jailcore/north/actions", published("north", 12, "failed", CTBAN, reply="error: #2 is not in game")),
                      ("jailcore/north/actions", published("north", 11, "pardoned", SLAY, pardon={"by": "Админ", "reason": "ошибка"})))
        lines = [await line(proc.stdout) for _ in range(5)]
        code, err = await ended(proc)
    assert code == 0 and "1 message(s) that were not an action's JSON were skipped" in err
    assert lines[0].startswith("#11 2026-11-30 20:05:00  north r3 -  [6.5 specialday.cooldown] slay     Начальник #2 STEAM_1:0:42: особый день  pending")
    assert lines[1].startswith("#11 2026-11-30 20:06:00  south r4 -  [6.3 prohibitions.max] warn")
    assert "Зек\\x1b[2J Вася #7" in lines[1] and "\x1b" not in "".join(lines)  # a player's name never drives the terminal
    assert lines[2].startswith("#11 2026-11-30 20:05:00  north") and lines[2].endswith("особый день  delivered")
    assert lines[3].endswith("failed (error: #2 is not in game)")
    # the pardon beside the entry it undoes, which keeps the status it had
    assert lines[4].startswith("#11 2026-11-30 20:05:00  north") and lines[4].endswith("delivered  pardoned by Админ: ошибка")


async def test_tail_filters_and_json(mosquitto):
    async with tail(mosquitto.port, "--json", "--rule", "specialday", "--server", "north", "--count", "2") as proc:
        await publish(mosquitto.port,
                      ("jailcore/south/actions", published("south", 5, "delivered", SLAY)),  # another server
                      ("jailcore/north/actions", published("north", 6, "delivered", WARN)),  # another rule
                      ("jailcore/north/actions", {k: v for k, v in published("north", 7, "delivered", CTBAN).items() if k != "server"}),
                      ("jailcore/north/actions", published("north", 7, "pardoned", CTBAN, pardon={"by": "A", "reason": "r"})))
        got = [json.loads(await line(proc.stdout)) for _ in range(2)]
        code, _ = await ended(proc)
    assert code == 0
    # the server named by the topic where the message leaves it out
    assert [(g["server"], g["id"], g["action"], g["status"]) for g in got] == [("north", 7, "ctban", "delivered")] * 2
    assert got[0]["minutes"] == 30 and got[0]["target"] == WARDEN.to_json() and got[0]["pardon"] is None
    assert (got[1]["pardon"]["by"], got[1]["pardon"]["reason"]) == ("A", "r")


async def test_tail_rides_out_a_broker_restart(mosquitto):
    async with tail(mosquitto.port, "--count", "2") as proc:
        await publish(mosquitto.port, ("jailcore/north/actions", published("north", 1, "delivered", SLAY)))
        assert (await line(proc.stdout)).startswith("#1 ")
        mosquitto.stop()
        assert "was lost" in await line(proc.stderr)
        await mosquitto.start()
        await following(proc)
        await publish(mosquitto.port, ("jailcore/north/actions", published("north", 2, "delivered", WARN)))
        assert (await line(proc.stdout)).startswith("#2 ")
        code, _ = await ended(proc)
    assert code == 0


async def test_tail_without_a_broker_says_so():
    proc = await jailcore("tail", "-f", "--mqtt", f"mqtt://127.0.0.1:{free_port()}", "--seconds", "20")
    code, err = await ended(proc)
    assert code == 1 and "the MQTT broker at 127.0.0.1:" in err and "cannot be reached" in err and "Traceback" not in err
    proc = await jailcore("tail", "-f", "--mqtt", "http://user:secret@127.0.0.1:1")
    code, err = await ended(proc)
    assert code == 1 and "MQTT URL must look like" in err and "secret" not in err
    proc = await jailcore("status", "--mqtt")
    code, err = await ended(proc)
    assert code == 1 and "--mqtt needs the broker" in err


def state(server: str, **over) -> dict:
    """A state as the daemon retains it on jailcore/<server>/state (public_state and its server)."""
    base = {"server": server, "map": "jb_lego", "round": 7, "day": 3, "week": 1, "freeday": False,
            "warden": WARDEN.to_json(), "orders": [{"text": "все в клетку"}], "prohibitions": [{"text": "оружейка\x1b]0;x\x07"}],
            "game": {"name": "Прятки", "host": 2}, "specialday": 5, "global_games": 1,
            "ctbans": [{"key": ZEK.steamid, "steamid": ZEK.steamid, "name": ZEK.name, "until": None, "rounds": 2, "rule": "admin", "ref": ""}],
            "online": {"T": 10, "CT": 3}}
    return {**base, **over}


async def test_status_reads_every_servers_retained_state(mosquitto):
    link = {"rcon": "open", "outbox": 0, "last_line": "2026-11-30T20:06:00", "mode": "enforce", "updated": "2026-11-30T20:06:01"}
    await publish(mosquitto.port,
                  ("jailcore/north/state", state("north", link=link)),
                  ("jailcore/south/state", state("south", warden=None, game=None, specialday=None, ctbans=[])),  # no link yet
                  ("jailcore/west/state", b"[1, 2]"),
                  retain=True)
    url = f"mqtt://127.0.0.1:{mosquitto.port}"
    proc = await jailcore("status", "--mqtt", url)
    out = (await asyncio.wait_for(proc.stdout.read(), 20)).decode("utf-8")
    code, err = await ended(proc)
    assert code == 0 and "1 retained message(s) that were not a state's JSON were skipped" in err
    north_block, south_block = out.strip("\n").split("\n\n")
    lines = north_block.splitlines()
    assert lines[0].startswith("north  rcon open · outbox 0 · last line 2026-11-30 20:06:00 (") and lines[0].endswith(" · mode enforce")
    assert lines[1] == "  day 3 (Ср), week 1, round 7, map jb_lego; online T 10 / CT 3"
    assert lines[2:6] == ["  warden: Начальник #2 STEAM_1:0:42", "  orders (1): 1. все в клетку",
                          "  prohibitions (1): 1. оружейка\\x1b]0;x\\x07", "  game: Прятки (host 2)"]
    assert lines[6] == "  special day: last in round 5; next from round 8 (1 round(s) to go)"
    assert lines[7:] == ["  CT bans: 1", "    Зек\\x1b[2J Вася STEAM_1:1:7: 2 round(s) [- admin]"]  # who is online is not retained
    assert south_block.splitlines()[0] == "south  rcon ? · outbox ? · no line yet"
    assert "  warden: none" in south_block and "  special day: none yet" in south_block and "\x1b" not in out

    proc = await jailcore("status", "--mqtt", url, "--json", "--server", "north")
    out = (await asyncio.wait_for(proc.stdout.read(), 20)).decode("utf-8")
    assert (await ended(proc))[0] == 0
    (north,) = [json.loads(x) for x in out.splitlines()]
    assert north["link"] == link and north["cooldown"] == {"rounds": 3, "next": 8, "left": 1} and north["source"] == "mqtt"
    assert isinstance(north["age"], float) and north["warden"] == WARDEN.to_json()


async def test_status_with_a_config_takes_its_settings_and_broker(mosquitto, tmp_path):
    await publish(mosquitto.port, ("jailcore/north/state", state("north")), retain=True)
    config = tmp_path / "north.toml"
    config.write_text(f'[server]\nname = "north"\nrulebook = "all"\n[specialday.cooldown]\nrounds = 4\n'
                      f'[mqtt]\nurl = "mqtt://127.0.0.1:{mosquitto.port}"\n', encoding="utf-8")
    proc = await jailcore("status", "--mqtt", "--config", str(config), "--json")
    out = (await asyncio.wait_for(proc.stdout.read(), 20)).decode("utf-8")
    code, err = await ended(proc)
    assert code == 0, err
    (north,) = [json.loads(x) for x in out.splitlines()]
    assert north["cooldown"] == {"rounds": 4, "next": 9, "left": 2} and north["link"] is None and north["age"] is None


async def test_status_of_an_empty_broker(mosquitto):
    proc = await jailcore("status", "--mqtt", f"mqtt://127.0.0.1:{mosquitto.port}")
    code, err = await ended(proc)
    assert code == 1 and "no server found in the MQTT broker's retained jailcore/+/state" in err


async def test_tail_with_the_network_key_shows_only_signed_actions(mosquitto, monkeypatch):
    from jailcore.log.inbound import seal

    key = "k3y-of-the-network-0123456789abcdef"
    monkeypatch.setenv("JAILCORE_NETWORK_KEY", key)
    async with tail(mosquitto.port, "--count", "1") as proc:
        forged = published("north", 11, "pending", SLAY)
        signed = seal(published("north", 12, "pending", WARN), key.encode(), "north", int(time.time() * 1000))
        await publish(mosquitto.port, ("jailcore/north/actions", forged), ("jailcore/north/actions", signed))
        shown = await line(proc.stdout)
        code, err = await ended(proc)
    assert shown.startswith("#12 ") and code == 0 and "unsigned" in err
