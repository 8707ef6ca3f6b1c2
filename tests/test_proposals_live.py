"""A punishment an admin must confirm (`confirm = "admin"`), end to end: real UDP, real RCON
to the simulated server running the shim's stand-in, a real SQLite file. A prisoner's link
(001 Общие 19 «Рекламировать что либо [Бан Навсегда]») is proposed, not punished; the
admins online are told with its id; `!jcconfirm ID` in game or `jailcore confirm ID` on
the command line carries out the ban; `jailcore dismiss` and `tail` show the rest."""

from __future__ import annotations

import asyncio
import json
import time

from jailcore.config.config import load
from jailcore.sim.simserver import SimServer
from tests.audit_rows import entries
from tests.test_admin_live import jailcore
from tests.test_live import config_text, only_a_wake_up, running, sent, settled, until

RULE = '[conduct.advertising]\nref = "Общие 19"\nconfirm = "admin"\nladder = ["ban 0"]\n'


async def proposed(sim: SimServer, daemon, who):
    sim.say(who, "заходите к нам: 212.129.25.133:27015")
    sim.flush()
    await until(lambda: entries(daemon.store, "action = 'propose'"), timeout=5)
    (row,) = entries(daemon.store, "action = 'propose'")
    return row


def started(tmp_path, sim: SimServer | None = None, stop_sim: bool = True, rule: str = RULE):
    class Live:
        async def __aenter__(self):
            self.sim = sim or SimServer(password="pw")
            port = self.sim.port or await self.sim.start()
            self.ctx = running(load(config_text(port, tmp_path / "state.sqlite3", rest=rule), "<test>", {}), self.sim, stop_sim)
            return self.sim, await self.ctx.__aenter__()

        async def __aexit__(self, *exc):
            await self.ctx.__aexit__(*exc)
            assert not self.sim.shim.errors, self.sim.shim.errors

    return Live()


async def test_an_admin_confirms_a_proposed_ban_in_game(tmp_path):
    async with started(tmp_path) as (sim, daemon):
        admin = sim.add_player("Смотритель", "T", admin="b")
        _, ts = await settled(sim, daemon)
        row = await proposed(sim, daemon, ts[0])
        assert row["status"] == "proposed" and row["command"] is None
        await until(lambda: any(f"!jcconfirm {row['id']}" in text for text in admin.chat), timeout=3)
        assert not sent(sim, "jb_ban")  # nothing happened to the prisoner yet
        assert not [text for text in ts[1].chat if "!jcconfirm" in text]  # the feed is for admins only
        sim.say(admin, f"!jcconfirm {row['id']}")
        t0 = time.monotonic()
        sim.flush()
        await until(lambda: sent(sim, f"jb_ban #{ts[0].userid} 0"), timeout=3)
        print(f"!jcconfirm: the ban reached the server {time.monotonic() - t0:.3f} s after the chat line")
        (done,) = entries(daemon.store, "id = ?", (row["id"],))
        assert (done["status"], done["reply"]) == ("confirmed", "by Смотритель")
        (ban,) = entries(daemon.store, "action = 'ban'")
        assert ban["rule"] == "conduct.advertising" and "Общие 19" in ban["reason"]
        assert daemon.engine.state.ladders[f"conduct.advertising|{ts[0].steamid}"] == 1
        sim.say(admin, f"!jcconfirm {row['id']}")  # a second answer is refused and said so
        sim.flush()
        await until(lambda: any("already answered" in text for text in admin.chat), timeout=3)
        assert len(sent(sim, "jb_ban")) == 1


async def test_jailcore_confirm_and_dismiss_on_the_command_line(tmp_path):
    async with started(tmp_path) as (sim, daemon):
        _, ts = await settled(sim, daemon)
        db = str(tmp_path / "state.sqlite3")
        first = await proposed(sim, daemon, ts[0])
        out = await asyncio.to_thread(jailcore, "tail", "--state-db", db, "--action", "propose")
        assert f"#{first['id']}" in out.stdout and "proposed (ban 0: awaiting an admin" in out.stdout
        await until(lambda: (daemon.store.load_state("t") or {}).get("proposals"))  # saved: status knows the server
        shown = await asyncio.to_thread(jailcore, "status", "--state-db", db)  # issue 28: status did not say that a punishment waits
        assert shown.returncode == 0, shown.stderr
        assert "waiting for an admin: 1 (jailcore confirm|dismiss ID)" in shown.stdout
        assert f"#{first['id']} ban 0 {ts[0].name} {ts[0].steamid} [Общие 19 conduct.advertising]" in shown.stdout
        (state,) = [json.loads(line) for line in (await asyncio.to_thread(jailcore, "status", "--state-db", db, "--json")).stdout.splitlines()]
        assert [(p["id"], p["step"], p["steamid"]) for p in state["proposals"]] == [(first["id"], "ban 0", ts[0].steamid)]
        run = asyncio.get_running_loop().run_in_executor
        await only_a_wake_up(daemon)  # the answer is applied when the command wakes the daemon, not at the next poll
        done = await run(None, jailcore, "confirm", str(first["id"]), "--by", "Админ", "--state-db", db)
        assert done.returncode == 0, done.stderr
        t0 = time.monotonic()
        await until(lambda: sent(sim, f"jb_ban #{ts[0].userid} 0"), timeout=30)
        print(f"jailcore confirm: the ban reached the server {time.monotonic() - t0:.3f} s after the command returned")
        sim.say(ts[1], "а мой сайт www.example.ru")
        sim.flush()
        await until(lambda: len(entries(daemon.store, "action = 'propose'")) == 2, timeout=5)
        second = entries(daemon.store, "action = 'propose'")[1]
        done = await run(None, jailcore, "dismiss", str(second["id"]), "--reason", "это не реклама", "--by", "Админ", "--state-db", db)
        assert done.returncode == 0, done.stderr
        await until(lambda: entries(daemon.store, "id = ?", (second["id"],))[0]["status"] == "dismissed", timeout=3)
        assert not sent(sim, f"jb_ban #{ts[1].userid}")
        assert daemon.engine.state.proposals == [] and f"conduct.advertising|{ts[1].steamid}" not in daemon.engine.state.ladders
        again = await asyncio.to_thread(jailcore, "dismiss", str(second["id"]), "--state-db", db)
        assert again.returncode == 1 and "already answered" in again.stderr
        out = await asyncio.to_thread(jailcore, "tail", "--state-db", db, "--action", "propose")
        assert "confirmed (by Админ)" in out.stdout and "dismissed (by Админ: это не реклама)" in out.stdout
        assert "waiting for an admin" not in (await asyncio.to_thread(jailcore, "status", "--state-db", db)).stdout


async def test_a_restart_loses_no_proposal(tmp_path):
    sim = SimServer(password="pw")
    async with started(tmp_path, sim, stop_sim=False) as (_, daemon):
        _, ts = await settled(sim, daemon)
        row = await proposed(sim, daemon, ts[0])
        await until(lambda: "proposals" in str(daemon.store.load_state("t")) and daemon.store.load_state("t")["proposals"])
    async with started(tmp_path, sim) as (_, again):
        assert [p.number for p in again.engine.state.proposals] == [1]
        done = await asyncio.get_running_loop().run_in_executor(
            None, jailcore, "confirm", str(row["id"]), "--by", "Админ", "--state-db", str(tmp_path / "state.sqlite3"))
        assert done.returncode == 0, done.stderr
        await until(lambda: sent(sim, f"jb_ban #{ts[0].userid} 0"), timeout=3)
        assert entries(again.store, "id = ?", (row["id"],))[0]["status"] == "confirmed"


async def test_a_proposed_slay_nobody_answers_expires_with_its_round(tmp_path):
    sim = SimServer(password="pw")
    port = await sim.start()
    rest = RULE + '[conduct.teamkill]\nconfirm = "admin"\nladder = ["slay"]\n'
    async with running(load(config_text(port, tmp_path / "state.sqlite3", rest=rest), "<test>", {}), sim) as daemon:
        _, ts = await settled(sim, daemon)
        sim.kill(ts[0], ts[1])
        sim.flush()
        await until(lambda: entries(daemon.store, "action = 'propose'"), timeout=5)
        (row,) = entries(daemon.store, "action = 'propose'")
        assert row["rule"] == "conduct.teamkill" and not sent(sim, "jb_slay")
        sim.round_end()
        sim.round_start()
        sim.flush()
        await until(lambda: entries(daemon.store, "id = ?", (row["id"],))[0]["status"] == "expired", timeout=5)
        assert "раунд закончился" in entries(daemon.store, "id = ?", (row["id"],))[0]["reply"]
        assert not sent(sim, "jb_slay") and daemon.engine.state.ladders.get(f"conduct.teamkill|{ts[0].steamid}") is None
        out = await asyncio.to_thread(jailcore, "confirm", str(row["id"]), "--state-db", str(tmp_path / "state.sqlite3"))
        assert out.returncode == 1 and "expired" in out.stderr
    assert not sim.shim.errors, sim.shim.errors
