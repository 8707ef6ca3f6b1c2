"""`[rcon] timeout` is the game's silence, never the daemon's own (docs/guarantees.md): it counts
from the moment a command left for the game, not while it waited for its rows to be durable
(tests/test_mariadb_frozen.py, a MariaDB frozen with `timeout = 1.0`), and not while the
daemon's own event loop was held (a read on it waiting for a frozen database holds it up to
1.5 s): an answer that came in time is read before the clock judges the silence. Here the
simulated server runs in a thread of its own, so it answers while the daemon's loop is held;
the loop is held until that answer has been written, and on for three timeouts: the clock
wakes far past its deadline with the answer waiting in the socket, however loaded the box."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from jailcore.config.config import load
from jailcore.io.daemon import Daemon
from jailcore.io.rcon import RconClient
from jailcore.sim.simserver import SimServer
from tests.test_live import WIDE, config_text, until

TIMEOUT = 1.0  # the game's silence: far above a loaded box's scheduling stalls, for the commands after the held ones
HELD = 3 * TIMEOUT  # the daemon's loop held right after the first commands left, and at least until they were answered


@contextmanager
def sim_in_a_thread() -> Iterator[tuple[SimServer, asyncio.AbstractEventLoop]]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="simulated srcds", daemon=True)
    thread.start()
    sim = SimServer(password="pw")
    try:
        asyncio.run_coroutine_threadsafe(sim.start(), loop).result(timeout=30)
        yield sim, loop
    finally:
        asyncio.run_coroutine_threadsafe(sim.stop(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=30)
        loop.close()


def when_run(sim: SimServer, which: Callable[[str], bool] = lambda text: True) -> threading.Event:
    """Set, in the simulated server's thread, once it has run a command `which` takes."""
    ran, run = threading.Event(), sim.execute

    def execute(text: str) -> str:
        try:
            return run(text)
        finally:
            if which(text):
                ran.set()

    sim.execute = execute  # type: ignore[method-assign]
    return ran


def answer_written(ran: threading.Event, sim_loop: asyncio.AbstractEventLoop) -> bool:
    """Blocks the test's loop (no await: nothing is read meanwhile) until the simulated server ran the command
    and ended the step of its loop that wrote the answer; False if it never ran it."""
    done = ran.wait(WIDE)
    asyncio.run_coroutine_threadsafe(asyncio.sleep(0), sim_loop).result(WIDE)
    return done


async def test_a_loop_held_past_the_timeout_does_not_take_an_answer_that_came_in_time_for_silence(tmp_path, caplog):
    with sim_in_a_thread() as (sim, sim_loop):
        text = config_text(sim.port, tmp_path / "s.sqlite3").replace("timeout = 1.0", f"timeout = {TIMEOUT}")
        daemon = Daemon(load(text, "<t>", {}), rcon_backoff=(0.05, 0.2))
        loop = asyncio.get_running_loop()
        real, held, answered = daemon.client.send_all, [], []
        ran = when_run(sim, lambda text: text in held)

        def hold(left: float) -> None:
            """The daemon's loop held: until the server ran the command and ended the step of its loop that
            wrote the answers (that command's and its end marker's, read in the same segment), and at least
            `HELD` after the command left: its timeout long past when the loop goes on."""
            answered.append(answer_written(ran, sim_loop))
            time.sleep(max(0.0, left + HELD - time.monotonic()))

        def send_all(texts: list[str]) -> list[asyncio.Future[str]]:
            if held:
                return real(texts)
            held.extend(texts)  # the first commands (the start's jb_status), known before the server can run them
            futures = real(texts)
            loop.call_soon(hold, time.monotonic())  # they left: the loop is held just after
            return futures

        daemon.client.send_all = send_all  # type: ignore[method-assign]
        task = asyncio.create_task(daemon.run())
        try:
            await daemon.ready.wait()
            await until(lambda: held and daemon.idle.is_set(), timeout=15)
            assert answered == [True], "the simulated server did not run the held command while the loop was held"
            assert daemon.client.connects == 1 and daemon.client.state == "open", [r.message for r in caplog.records]
            assert not [r for r in caplog.records if "no answer to" in r.getMessage()]
            assert [c for c in sim.received if c in held] == held  # each once: none sent again
            assert sim.dups == 0
        finally:
            daemon.stop()
            await task
            daemon.store.close()


async def test_caught_up_hands_on_the_answers_that_came_before_it_was_called():
    """The clock's guarantee itself: an answer already in the socket when `caught_up` is called (the loop
    was blocked while it came, nothing read it) has reached its future's callbacks when it returns."""
    with sim_in_a_thread() as (sim, sim_loop):
        client = RconClient("127.0.0.1", sim.port, "pw", timeout=TIMEOUT)
        await client.open()
        ran, got = when_run(sim), []
        try:
            future = client.send("jb_status")
            future.add_done_callback(got.append)
            assert answer_written(ran, sim_loop), "the simulated server never ran the command"
            await client.caught_up()
            assert got == [future] and future.result().startswith("{"), got
        finally:
            await client.close()
