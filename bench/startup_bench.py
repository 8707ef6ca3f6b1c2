"""How soon the admin's commands answer: the time from starting `python -m jailcore ...` to
its first byte of output, best of several runs, beside a bare `python -c pass` (the floor
no command can go under), and what each imports (`python -X importtime`), in milliseconds.

Against a state database with two servers that this script makes with the daemon's own
writer. Aim: under 150 ms for `--help`, `status`, `tail`, `ctban list`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # measure the checkout this file is in, not an installed copy

from jailcore.config.config import load  # noqa: E402
from jailcore.engine.engine import Engine  # noqa: E402
from jailcore.engine.state import dump  # noqa: E402
from jailcore.log.parse import LogParser  # noqa: E402
from jailcore.store.sqlite import Store  # noqa: E402

RUNS = 9
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def make_database(path: Path) -> None:
    store = Store(path)
    for server in ("north", "south"):
        engine, parser = Engine(load('[server]\nrulebook = "all"\n', "<bench>", {})), LogParser()
        for line in ('L 11/30/2026 - 20:00:00: "Начальник<2><STEAM_1:0:42><CT>" entered the game',
                     'L 11/30/2026 - 20:00:01: World triggered "Round_Start"'):
            event = parser.parse(line)
            if event is not None:
                engine.handle(event)
        store.save_standing(server, json.dumps({**engine.public_state(), "time": engine.state.time, "cooldown_rounds": 3}), engine.state.time)
        store.save_state(server, dump(engine.state), engine.state.time)
    store.commit()
    store.close()


def first_output(args: list[str]) -> float:
    """Seconds from the start to the first byte on stdout (the command's answer)."""
    best = float("inf")
    for _ in range(RUNS):
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV)
        proc.stdout.read(1)
        best = min(best, time.perf_counter() - t0)
        proc.stdout.read()
        proc.wait()
    return best


def imports_ms(args: list[str]) -> float:
    out = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True, text=True, env=ENV).stderr
    return sum(int(m[1]) for m in re.finditer(r"import time:\s+\d+ \|\s+(\d+) \| jailcore", out)) / 1000


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "state.sqlite3"
        make_database(db)
        bare = first_output(["-c", "print(1)"])
        print(f"python -c 'print(1)' (the floor): {bare * 1000:.0f} ms")
        for label, args in (("--help", ["--help"]), ("status", ["status", "--state-db", str(db)]),
                            ("tail", ["tail", "--state-db", str(db)]), ("ctban list", ["ctban", "list", "--state-db", str(db)])):
            cmd = ["-m", "jailcore", *args]
            total = first_output(cmd)
            print(f"jailcore {label:<11} {total * 1000:5.0f} ms to first output ({(total - bare) * 1000:+.0f} ms over the floor; "
                  f"jailcore's imports {imports_ms(cmd):.0f} ms)  aim < 150 ms")


if __name__ == "__main__":
    main()
