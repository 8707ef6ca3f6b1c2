"""Precision and recall per rule, on generated play (tests/lawful.py).

For each shipped server: lawful seasons (every punishment in them is a false one) and
seasons with one injected violation of each kind the server's config enforces (a violation
caught on its player in its round is a true one, one not caught a miss). Prints, per rule,
true and false punishments, misses, precision and recall, and the totals.

    python bench/precision.py [--seeds N] [--rounds N]
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


def measure(server: str, seeds: int, rounds: int) -> tuple[Counter, Counter, Counter, int]:
    cfg = Config.from_toml(ROOT / "configs" / f"{server}.toml", env={})
    kinds = injectable(cfg)
    true, false, missed = Counter(), Counter(), Counter()
    lines = 0
    for seed in range(seeds):
        lawful = season(server, 1000 + seed, rounds)
        lines += lawful.lines
        for _, a in judged(lawful):
            false[a.rule] += 1
        s = season(server, 2000 + seed, 60 + 14 * len(kinds), kinds)
        lines += s.lines
        wanted = {(i.round, rule, uid) for i in s.injected for rule, uid in i.expected}
        for r, a in judged(s):
            if a.rule == ADMIN:
                continue  # an admin's own CT ban, the ground of the door's finding, not one
            key = (r, a.rule, a.target.userid)
            if key in wanted:
                true[a.rule] += 1
                wanted.discard(key)
            else:
                false[a.rule] += 1
        for _, rule, _ in wanted:
            if rule != ADMIN:
                missed[rule] += 1
    return true, false, missed, lines


def ratio(a: int, b: int) -> str:
    return f"{a / b:6.1%}" if b else "     -"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2000, help="rounds of each lawful season")
    args = ap.parse_args()
    for server in ("server-a", "server-b"):
        started = time.perf_counter()
        true, false, missed, lines = measure(server, args.seeds, args.rounds)
        took = time.perf_counter() - started
        print(f"{server}: {args.seeds} lawful seasons of {args.rounds} rounds and {args.seeds} injected ones, "
              f"{lines} lines in {took:.1f} s")
        print(f"  {'rule':28} {'caught':>6} {'false':>6} {'missed':>6} {'precision':>9} {'recall':>7}")
        for rule in sorted(set(true) | set(false) | set(missed)):
            t, f, m = true[rule], false[rule], missed[rule]
            print(f"  {rule:28} {t:6} {f:6} {m:6} {ratio(t, t + f):>9} {ratio(t, t + m):>7}")
        t, f, m = sum(true.values()), sum(false.values()), sum(missed.values())
        print(f"  {'all':28} {t:6} {f:6} {m:6} {ratio(t, t + f):>9} {ratio(t, t + m):>7}")


if __name__ == "__main__":
    main()
