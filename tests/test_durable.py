"""What a kill -9 of `jailcore run` may not part: a decision's row, the state it made (the
ladder step it climbed) and the word it sent (a command to the game, a CT ban to the other
servers). Real parts: `jailcore run` in its own process, killed with SIGKILL, the simulated
srcds over real RCON and UDP, a real SQLite file; a slow disk is another connection holding
the file's write lock, as a backup or a second program would."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from jailcore.sim.simserver import SimServer
from tests.test_fleet import free_udp_port
from tests.test_live import config_text, populate, sent, special_days, until

ROOT = Path(__file__).resolve().parents[1]

# Every link in chat is advertising (001 Общие 19); a ladder of three distinct steps, carried
# out at once (no admin's confirmation), so each offence shows the step it reached.
ADVERTISING = '[conduct.advertising]\nconfirm = "none"\nladder = ["warn", "slay", "kick"]\n'


def server_toml(path: Path, name: str, sim_port: int, state: Path, listen: str, rest: str = "", secret: str = "") -> Path:
    log = f'secret = "{secret}"\n' if secret else ""
    text = config_text(sim_port, state, log=log, rest=rest).replace('name = "t"', f'name = "{name}"').replace('listen = "127.0.0.1:0"', f'listen = "{listen}"')
    path.write_text(text, encoding="utf-8")
    return path


@asynccontextmanager
async def jailcore_run(tmp_path: Path, *configs: Path) -> AsyncIterator[asyncio.subprocess.Process]:
    """`jailcore run` over these configs in one process (the servers a kill -9 takes together),
    its log in `run.log`; killed at the end if still alive."""
    args = ["--workers", "1", *[a for c in configs for a in ("--config", str(c))]]
    with (tmp_path / "run.log").open("a") as err:
        proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "jailcore", "run", *args, cwd=ROOT,
                                                    env={**os.environ, "PYTHONPATH": str(ROOT)}, stderr=err)
    try:
        yield proc
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def killed(proc: asyncio.subprocess.Process) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    assert await asyncio.wait_for(proc.wait(), 60) == -signal.SIGKILL


async def heard_from(sim: SimServer, before: int) -> None:
    """A (new) daemon asked the shim for its players: it has started and reads the log."""
    await until(lambda: len(sent(sim, "jb_status")) > before, timeout=30)


async def test_a_ladder_step_survives_a_kill_9_right_after_its_command_reached_the_game(tmp_path):
    sim = SimServer(password="pw")
    listen = f"127.0.0.1:{free_udp_port()}"
    cfg = server_toml(tmp_path / "a.toml", "a", await sim.start(), tmp_path / "a.sqlite3", listen, ADVERTISING)
    host, port = listen.rsplit(":", 1)
    try:
        async with jailcore_run(tmp_path, cfg) as proc:
            await heard_from(sim, 0)
            await sim.log_to_daemon((host, int(port)))
            _, (spammer, *_) = populate(sim)
            sim.say(spammer, "заходите: www.example1.ru")  # step 1: a warning
            sim.flush()
            await until(lambda: sent(sim, f"jb_warn #{spammer.userid} "), timeout=15)
            sim.say(spammer, "заходите: www.example2.ru")  # step 2: a slay
            sim.flush()
            await until(lambda: sent(sim, f"jb_slay #{spammer.userid} "), timeout=15)
            await killed(proc)  # at once: well inside the 2 s a plain line's state may wait
        asked = len(sent(sim, "jb_status"))
        async with jailcore_run(tmp_path, cfg) as proc:
            await heard_from(sim, asked)
            sim.round_end()
            sim.round_start()  # alive again, to be punished again
            sim.say(spammer, "заходите: www.example3.ru")  # step 3
            sim.flush()
            await until(lambda: sent(sim, f"jb_kick #{spammer.userid} "), timeout=15)
            # Not step 2 again: one slay decided (one audit id) and run once in the game. The kill may land
            # before the slay's answer was read: the next run then sends it again with its id, and the shim
            # answers `ok dup` without running it (protocol.md, the id token; as test_reliability's restart).
            slays = sent(sim, f"jb_slay #{spammer.userid} ")
            assert len({s.rsplit(" @", 1)[-1] for s in slays}) == 1, slays
            assert len([a for a in sim.shim.actions if a.startswith("jailcore slayed")]) == 1, sim.shim.actions
            proc.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(proc.wait(), 20) == 0
        with sqlite3.connect(tmp_path / "a.sqlite3") as db:
            steps = [a for (a,) in db.execute("SELECT action FROM audit WHERE rule = 'conduct.advertising' ORDER BY seq")]
        assert steps == ["warn", "slay", "kick"], steps
    finally:
        await sim.stop()


async def test_a_ct_ban_reaches_the_other_server_only_once_its_row_is_durable(tmp_path):
    """Server a's CT ban crosses to b (the same process) only after a's row is committed: with
    the file's write lock held elsewhere it is decided and not told, and a kill -9 then leaves
    b's game without a ban that a's log never shows."""
    sims = {n: SimServer(password="pw", secret=s) for n, s in (("a", "1111"), ("b", "2222"))}
    db = tmp_path / "ab.sqlite3"
    listen = {n: f"127.0.0.1:{free_udp_port()}" for n in sims}
    cfgs = [server_toml(tmp_path / f"{n}.toml", n, await sim.start(), db, listen[n], secret=sim.secret) for n, sim in sims.items()]
    try:
        async with jailcore_run(tmp_path, *cfgs) as proc:
            for n, sim in sims.items():
                await heard_from(sim, 0)
                host, port = listen[n].rsplit(":", 1)
                await sim.log_to_daemon((host, int(port)))
            guard, _ = populate(sims["a"])
            on_b, _ = populate(sims["b"])
            special_days(sims["a"], guard, 2)  # allowed, then a slay; the third is a CT ban
            sims["a"].flush()
            sims["b"].flush()
            await until(lambda: sent(sims["a"], f"jb_slay #{guard.userid} "), timeout=15)
            lock = sqlite3.connect(db, isolation_level=None)
            lock.execute("BEGIN IMMEDIATE")  # the disk is slow: nothing the daemon writes is durable for now
            try:
                special_days(sims["a"], guard, 2)  # the next round's day: the CT ban
                sims["a"].flush()
                await until(lambda: "ctban" in (tmp_path / "run.log").read_text(encoding="utf-8"), timeout=10)  # decided
                await asyncio.sleep(0.5)
                assert not sent(sims["b"], "jb_ctban_set"), "b was told of a ban a's log does not hold"
                assert not sent(sims["a"], f"jb_teamswap #{guard.userid}")  # nor did a's own command leave
                await killed(proc)
            finally:
                lock.rollback()
                lock.close()
        with sqlite3.connect(db) as con:
            assert con.execute("SELECT count(*) FROM audit WHERE action = 'ctban'").fetchone() == (0,)
        assert not sent(sims["b"], "jb_ctban_set")
        asked = {n: len(sent(sim, "jb_status")) for n, sim in sims.items()}
        async with jailcore_run(tmp_path, *cfgs) as proc:  # started again, the disk free: the next CT ban crosses at once
            for n, sim in sims.items():
                await heard_from(sim, asked[n])
            special_days(sims["a"], guard, 2)
            sims["a"].flush()
            await until(lambda: sent(sims["b"], f"jb_ctban_set #{on_b.userid} "), timeout=15)
            with sqlite3.connect(db) as con:
                assert con.execute("SELECT count(*) FROM audit WHERE server = 'a' AND action = 'ctban'").fetchone() == (1,)
            proc.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(proc.wait(), 20) == 0
    finally:
        for sim in sims.values():
            await sim.stop()
