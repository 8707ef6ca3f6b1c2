"""The web page at a million audit rows: how long each page takes to answer.

Builds a state database of a million enforcements on two servers (900 a day, three years,
as tests/webkit.py fills it), then asks every page, as an admin, through the ASGI
interface uvicorn uses (no network in the figure), and prints each page's median and
worst of seven. Every page's median must be under 100 ms (issue 20); the worst shows what
a machine shared with other work adds.

`--mariadb`: the same rows in a MariaDB state database (a mariadbd of the bench's own,
started in a temporary folder as the tests start theirs; the rows copied from the SQLite
file), the page reading it over TCP; aim: every median under 50 ms (issue 27).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # measure the checkout this file is in, not an installed copy

from jailcore.web.auth import hash_password  # noqa: E402
from jailcore.web.data import warm  # noqa: E402
from tests.webkit import Browser, fill, stream, web  # noqa: E402

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
MARIADB = "--mariadb" in sys.argv
ROWS = int(ARGS[0]) if ARGS else 1_000_000
LIMIT_MS = 50.0 if MARIADB else 100.0


async def measure(path: Path, url: str = "") -> list[tuple[str, float, float]]:
    page = web(path, users={"admin": hash_password("benchmark password")}) if not url else maria_web(url)
    app = page.app()
    admin = Browser(app)
    await admin.login("admin", "benchmark password")
    start = time.perf_counter()
    await page.read(warm, page.sources, page.clock())  # what `jailcore web` does at start, in the background
    cold = (time.perf_counter() - start) * 1000
    reader = page.sources.sources[0].reader
    newest = {"id": reader.max_id()}  # a place in the log: the page's cursors are places
    old = reader.entry(ROWS // 3)
    assert old is not None
    pages = {
        "live": "/live",
        "live, one server": "/live?server=jail-b",
        "live, a name": "/live?player=%D0%B8%D0%B3%D1%80%D0%BE%D0%BA+100123",
        "live, rare action, since 1d": "/live?action=ctban&since=1d",
        "live, page 50 back": f"/live?before=0:{newest['id'] - 50 * 100}",
        "story, newest round": "/story?server=jail-a",
        "story, an old enforcement": f"/story?server={old['server']}&id={old['id']}",
        "players, by name": "/players?q=%D0%B8%D0%B3%D1%80%D0%BE%D0%BA+1001",
        "player, by steamid": f"/player?key={old['steamid']}",
        "servers": "/servers",
        "bans, active": "/bans?state=active",
        "CT bans": "/ctbans",
        "activity": "/activity",
        "charts, 4 weeks": "/charts?weeks=4",
        "charts, 26 weeks": "/charts?weeks=26",
    }
    out = [("(at start, in the background: 26 weeks of charts counted)", cold, cold)]
    for label, target in pages.items():
        await admin.get(target)  # its template compiled once, as on any running page
        times = []
        for _ in range(7):
            start = time.perf_counter()
            answer = await admin.get(target)
            times.append((time.perf_counter() - start) * 1000)
            assert answer.status == 200, (target, answer.status)
        out.append((label, statistics.median(times), max(times)))
    times = []
    for _ in range(5):  # a stream asked for the whole table: its first batch
        start = time.perf_counter()
        async with stream(app, "/live/events?cursor=0:0:0", admin.cookie_header()) as (parts, _task):
            got = b""
            while b"event: entry" not in got:
                got += await parts.get() or b""
        times.append((time.perf_counter() - start) * 1000)
    out.append(("live stream from cursor 0:0:0, first batch", statistics.median(times), max(times)))
    page.sources.close()
    return out


def maria_web(url: str):
    from datetime import datetime

    from jailcore.config.config import WebConfig, load
    from jailcore.web.app import Web
    from jailcore.web.data import Sources
    from tests.webkit import SERVERS

    configs = [load(f'[server]\nname = "{s}"\nrulebook = "all"\n[rcon]\npassword = "x"\n[state]\nurl = "{url}"\n', "<bench>", {})
               for s in SERVERS]
    return Web(Sources(configs), WebConfig(users={"admin": hash_password("benchmark password")}), poll=0.05,
               clock=lambda: datetime(2026, 11, 30, 22, 0))


def copy_to_mariadb(path: Path, url: str) -> None:
    """The SQLite file's rows into the MariaDB store's own tables, in id order (their places)."""
    import sqlite3

    from jailcore.store.mariadb import MariaStore, connect, target

    MariaStore(url).close()  # its tables
    lite = sqlite3.connect(path)
    db = connect(target(url), autocommit=False, dicts=False)
    with db.cursor() as cur:
        for table in ("audit", "names", "pardons", "loglines", "state", "standing", "ctban_requests", "link"):
            names = [r[1] for r in lite.execute(f"PRAGMA table_info({table})")]
            columns = ", ".join(f"`{n}`" for n in names)
            rows = lite.execute(f"SELECT {columns.replace('`', '')} FROM {table}" + (" ORDER BY id" if "id" in names else ""))
            while batch := rows.fetchmany(5000):
                cur.executemany(f"INSERT INTO {table} ({columns}) VALUES ({', '.join(['%s'] * len(names))})", batch)
                db.commit()
        cur.execute("UPDATE id_blocks SET next = (SELECT MAX(id) + 1 FROM audit) WHERE name = 'audit'")
        cur.execute("ANALYZE TABLE audit, pardons, loglines")
        cur.fetchall()
    db.commit()
    db.close()
    lite.close()


def main() -> int:
    if MARIADB:
        from tests.mariadb import INSTALL, MARIADBD

        if MARIADBD is None or INSTALL is None:
            print("web_bench --mariadb: mariadbd is not installed (apt-get install mariadb-server): skipped")
            return 0
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "state.sqlite3"
        start = time.perf_counter()
        fill(path, ROWS)
        print(f"web_bench: {ROWS:,} audit rows built in {time.perf_counter() - start:.1f} s ({path.stat().st_size / 2**20:.0f} MB)")
        if not MARIADB:
            results = asyncio.run(measure(path))
        else:
            from tests.mariadb import MariaServer

            server = MariaServer(Path(tmp) / "mariadb")
            server.install()
            server.start()
            try:
                server.setup_user()
                url = server.database("jailcore")
                start = time.perf_counter()
                copy_to_mariadb(path, url)
                print(f"web_bench: copied into MariaDB (its own mariadbd, 127.0.0.1) in {time.perf_counter() - start:.1f} s")
                results = asyncio.run(measure(path, url))
            finally:
                server.stop()
    worst = 0.0
    for label, median, most in results:
        print(f"  {label:<45} median {median:6.1f} ms   worst {most:6.1f} ms")
        if not label.startswith("("):
            worst = max(worst, median)
    print(f"web_bench: slowest page's median {worst:.1f} ms (limit {LIMIT_MS:.0f} ms): {'ok' if worst < LIMIT_MS else 'TOO SLOW'}")
    return 0 if worst < LIMIT_MS else 1


if __name__ == "__main__":
    sys.exit(main())
