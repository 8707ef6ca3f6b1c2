"""The network part of a session: CT bans shared with the other servers, both ways.

Contract: `peer_ban(input)` takes another server's CT ban or its lift (typed by the MQTT link, or
as a server of this process told it) through the engine and carries out what it gives (the ban
held at this game's door); `network_ban` / `network_lift` give the word this server tells the
network (`TellPeers`) for a ban an admin gave or lifted outside the game; `in_game(event, actions)`
does the same for an admin's `!ctban` / `!unctban` in game, written as the command line's row.
A ban this server's own rule gives is told by the audit desk, with its row.
"""

from __future__ import annotations

from jailcore.engine.actions import Action
from jailcore.log import events as ev
from jailcore.log.inbound import NetworkBan, NetworkLift, ctban_message
from jailcore.session import inputs as i
from jailcore.session.commands import RECORDED, Commands
from jailcore.session.effects import Effect, InGameCtBan, TellPeers, Write
from jailcore.session.saver import Saver
from jailcore.session.shared import Part, Shared


class Network(Part):
    def __init__(self, shared: Shared, saver: Saver, commands: Commands):
        self.shared, self.saver, self.commands = shared, saver, commands
        self.unsettled: list[Action] = []  # a ban's decisions past the door, until `settle`

    def peer_ban(self, peer: i.PeerBan) -> list[Effect]:
        if peer.place:
            self.shared.place = peer.place
        ban = peer.ban
        message = ban if isinstance(ban, NetworkBan | NetworkLift) else ctban_message(ban, self.engine.refused, "network CT ban")
        if message is None:  # refused, counted and said by the engine's refusals
            return []
        self.saver.dirty = True
        if isinstance(message, NetworkLift):
            actions = self.engine.lift_ctban(message.steamid, message.by, f"network ({message.origin})")
        else:
            actions = self.engine.import_ctban(message)
        if not peer.doors_first:
            return self.commands.carry_out(actions)
        # A ban told to 199 servers in one turn reached the last door after every other server's rows, log
        # line and saved state (0.4 ms each): the door (a command with no row, waiting for none) goes first at
        # each, the decisions (their rows, the state saved with them) at `settle`, the same turn.
        self.unsettled += [a for a in actions if a.action in RECORDED]
        return self.commands.carry_out([a for a in actions if a.action not in RECORDED])

    def settle(self, _: i.Settle | None = None) -> list[Effect]:
        """The decisions a ban's doors went before, carried out: rows, their state, then what waits for them."""
        actions, self.unsettled = self.unsettled, []
        return self.commands.carry_out(actions) if actions else []

    def network_ban(self, steamid: str, why: str) -> list[Effect]:
        ban = self.engine.state.ctbans.get(ev.player_key(steamid, 0))
        if ban is None:
            return []
        return [TellPeers({"id": f"{self.server}:{why}", "origin": self.server, "steamid": ban.steamid, "name": ban.name,
                           "until": ban.until, "rounds": ban.rounds, "ref": ban.ref, "reason": ban.reason, "by": ban.by})]

    def network_lift(self, steamid: str, by: str, why: str) -> TellPeers:
        return TellPeers({"id": f"{self.server}:lift:{why}:{steamid}", "origin": self.server, "steamid": steamid, "lift": True, "by": by})

    def in_game(self, event: ev.CtBanGiven | ev.CtBanLifted, actions: list[Action]) -> list[Effect]:
        """An admin's `!unctban` in game is the network's word too, like a lift from the
        command line (a `!ctban` is shared with its audit row, as every CT ban). Both are
        written as the row the command line writes, already applied, so the web page's
        activity and its past requests show who gave or lifted a CT ban in game too."""
        lift = isinstance(event, ev.CtBanLifted)
        out: list[Effect] = []
        for action in actions:
            t = action.target
            if t is None or action.action != ("unctban" if lift else "ctban"):
                continue
            if not lift and self.config.mode == "observe":
                continue  # observed, not given: no admin's CT ban to list among the requests
            if lift:
                out.append(self.network_lift(t.steamid, event.player.name, f"game {event.time} {event.seq}"))
                length: tuple[int | None, int | None, str] = (None, None, "")
            else:
                assert isinstance(event, ev.CtBanGiven)
                length = (event.minutes, event.rounds, event.reason)
            out.append(Write(InGameCtBan(self.server, t.steamid, t.name, *length, event.player.name, lift, self.wall)))
        return out
