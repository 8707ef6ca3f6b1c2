"""Memory and snapshot time on a server that sees very many players.

1,000,000 log lines in which 200,000 distinct players come, join T, throw grenades, shoot a
guard on two days running (rebellion) and leave. Prints resident memory after the run and
the time one snapshot takes (the daemon saves one after its decisions).
"""

from __future__ import annotations

import gc
import json
import time

from jailcore.config.config import load
from jailcore.engine.engine import Engine
from jailcore.log.parse import LogParser
from jailcore.sim.logwriter import LogWriter, Who

LINES, PLAYERS = 1_000_000, 200_000


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    engine = Engine(load('[server]\nrulebook = "all"\n', "<bench>", {}))  # every rule on
    parser = LogParser(engine.needed_kinds())
    guard = Who("Guard", 1, "STEAM_1:0:1", "CT")
    log = LogWriter()
    lines = 0

    def feed() -> None:
        nonlocal lines
        for line in log.lines:
            event = parser.parse(line)
            if event is not None:
                engine.handle(event)
        lines += len(log.lines)
        log.lines.clear()

    log.connect(guard, "CT")
    player = 0
    before = rss_mb()
    t0 = time.perf_counter()
    while lines < LINES or player < PLAYERS:
        log.round_start()
        for _ in range(20):
            player += 1
            p = Who(f"Игрок {player}", 100 + player % 60_000, f"STEAM_1:0:{player % PLAYERS}")
            log.connect(p, "TERRORIST")
            for _ in range(2):
                log.add(f'{p.ident()} threw hegrenade [1 2 3]')
            log.add(f'{p.ident()} [1 2 3] attacked {guard.ident()} [4 5 6] with "glock" '
                    '(damage "5") (damage_armor "0") (health "95") (armor "0") (hitgroup "chest")')
            log.disconnect(p)
        log.round_end()
        feed()
    took = time.perf_counter() - t0
    gc.collect()
    t1 = time.perf_counter()
    for _ in range(20):
        json.dumps(engine.snapshot(), ensure_ascii=False)
    snap_ms = (time.perf_counter() - t1) / 20 * 1000
    print(f"memory: {lines:,} lines, {min(player, PLAYERS):,} distinct players in {took:.1f} s; "
          f"RSS {rss_mb():.1f} MB (at start {before:.1f} MB; aim < 40); one snapshot {snap_ms:.2f} ms (aim < 5)")


if __name__ == "__main__":
    main()
