"""How soon the admin's commands answer: the time from starting `python -m jailcore ...` to
its first byte of output, best of several runs, beside a bare `python -c pass` (the floor
no command can go under), and what each imports (`python -X importtime`), in milliseconds.

Against a state database with two servers that this script makes with the daemon's own
writer (a CT ban and a climbed ladder in each). Aim: under 150 ms for `--help`, `status`,
`tail`, `ctban list` and `history`; medians of RUNS, the best beside.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # measure the checkout this file is in, not an installed copy

from jailcore.config.config import load  # noqa: E402
from jailcore.log.parse import LogParser  # noqa: E402
from jailcore.session.session import Session  # noqa: E402
from jailcore.store.sqlite import Store  # noqa: E402

RUNS = 9
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


# A warden who starts special days two rounds running, twice: a ladder climbed and a CT ban
# given, so `history` has a next step to name and `ctban list` a ban to show.
LINES = [
    'L 11/30/2026 - 20:00:00: "Начальник<2><STEAM_1:0:42><CT>" entered the game',
    *(f'L 11/30/2026 - 20:0{r}:01: World triggered "Round_Start"\n'
      f'L 11/30/2026 - 20:0{r}:02: "Начальник<2><STEAM_1:0:42><>" triggered "jb_warden" (seq "{2 * r}")\n'
      f'L 11/30/2026 - 20:0{r}:03: "Начальник<2><STEAM_1:0:42><>" triggered "jb_specialday" (day "Прятки") (seq "{2 * r + 1}")\n'
      f'L 11/30/2026 - 20:0{r}:09: World triggered "Round_End"' for r in range(1, 4)),
]


class Ids:
    last = 0


def make_database(path: Path) -> None:
    """Two servers' saved state and standing, written as the daemon writes them."""
    store = Store(path)
    for server in ("north", "south"):
        config = load(f'[server]\nname = "{server}"\nrulebook = "all"\n', "<bench>", {})
        session, parser = Session(config, None, Ids()), LogParser()
        engine = session.engine
        for line in "\n".join(LINES).splitlines():
            event = parser.parse(line)
            if event is not None:
                engine.handle(event)
        # the snapshot and its standing exactly as the daemon's session saves them: its own row
        store.write([session.save().row])
    store.commit()
    store.close()


def first_output(args: list[str]) -> tuple[float, float]:
    """Seconds from the start to the first byte on stdout (the command's answer): the
    median and the best of RUNS."""
    times = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV)
        proc.stdout.read(1)
        times.append(time.perf_counter() - t0)
        proc.stdout.read()
        proc.wait()
    return statistics.median(times), min(times)


def imports_ms(args: list[str]) -> float:
    out = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True, text=True, env=ENV).stderr
    return sum(int(m[1]) for m in re.finditer(r"import time:\s+\d+ \|\s+(\d+) \| jailcore", out)) / 1000


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "state.sqlite3"
        make_database(db)
        bare, _ = first_output(["-c", "print(1)"])
        print(f"python -c 'print(1)' (the floor): median {bare * 1000:.0f} ms")
        for label, args in (("--help", ["--help"]), ("status", ["status", "--state-db", str(db)]),
                            ("tail", ["tail", "--state-db", str(db)]), ("ctban list", ["ctban", "list", "--state-db", str(db)]),
                            ("history", ["history", "STEAM_1:0:42", "--state-db", str(db)])):
            cmd = ["-m", "jailcore", *args]
            median, best = first_output(cmd)
            print(f"jailcore {label:<11} median {median * 1000:4.0f} ms, best {best * 1000:4.0f} ms to first output "
                  f"({(median - bare) * 1000:+.0f} ms over the floor; jailcore's imports {imports_ms(cmd):.0f} ms)  aim < 150 ms")


if __name__ == "__main__":
    main()
