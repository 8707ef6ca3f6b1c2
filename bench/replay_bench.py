"""Replay throughput on the real corpus: the whole engine, the parser alone, pysrcds, the floor.

Prints lines per second, all over the same records of shared/corpus (CS:GO and TF2 server
logs and CS:GO SourceMod logs), best of a few runs:
- jailcore replay: parse, every rule of configs/example.toml, each action as a JSON line,
  as `jailcore replay` does (the parser reading only the kinds the engine needs);
- the parser alone: every kind (`LogParser()`), the kinds `Engine.needed_kinds()` names,
  and a few kinds (chat and the shim's triggers: a line of any other kind is only counted);
- pysrcds's `SourceLogParser.parse_line` over the same lines, each with its `L ` prefix as a
  log file has it (a record stored from UDP has none; without it pysrcds refuses the line
  at its first byte, which is fast and reads nothing);
- the floor: decoding each record and matching one compiled pattern with named
  alternatives, which classifies a line and reads nothing more.
Then the ratios to pysrcds and to the floor (aim: 10x pysrcds, at least a third of the floor).
"""

from __future__ import annotations

import gc
import io
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # measure the checkout this file is in, not an installed copy

from jailcore.config.config import Config  # noqa: E402
from jailcore.engine.engine import Engine  # noqa: E402
from jailcore.log.parse import SHIM_TRIGGERS, LogParser, records  # noqa: E402

FEW = frozenset({"chat", *SHIM_TRIGGERS})

# The floor: one pattern, named alternatives, that names the kind of every line (by the
# player's verb, the world trigger, how the body begins) and checks nothing else. No parser
# of these lines in Python does less.
_VERBS = ("triggered", "purchased", "attacked", "killed", "picked", "threw", "say_team", "say", "spawned", "dropped", "money",
          "assisted", "joined", "switched", "entered", "connected", "disconnected", "STEAM", "committed", "changed", "was",
          "blinded", "left")  # fmt: skip
_TRIGGERS = ("Round_Start", "Round_End", "Game_Commencing", "Restart_Round", "Warmup_Start", "Warmup_End", "jb_hello")
_BODIES = ("Team", "rcon from", "Loading map", "Started map", "Log file", "server cvars", "server_cvar", "Starting Freeze",
           "Molotov", "Game Over", "STEAMAUTH", "server_message", "eBot", "Rcon", "SourceMod", "Event", "Player")  # fmt: skip
FLOOR = re.compile(
    r'(?:L )?\d\d/\d\d/\d{4} - \d\d:\d\d:\d\d: (?:"[^"]*" (?:\[[^\]]*\] )?(?:'
    + "|".join(f"(?P<{verb}>{verb})" for verb in _VERBS)
    + r'|(?P<word>\S+))|(?P<cvar>"[^"]*" = )|World triggered "(?:'
    + "|".join(f"(?P<{name}>{name})" for name in _TRIGGERS)
    + r'|(?P<trigger>[^"]*))"|'
    + "|".join(f"(?P<body{i}>{re.escape(body)})" for i, body in enumerate(_BODIES))
    + "|(?P<other>.))",
    re.S,
)


def corpus_records() -> list[bytes]:
    for base in (ROOT.parent / "shared" / "corpus", ROOT / "shared" / "corpus"):
        if base.is_dir():
            out: list[bytes] = []
            for path in sorted(base.glob("*.log")):
                with path.open("rb") as fh:
                    out += list(records(fh))
            return out
    sys.exit("bench: no shared/corpus beside the checkout")


def rate(lines: int, fn: Callable[[], object], runs: int = 5) -> float:
    best = float("inf")
    for _ in range(runs):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return lines / best


def main() -> None:
    recs = corpus_records()
    config = Config.from_toml(ROOT / "configs" / "example.toml", env={})
    needed = getattr(Engine(config), "needed_kinds", None)
    needed = needed() if needed is not None else None

    def replay() -> None:
        engine, parser, out = Engine(config), LogParser(needed), io.StringIO()
        handle, parse, dumps, write = engine.handle, parser.parse, json.dumps, out.write
        for rec in recs:
            event = parse(rec)
            if event is not None:
                for action in handle(event):
                    if action.action != "hud":
                        write(dumps(action.to_json(), ensure_ascii=False) + "\n")

    def parser_alone(kinds: frozenset[str] | None) -> Callable[[], None]:
        def run() -> None:
            parse = LogParser(kinds).parse
            for rec in recs:
                parse(rec)

        return run

    def floor() -> None:
        match = FLOOR.match
        for rec in recs:
            m = match(rec.decode("utf-8", "jailcore-latin1").strip("\x00\r\n\ufeff"))
            if m is not None:
                m.lastgroup  # noqa: B018 (the name is what a classifier hands on)

    n = len(recs)
    rows = [
        ("jailcore replay: parse + every rule of example.toml + JSON out", rate(n, replay)),
        ("jailcore parser alone, every kind", rate(n, parser_alone(None))),
    ]
    if needed is None:
        print("(Engine has no needed_kinds() yet: the replay parses every kind)")
    else:
        rows.append((f"jailcore parser alone, the {len(needed)} kinds the engine needs", rate(n, parser_alone(frozenset(needed)))))
    rows.append((f"jailcore parser alone, {len(FEW)} kinds (chat, shim triggers)", rate(n, parser_alone(FEW))))
    floor_rate = rate(n, floor)
    try:
        from srcds.logparser import SourceLogParser
    except ImportError:
        peer_rate = None
    else:
        texts = [rec.decode("utf-8", "replace").strip("\x00\r\n\ufeff") for rec in recs]
        texts = [t if t.startswith("L ") else "L " + t for t in texts]

        def peer() -> None:
            parser = SourceLogParser()
            for line in texts:
                try:
                    parser.parse_line(line)
                except Exception:  # it raises on some real lines (impossible dates); skip them
                    pass

        peer_rate = rate(n, peer, runs=3)

    print(f"{n:,} records of shared/corpus, lines per second (best of 5):")
    for label, value in rows:
        print(f"  {label:<66} {value:>11,.0f}")
    if peer_rate is None:
        print("  pysrcds not installed (pip install -e .[dev]): no peer figure")
    else:
        print(f"  {'pysrcds SourceLogParser.parse_line, lines with their `L ` prefix':<66} {peer_rate:>11,.0f}")
    print(f"  {'floor: decode + one compiled pattern with named alternatives':<66} {floor_rate:>11,.0f}")
    print("ratios (aim: 10x pysrcds, at least 1/3 of the floor):")
    for label, value in rows:
        peer = f"{value / peer_rate:5.1f}x pysrcds, " if peer_rate else ""
        print(f"  {label:<66} {peer}{value / floor_rate:4.2f} of the floor")


if __name__ == "__main__":
    main()
