"""How soon an admin hears of a proposal, and how many messages a burst makes: a real `jailcore
run` (its own process) beside the simulated server, and the Discord and Telegram stand-ins of
tests/standins.py. Prints, for ROUNDS proposals one after another, the time from the player's
chat line leaving the simulated server to the stand-in's answer to the message that carries it
(median and worst, each sink), then the requests fifty bans at once took. The issue asks for a
proposal within a second.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jailcore.sim.simserver import SimServer  # noqa: E402
from tests.standins import Discord, Telegram  # noqa: E402
from tests.test_durable import heard_from, jailcore_run, server_toml  # noqa: E402
from tests.test_fleet import free_udp_port  # noqa: E402
from tests.test_live import populate  # noqa: E402
from tests.test_notify import sinks  # noqa: E402

ROUNDS = 10


async def proposals(tmp: Path) -> dict[str, list[float]]:
    discord, telegram = Discord(), Telegram()
    await discord.start()
    await telegram.start()
    sim = SimServer(password="pw")
    listen = f"127.0.0.1:{free_udp_port()}"
    rules = '[conduct.advertising]\nconfirm = "admin"\nladder = ["ban 0"]\n' + sinks(discord, telegram)
    cfg = server_toml(tmp / "a.toml", "a", await sim.start(), tmp / "a.sqlite3", listen, rules)
    took: dict[str, list[float]] = {"discord": [], "telegram": []}
    try:
        async with jailcore_run(tmp, cfg):
            await heard_from(sim, 0)
            host, port = listen.rsplit(":", 1)
            await sim.log_to_daemon((host, int(port)))
            populate(sim)
            for i in range(ROUNDS):
                player = sim.add_player(f"Игрок-{i:02d}", "T")
                await asyncio.sleep(0.5)
                start = time.monotonic()
                sim.say(player, f"заходите на www.site{i}.ru")
                sim.flush()
                for name, stand_in, field in (("discord", discord, "content"), ("telegram", telegram, "_plain")):
                    await stand_in.until(lambda s=stand_in, f=field, n=player.name: any(n in r[f] for r in s.received))
                    at = next(r["_at"] for r in stand_in.received if player.name in r[field])
                    took[name].append(at - start)
    finally:
        await sim.stop()
        await discord.stop()
        await telegram.stop()
    return took


async def burst(tmp: Path) -> tuple[int, int]:
    discord, telegram = Discord(), Telegram()
    await discord.start()
    await telegram.start()
    sim = SimServer(password="pw")
    listen = f"127.0.0.1:{free_udp_port()}"
    rules = '[conduct.advertising]\nconfirm = "none"\nladder = ["ban 10m"]\n' + sinks(discord, telegram)
    cfg = server_toml(tmp / "b.toml", "b", await sim.start(), tmp / "b.sqlite3", listen, rules)
    try:
        async with jailcore_run(tmp, cfg):
            await heard_from(sim, 0)
            host, port = listen.rsplit(":", 1)
            await sim.log_to_daemon((host, int(port)))
            populate(sim, prisoners=1)
            players = [sim.add_player(f"Спамер-{i:02d}", "T") for i in range(50)]
            for p in players:
                sim.say(p, f"www.{p.name[-2:]}.example.ru")
            sim.flush()
            for stand_in, field in ((discord, "content"), (telegram, "_plain")):
                await stand_in.until(lambda s=stand_in, f=field: all(any(p.name in r[f] for r in s.received) for p in players))
            return len(discord.received), len(telegram.received)
    finally:
        await sim.stop()
        await discord.stop()
        await telegram.stop()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        took = asyncio.run(proposals(Path(tmp)))
        for name, times in took.items():
            print(f"proposal to {name}: median {statistics.median(times) * 1000:.0f} ms, worst {max(times) * 1000:.0f} ms ({len(times)} proposals)")
    with tempfile.TemporaryDirectory() as tmp:
        d, t = asyncio.run(burst(Path(tmp)))
        print(f"50 bans at once: {d} Discord request(s), {t} Telegram request(s)")


if __name__ == "__main__":
    main()
