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

from tests.standins import Discord, Telegram  # noqa: E402
from tests.test_durable import jailcore_run  # noqa: E402
from tests.test_live import populate  # noqa: E402
from tests.test_notify import logging_to, notified  # noqa: E402

ROUNDS = 10


async def proposals(tmp: Path) -> dict[str, list[float]]:
    discord, telegram = Discord(), Telegram()
    took: dict[str, list[float]] = {"discord": [], "telegram": []}
    rules = '[conduct.advertising]\nconfirm = "admin"\nladder = ["ban 0"]\n'
    async with notified(tmp, rules, discord, telegram) as (sim, cfg, listen), jailcore_run(tmp, cfg):
        await logging_to(sim, listen)
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
    return took


async def burst(tmp: Path) -> tuple[int, int]:
    discord, telegram = Discord(), Telegram()
    rules = '[conduct.advertising]\nconfirm = "none"\nladder = ["ban 10m"]\n'
    async with notified(tmp, rules, discord, telegram) as (sim, cfg, listen), jailcore_run(tmp, cfg):
        await logging_to(sim, listen)
        populate(sim, prisoners=1)
        players = [sim.add_player(f"Спамер-{i:02d}", "T") for i in range(50)]
        for p in players:
            sim.say(p, f"www.{p.name[-2:]}.example.ru")
        sim.flush()
        for stand_in, field in ((discord, "content"), (telegram, "_plain")):
            await stand_in.until(lambda s=stand_in, f=field: all(any(p.name in r[f] for r in s.received) for p in players))
        return len(discord.received), len(telegram.received)


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
