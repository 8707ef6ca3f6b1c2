"""Leaving escapes nothing, end to end (issue 26): real UDP, real RCON to the simulated
server, a real SQLite file. 001 Общие 19 «Рекламировать что либо [Бан Навсегда]»: the
advertiser leaves before the admin confirms. The ban goes at once by his SteamID through the
shim's `jb_addban` (with its ` @<id>`, answered `ok`), not SourceMod's `sm_addban`; a
warning for one who left is written `owed` (`tail`, `status`) and carried out at his return."""

from __future__ import annotations

import asyncio

from jailcore.sim.simserver import SimServer
from tests.audit_rows import entries
from tests.test_admin_live import jailcore
from tests.test_live import sent, settled, until
from tests.test_proposals_live import started


async def confirmed_after_he_left(sim: SimServer, daemon, who) -> int:
    admin = sim.add_player("Смотритель", "CT", admin="b")
    sim.say(who, "заходите к нам: 212.129.25.133:27015")
    sim.flush()
    await until(lambda: entries(daemon.store, "action = 'propose'"), timeout=5)
    (row,) = entries(daemon.store, "action = 'propose'")
    sim.disconnect(who)
    sim.say(admin, f"!jcconfirm {row['id']}")
    sim.flush()
    return row["id"]


async def test_a_ban_confirmed_after_he_left_goes_by_steamid_through_the_shim_once(tmp_path):
    rule = '[conduct.advertising]\nref = "Общие 19"\nconfirm = "admin"\nladder = ["ban 0"]\n'
    async with started(tmp_path, rule=rule) as (sim, daemon):
        _, ts = await settled(sim, daemon)
        steamid = ts[0].steamid
        await confirmed_after_he_left(sim, daemon, ts[0])
        await until(lambda: sent(sim, f'jb_addban "{steamid}" 0 '), timeout=5)
        (ban,) = entries(daemon.store, "action = 'ban'")
        (command,) = sent(sim, "jb_addban")
        assert command.endswith(f" @{ban['id']}") and not sent(sim, "sm_addban")
        await until(lambda: entries(daemon.store, "action = 'ban' AND status = 'delivered'"), timeout=5)
        assert [(b.steamid, b.minutes, b.source) for b in sim.world.bans] == [(steamid, 0, "jb_addban")]
        assert "Общие 19" in sim.world.bans[0].reason and "@" not in sim.world.bans[0].reason


async def test_a_warning_for_one_who_left_is_owed_in_tail_and_status_and_carried_out_at_his_return(tmp_path):
    rule = '[conduct.advertising]\nref = "Общие 19"\nconfirm = "admin"\nladder = ["warn"]\n'
    db = str(tmp_path / "state.sqlite3")
    async with started(tmp_path, rule=rule) as (sim, daemon):
        _, ts = await settled(sim, daemon)
        who = ts[0]
        await confirmed_after_he_left(sim, daemon, who)
        await until(lambda: entries(daemon.store, "action = 'warn' AND status = 'owed'"), timeout=5)
        (owed,) = entries(daemon.store, "action = 'warn'")
        assert owed["command"] is None and not sent(sim, "jb_warn")
        out = await asyncio.to_thread(jailcore, "tail", "--state-db", db, "--action", "warn")
        assert f"#{owed['id']}" in out.stdout and "owed (ушёл: будет исполнено при возвращении)" in out.stdout
        shown = await asyncio.to_thread(jailcore, "status", "--state-db", db)
        assert shown.returncode == 0, shown.stderr
        assert "owed by players who left: 1" in shown.stdout and f"#{owed['id']} warn {who.name} {who.steamid}" in shown.stdout
        back = sim.add_player(who.name, "T", steamid=who.steamid)
        sim.flush()
        await until(lambda: sent(sim, f"jb_warn #{back.userid} "), timeout=5)
        follow_up = ("action = 'warn' AND status = 'delivered' AND id != ?", (owed["id"],))
        await until(lambda: len(entries(daemon.store, *follow_up)) == 1, timeout=5)
        (done,) = entries(daemon.store, *follow_up)
        await until(lambda: entries(daemon.store, "id = ? AND status = 'delivered'", (owed["id"],)), timeout=5)
        (marked,) = entries(daemon.store, "id = ?", (owed["id"],))
        assert marked["reply"] == f"исполнено при возвращении: #{done['id']}"  # carried out: no longer owed
        out = await asyncio.to_thread(jailcore, "tail", "--state-db", db, "--action", "warn")
        assert f"исполнение #{owed['id']}" in out.stdout and f"delivered (исполнено при возвращении: #{done['id']})" in out.stdout
        assert "owed" not in (await asyncio.to_thread(jailcore, "status", "--state-db", db)).stdout


async def test_a_ct_ban_for_one_who_left_is_owed_until_the_door_holds_it_at_his_return(tmp_path):
    rule = '[conduct.advertising]\nref = "Общие 19"\nconfirm = "admin"\nladder = ["ctban 30m"]\n'
    db = str(tmp_path / "state.sqlite3")
    async with started(tmp_path, rule=rule) as (sim, daemon):
        _, ts = await settled(sim, daemon)
        who = ts[0]
        await confirmed_after_he_left(sim, daemon, who)
        await until(lambda: entries(daemon.store, "action = 'ctban' AND status = 'owed'"), timeout=5)
        (owed,) = entries(daemon.store, "action = 'ctban'")
        assert f"#{owed['id']}" in (await asyncio.to_thread(jailcore, "tail", "--state-db", db, "--action", "ctban")).stdout
        back = sim.add_player(who.name, "T", steamid=who.steamid)
        sim.flush()
        await until(lambda: sent(sim, f"jb_ctban_set #{back.userid} "), timeout=5)
        await until(lambda: entries(daemon.store, "id = ? AND status = 'delivered'", (owed["id"],)), timeout=5)
        (marked,) = entries(daemon.store, "id = ?", (owed["id"],))
        assert marked["reply"] == "исполнено при возвращении: jb_ctban_set"
        out = await asyncio.to_thread(jailcore, "tail", "--state-db", db, "--action", "ctban", "--json")
        assert '"status": "delivered"' in out.stdout and '"status": "owed"' not in out.stdout
        assert not sim.join(back, "CT")  # and the shim holds him at the door
