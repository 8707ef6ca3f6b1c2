"""One process, many servers, end to end over loopback: three simulated servers log to one
UDP port (told apart by sv_logsecret), each with its own RCON link; a fourth config is
refused at start, a fifth server refuses the RCON password, one server's RCON dies
mid-run, and the others go on enforcing. A CT ban
given in game on one server reaches the others' doors without a broker."""

from __future__ import annotations

import asyncio
import socket
import sqlite3
import subprocess
import sys
from contextlib import asynccontextmanager
from pathlib import Path

from jailcore.io.fleet import Fleet
from jailcore.io.logsource import SharedLog, UdpLog
from jailcore.sim.simserver import SimServer
from jailcore.store import CtBanRequest
from tests.test_live import config_text, populate, sent, special_days, until

ROOT = Path(__file__).resolve().parents[1]


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_config(path: Path, name: str, rcon_port: int, state: Path, listen: str, secret: str, password: str = "pw") -> str:
    text = config_text(rcon_port, state, log=f'secret = "{secret}"\n', password=password)
    text = text.replace('name = "t"', f'name = "{name}"').replace('listen = "127.0.0.1:0"', f'listen = "{listen}"')
    path.write_text(text, encoding="utf-8")
    return str(path)


@asynccontextmanager
async def fleet_of(paths: list[str], **options):
    fleet = Fleet(paths, rcon_backoff=(0.05, 0.2), auth_backoff=0.5, **options)
    task = asyncio.create_task(fleet.run())
    await asyncio.wait_for(fleet.ready.wait(), 60)
    try:
        yield fleet
    finally:
        fleet.stop()
        await asyncio.wait_for(task, 60)


async def test_three_servers_in_one_process_one_refused_one_losing_rcon(tmp_path):
    listen = f"127.0.0.1:{free_udp_port()}"
    secrets = {"a": "1111", "b": "2222", "c": "3333"}
    sims = {name: SimServer(password="pw", secret=secret) for name, secret in secrets.items()}
    paths = []
    for name, sim in sims.items():
        port = await sim.start()
        state = tmp_path / ("ab.sqlite3" if name in "ab" else "c.sqlite3")  # a and b share one state file
        paths.append(server_config(tmp_path / f"{name}.toml", name, port, state, listen, secrets[name]))
    wrong = SimServer(password="pw", secret="5555")  # e's config has the wrong RCON password: refused, the others go on
    paths.append(server_config(tmp_path / "e.toml", "e", await wrong.start(), tmp_path / "c.sqlite3", listen, "5555", password="nope"))
    bad = tmp_path / "d.toml"
    bad.write_text('[server]\nname = "d"\n[specialday.cooldown]\nrounds = "два"\n', encoding="utf-8")
    paths.insert(1, str(bad))

    async with fleet_of(paths) as fleet:
        assert list(fleet.refused) == [str(bad)] and "rounds" in fleet.refused[str(bad)]
        a, b, c, e = (fleet.daemon(n) for n in "abce")
        await until(lambda: e.client.state == "refused")
        assert a.log_port == b.log_port == c.log_port  # one UDP port for all three
        for sim in sims.values():
            await sim.log_to_daemon(("127.0.0.1", a.log_port))

        wardens = {}
        for name, sim in sims.items():
            wardens[name], _ = populate(sim, prisoners=9)
            sim.flush()
        await until(lambda: all(fleet.daemon(n).engine.state.warden == wardens[n].userid for n in "abc"))

        # c's server goes away mid-run: its commands wait, the others go on enforcing
        await sims["c"].stop_rcon()
        await until(lambda: c.client.state != "open")
        sims["c"].say(wardens["c"], "!game Король")
        sims["c"].flush()
        for name in "ab":
            sims[name].say(wardens[name], "!game Король")
            sims[name].flush()
        for name in "ab":
            await until(lambda n=name: sent(sims[n], f"jb_warn #{wardens[n].userid}"))
        assert len(c.session.outbox) >= 1 and not sent(sims["c"], f"jb_warn #{wardens['c'].userid}")
        # every line went to its own server, none to another
        assert all(d.udp.dropped.total() == 0 for d in (a, b, c))
        assert fleet.shared[listen].dropped.total() == 0

        # a CT ban given in game on a reaches b's door, with no broker in between: the
        # simulated servers number players alike, so a's warden is the same person as b's
        guard, on_b = wardens["a"], wardens["b"]
        assert guard.steamid == on_b.steamid
        special_days(sims["a"], guard, 3)  # allowed, slay, CT ban
        sims["a"].flush()
        await until(lambda: sent(sims["a"], f"jb_teamswap #{guard.userid} T"))
        await until(lambda: sent(sims["b"], f"jb_ctban_set #{on_b.userid}"), timeout=3)
        # he is on b's CT: moved off it, each command once its row is durable, so a moment later
        await until(lambda: sent(sims["b"], f"jb_teamswap #{on_b.userid} T"), timeout=3)
        assert guard.steamid in b.engine.state.ctbans and guard.steamid in c.engine.state.ctbans
        assert sims["b"].join(on_b, "CT") is False
        assert not any(d.stopping.is_set() for d in (a, b, c, e)) and e.client.state == "refused"

    for sim in [*sims.values(), wrong]:
        await sim.stop()
    with sqlite3.connect(tmp_path / "ab.sqlite3") as db:  # one file, each server's own rows
        assert {r[0] for r in db.execute("SELECT server FROM state")} >= {"a", "b"}
        assert {r[0] for r in db.execute("SELECT server FROM link")} == {"a", "b"}


async def test_an_admins_row_reaches_a_fleet_server_on_the_process_clock_without_a_wake_up(tmp_path):
    """On a fleet the admins' requests are polled at each server's tick of the process's clock (no timer a
    server): a row written with no wake-up (as the web page's when the wake-up socket is away) is applied."""
    listen = f"127.0.0.1:{free_udp_port()}"
    sims = {name: SimServer(password="pw", secret=secret) for name, secret in (("a", "1111"), ("b", "2222"))}
    paths = [server_config(tmp_path / f"{name}.toml", name, await sim.start(), tmp_path / "state.sqlite3", listen, sim.secret)
             for name, sim in sims.items()]
    async with fleet_of(paths) as fleet:
        b = fleet.daemon("b")
        assert b.ticks is not None  # on the process's clock
        await sims["b"].log_to_daemon(("127.0.0.1", b.log_port))
        _, ts = populate(sims["b"])
        sims["b"].flush()
        zek = ts[0]
        await until(lambda: zek.userid in b.engine.state.players)
        b.requests.woken.set = lambda: None  # type: ignore[method-assign]  # no wake-up reaches it: only the clock's poll
        b.store.submit(CtBanRequest(b.server, zek.steamid, zek.name, 30, None, "с часов", "Админ"))
        b.store.commit()
        await until(lambda: sent(sims["b"], f"jb_ctban_set #{zek.userid}"), timeout=10)
    for sim in sims.values():
        await sim.stop()


async def test_a_server_whose_state_file_cannot_be_opened_is_left_out(tmp_path):
    sims = [SimServer(password="pw"), SimServer(password="pw")]
    ports = [await s.start() for s in sims]
    good = server_config(tmp_path / "a.toml", "a", ports[0], tmp_path / "a.sqlite3", "127.0.0.1:0", "")
    (tmp_path / "not-ours.sqlite3").write_bytes(b"this is no database" * 100)
    broken = server_config(tmp_path / "b.toml", "b", ports[1], tmp_path / "not-ours.sqlite3", "127.0.0.1:0", "")
    async with fleet_of([good, broken]) as fleet:
        assert [d.server for d in fleet.daemons] == ["a"] and "not-ours" in fleet.refused[broken]
        a = fleet.daemon("a")
        await sims[0].log_to_daemon(("127.0.0.1", a.log_port))
        warden, _ = populate(sims[0], prisoners=9)
        sims[0].say(warden, "!game Король")
        sims[0].flush()
        await until(lambda: sent(sims[0], f"jb_warn #{warden.userid}"))
    for sim in sims:
        await sim.stop()


async def test_a_config_refused_at_start_joins_once_its_file_is_fixed(tmp_path):
    listen = f"127.0.0.1:{free_udp_port()}"
    sims = {n: SimServer(password="pw", secret=s) for n, s in (("a", "1111"), ("b", "2222"))}
    ports = {n: await sim.start() for n, sim in sims.items()}
    paths = [server_config(tmp_path / f"{n}.toml", n, ports[n], tmp_path / "s.sqlite3", listen, sims[n].secret) for n in "ab"]
    later = tmp_path / "d.toml"
    later.write_text("[server\n", encoding="utf-8")
    async with fleet_of([*paths, str(later)], watch_interval=0.05) as fleet:
        assert str(later) in fleet.refused
        dsim = SimServer(password="pw", secret="4444")
        server_config(later, "d", await dsim.start(), tmp_path / "s.sqlite3", listen, "4444")
        await until(lambda: any(d.server == "d" for d in fleet.daemons), timeout=5)
        d = fleet.daemon("d")
        await asyncio.wait_for(d.ready.wait(), 60)
        assert not fleet.refused and d.log_port == fleet.daemon("a").log_port  # it joined the shared port
        await dsim.log_to_daemon(("127.0.0.1", d.log_port))
        warden, _ = populate(dsim, prisoners=9)
        dsim.say(warden, "!game Король")
        dsim.flush()
        await until(lambda: sent(dsim, f"jb_warn #{warden.userid}"))
        assert d.peers is not None and d.ticks == (fleet.ticks, 0.5)
        assert all(x.ticks is not None and x.ticks[0] is fleet.ticks for x in fleet.daemons)  # one clock, the late one on it too
        await until(lambda: d.session.line_at is not None and fleet.ticks.members == len(fleet.daemons))
    for sim in [*sims.values(), dsim]:
        await sim.stop()


async def test_configs_saved_between_their_read_and_the_watchers_start_are_read(tmp_path):
    """The fleet reads its configs when it is made and starts watching them when it runs (a worker
    imports its notifier in between: seconds on a loaded box). A refused config fixed in that gap
    never joined, and a server's config edited in it ran the old text: each watcher took its first
    look at the file as it found it, the edit already in it. Each now starts from the file as read."""
    listen = f"127.0.0.1:{free_udp_port()}"
    sims = {n: SimServer(password="pw", secret=s) for n, s in (("a", "1111"), ("b", "2222"))}
    ports = {n: await sim.start() for n, sim in sims.items()}
    a = server_config(tmp_path / "a.toml", "a", ports["a"], tmp_path / "s.sqlite3", listen, "1111")
    b = tmp_path / "b.toml"
    b.write_text("[server\n", encoding="utf-8")
    fleet = Fleet([a, str(b)], watch_interval=0.05, rcon_backoff=(0.05, 0.2), auth_backoff=0.5)
    assert str(b) in fleet.refused and fleet.daemon("a").config.mode == "enforce"
    server_config(b, "b", ports["b"], tmp_path / "s.sqlite3", listen, "2222")  # fixed before the fleet runs
    Path(a).write_text(Path(a).read_text(encoding="utf-8").replace("[server]\n", '[server]\nmode = "observe"\n'), encoding="utf-8")
    task = asyncio.create_task(fleet.run())
    try:
        await until(lambda: any(d.server == "b" for d in fleet.daemons), timeout=30)
        await until(lambda: fleet.daemon("a").config.mode == "observe", timeout=30)
    finally:
        fleet.stop()
        await asyncio.wait_for(task, 60)
        for sim in sims.values():
            await sim.stop()


def test_shared_port_sends_each_datagram_to_its_server_and_drops_the_ambiguous():
    got: dict[str, list[bytes]] = {"a": [], "b": [], "open": []}
    a = UdpLog(got["a"].append, "1111")
    b = UdpLog(got["b"].append, "2222")
    shared = SharedLog([a, b])
    shared.datagram_received(b"\xff\xff\xff\xffS2222L line b", ("127.0.0.1", 5000))
    shared.datagram_received(b"\xff\xff\xff\xffS1111L line a", ("127.0.0.1", 5001))
    shared.datagram_received(b"\xff\xff\xff\xffS9999L forged", ("127.0.0.1", 5001))
    shared.datagram_received(b"\xff\xff\xff\xffS1111L outsider", ("10.1.2.3", 5001))
    assert got["a"] == [b"L line a"] and got["b"] == [b"L line b"]
    assert shared.dropped["unclaimed"] == 2
    # a server asking no secret is asked last, so it never takes another's datagram
    open_ = UdpLog(got["open"].append, "")
    shared = SharedLog([open_, a])
    shared.datagram_received(b"\xff\xff\xff\xffS1111L for a", ("127.0.0.1", 5001))
    shared.datagram_received(b"\xff\xff\xff\xffRL plain", ("127.0.0.1", 5002))
    assert got["a"][-1] == b"L for a" and got["open"] == [b"L plain"]
    # a reload that changes a secret forgets the learnt routes
    a.secret = "7777"
    shared.datagram_received(b"\xff\xff\xff\xffS1111L old secret", ("127.0.0.1", 5001))
    assert got["a"][-1] == b"L for a" and got["open"][-1] == b"L old secret"


def test_two_servers_on_one_port_with_one_secret_are_refused(tmp_path):
    listen = f"127.0.0.1:{free_udp_port()}"
    first = server_config(tmp_path / "a.toml", "a", 1, tmp_path / "s.sqlite3", listen, "1111")
    second = server_config(tmp_path / "b.toml", "b", 2, tmp_path / "s.sqlite3", listen, "1111")
    fleet = Fleet([first, second])
    try:
        assert [d.server for d in fleet.daemons] == ["a"] and "sv_logsecret" in fleet.refused[second]
    finally:
        for store in fleet.stores.values():
            store.close()


def test_jailcore_run_takes_a_folder_of_configs_and_status_shows_each(tmp_path):
    folder = tmp_path / "servers"
    folder.mkdir()
    for name in "xy":  # no server behind either: RCON unreachable is waited for, not fatal
        server_config(folder / f"{name}.toml", name, 1, tmp_path / "s.sqlite3", "127.0.0.1:0", "")
    (folder / "z.toml").write_text("not toml [", encoding="utf-8")
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    proc = subprocess.Popen([sys.executable, "-m", "jailcore", "run", "--workers", "1", "--config-dir", str(folder)], cwd=tmp_path, env=env,
                            stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        while not any("2 server(s) in one process, 1 refused" in line for line in lines):
            lines.append(proc.stderr.readline())
            assert lines[-1], "".join(lines)
        status = subprocess.run([sys.executable, "-m", "jailcore", "status", "--state-db", str(tmp_path / "s.sqlite3"), "--json"],
                                env=env, capture_output=True, text=True, timeout=30)
        for _ in range(50):
            if '"x"' in status.stdout and '"y"' in status.stdout:
                break
            subprocess.run(["sleep", "0.1"])
            status = subprocess.run([sys.executable, "-m", "jailcore", "status", "--state-db", str(tmp_path / "s.sqlite3"), "--json"],
                                    env=env, capture_output=True, text=True, timeout=30)
        assert '"x"' in status.stdout and '"y"' in status.stdout, status.stdout + status.stderr
    finally:
        proc.terminate()
        rest = proc.communicate(timeout=15)[1]
    assert proc.returncode == 1, rest  # one config was refused: said in the exit status
    assert "z.toml" in "".join(lines) + rest


async def test_a_fixed_config_joins_a_port_that_had_one_server_alone(tmp_path):
    listen = f"127.0.0.1:{free_udp_port()}"
    asim = SimServer(password="pw", secret="1111")
    first = server_config(tmp_path / "a.toml", "a", await asim.start(), tmp_path / "s.sqlite3", listen, "1111")
    later = tmp_path / "d.toml"
    later.write_text("[server\n", encoding="utf-8")
    async with fleet_of([first, str(later)], watch_interval=0.05) as fleet:
        dsim = SimServer(password="pw", secret="4444")
        server_config(later, "d", await dsim.start(), tmp_path / "s.sqlite3", listen, "4444")
        await until(lambda: any(d.server == "d" for d in fleet.daemons), timeout=5)
        d = fleet.daemon("d")
        await asyncio.wait_for(d.ready.wait(), 60)
        assert d.stop_reason is None and d.log_port == fleet.daemon("a").log_port  # the port it shares, not a bind that fails
        await dsim.log_to_daemon(("127.0.0.1", d.log_port))
        warden, _ = populate(dsim, prisoners=9)
        dsim.say(warden, "!game Король")
        dsim.flush()
        await until(lambda: sent(dsim, f"jb_warn #{warden.userid}"))
    for sim in (asim, dsim):
        await sim.stop()


async def test_a_live_reload_that_would_share_another_servers_secret_is_refused(tmp_path):
    listen = f"127.0.0.1:{free_udp_port()}"
    paths = [server_config(tmp_path / f"{n}.toml", n, 1, tmp_path / "s.sqlite3", listen, secret) for n, secret in (("a", "1111"), ("b", "2222"))]
    async with fleet_of(paths, watch_interval=0.05) as fleet:
        b = fleet.daemon("b")
        await asyncio.sleep(0.1)
        server_config(tmp_path / "b.toml", "b", 1, tmp_path / "s.sqlite3", listen, "1111")
        await until(lambda: b.reloads, timeout=5)
        assert "refused" in b.reloads[-1] and "sv_logsecret" in b.reloads[-1]
        assert b.udp.secret == "2222"  # the running config stays
