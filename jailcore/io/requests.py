"""Admins' word, applied by the running daemon: pardons and CT bans asked for outside the
game (`jailcore pardon`, `jailcore ctban add|lift`, the web page, MQTT) or in it
(`!jcpardon`), and the in-game feed that tells the admins online of every enforcement.

Contract: requests are rows in the state database (`pardons`, `ctban_requests`), so an
admin on the box needs neither RCON nor the daemon's ear: `Requests.run` applies new rows
within `interval`, through the engine, and marks them applied. A pardon goes out on MQTT
like the enforcement it undoes, and a CT ban it lifts is lifted on every server.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime
from typing import Protocol

from jailcore.engine.actions import Action, clean_text, kind_name, kinds_that
from jailcore.io import answers
from jailcore.io.answers import Answers
from jailcore.log import events as ev
from jailcore.log import inbound, shapes
from jailcore.store.sqlite import PardonError

log = logging.getLogger("jailcore")

# What the admins online are told of: decisions about a player, not announcements.
FEED = kinds_that("feed")


class Daemon(answers.Daemon, Protocol):
    """The parts of the running daemon that admins' requests go through: those of answers, and the network."""

    def share_ctban(self, ban: dict) -> None: ...


class Requests:
    def __init__(self, daemon: Daemon, interval: float = 0.5):
        self.daemon = daemon
        self.interval = interval
        self.answers = Answers(daemon)  # proposals: confirm / dismiss rows
        self.refused = inbound.Refusals("a request row")

    async def run(self) -> None:
        while True:
            self.apply()
            await asyncio.sleep(self.interval)

    def apply(self) -> None:
        d = self.daemon
        pardons, bans = d.store.requests(d.server)
        now = datetime.now().isoformat(timespec="seconds")
        for row in pardons:
            entry = shapes.detail_row(row["detail"], self.refused, f"pardon {row['id']}")
            if entry is None:  # a row no tool of ours wrote: refused (logged once), never applied
                d.store.applied("pardons", row["id"], now)
                continue
            actions = d.engine.pardon(entry, row["by"], row["reason"])
            d.store.applied("pardons", row["id"], now)
            d._carry_out(actions)
            self._published_pardon(entry, row)
            log.info("pardon of %s by %s applied: %s", entry.get("rule"), row["by"], row["reason"])
        for row in bans:
            if shapes.ctban_row(row, self.refused) is None:  # a row no tool of ours wrote: refused, never applied
                d.store.applied("ctban_requests", row["id"], now)
                continue
            if row["lift"]:
                actions = d.engine.lift_ctban(row["steamid"], row["by"], row["reason"])
            else:
                actions = d.engine.give_ctban(row["steamid"], row["name"], row["minutes"], row["rounds"], row["reason"], row["by"])
            d.store.applied("ctban_requests", row["id"], now)
            d._carry_out(actions)
            if row["lift"]:
                self._network_lift(row["steamid"], row["by"], f"request {row['id']}")
            elif not any(a.action == "ctban" for a in actions):  # he is offline: no row of ours shares it
                self._network_ban(row["steamid"], f"request {row['id']}")
        if pardons or bans:
            d._dirty = True
        self.answers.apply()

    def asked_in_game(self, event: ev.PardonAsked) -> None:
        """`!jcpardon ID [reason]`: the same row the command line writes."""
        d = self.daemon
        admin = event.player.name
        try:
            d.store.request_pardon(event.id, admin, event.reason)
            d.store.commit()
        except PardonError as exc:
            d.outbox.put(None, f'jb_adminfeed "{clean_text(f"[jailcore] {exc}")}"')
            return
        self.apply()

    def feed(self, action: Action, row_id: int) -> None:
        """`[jailcore #123] slay Вася (6.5 specialday.cooldown) — !jcpardon 123`, to the
        admins on the server only (the shim checks the admin flag)."""
        if action.action not in FEED or action.target is None or self.daemon.config.mode == "observe":
            return
        name = kind_name(self.daemon.config.language, action.action)
        why = action.rule if action.rule != "admin" or not action.by else f"admin {action.by}"
        why = f"{action.ref} {why}" if action.ref else why  # no empty number: «( admin)» said nothing
        text = f"[jailcore #{row_id}] {name} {action.target.name} ({why}) — !jcpardon {row_id}"
        self.daemon.outbox.put(None, f'jb_adminfeed "{clean_text(text)}"')

    # -- the network ------------------------------------------------------------------------

    def after_event(self, event: object, actions: list[Action]) -> None:
        """An admin's `!unctban` in game is the network's word too, like a lift from the
        command line (a `!ctban` is shared with its audit row, as every CT ban). Both are
        written as the row the command line writes, already applied, so the web page's
        activity and its past requests show who gave or lifted a CT ban in game too."""
        if type(event) is ev.CtBanLifted:
            for action in actions:
                if action.action == "unctban" and action.target is not None:
                    self._network_lift(action.target.steamid, event.player.name, f"game {event.time} {event.seq}")
                    self._in_game(action, event, lift=True)
        elif type(event) is ev.CtBanGiven:
            for action in actions:
                if action.action == "ctban" and action.target is not None:
                    self._in_game(action, event, lift=False)

    def _in_game(self, action: Action, event: ev.CtBanGiven | ev.CtBanLifted, lift: bool) -> None:
        d, t = self.daemon, action.target
        assert t is not None
        length = (event.minutes, event.rounds, event.reason) if isinstance(event, ev.CtBanGiven) else (None, None, "")
        row = d.store.request_ctban(d.server, t.steamid, t.name, *length, event.player.name, lift=lift)
        d.store.applied("ctban_requests", row, datetime.now().isoformat(timespec="seconds"))

    def _network_ban(self, steamid: str, why: str) -> None:
        d = self.daemon
        ban = d.engine.state.ctbans.get(ev.player_key(steamid, 0))
        if ban is None:
            return
        d.share_ctban({"id": f"{d.server}:{why}", "origin": d.server, "steamid": ban.steamid, "name": ban.name,
                       "until": ban.until, "rounds": ban.rounds, "ref": ban.ref, "reason": ban.reason, "by": ban.by})

    def _published_pardon(self, entry: dict, row) -> None:
        d = self.daemon
        if d.mqtt is not None:
            d.mqtt.publish(f"jailcore/{d.server}/actions", {
                **entry, "server": d.server, "id": row["action_id"], "status": "pardoned", "pardon": {"by": row["by"], "reason": row["reason"]},
            })
        target = entry.get("target") or {}
        if entry.get("action") == "ctban" and target.get("steamid"):
            self._network_lift(target["steamid"], row["by"], f"pardon {row['id']}")

    def _network_lift(self, steamid: str, by: str, why: str) -> None:
        d = self.daemon
        d.share_ctban({"id": f"{d.server}:lift:{why}:{steamid}", "origin": d.server, "steamid": steamid, "lift": True, "by": by})
