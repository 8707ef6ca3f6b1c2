"""Bans first, with a real mosquitto: a CT ban leaves ahead of the messages queued before
it, and a fleet's ban reaches a daemon of another process through the broker while the
fleet's own servers take it in-process only once."""

from __future__ import annotations

import asyncio
import json

from jailcore.config.config import load
from jailcore.io.mqtt import CTBANS, MqttLink
from jailcore.sim.simserver import SimServer
from tests.test_fleet import fleet_of, server_config
from tests.test_live import config_text, populate, running, sent, special_days, until
from tests.test_mqtt import broker, needs_broker, watching

__all__ = ["broker"]


@needs_broker
async def test_a_ct_ban_overtakes_what_was_queued_before_it(tmp_path, broker):
    async with watching(broker.port, "jailcore/#", "order-watcher") as got:
        link = MqttLink(f"mqtt://127.0.0.1:{broker.port}", "a", backoff=(0.05, 0.2))
        for i in range(300):  # queued while the link is not yet up, as during an outage
            link.publish("jailcore/a/actions", {"id": i, "server": "a"})
        link.publish_state({"round": 1})
        link.publish(CTBANS, {"id": "a:1", "origin": "a", "steamid": "STEAM_1:0:1"}, urgent=True)
        task = asyncio.create_task(link.run())
        try:
            # the broker's acknowledgements too: a batch unacknowledged at the stop goes back in the queue
            await until(lambda: len(got) >= 302 and link.waiting == 0, timeout=20)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    assert got[0]["id"] == "a:1"
    actions = [m["id"] for m in got if m.get("server") == "a" and isinstance(m.get("id"), int)]
    assert actions == list(range(300))  # the rest keep their order
    assert link.waiting == 0


@needs_broker
async def test_a_fleet_ban_reaches_another_process_by_mqtt_and_its_own_servers_once(tmp_path, broker):
    url = f'[mqtt]\nurl = "mqtt://127.0.0.1:{broker.port}"\n'
    sims = {n: SimServer(password="pw") for n in "abx"}
    ports = {n: await s.start() for n, s in sims.items()}
    paths = []
    for n in "ab":
        paths.append(server_config(tmp_path / f"{n}.toml", n, ports[n], tmp_path / "fleet.sqlite3", "127.0.0.1:0", ""))
        with open(paths[-1], "a", encoding="utf-8") as f:
            f.write(url)
    other = load(config_text(ports["x"], tmp_path / "x.sqlite3", rest=url).replace('name = "t"', 'name = "x"'), "<x>", {})
    async with fleet_of(paths) as fleet, running(other, sims["x"], stop_sim=False) as x:
        a, b = fleet.daemon("a"), fleet.daemon("b")
        for d in (a, b, x):
            d.mqtt.backoff_min, d.mqtt.backoff_max = 0.1, 0.5
            await asyncio.wait_for(d.mqtt.connected.wait(), 60)
        for n, d in (("a", a), ("b", b)):
            await sims[n].log_to_daemon(("127.0.0.1", d.log_port))
        wardens = {n: populate(s)[0] for n, s in sims.items()}
        for s in sims.values():
            s.flush()
        await until(lambda: all(d.engine.state.warden == wardens[n].userid for n, d in (("a", a), ("b", b), ("x", x))))
        guard = wardens["a"]
        special_days(sims["a"], guard, 3)
        sims["a"].flush()
        await until(lambda: sent(sims["b"], f"jb_ctban_set #{wardens['b'].userid}"), timeout=5)
        await until(lambda: sent(sims["x"], f"jb_ctban_set #{wardens['x'].userid}"), timeout=10)
        await asyncio.sleep(0.5)  # the broker's copy has reached b by now, and was ignored
        assert len(sent(sims["b"], f"jb_teamswap #{wardens['b'].userid}")) == 1
        rows = b.store.db.execute("SELECT detail FROM audit WHERE server = 'b' AND action = 'teamswap'").fetchall()
        assert len(rows) == 1 and json.loads(rows[0][0])["target"]["steamid"] == guard.steamid
    for s in sims.values():
        await s.stop()
