"""The one clock of a process's servers (`tasks.ProcessClock`): each server ticks at its own save
interval (or sooner, at its deadline), a server's failing tick is its own clock task's failure and
not the others', a server off the clock gets no more ticks, and the clock ends with the process."""

from __future__ import annotations

import asyncio
from itertools import pairwise

from jailcore.io.rcon import RconClient, behind
from jailcore.io.tasks import ProcessClock
from jailcore.session import inputs as si
from tests.test_live import until
from tests.test_rcon_silence import answer_written, sim_in_a_thread, when_run


def link() -> RconClient:
    """A server's RCON link, never opened: nothing unread on it, its tick waits for nothing."""
    return RconClient("127.0.0.1", 9, "pw", 5.0, (0.05, 0.5), 1.0)


class Timed:
    """What the clock reads of a session: when it wants its next tick."""

    def __init__(self, save_interval: float, deadline: float = float("inf"), busy: bool = False):
        self.save_interval, self.due, self.busy = save_interval, deadline, busy  # busy: a command waits for its answer

    def deadline(self) -> float:
        return self.due


async def test_each_server_ticks_at_its_own_interval_on_one_clock():
    stopping = asyncio.Event()
    clock = ProcessClock(stopping)
    runner = asyncio.create_task(clock.run())
    ticks: dict[str, list[si.Tick]] = {"fast": [], "slow": []}
    fast = asyncio.create_task(clock.keep(ticks["fast"].append, Timed(0.05), link(), 0.0, lambda: "secret 2"))  # type: ignore[arg-type]
    slow = asyncio.create_task(clock.keep(ticks["slow"].append, Timed(0.3), link(), 0.5, lambda: ""))  # type: ignore[arg-type]
    await until(lambda: len(ticks["slow"]) >= 3 and len(ticks["fast"]) >= 10)
    assert clock.members == 2
    for name, interval in (("fast", 0.05), ("slow", 0.3)):
        times = [t.now for t in ticks[name]]
        # never sooner than its interval (its deadline is far): a late loop makes them later, never closer
        assert all(b - a >= interval - 1e-6 for a, b in pairwise(times)), (name, times)
    assert ticks["fast"][0].drops == "secret 2" and ticks["fast"][0].wall  # what the edge dropped, the wall clock for rows
    fast.cancel()
    slow.cancel()
    await asyncio.gather(fast, slow, return_exceptions=True)
    stopping.set()
    await asyncio.wait_for(runner, 30)  # the process stops and its last server has left: the clock ends
    assert clock.members == 0


async def test_a_server_wanting_a_tick_sooner_gets_it_at_its_deadline():
    clock = ProcessClock(asyncio.Event())
    runner = asyncio.create_task(clock.run())
    loop = asyncio.get_running_loop()
    session = Timed(3600.0, deadline=loop.time() + 0.05)  # a command's timeout, sooner than its hour's save interval
    ticks: list[si.Tick] = []
    kept = asyncio.create_task(clock.keep(ticks.append, session, link(), 0.0, lambda: ""))  # type: ignore[arg-type]
    await until(lambda: len(ticks) >= 3)  # phase 0 at once, then at its deadline, then while it is past
    assert ticks[1].now >= session.due and all(b.now - a.now >= 0.01 - 1e-6 for a, b in pairwise(ticks))
    kept.cancel()
    runner.cancel()
    await asyncio.gather(kept, runner, return_exceptions=True)


async def test_a_failing_tick_fails_that_servers_clock_and_not_the_others():
    stopping = asyncio.Event()
    clock = ProcessClock(stopping)
    runner = asyncio.create_task(clock.run())
    good: list[si.Tick] = []

    def broken(tick: si.Input) -> None:
        raise RuntimeError("a bug in one server's tick")

    bad = asyncio.create_task(clock.keep(broken, Timed(0.05), link(), 0.0, lambda: ""))  # type: ignore[arg-type]
    kept = asyncio.create_task(clock.keep(good.append, Timed(0.05), link(), 0.0, lambda: ""))  # type: ignore[arg-type]
    done, _ = await asyncio.wait([bad], timeout=30)
    assert done and isinstance(bad.exception(), RuntimeError)  # its supervisor's to judge (restart, or stop that server)
    before = len(good)
    await until(lambda: len(good) >= before + 3)  # the other server ticks on
    assert clock.members == 1 and not runner.done()
    kept.cancel()
    await asyncio.gather(kept, return_exceptions=True)
    after = len(good)
    stopping.set()
    await asyncio.wait_for(runner, 30)
    assert len(good) == after  # off the clock: no tick after its task ended


async def test_a_server_whose_answer_waits_unread_ticks_once_it_is_heard():
    """As a server's own clock (tests/test_rcon_silence.py): the game's silence is judged on what it sent, so a
    server whose link holds an answer nothing has read yet (the loop was blocked while it came) ticks after it."""
    with sim_in_a_thread() as (sim, sim_loop):
        client = RconClient("127.0.0.1", sim.port, "pw", timeout=1.0)
        await client.open()
        ran, order = when_run(sim), []
        clock = ProcessClock(asyncio.Event())
        try:
            client.send("jb_status").add_done_callback(lambda _: order.append("answer"))
            assert answer_written(ran, sim_loop), "the simulated server never ran the command"
            assert behind(client)  # in the socket, not read: what the clock asks of each server it ticks
            runner = asyncio.create_task(clock.run())
            kept = asyncio.create_task(clock.keep(lambda tick: order.append("tick"), Timed(3600.0, busy=True), client, 0.0, lambda: ""))  # type: ignore[arg-type]
            await until(lambda: "tick" in order)
            assert order == ["answer", "tick"]
            kept.cancel()
            runner.cancel()
            await asyncio.gather(kept, runner, return_exceptions=True)
        finally:
            await client.close()
