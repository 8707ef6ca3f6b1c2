"""The daemon's write path alone (issue 35): how many audit/outbox rows a second the store's
writer thread makes durable, on the SQLite file and on a MariaDB server of the bench's own.

Each decision is what a live daemon writes for one command, in three submissions as the
session hands them over: its `pending` row (`Record`), the mark that it went out
(`MarkSent`), and the game's answer (`Mark` delivered); every tenth decision also writes the
server's link row, as a busy server does every few seconds. 40 servers share one writer (the
fleet's case). Two ways: all queued at once (`flood`: the writer's ceiling, a few big group
commits), and in waves of 20 decisions, each waited for until durable before the next is
queued (`waves`: a commit every 20 decisions, as a daemon whose commands wait for their rows).
Printed: rows made durable a second, best and median of 5 runs, commits a second, and the
process's CPU per row (median; on a box shared with other work it moves less than the rate).

    python bench/store_bench.py                 # SQLite, then MariaDB when mariadbd is installed
    python bench/store_bench.py --sqlite-only
    python bench/store_bench.py --sqlalchemy    # the same rows through SQLAlchemy Core's engine instead (issue 35's question)
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jailcore.engine.actions import Target

try:  # the typed actions (issue 35)
    from jailcore.engine.actions import Slay
except ImportError:  # the code from before them (the bench measures both)
    Slay = None
from jailcore.session import effects as fx

DECISIONS = 6000
SERVERS = 40
RUNS = 5


def rows_of(first_id: int, n: int) -> list[list[fx.Row]]:
    """The submissions of `n` decisions, ids from `first_id`, in the order a fleet hands them over."""
    out: list[list[fx.Row]] = []
    for k in range(n):
        row_id, server = first_id + k, f"jail-{k % SERVERS:03d}"
        seat = Target(100 + k % 60, f"STEAM_0:1:{5000 + k % 900}", f"игрок {k % 900}")
        if Slay is not None:
            action = Slay("2026-12-01T20:00:00", 7, "orders.disobey", "001 3.1", "не выполнил приказ", seat)
        else:
            from jailcore.engine.actions import Action

            action = Action("2026-12-01T20:00:00", 7, "slay", seat, "orders.disobey", "001 3.1", "не выполнил приказ")
        out.append([fx.Record(row_id, server, action, 3, f'jb_slay #{seat.userid} "не выполнил приказ" @{row_id}', "pending")])
        out.append([fx.MarkSent((row_id,))])
        done: list[fx.Row] = [fx.Mark(row_id, "delivered", "ok")]
        if k % 10 == 0:
            done.append(fx.SaveLink(server, "open", 0, "2026-12-01T20:00:00", "enforce", "2026-12-01T20:00:01"))
        out.append(done)
    return out


WAVE = 20


def _opener(where: str, alchemy: bool, journal: str | None = None) -> Callable[[], Any]:
    """How the writer opens its backend: the store's (a MariaDB one with its journal, as a daemon's), or the SQLAlchemy stand-in."""
    if not alchemy:
        return lambda: _open_store(where, journal)
    url = f"sqlite:///{where}" if journal is None else where.replace("mysql://", "mysql+pymysql://") + "?charset=utf8mb4"
    return lambda: AlchemyBackend(url)


def measure(open_backend: Callable[[], Any], waves: bool) -> tuple[float, float, float]:
    """(rows a second, commits a second, CPU µs a row) for one run of DECISIONS decisions through a fresh writer."""
    writer = _writer(open_backend)
    try:
        first = writer.call(lambda b: b.reserve_ids(DECISIONS))
        batches = rows_of(first, DECISIONS)
        count = sum(len(b) for b in batches)
        before = writer.batches
        start, cpu = time.perf_counter(), time.process_time()
        step = WAVE * 3 if waves else len(batches)
        for i in range(0, len(batches), step):
            for batch in batches[i : i + step]:
                writer.submit(batch)
            writer.settle()
        took, cpu = time.perf_counter() - start, time.process_time() - cpu
        if writer.error is not None:
            raise SystemExit(f"store_bench: the writer failed: {writer.error}")
        return count / took, (writer.batches - before) / took, cpu / count * 1e6
    finally:
        writer.close()


def report(label: str, runs: Sequence[tuple[float, float, float]]) -> None:
    rates = sorted(r for r, _, _ in runs)
    commits = statistics.median(c for _, c, _ in runs)
    cpu = statistics.median(u for _, _, u in runs)
    print(f"  {label:<34} {max(rates):>9,.0f} rows/s best, {statistics.median(rates):>9,.0f} median, {cpu:5.1f} µs CPU a row  "
          f"({commits:,.0f} commits/s, {len(runs)} runs of {DECISIONS * 3 + DECISIONS // 10:,} rows)")


def _writer(open_backend: Callable[[], Any]) -> Any:
    try:
        from jailcore.store import Writer  # the store's one face (issue 35)
    except ImportError:  # the code from before it
        from jailcore.store.writer import Writer
    writer = Writer(open_backend, 1.0, _errors())
    writer.start()
    return writer


def _errors() -> tuple[type[BaseException], ...]:
    try:
        from jailcore.store import DATABASE_ERRORS
    except ImportError:
        from jailcore.store.errors import DATABASE_ERRORS
    return DATABASE_ERRORS


def _open_store(where: str, journal: str | None = None) -> Any:
    try:
        from jailcore.store import open_store
    except ImportError:
        from jailcore.store.location import open_store
    return open_store(where, journal) if journal else open_store(where)


def sqlite_runs(tmp: Path, alchemy: bool, waves: bool) -> list[tuple[float, float, float]]:
    out = []
    for run in range(RUNS):
        path = str(tmp / f"state-{run}-{waves}.sqlite3")
        _open_store(path).close()  # made and upgraded before the clock starts
        out.append(measure(_opener(path, alchemy), waves))
    return out


def mariadb_runs(tmp: Path, alchemy: bool) -> dict[bool, list[tuple[float, float, float]]] | None:
    from tests.mariadb import INSTALL, MARIADBD, MariaServer

    if MARIADBD is None or INSTALL is None:
        print("  MariaDB: mariadbd is not installed (apt-get install mariadb-server): skipped")
        return None
    server = MariaServer(tmp / "mariadb")
    server.install()
    server.start()
    try:
        server.setup_user()
        out: dict[bool, list[tuple[float, float, float]]] = {False: [], True: []}
        for waves in (False, True):
            for run in range(RUNS):
                url = server.database(f"bench{run}_{int(waves)}")
                _open_store(url).close()
                out[waves].append(measure(_opener(url, alchemy, str(tmp / f"state-{run}-{waves}.journal")), waves))
        return out
    finally:
        server.stop()


AUDIT_COLUMNS = ("id", "server", "time", "round", "day", "action", "rule", "ref", "userid", "steamid", "name", "reason", "detail", "command",
                 "status")


class AlchemyBackend:
    """The same rows written through SQLAlchemy Core's engine and its compiled-statement cache:
    the measure of what its execution path costs the writer, not a backend of jailcore's."""

    path = "sqlalchemy"

    def __init__(self, url: str):
        import sqlalchemy as sa

        self.sa = sa
        self.engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
        meta = sa.MetaData()
        self.audit = sa.Table("audit", meta, autoload_with=self.engine)
        self.link = sa.Table("link", meta, autoload_with=self.engine)
        self.conn = self.engine.connect()
        self.tx: Any = None
        self._statements()

    def _begin(self) -> None:
        if self.tx is None:
            self.tx = self.conn.begin()

    def _statements(self) -> None:
        """Each statement built once, its values bound at each execution: SQLAlchemy's fastest
        use (its compiled cache then finds every one; built per row, it ran at half this rate)."""
        sa, audit, link = self.sa, self.audit, self.link
        self.insert_audit = sa.insert(audit)
        self.mark_sent = sa.update(audit).where(audit.c.id == sa.bindparam("i"), audit.c.status == "pending").values(reply="sent, no answer yet")
        self.mark = sa.update(audit).where(audit.c.id == sa.bindparam("i")).values(status=sa.bindparam("s"), reply=sa.bindparam("r"))
        columns = ("server", "rcon", "outbox", "last_line", "mode", "updated", "daemon", "dropped")
        if self.engine.dialect.name == "sqlite":
            from sqlalchemy.dialects.sqlite import insert
            ins = insert(link)
            self.save_link = ins.on_conflict_do_update(index_elements=["server"], set_={k: ins.excluded[k] for k in columns[1:]})
        else:
            from sqlalchemy.dialects.mysql import insert as my_insert
            mine = my_insert(link)
            self.save_link = mine.on_duplicate_key_update({k: mine.inserted[k] for k in columns[1:]})

    def write(self, rows: Sequence[fx.Row]) -> None:
        from jailcore.store.rows import audit_values

        self._begin()
        for row in rows:
            if isinstance(row, fx.Record):
                values = audit_values(row.id, row.server, row.action, row.day, row.command, row.status)
                self.conn.execute(self.insert_audit, dict(zip(AUDIT_COLUMNS, values, strict=True)))
            elif isinstance(row, fx.MarkSent):
                self.conn.execute(self.mark_sent, [{"i": i} for i in row.ids])
            elif isinstance(row, fx.Mark):
                self.conn.execute(self.mark, {"i": row.id, "s": row.status, "r": row.reply})
            elif isinstance(row, fx.SaveLink):
                self.conn.execute(self.save_link, {"server": row.server, "rcon": row.rcon, "outbox": row.outbox, "last_line": row.last_line,
                                                   "mode": row.mode, "updated": row.when, "daemon": row.daemon, "dropped": row.dropped})

    def commit(self) -> None:
        if self.tx is not None:
            self.tx.commit()
            self.tx = None

    def reserve_ids(self, count: int, gap: int = 0) -> int:
        self._begin()
        got = self.conn.execute(self.sa.text("SELECT COALESCE(MAX(id), 0) FROM audit")).scalar_one()
        self.commit()
        return int(got) + 1000

    def checkpoint(self) -> None:
        pass

    def still_there(self) -> str | None:
        return None

    def close(self) -> None:
        self.commit()
        self.conn.close()
        self.engine.dispose()


def main() -> int:
    alchemy = "--sqlalchemy" in sys.argv
    how = "SQLAlchemy Core engine" if alchemy else "jailcore's store"
    print(f"store_bench: the writer's audit/outbox rows, {DECISIONS:,} decisions of {SERVERS} servers, {how}")
    with tempfile.TemporaryDirectory() as tmp:
        for waves in (False, True):
            report(f"SQLite file (WAL), {'waves' if waves else 'flood'}", sqlite_runs(Path(tmp), alchemy, waves))
        if "--sqlite-only" not in sys.argv:
            got = mariadb_runs(Path(tmp), alchemy)
            if got is not None:
                for waves in (False, True):
                    report(f"MariaDB (own mariadbd), {'waves' if waves else 'flood'}", got[waves])
    return 0


if __name__ == "__main__":
    sys.exit(main())
