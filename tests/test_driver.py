"""The driver's own costs, held to what they promise: a line that finds its server idle is
handled in the datagram's callback (and a failure there still reaches the supervisor), and a
commit of the shared writer wakes only the servers it releases something for."""

from __future__ import annotations

import asyncio

from jailcore.config.config import load
from jailcore.io.fleet import Fleet
from jailcore.io.parts import Inbox
from jailcore.session import inputs as si
from jailcore.sim.simserver import SimServer
from tests.test_fleet import free_udp_port
from tests.test_live import config_text, live, populate, until


async def test_a_line_to_an_idle_server_is_handled_in_its_callback_and_a_failure_there_reaches_the_supervisor(tmp_path):
    async with live(tmp_path) as (sim, daemon):
        _, ts = populate(sim)
        sim.flush()
        await until(lambda: daemon.engine.state.round == 2 and daemon.idle.is_set())
        queued: list[object] = []
        real_put = daemon.inbox.put
        daemon.inbox.put = lambda item: (queued.append(item), real_put(item))  # type: ignore[method-assign]
        handled = daemon.udp.received
        # A line that comes while a tick, a reply or the writer's news waits in the inbox rightly waits
        # behind it (a loaded box saw the one line of a test find a reply there): of lines sent apart,
        # most find the server idle and are handled in their callback.
        for k in range(8):
            sim.say(ts[0], f"строка {k}")
            sim.flush()
            await asyncio.sleep(0.03)
        sim.round_end()
        sim.flush()
        await until(lambda: daemon.udp.received >= handled + 9 and not daemon.engine.state.round_open)
        waited = [q for q in queued if isinstance(q, si.LogRecord)]
        assert len(waited) <= 3, waited
        daemon.inbox.put = real_put  # type: ignore[method-assign]

        real = daemon.session.handle

        def handle(event, now):
            if isinstance(event, si.LogRecord) and b"Round_Start" in event.data:
                raise RuntimeError("a bug on one line")
            return real(event, now)

        daemon.session.handle = handle  # type: ignore[method-assign]
        sim.round_start()
        sim.flush()
        await until(lambda: any("a bug on one line" in f for f in daemon.task_failures))
        daemon.session.handle = real  # type: ignore[method-assign]
        await until(lambda: daemon.inbox.serving)  # the supervisor started the task again
        sim.round_end()
        sim.flush()
        await until(lambda: not daemon.engine.state.round_open)  # and lines are handled again
        assert daemon.stop_reason is None


async def test_the_writers_news_holds_a_line_back_only_when_it_changes_the_store():
    """Rows made durable are no input: a line (or a relayed ban's door) is handled at once beside them. A file
    written afresh or a database error is read by the server's task first, so a line then waits behind it."""
    inbox = Inbox()
    assert not inbox.waits
    inbox.written(None, None)
    assert inbox.ready.is_set() and not inbox.waits
    inbox.written(None, "the state file was written afresh")
    assert inbox.waits
    inbox.news.clear()
    inbox.written(OSError("disk full"), None)
    assert inbox.waits
    inbox.news.clear()
    inbox.put(si.Tick(0.0, ""))
    assert inbox.waits


async def test_a_commit_of_the_shared_writer_wakes_only_the_servers_it_releases_something_for(tmp_path):
    sims = [SimServer(password="pw"), SimServer(password="pw")]
    paths = []
    for k, sim in enumerate(sims):
        port = await sim.start()
        text = config_text(port, tmp_path / "fleet.sqlite3").replace('name = "t"', f'name = "s{k}"')
        path = tmp_path / f"s{k}.toml"
        path.write_text(text.replace('listen = "127.0.0.1:0"', f'listen = "127.0.0.1:{free_udp_port()}"'), encoding="utf-8")
        load(path.read_text(encoding="utf-8"), str(path), {})  # a valid config
        paths.append(str(path))
    fleet = Fleet(paths)
    task = asyncio.create_task(fleet.run())
    try:
        await fleet.ready.wait()
        quiet, busy = fleet.daemons
        woken = []
        real = quiet.inbox.written
        quiet.inbox.written = lambda error, note: (woken.append(note), real(error, note))  # type: ignore[method-assign]
        await asyncio.sleep(1.2)  # both settle: their first saves and link rows are durable
        await sims[0].stop()  # the quiet server's game goes away with a command of it waiting to be sent
        await until(lambda: not quiet.client.is_open)
        quiet.session.say_to_admins("a word for the admins")
        quiet._perform(quiet.session.flush())
        assert not quiet.idle.is_set()  # it waits, but not for the disk
        woken.clear()
        commits = busy.writer.batches
        for _ in range(20):
            busy.save()
            await asyncio.sleep(0.02)
        await until(lambda: busy.writer.batches >= commits + 5)
        assert quiet.inbox.wants == 0 or quiet.inbox.wants > quiet.writer.durable
        assert len(woken) <= 2, woken  # its own tick at most, not a wake-up at each of the busy server's commits
    finally:
        fleet.stop()
        await task
        for sim in sims:
            await sim.stop()
