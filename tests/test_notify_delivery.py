"""Delivery under attack (issue 32): the notifier's senders against stand-ins that misbehave, in
this process over a real SQLite queue, and whole `jailcore run` processes where only a process
shows it. A Telegram message its API cannot parse is sent as plain text, not lost; a 429 waited
out past the sender's lease does not make a second sender send the message again; a sink that
trickles its answer is given up on; messages held by a sender killed mid-delivery wait again
at the next start (not after the lease), and a sender that stops lets go of its own; a
webhook's 400 does not hold back the messages after it. In a fleet, a datagram burst on a log
port its servers share is said (the port, not a server, refused them; under `--workers` the
parent counts them), a server that stops alone is said while the others run, and a sink that
hangs holds back no punishment."""

from __future__ import annotations

import asyncio
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from jailcore.config.config import Config, load
from jailcore.config.notifyconfig import Sink
from jailcore.io.notify import notifier as notifier_module
from jailcore.io.notify.notifier import Notifier, holder_name
from jailcore.io.notify.post import judge, post
from jailcore.io.notify.text import DISCORD_CONTENT, block, requests_for, size
from jailcore.sim.simserver import SimServer
from jailcore.store.notices import Notices
from jailcore.store.portable import Db
from jailcore.store.sqlite import Store
from tests.standins import Discord, Telegram
from tests.test_durable import heard_from, jailcore_run
from tests.test_fleet import free_udp_port
from tests.test_live import config_text, populate, sent, until
from tests.test_notify import HOSTILE

ROOT = Path(__file__).resolve().parents[1]


def config(sinks: str) -> Config:
    return load(f'[server]\nname = "a"\n[rcon]\npassword = "x"\n{sinks}', "<test>", {})


def ban(i: int, name: str = "") -> dict:
    return {"kind": "ban", "id": i, "server": "a", "time": "2026-12-01T10:00:00", "round": 4, "rule": "conduct.advertising",
            "ref": "Общие 19", "reason": "реклама", "name": name or f"Игрок {i}", "steamid": f"STEAM_1:0:{i}", "minutes": 10}


def queued(path: Path, sink: Sink, events: list[dict], holder: str | None = None) -> list[int]:
    """Messages waiting for the sink (held by `holder`, under a two-minute lease, when given)."""
    db = Db(str(path))
    try:
        notices = Notices(db)
        with db.transaction():
            notices.put([(sink.key, "a", e["kind"], e["time"], e) for e in events])
        ids = [int(r["id"]) for r in db.rows("SELECT id FROM notices WHERE sink = ? ORDER BY id DESC LIMIT ?", (sink.key, len(events)))]
        if holder is not None:
            assert len(notices.take(sink.key, holder, 120.0)) == len(events)
        return sorted(ids)
    finally:
        db.close()


def rows(path: Path) -> list[sqlite3.Row]:
    with sqlite3.connect(path) as con:
        con.row_factory = sqlite3.Row
        return con.execute("SELECT * FROM notices ORDER BY id").fetchall()


async def sending(path: Path, cfg: Config, holder: str | None = None) -> Notifier:
    """A notifier of no daemon whose senders serve this database's queue."""
    notifier = Notifier([cfg], holder=holder)
    await notifier.start(lambda: [])
    assert await notifier._watch(str(path)) is not None
    for wake in notifier.wakes:
        wake.set()
    return notifier


@pytest.fixture
def state(tmp_path: Path) -> Path:
    path = tmp_path / "s.sqlite3"
    Store(path).close()
    return path


async def test_a_message_telegram_cannot_parse_is_sent_as_plain_text_once_not_lost(state):
    telegram = Telegram()
    telegram.unparsable = 1  # the first HTML message: 400 "can't parse entities"
    await telegram.start()
    cfg = config(f'[notify.telegram]\ntoken = "{telegram.token}"\nchat = "-100"\napi = "{telegram.api}"\n')
    queued(state, cfg.notify.sinks[0], [ban(1, HOSTILE)])
    notifier = await sending(state, cfg)
    try:
        await telegram.until(lambda: len(telegram.received) == 1)
        (got,) = telegram.received
        assert "parse_mode" not in got and HOSTILE in got["text"] and "Общие 19" in got["text"]  # his name as he wrote it, plain
        await until(lambda: rows(state)[0]["sent"] is not None, timeout=15)
        assert "as plain text" in rows(state)[0]["answer"]
        queued(state, cfg.notify.sinks[0], [ban(2)])
        await telegram.until(lambda: len(telegram.received) == 2)
        assert telegram.received[1]["parse_mode"] == "HTML"  # the next one has its markup again
        assert [s for _, s in telegram.seen] == [400, 200, 200]  # tried once with markup, never again
    finally:
        await notifier.close(flush=0)
        await telegram.stop()


async def test_a_429_waited_out_past_the_lease_is_not_sent_a_second_time_by_another_sender(state, monkeypatch):
    monkeypatch.setattr(notifier_module, "LEASE", 1.0)  # a lease far shorter than the wait Discord asks
    discord = Discord()
    discord.limited = [6.0]
    await discord.start()
    cfg = config(f'[notify.discord]\nurl = "{discord.url}"\n')
    queued(state, cfg.notify.sinks[0], [ban(1)])
    one, two = await sending(state, cfg), await sending(state, cfg)  # two processes with one sink and one database
    try:
        await discord.until(lambda: len(discord.received) == 1)
        await until(lambda: all(r["sent"] for r in rows(state)), timeout=30)
        await asyncio.sleep(0)
        limited_at = discord.seen[0][0]
        await until(lambda: time.monotonic() > limited_at + 8.0, timeout=30)  # past the first sender's wait: it has tried again, or not
        assert len(discord.received) == 1 and [s for _, s in discord.seen] == [429, 200]
    finally:
        await one.close(flush=0)
        await two.close(flush=0)
        await discord.stop()


async def test_a_sink_that_trickles_its_answer_is_given_up_on():
    async def trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(65536)
        writer.write(b"HTTP/1.1 200 OK\r\n")
        try:
            while True:  # a header line every half second: httpx's read timeout never trips
                writer.write(b"X-Slow: 1\r\n")
                await writer.drain()
                await asyncio.sleep(0.5)
        except (ConnectionError, asyncio.CancelledError):
            writer.close()

    server = await asyncio.start_server(trickle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with httpx.AsyncClient() as client:
            answer = await asyncio.wait_for(post(client, Sink("webhook", f"http://127.0.0.1:{port}/hook"), {"text": "x"}, deadline=1.0), 30)
        assert answer.outcome == "failed" and "no whole answer" in answer.said
    finally:
        server.close()


async def test_messages_a_killed_sender_held_wait_again_at_once_and_a_stopping_one_lets_go_of_its_own(state):
    discord = Discord()
    await discord.start()
    cfg = config(f'[notify.discord]\nurl = "{discord.url}"\n')
    sink = cfg.notify.sinks[0]
    pid = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True).stdout)
    host, space = holder_name().split(":")[:2]
    dead, alive = f"{host}:{space}:{pid}:0badf00d", f"{host}:{space}:1:0badf00d"  # a process gone; pid 1 always runs
    held_dead = queued(state, sink, [ban(1, "Убитый")], holder=dead)
    held_alive = queued(state, sink, [ban(2, "Живой")], holder=alive)
    notifier = await sending(state, cfg)
    try:
        await discord.until(lambda: discord.received, timeout=20)  # its lease had two minutes to run
        assert "Убитый" in discord.received[0]["content"] and "Живой" not in discord.received[0]["content"]
        await until(lambda: rows(state)[0]["sent"] is not None, timeout=15)
        assert rows(state)[1]["sent"] is None  # a living holder's message is left to it (taken with the first, had it been free)
        assert held_dead and held_alive
        discord.hanging = True
        queued(state, sink, [ban(3, "Последний")])
        for wake in notifier.wakes:
            wake.set()
        await until(lambda: len(discord.seen) >= 2, timeout=20)  # taken and hanging at the sink
        assert rows(state)[2]["lease"] is not None
    finally:
        await notifier.close(flush=0.2)
        await discord.stop()
    last = rows(state)[2]
    assert last["sent"] is None and last["lease"] is None  # waits for the next start, for anyone, at once


def test_a_webhooks_400_is_refused_for_good_and_a_429_of_no_wait_is_not_a_tight_loop():
    hook = Sink("webhook", "http://127.0.0.1:1/hook")
    assert judge(hook, 400, {}, b'{"error": "bad"}').outcome == "refused"  # not in the way of the messages after it
    assert judge(hook, 422, {}, b"").outcome == "refused"
    assert judge(hook, 503, {}, b"").outcome == "failed"
    discord = Sink("discord", "http://127.0.0.1:1/api/webhooks/1/x")
    wait = judge(discord, 429, {}, b'{"retry_after": 0, "global": false}')
    assert wait.outcome == "wait" and wait.retry_after >= 0.05


def test_a_stop_and_a_silent_link_say_no_clause_a_shared_port_says_itself_and_sizes_are_counted_as_the_apis_count():
    stopped = {"kind": "stopped", "server": "a", "time": "2026-12-01T10:00:00", "reason": "stopped (asked to stop)", "last_line": "x"}
    link = {"kind": "link", "server": "a", "time": "2026-12-01T10:00:00", "what": "rcon", "state": "silent", "seconds": 130,
            "reason": "refused"}
    port = {"kind": "drops", "server": "", "port": "0.0.0.0:27500", "time": "2026-12-01T10:00:00", "count": 120, "summary": "unclaimed 120"}
    for e in (stopped, link, port):
        text = "\n".join("".join(p.text for p in line) for line in block(e, "ru"))
        assert "Пункт" not in text, text
    assert "Причина: refused" in "\n".join("".join(p.text for p in line) for line in block(link, "ru"))
    assert "Последнее предупреждение jailcore: x" in "\n".join("".join(p.text for p in line) for line in block(stopped, "ru"))
    assert "Порт лога: 0.0.0.0:27500" in "\n".join("".join(p.text for p in line) for line in block(port, "ru"))

    discord = Sink("discord", "http://127.0.0.1:1/api/webhooks/1/x")
    proposal = {**ban(1, HOSTILE), "kind": "proposal", "step": "ban 0", "link": "https://jail.example.ru/proposals"}
    ((_, body),) = requests_for(discord, [(1, proposal)])
    assert "[a](http://x)" not in body["embeds"][0]["title"]  # a title reads markdown too: his text is escaped there as well
    emoji = [(i, ban(i, "😀" * 64)) for i in range(1, 200)]
    for _, body in requests_for(discord, emoji):
        assert size(body["content"]) <= DISCORD_CONTENT and size(body["embeds"][0]["description"]) <= 4096  # an emoji is two units
    for _, body in requests_for(Sink("telegram", "http://127.0.0.1:1", "1:a", "-1"), emoji):
        assert size(body["text"]) <= 4096


# -- whole processes --------------------------------------------------------------------------------


async def test_a_fleets_shared_port_burst_is_said_once_and_a_server_stopping_alone_is_said_while_the_others_run(tmp_path):
    """`--workers 2`: the parent owns the shared port and counts what no server took; and a
    fleet in one process, one of whose servers cannot take its log port."""
    telegram = Telegram()
    await telegram.start()
    sinks = f'[notify]\ndrops = 5\n[notify.telegram]\ntoken = "{telegram.token}"\nchat = "-1"\napi = "{telegram.api}"\n'
    listen = f"127.0.0.1:{free_udp_port()}"
    sims = {name: SimServer(password="pw", secret=secret) for name, secret in (("a", "1111"), ("b", "2222"))}
    paths = []
    for name, sim in sims.items():
        text = config_text(await sim.start(), tmp_path / "s.sqlite3", log=f'secret = "{sim.secret}"\n', rest=sinks)
        paths.append(tmp_path / f"{name}.toml")
        paths[-1].write_text(text.replace('name = "t"', f'name = "{name}"').replace('listen = "127.0.0.1:0"', f'listen = "{listen}"'))
    taken = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    taken.bind(("127.0.0.1", 0))
    try:
        args = ["--workers", "2", *[a for p in paths for a in ("--config", str(p))]]
        with (tmp_path / "run.log").open("a") as err:
            proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "jailcore", "run", *args, cwd=ROOT, stderr=err)
        try:
            for sim in sims.values():
                await heard_from(sim, 0)
            host, port = listen.rsplit(":", 1)
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                for _ in range(20):  # no server's secret: no one server's to count
                    s.sendto(b"\xff\xff\xff\xffS9999L 12/01/2026 - 10:00:00: nope", (host, int(port)))
            await telegram.until(lambda: any("Отброшено за минуту: 20" in r["_plain"] for r in telegram.received))
            (said,) = [r["_plain"] for r in telegram.received if "Отброшено" in r["_plain"]]
            assert f"Порт лога: {listen}" in said and "unclaimed 20" in said
            proc.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(proc.wait(), 30) == 0
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()

        sims["c"] = SimServer(password="pw")
        lone = config_text(await sims["c"].start(), tmp_path / "c.sqlite3", rest=sinks).replace('name = "t"', 'name = "c"')
        (tmp_path / "c.toml").write_text(lone.replace('listen = "127.0.0.1:0"', f'listen = "127.0.0.1:{taken.getsockname()[1]}"'))
        async with jailcore_run(tmp_path, paths[0], tmp_path / "c.toml") as proc:
            await telegram.until(lambda: any("Сервер: c" in r["_plain"] and "остановлен" in r["_plain"] for r in telegram.received))
            assert proc.returncode is None  # said while server a runs on
            proc.send_signal(signal.SIGTERM)
            await asyncio.wait_for(proc.wait(), 30)
        stops = [r["_plain"] for r in telegram.received if "остановлен" in r["_plain"] and "Сервер: c" in r["_plain"]]
        assert len(stops) == 1 and "cannot listen on" in stops[0]  # once, with why
    finally:
        taken.close()
        for sim in sims.values():
            await sim.stop()
        await telegram.stop()


async def test_a_hanging_sink_holds_back_no_punishment_and_a_restart_sends_what_a_killed_run_held(tmp_path):
    discord = Discord()
    await discord.start()
    discord.hanging = True
    sim = SimServer(password="pw")
    listen = f"127.0.0.1:{free_udp_port()}"
    rest = (f'[conduct.advertising]\nconfirm = "none"\nladder = ["ban 10m"]\n[conduct.names]\nenabled = false\n'
            f'[notify.discord]\nurl = "{discord.url}"\n')
    cfg = tmp_path / "a.toml"
    cfg.write_text(config_text(await sim.start(), tmp_path / "a.sqlite3", rest=rest).replace('listen = "127.0.0.1:0"', f'listen = "{listen}"'))
    host, port = listen.rsplit(":", 1)
    try:
        async with jailcore_run(tmp_path, cfg) as proc:
            await heard_from(sim, 0)
            await sim.log_to_daemon((host, int(port)))
            populate(sim, prisoners=1)
            first = sim.add_player("Первый", "T")
            sim.say(first, "заходите: www.one.example.ru")
            sim.flush()
            await until(lambda: sent(sim, f"jb_ban #{first.userid} "), timeout=15)
            await until(lambda: discord.seen, timeout=15)  # its message taken, and hanging at Discord
            second = sim.add_player("Второй", "T")
            started = time.monotonic()
            sim.say(second, "заходите: www.two.example.ru")
            sim.flush()
            await until(lambda: sent(sim, f"jb_ban #{second.userid} "), timeout=15)
            assert time.monotonic() - started < 10.0  # the game got it while the sink hangs (a request to it is given 15 s)
            proc.kill()  # -9, the first message held under a two-minute lease
            await proc.wait()
        discord.release()
        async with jailcore_run(tmp_path, cfg) as proc:
            await discord.until(lambda: all(any(n in r["content"] for r in discord.received) for n in ("Первый", "Второй")), timeout=30)
            proc.send_signal(signal.SIGTERM)
            await asyncio.wait_for(proc.wait(), 30)
        assert sum(r["content"].count("Первый") for r in discord.received) == 1
    finally:
        await sim.stop()
        await discord.stop()


async def test_messages_sent_two_weeks_ago_are_pruned_and_the_rest_kept(state):
    cfg = config('[notify.webhook]\nurl = "http://127.0.0.1:1/hook"\n')
    sink = cfg.notify.sinks[0]
    queued(state, sink, [ban(1), ban(2), ban(3)])
    with sqlite3.connect(state) as con:
        con.execute("UPDATE notices SET sent = '2026-01-01T10:00:00', answer = '204' WHERE id IN (1, 2)")
        con.execute("UPDATE notices SET sent = datetime('now', '-13 days') WHERE id = 2")
    notifier = await sending(state, cfg)
    try:
        await until(lambda: [r["id"] for r in rows(state)] == [2, 3], timeout=15)  # a sent one of 14 days and more: gone; the rest kept
    finally:
        await notifier.close(flush=0)
