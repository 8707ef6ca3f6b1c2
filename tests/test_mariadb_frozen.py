"""A MariaDB state database that hangs without closing (its mariadbd stopped by SIGSTOP, as a
network partition looks to the daemon): a stopped server answers with a reset at once, a frozen
one answers nothing, and every query the daemon runs on its event loop would wait for the
driver's read timeout. The loop must go on all the same: every line handled, the offence's
command sent once its rows are in the local journal, and after SIGCONT every row in the
database once."""

from __future__ import annotations

import asyncio
import os
import signal
from contextlib import asynccontextmanager

from jailcore.config.config import load
from jailcore.sim.simserver import SimServer
from jailcore.store.errors import DatabaseFault
from jailcore.store.filter import Filter
from jailcore.store.location import open_reader
from tests.audit_rows import entries
from tests.mariadb import started
from tests.test_live import config_text, populate, running, sent, settled, special_days, until

FREEZE = 8.0  # seconds mariadbd is stopped: longer than the loop's timeout and quiet, and the writer's hang watch; shorter than 30 s


class Stalls:
    """The longest the event loop went without running a task that sleeps 0.05 s (a gap still
    open when it is read counts too: the task may not have run since)."""

    def __init__(self) -> None:
        self._longest = 0.0
        self._last = 0.0
        self._task: asyncio.Task | None = None

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            self._last = loop.time()
            await asyncio.sleep(0.05)
            self._longest = max(self._longest, loop.time() - self._last - 0.05)

    @property
    def longest(self) -> float:
        return max(self._longest, asyncio.get_running_loop().time() - self._last - 0.05)

    def __enter__(self) -> Stalls:
        self._last = asyncio.get_running_loop().time()
        self._task = asyncio.get_running_loop().create_task(self._watch())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


def answers(store) -> bool:
    try:
        store.pending("jail")
    except DatabaseFault:
        return False
    return True


@asynccontextmanager
async def jail_on_mariadb(tmp_path):
    """A MariaDB server of the test's own, a simulated game server, and the config of server `jail`
    on both (`[rcon] timeout = 1.0`, config_text's); mariadbd is never left stopped."""
    server = started(tmp_path / "db")
    try:
        url = server.database()
        sim = SimServer(password="pw")
        port = await sim.start()
        text = config_text(port, tmp_path / "jail.sqlite3", rest=f'url = "{url}"\n').replace('name = "t"', 'name = "jail"')
        assert "timeout = 1.0" in text
        yield server, url, sim, text
    finally:
        if server.proc is not None:
            os.kill(server.proc.pid, signal.SIGCONT)  # never leave it stopped: a stopped mariadbd ignores SIGTERM
        server.stop()


async def test_a_frozen_database_never_stalls_the_loop_and_loses_nothing(tmp_path):
    # A command waits for its rows to be durable: here until the writer's hang watch takes the frozen
    # server for away (HANG, then a probe of LOOP_TIMEOUT) and journals them. The session's RCON timeout
    # (1 s) counts from when the command left (`Sent`), and not while the loop was held.
    async with jail_on_mariadb(tmp_path) as (server, url, sim, text):
        async with running(load(text, "<t>", {}), sim) as daemon:
            warden, _ = populate(sim)
            sim.flush()
            await until(lambda: daemon.engine.state.warden == warden.userid, timeout=10)
            for i in range(4):  # two prohibitions are taken, two refused: a warning and a cancel each
                sim.say(warden, f"!prohibit p{i}")
            sim.flush()
            await until(lambda: len(sent(sim, "jb_cancel_prohibition")) == 2, timeout=10)
            await until(lambda: daemon.idle.is_set(), timeout=10)
            admin = sim.add_player("Смотритель", "T", admin="b")  # not "Админ": 001 general 16 kicks that name
            warned = entries(daemon.store, "action = 'warn'")[0]["id"]
            loop = asyncio.get_running_loop()
            received, lines = daemon.udp.received, 0
            assert server.proc is not None
            with Stalls() as stalls:
                os.kill(server.proc.pid, signal.SIGSTOP)
                try:
                    frozen_at = loop.time()
                    thawed_at = frozen_at + FREEZE
                    n, command_at = 0, None
                    while loop.time() < thawed_at - 0.5:
                        # Chat lines all the while (each a datagram the loop must take), at 1 s an offence,
                        # at 3.5 s an admin's pardon in game (its row needs the database: he is told to ask again).
                        sim.say(warden, "!prohibit p9" if n == 10 else f"держим строй {n}")
                        if n == 35:
                            sim.say(admin, f"!jcpardon {warned} ошибся")
                        lines += sim.flush()
                        n += 1
                        if command_at is None and len(sent(sim, "jb_cancel_prohibition")) == 3:
                            command_at = loop.time() - frozen_at
                        await asyncio.sleep(0.1)
                    during = len(sent(sim, "jb_cancel_prohibition"))
                    held = [send.text for _, send in daemon.outgoing.held]
                    journalled, away = daemon.writer.backend.journalled(), daemon.writer.backend.away
                    handled = daemon.udp.received - received
                    waiting = len(daemon.inbox.items)
                    stalled = stalls.longest
                finally:
                    os.kill(server.proc.pid, signal.SIGCONT)
            print(f"database frozen {FREEZE} s: the loop's longest stall {stalled:.3f} s, the offence's command sent at {command_at} s")
            assert stalled < 2.5, f"the loop stalled {stalled:.2f} s with the database frozen"
            assert lines >= 50 and handled == lines and waiting == 0  # every line taken and handled during the freeze
            assert daemon.stop_reason is None and not daemon.task_failures
            # The offence was judged at once, and its command sent once its rows were in the journal: the writer
            # did not wait for the frozen server.
            assert during == 3 and not held, (during, held)
            assert journalled > 0 and away is not None and daemon.writer.backend._hang.cut == 1
            await until(lambda: any("ask again" in text for text in admin.chat), timeout=10)  # in order, after the commands before it
            await until(lambda: daemon.writer.backend.away is None and daemon.writer.backend.journalled() == 0, timeout=40)
            await until(lambda: answers(daemon.store), timeout=10)  # the loop's connection, made again off the loop
            await until(lambda: daemon.idle.is_set() and not daemon.store.pending("jail"), timeout=20)
            sim.say(warden, "!prohibit p10")  # and after: the loop's store reads again (a line, an offence, a command)
            sim.say(admin, f"!jcpardon {warned} ошибся")  # and writes: the pardon asked again is taken
            sim.flush()
            await until(lambda: (daemon.store.pardons_for([warned]).get(warned) or {}).get("applied_at"), timeout=15)
            await until(lambda: len(sent(sim, "jb_cancel_prohibition")) == 4, timeout=15)
            await until(lambda: daemon.idle.is_set() and not daemon.store.pending("jail"), timeout=20)
        assert len(sent(sim, "jb_cancel_prohibition")) == 4  # each command once
        reader = open_reader(url)
        try:
            rows = [r for r in reader.entries(Filter(server="jail")) if r["rule"] == "prohibitions.max"]
        finally:
            reader.close()
        assert len(rows) == 8 and len({r["id"] for r in rows}) == 8  # a warning and a cancel for each of 4, none doubled
        assert {r["status"] for r in rows if r["id"] != warned} == {"delivered"}, [(r["id"], r["action"], r["status"]) for r in rows]
        assert not [text for text in admin.chat if "already" in text]  # the pardon refused in the freeze was never written


async def test_a_ct_ban_given_while_the_database_is_frozen_is_sent_with_a_one_second_timeout(tmp_path):
    """`[rcon] timeout = 1.0` with MariaDB frozen: the CT ban waited 3.5 s for its rows (the writer's
    hang watch, then the journal), and the clock counted that wait as the game's silence: 3 tries,
    `failed`, and the command never left (docs/guarantees.md: the timeout counts from the moment it
    left for the game)."""
    async with jail_on_mariadb(tmp_path) as (server, url, sim, text):
        async with running(load(text, "<t>", {}), sim) as daemon:
            warden, _ = await settled(sim, daemon)
            special_days(sim, warden, 2)  # allowed, then a slay: the next one is the CT ban
            sim.flush()
            await until(lambda: sent(sim, f"jb_slay #{warden.userid}") and daemon.idle.is_set(), timeout=10)
            assert server.proc is not None
            os.kill(server.proc.pid, signal.SIGSTOP)
            try:
                sim.round_end()
                sim.round_start()
                sim.make_warden(warden)
                sim.say(warden, "!sd Прятки")
                sim.flush()
                await until(lambda: sent(sim, f"jb_ctban_set #{warden.userid}"), timeout=20)
                await until(lambda: daemon.idle.is_set(), timeout=10)
                journalled = daemon.writer.backend.journalled()
            finally:
                os.kill(server.proc.pid, signal.SIGCONT)
            assert journalled > 0  # it went out while the database was still frozen, on the journal's word
            await until(lambda: daemon.writer.backend.away is None and daemon.writer.backend.journalled() == 0, timeout=40)
            await until(lambda: daemon.idle.is_set() and not daemon.store.pending("jail"), timeout=20)
            assert daemon.stop_reason is None
        assert len(sent(sim, f"jb_ctban_set #{warden.userid}")) == 1
        reader = open_reader(url)
        try:
            rows = [r for r in reader.entries(Filter(server="jail")) if r["rule"] == "specialday.cooldown"]
        finally:
            reader.close()
        assert [(r["action"], r["status"]) for r in rows if r["action"] == "ctban"] == [("ctban", "delivered")]
        assert "failed" not in {r["status"] for r in rows}, [(r["action"], r["status"], r["reply"]) for r in rows]
