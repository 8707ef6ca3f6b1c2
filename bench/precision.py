"""Precision and recall on generated play (tests/lawful.py), per server.

For each shipped server: lawful seasons (every punishment, and every question put to an
admin, in them is a false one) and seasons with injected violations, each kind the
server's config enforces injected `--injections` times per seed (a violation is caught
when every rule it breaks reaches its player in its round; anything else punished there
is a false one). The lawful seasons play the freeze period, players who leave and come
back, the same game under other names, every round's routine orders, and kills after a
game of half is over. Prints the false punishments per rule and the recall per kind of
violation; then the same on the CS:GO server (server-a) with a plugin older than its round
line (no `jb_round_start`: CS:GO's `Starting Freeze period` marks the restart, and the daemon
reads it as the round's start where the plugin writes no round line), a separate block.

    python bench/precision.py [--seeds N] [--rounds N] [--injections N] [--no-old-plugin]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # measure the checkout this file is in, not an installed copy

from jailcore.config.config import Config  # noqa: E402
from jailcore.engine.admin import ADMIN  # noqa: E402
from tests.lawful import judged  # noqa: E402
from tests.violations import injectable, season  # noqa: E402


def measure(server: str, seeds: int, rounds: int, injections: int, old_plugin: bool = False) -> tuple[Counter, Counter, Counter, Counter, int, int]:
    cfg = Config.from_toml(ROOT / "configs" / f"{server}.toml", env={})
    kinds = injectable(cfg)
    caught, missed, false_lawful, false_injected = Counter(), Counter(), Counter(), Counter()
    lines = lawful_rounds = 0
    for seed in range(seeds):
        lawful = season(server, 1000 + seed, rounds, old_plugin=old_plugin)
        lines += lawful.lines
        lawful_rounds += lawful.played
        for _, a in judged(lawful):
            false_lawful[a.rule] += 1
        planned = kinds * injections
        s = season(server, 2000 + seed, 60 + 14 * len(planned), planned, old_plugin=old_plugin)
        lines += s.lines
        got = {(r, a.rule, a.target.userid) for r, a in judged(s)}
        wanted = set()
        for i in s.injected:
            keys = {(i.round, rule, uid) for rule, uid in i.expected}
            wanted |= keys
            if keys <= got:
                caught[i.kind] += 1
            else:
                missed[i.kind] += 1
        for r, a in judged(s):
            if (r, a.rule, a.target.userid) not in wanted and a.rule != ADMIN:
                false_injected[a.rule] += 1
    return caught, missed, false_lawful, false_injected, lines, lawful_rounds


def ratio(a: int, b: int) -> str:
    return f"{a / b:6.1%}" if b else "     -"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=2000, help="rounds of each lawful season")
    ap.add_argument("--injections", type=int, default=50, help="violations of each kind per seed")
    ap.add_argument("--no-old-plugin", action="store_true", help="leave out the old plugin's block")
    args = ap.parse_args()
    runs = [("server-a", False, ""), ("server-b", False, "")]
    if not args.no_old_plugin:
        runs.append(("server-a", True, " (CS:GO, plugin older than the round line: no jb_round_start)"))
    for server, old_plugin, note in runs:
        started = time.perf_counter()
        caught, missed, false_lawful, false_injected, lines, lawful_rounds = measure(server, args.seeds, args.rounds, args.injections, old_plugin)
        took = time.perf_counter() - started
        print(f"{server}{note}: {lawful_rounds} lawful rounds and {sum(caught.values()) + sum(missed.values())} injected violations "
              f"({args.seeds} seeds), {lines} lines in {took:.1f} s")
        print(f"  false punishments in lawful play: {sum(false_lawful.values())}"
              + "".join(f"\n    {rule:28} {n:6}" for rule, n in sorted(false_lawful.items())))
        print(f"  false punishments beside the injected violations: {sum(false_injected.values())}"
              + "".join(f"\n    {rule:28} {n:6}" for rule, n in sorted(false_injected.items())))
        print(f"  {'kind of violation':28} {'caught':>6} {'missed':>6} {'recall':>7}")
        for kind in sorted(set(caught) | set(missed)):
            print(f"  {kind:28} {caught[kind]:6} {missed[kind]:6} {ratio(caught[kind], caught[kind] + missed[kind]):>7}")
        c, m = sum(caught.values()), sum(missed.values())
        print(f"  {'all':28} {c:6} {m:6} {ratio(c, c + m):>7}")


if __name__ == "__main__":
    main()
