"""Notifications (issue 32) from a real `jailcore run` (its own process, the simulated srcds over
real RCON and UDP, a real SQLite file) to stand-ins for Discord's webhook and Telegram's Bot API
(tests/standins.py: real HTTP on 127.0.0.1, answering as their documentation says, 429s
included): a proposal reaches both with its clause, the round's excerpt and the page's link; a
429 is waited out as asked; a player named `@everyone <b>x</b> [a](http://x)` pings nobody and
breaks no markup; a burst of 50 bans is a few messages; a stand-in stopped for a while and
started again gets every message once; a stop is said."""

from __future__ import annotations

import asyncio
import signal
import socket
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from jailcore.config.notifyconfig import Sink
from jailcore.io.notify.text import DISCORD_CONTENT, DISCORD_DESCRIPTION, TELEGRAM_TEXT, excerpt, requests_for
from jailcore.sim.simserver import SimServer
from tests.standins import Discord, Telegram, discord_seen, telegram_seen
from tests.test_durable import heard_from, jailcore_run, server_toml
from tests.test_fleet import free_udp_port
from tests.test_live import populate

HOSTILE = "@everyone <b>x</b> [a](http://x)"
PUBLIC = "https://jail.example.ru"


def sinks(discord: Discord, telegram: Telegram) -> str:
    return (f'[notify.discord]\nurl = "{discord.url}"\n[notify.telegram]\ntoken = "{telegram.token}"\nchat = "-1001234"\n'
            f'api = "{telegram.api}"\n[web]\npublic_url = "{PUBLIC}"\n[conduct.names]\nenabled = false\n')


@asynccontextmanager
async def notified(tmp_path: Path, rules: str, discord: Discord, telegram: Telegram) -> AsyncIterator[tuple[SimServer, Path, str]]:
    """The stand-ins started, a simulated server, and the config of a daemon with these rules
    that tells both (and its log's address); all of them stopped at the end."""
    sim = SimServer(password="pw")
    try:
        await discord.start()
        await telegram.start()
        listen = f"127.0.0.1:{free_udp_port()}"
        yield sim, server_toml(tmp_path / "a.toml", "a", await sim.start(), tmp_path / "a.sqlite3", listen, rules + sinks(discord, telegram)), listen
    finally:
        await sim.stop()
        await discord.stop()
        await telegram.stop()


async def logging_to(sim: SimServer, listen: str) -> None:
    await heard_from(sim, 0)
    host, port = listen.rsplit(":", 1)
    await sim.log_to_daemon((host, int(port)))


def titled(texts: list[str], prefix: str, name: str) -> int:
    """How many messages' lines say this event (its title line) of this player."""
    return sum(1 for text in texts for line in text.splitlines()
               if line.startswith(prefix) and (line.endswith(f"— {name}") or f"— {name} [" in line))


async def test_a_proposal_reaches_discord_and_telegram_after_their_429s_and_a_hostile_name_stays_text(tmp_path):
    discord, telegram = Discord(), Telegram()
    discord.limited, telegram.limited = [0.5], [1.0]  # each answers its first request with a 429
    rules = '[conduct.advertising]\nconfirm = "admin"\nladder = ["ban 0"]\n[notify]\ndrops = 10\n'
    async with notified(tmp_path, rules, discord, telegram) as (sim, cfg, listen):
        async with jailcore_run(tmp_path, cfg) as proc:
            await logging_to(sim, listen)
            populate(sim)
            hostile = sim.add_player(HOSTILE, "T")
            sim.say(hostile, "го ко мне на www.example1.ru")
            sim.flush()
            await discord.until(lambda: any("Общие 19" in r["content"] for r in discord.received))
            await telegram.until(lambda: any("Общие 19" in r["_plain"] for r in telegram.received))

            (message,) = [r for r in discord.received if "Общие 19" in r["content"]]
            assert message["allowed_mentions"] == {"parse": []}  # @everyone pings nobody
            (embed,) = message["embeds"]
            seen = discord_seen(embed["description"])
            assert HOSTILE in seen and HOSTILE in discord_seen(message["content"])  # read as he wrote it...
            assert "[a](http://x)" not in embed["description"] and "[a](http://x)" not in message["content"]  # ...never a link
            assert "го ко мне на www.example1.ru" in seen  # the round's excerpt: his chat line as the log had it
            assert f"{PUBLIC}/proposals" in embed["description"] and embed["url"] == f"{PUBLIC}/proposals"

            (note,) = [r for r in telegram.received if "Общие 19" in r["_plain"]]
            assert note["parse_mode"] == "HTML" and note["chat_id"] == "-1001234"
            assert HOSTILE in note["_plain"] and "<b>x</b>" not in note["text"]  # escaped: no bold of his making
            assert f"{PUBLIC}/proposals" in note["_plain"] and "го ко мне на www.example1.ru" in note["_plain"]

            host, port = listen.rsplit(":", 1)
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:  # a burst of datagrams that are no log lines
                for _ in range(12):
                    s.sendto(b"not a log line at all", (host, int(port)))
            await telegram.until(lambda: any("Отброшено за минуту: 1" in r["_plain"] and "header" in r["_plain"] for r in telegram.received))

            for stand_in, wait in ((discord, 0.5), (telegram, 1.0)):
                (limited, _), (then, status) = stand_in.seen[0], stand_in.seen[1]
                assert stand_in.seen[0][1] == 429 and status == 200
                assert then - limited >= wait * 0.9  # waited out as the sink asked (a lower bound: never flaky)

            proc.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(proc.wait(), 30) == 0
        stops = [r for r in telegram.received if "jailcore остановлен" in r["_plain"]]
        assert len(stops) == 1 and "Сервер: a" in stops[0]["_plain"]  # a stop is said before the process ends


async def test_a_burst_is_a_few_messages_and_an_outage_loses_none_and_doubles_none(tmp_path):
    discord, telegram = Discord(), Telegram()
    names = [f"Спамер-{i:02d}" for i in range(55)]
    async with notified(tmp_path, '[conduct.advertising]\nconfirm = "none"\nladder = ["ban 10m"]\n', discord, telegram) as (sim, cfg, listen):
        async with jailcore_run(tmp_path, cfg) as proc:
            await logging_to(sim, listen)
            populate(sim, prisoners=1)
            players = [sim.add_player(name, "T") for name in names]
            for player in players[:50]:
                sim.say(player, f"заходите: www.{player.name[-2:]}.example.ru")
            sim.flush()

            def texts(stand_in) -> list[str]:
                return [discord_seen(r["content"]) for r in stand_in.received] if stand_in is discord else \
                       [r["_plain"] for r in stand_in.received]

            for stand_in in (discord, telegram):
                await stand_in.until(lambda s=stand_in: all(titled(texts(s), "Бан", n) for n in names[:50]))
                assert len(stand_in.received) <= 6, len(stand_in.received)  # 50 bans: a few messages, not fifty
                assert all(titled(texts(stand_in), "Бан", n) == 1 for n in names[:50])
            for r in discord.received:
                assert len(r["content"]) <= DISCORD_CONTENT and len(r["embeds"][0]["description"]) <= DISCORD_DESCRIPTION

            await discord.stop()  # Discord away: its messages wait; Telegram's go on
            for player in players[50:]:
                sim.say(player, f"заходите: www.{player.name[-2:]}.example.ru")
            sim.flush()
            await telegram.until(lambda: all(titled(texts(telegram), "Бан", n) for n in names[50:]))
            db = sqlite3.connect(tmp_path / "a.sqlite3")
            try:
                for _ in range(300):  # the sender has tried Discord and failed (wide margin: 30 s)
                    if db.execute("SELECT failures FROM notice_sinks WHERE sink LIKE 'discord:%' AND failures > 0").fetchone():
                        break
                    await asyncio.sleep(0.1)
                else:
                    raise AssertionError("no failure of Discord was recorded")
            finally:
                db.close()
            await discord.start()  # back on the same port
            await discord.until(lambda: all(titled(texts(discord), "Бан", n) for n in names[50:]), timeout=90)
            assert all(titled(texts(discord), "Бан", n) == 1 for n in names), "a message lost or sent twice"
            assert all(titled(texts(telegram), "Бан", n) == 1 for n in names)
            proc.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(proc.wait(), 30) == 0
        said = (tmp_path / "run.log").read_text(encoding="utf-8")
        assert "failed (ConnectError" in said and telegram.token not in said and discord.hook not in said  # no secret in the log


# -- what a message says, without a network ---------------------------------------------------------


def ban(i: int, name: str = "") -> dict:
    return {"kind": "ban", "id": i, "server": "a", "time": "2026-12-01T10:00:00", "round": 4, "rule": "conduct.advertising",
            "ref": "Общие 19", "reason": "реклама " + "ы" * 250, "name": name or f"Игрок {i}", "steamid": f"STEAM_1:0:{i}", "minutes": 10}


def test_a_burst_is_packed_within_each_apis_limits_and_every_event_is_in_one_message():
    events = [(i, ban(i)) for i in range(1, 201)]
    for kind, limit in (("discord", DISCORD_DESCRIPTION), ("telegram", TELEGRAM_TEXT)):
        packed = requests_for(Sink(kind, "http://127.0.0.1:1/x", "1:a", "-1"), events)
        assert sorted(i for ids, _ in packed for i in ids) == list(range(1, 201))
        assert len(packed) < 30
        for _, body in packed:
            if kind == "discord":
                assert len(body["content"]) <= DISCORD_CONTENT and len(body["embeds"][0]["description"]) <= limit
                assert body["allowed_mentions"] == {"parse": []}
            else:
                assert len(body["text"]) <= limit and telegram_seen(body["text"]) is not None
    (hook,) = requests_for(Sink("webhook", "http://127.0.0.1:1/x"), events[:3])
    assert hook[1]["event"] == "ban" and hook[1]["server"] == "a" and hook[1]["count"] == 3 and "Игрок 2" in hook[1]["text"]


def test_one_huge_event_is_cut_to_fit_and_a_hostile_name_is_text_in_every_form():
    huge = {**ban(1, HOSTILE), "kind": "appeal", "action": "ban", "text": "<i>" * 3000, "excerpt": ["&" * 5000] * 8}
    for kind in ("discord", "telegram"):
        ((_, body),) = requests_for(Sink(kind, "http://127.0.0.1:1/x", "1:a", "-1"), [(1, huge)])
        if kind == "telegram":
            seen = telegram_seen(body["text"])
            assert seen is not None and HOSTILE in seen and len(body["text"]) <= TELEGRAM_TEXT
        else:
            assert HOSTILE in discord_seen(body["embeds"][0]["description"]) and len(body["embeds"][0]["description"]) <= DISCORD_DESCRIPTION


def test_the_excerpt_keeps_names_and_chat_and_drops_every_steamid_and_address():
    lines = ['L 12/01/2026 - 10:00:01: "Вася<2><STEAM_1:0:111><TERRORIST>" say "го на 10.1.2.3:27015"',
             'L 12/01/2026 - 10:00:02: "Петя<3><STEAM_1:0:222><CT>" killed "Вася<2><STEAM_1:0:111><TERRORIST>" with "ak47"',
             'L 12/01/2026 - 10:00:03: "Петя<3><STEAM_1:0:222><CT>" connected, address "10.9.9.9:27005"']
    said = excerpt(lines)
    assert said == ["10:00:01 Вася: го на 10.1.2.3:27015", "10:00:02 Петя ✕ Вася (ak47)"]
    assert not any("STEAM_" in s or "10.9.9.9" in s for s in said)
