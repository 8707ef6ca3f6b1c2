"""Replay throughput on the real corpus, whole engine running, against pysrcds's parser.

Prints lines per second for jailcore (parse + engine, every rule on) and for pysrcds's
`SourceLogParser.parse_line` over the same records, and the ratio.
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

from jailcore.config import Config
from jailcore.engine import Engine
from jailcore.parse import LogParser, records

ROOT = Path(__file__).resolve().parents[1]


def corpus_records() -> list[bytes]:
    for base in (ROOT.parent / "shared" / "corpus", ROOT / "shared" / "corpus"):
        if base.is_dir():
            out: list[bytes] = []
            for path in sorted(base.glob("*.log")):
                with path.open("rb") as fh:
                    out += list(records(fh))
            return out
    sys.exit("bench: no shared/corpus beside the checkout")


def best_of(runs: int, fn) -> float:
    best = float("inf")
    for _ in range(runs):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    recs = corpus_records()
    config = Config.from_toml(ROOT / "configs" / "example.toml", env={})

    def ours() -> None:
        engine, parser = Engine(config), LogParser()
        handle, parse = engine.handle, parser.parse
        for rec in recs:
            event = parse(rec)
            if event is not None:
                handle(event)

    ours_s = best_of(5, ours)
    rate = len(recs) / ours_s
    print(f"jailcore replay (parse + engine): {len(recs)} lines, {rate:,.0f} lines/s")
    try:
        from srcds.logparser import SourceLogParser
    except ImportError:
        print("pysrcds not installed (pip install -e .[dev]): no peer figure")
        return
    texts = [r.decode("utf-8", "replace").lstrip("\x00") for r in recs]

    def peer() -> None:
        parser = SourceLogParser()
        for line in texts:
            try:
                parser.parse_line(line)
            except Exception:
                pass

    peer_s = best_of(3, peer)
    peer_rate = len(texts) / peer_s
    print(f"pysrcds SourceLogParser (parse only): {peer_rate:,.0f} lines/s")
    print(f"ratio: {rate / peer_rate:.1f}x (aim: 10x)")


if __name__ == "__main__":
    main()
