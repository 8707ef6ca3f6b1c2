"""`[rcon] timeout` is the game's silence, never the daemon's own (docs/guarantees.md): it counts
from the moment a command left for the game, not while it waited for its rows to be durable
(tests/test_mariadb_frozen.py, a MariaDB frozen with `timeout = 1.0`), and not while the
daemon's own event loop was held (a read on it waiting for a frozen database holds it up to
1.5 s): an answer that came in time is read before the clock judges the silence. Here the
simulated server runs in a thread of its own, so it answers while the daemon's loop is held."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from jailcore.config.config import load
from jailcore.io.daemon import Daemon
from jailcore.sim.simserver import SimServer
from tests.test_live import config_text, until

HELD = 1.0  # seconds the daemon's loop is held right after a command left: five timeouts
TIMEOUT = 0.2


@contextmanager
def sim_in_a_thread() -> Iterator[SimServer]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="simulated srcds", daemon=True)
    thread.start()
    sim = SimServer(password="pw")
    try:
        asyncio.run_coroutine_threadsafe(sim.start(), loop).result(timeout=30)
        yield sim
    finally:
        asyncio.run_coroutine_threadsafe(sim.stop(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=30)
        loop.close()


async def test_a_loop_held_past_the_timeout_does_not_take_an_answer_that_came_in_time_for_silence(tmp_path, caplog):
    with sim_in_a_thread() as sim:
        text = config_text(sim.port, tmp_path / "s.sqlite3").replace("timeout = 1.0", f"timeout = {TIMEOUT}")
        daemon = Daemon(load(text, "<t>", {}), rcon_backoff=(0.05, 0.2))
        loop = asyncio.get_running_loop()
        real, held = daemon.client.send_all, []

        def send_all(texts: list[str]) -> list[asyncio.Future[str]]:
            futures = real(texts)
            if not held:  # the first commands (the start's jb_status) left: the loop is held just after
                held.extend(texts)
                loop.call_soon(time.sleep, HELD)
            return futures

        daemon.client.send_all = send_all  # type: ignore[method-assign]
        task = asyncio.create_task(daemon.run())
        try:
            await daemon.ready.wait()
            await until(lambda: held and daemon.idle.is_set(), timeout=15)
            assert daemon.client.connects == 1 and daemon.client.state == "open", [r.message for r in caplog.records]
            assert not [r for r in caplog.records if "no answer to" in r.getMessage()]
            assert [c for c in sim.received if c in held] == held  # each once: none sent again
            assert sim.dups == 0
        finally:
            daemon.stop()
            await task
            daemon.store.close()
