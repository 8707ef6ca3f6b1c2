"""The simulated game: clients, teams, life, money, what each player was shown, and the
engine's own log lines.

This is srcds's part of the simulated server: what the engine does and logs when a player
connects, joins a team, dies, chats or is kicked, and the game events and forwards that tell
SourceMod about it. The shim (the real plugin in its VM, or the Python stand-in) hears about
them through the `Shim` calls and acts back through the methods here, as natives act on the
engine. Nothing here opens a socket or reads a clock: time is the log writer's `now`.
"""

from __future__ import annotations

from typing import Protocol

import attrs

from jailcore.sim.console import parse
from jailcore.sim.logwriter import LogWriter, Who

TEAMS = {0: "Unassigned", 1: "Spectator", 2: "TERRORIST", 3: "CT"}
TEAM_INDEX = {name: index for index, name in TEAMS.items()}
TEAM_WORDS = {"T": 2, "CT": 3, "SPEC": 1, "SPECTATOR": 1, "AUTO": 0, **{name.upper(): index for name, index in TEAM_INDEX.items()}}
START_MONEY = 800

# A game event's fields as SourceMod's IGameEvent holds them (GetInt, GetString, GetBool).
EventFields = dict[str, int | str]


@attrs.define(eq=False)
class Client(Who):
    """One player's seat on the server, with what he saw: chat lines, centre and hint text,
    and his console (replies to commands he typed)."""

    slot: int = 0
    admin: str = ""  # SourceMod admin flag letters: "b" generic, "z" root
    lang: str = "ru"
    bot: bool = False
    money: int = START_MONEY
    chat: list[str] = attrs.Factory(list)
    centre: list[str] = attrs.Factory(list)
    hint: list[str] = attrs.Factory(list)
    console: list[str] = attrs.Factory(list)

    @property
    def team_index(self) -> int:
        return TEAM_INDEX.get(self.team, 0)


@attrs.frozen
class Ban:
    steamid: str
    name: str
    minutes: int
    reason: str
    source: str


class Shim(Protocol):
    """What the game tells the shim, and what it asks of it. Both the plugin host and the
    stand-in implement it; a method returning True means the shim handled or refused it."""

    kind: str

    def load(self) -> None: ...
    def server_command(self, line: str) -> str | None: ...
    def client_command(self, client: Client, line: str) -> bool: ...
    def say_pre(self, client: Client, text: str, command: str) -> bool: ...
    def say_post(self, client: Client, text: str, command: str) -> None: ...
    def event(self, name: str, fields: EventFields) -> None: ...
    def client_connected(self, client: Client) -> None: ...
    def client_disconnect(self, client: Client) -> None: ...
    def gag_changed(self, client: Client) -> None: ...
    def frame(self) -> None: ...


class World:
    def __init__(self, log: LogWriter, max_clients: int = 64, map_name: str = "jb_summer_jail_v3"):
        self.log = log
        self.max_clients = max_clients
        self.map = map_name
        self.round = 0
        self.players: dict[int, Client] = {}  # by userid: the clients in the game
        self.bans: list[Ban] = []
        self.kicks: list[tuple[str, str]] = []  # (name, reason) of every kick, bans included
        self.shim: Shim | None = None
        self._next_userid = 2

    # -- lookups -----------------------------------------------------------------------------

    def slot(self, index: int) -> Client | None:
        for p in self.players.values():
            if p.slot == index:
                return p
        return None

    def clients(self) -> list[Client]:
        return sorted(self.players.values(), key=lambda p: p.slot)

    def team_count(self, team: int) -> int:
        return sum(1 for p in self.players.values() if p.team_index == team)

    def time(self) -> float:
        """The game clock, in Unix seconds: what GetTime() returns."""
        return self.log.now.timestamp()

    def wait(self, seconds: float) -> None:
        self.log.wait(seconds)
        self.tick()

    def tick(self) -> None:
        """A server frame: the shim's deferred work (kicks, queued commands, timers) runs."""
        if self.shim is not None:
            self.shim.frame()

    # -- players -----------------------------------------------------------------------------

    def connect(self, name: str, team: str | None = None, steamid: str | None = None, admin: str = "", lang: str = "ru",
                bot: bool = False) -> Client:
        taken = {p.slot for p in self.players.values()}
        free = [i for i in range(1, self.max_clients + 1) if i not in taken]
        if not free:
            raise RuntimeError("the server is full")
        uid = self._next_userid
        self._next_userid += 1
        auth = "BOT" if bot else steamid or f"STEAM_1:0:{100000 + uid}"
        client = Client(name, uid, auth, slot=free[0], admin=admin, lang=lang, bot=bot)
        self.players[uid] = client
        self.log.enter(client)
        if self.shim is not None:
            self.shim.client_connected(client)
        if team is not None:
            self.join(client, team)
        self.tick()
        return client

    def disconnect(self, client: Client, reason: str = "Disconnect") -> None:
        if client.userid not in self.players:
            return
        if self.shim is not None:
            self.shim.client_disconnect(client)
        self.log.disconnect(client, reason)
        old = client.team_index
        del self.players[client.userid]
        client.alive = False
        self._fire("player_team", userid=client.userid, team=0, oldteam=old, disconnect=True)
        self._fire("player_disconnect", userid=client.userid, reason=reason, name=client.name, networkid=client.steamid)

    def kick(self, client: Client, reason: str) -> None:
        if client.userid in self.players:
            self.kicks.append((client.name, reason))
            self.disconnect(client, reason)

    def ban(self, client: Client, minutes: int, reason: str, source: str) -> None:
        self.bans.append(Ban(client.steamid, client.name, minutes, reason, source))

    def ban_identity(self, steamid: str, minutes: int, reason: str, source: str) -> None:
        """SourceMod's BanIdentity by steamid (BANFLAG_AUTHID): one who has left, so no kick."""
        self.bans.append(Ban(steamid, "", minutes, reason, source))

    def unban(self, steamid: str) -> bool:
        """SourceMod's RemoveBan by steamid: true when there was a ban to lift."""
        kept = [b for b in self.bans if b.steamid != steamid]
        lifted, self.bans = len(kept) != len(self.bans), kept
        return lifted

    def client_command(self, client: Client, line: str) -> None:
        """What the player typed in his console (or a plugin made him type): the shim's
        commands and listeners first, then the engine's own."""
        if self.shim is not None and self.shim.client_command(client, line):
            return
        cmd = parse(line)
        if cmd is None or client.userid not in self.players:
            return
        name = cmd.name.lower()
        if name == "jointeam" and cmd.argc >= 1:
            self._jointeam(client, cmd.arg(1))
        elif name in ("say", "say_team"):
            self.say(client, cmd.args[1:-1] if cmd.args.startswith('"') and cmd.args.endswith('"') else cmd.args, name == "say_team")

    def join(self, client: Client, team: str) -> bool:
        """The player picks a team in the menu (`jointeam N`); False when he did not get it."""
        index = TEAM_WORDS[team.upper()]
        self.client_command(client, f"jointeam {index}")
        self.tick()
        return client.team_index == index or (index == 0 and client.team_index in (2, 3))

    def _jointeam(self, client: Client, arg: str) -> None:
        digits = arg.strip().lstrip("+")
        index = int(digits) if digits.isdigit() else 0  # atoi: anything else is 0, auto-assign
        if index == 0:
            index = 2 if self.team_count(2) <= self.team_count(3) else 3
        if index in TEAMS and index != client.team_index:
            self.change_team(client, index)

    def change_team(self, client: Client, team: int, keep_alive: bool = False) -> None:
        """ChangeClientTeam (the player is out of the round) or, keep_alive, CS_SwitchTeam."""
        old = client.team_index
        if team == old:
            return
        alive = client.alive
        self.log.join(client, TEAMS[team])
        client.alive = alive and keep_alive
        self._fire("player_team", userid=client.userid, team=team, oldteam=old, disconnect=False)

    def respawn(self, client: Client) -> None:
        if client.team_index in (2, 3):
            client.alive = True
            self._fire("player_spawn", userid=client.userid)

    def kill(self, killer: Client, victim: Client, weapon: str = "ak47") -> None:
        self.log.kill(killer, victim, weapon)
        self._fire("player_death", userid=victim.userid, attacker=killer.userid, weapon=weapon)

    def suicide(self, client: Client, weapon: str = "world") -> None:
        self.log.suicide(client, weapon)
        self._fire("player_death", userid=client.userid, attacker=client.userid, weapon=weapon)

    def say(self, client: Client, text: str, team: bool = False) -> None:
        """A chat line: SourceMod's chat hooks first (triggers such as `!w`, a plugin may
        block the line), the engine's say line in the log unless blocked, then the command."""
        command = "say_team" if team else "say"
        blocked = self.shim is not None and self.shim.say_pre(client, text, command)
        if not blocked:
            self.log.add(f'{client.ident()} {command} "{text}"')
        if self.shim is not None:
            self.shim.say_post(client, text, command)
        self.tick()

    def gag(self, client: Client, on: bool) -> None:
        """basecomm gags or ungags the player."""
        if client.gagged != on:
            client.gagged = on
            if self.shim is not None:
                self.shim.gag_changed(client)

    # -- rounds --------------------------------------------------------------------------------

    def round_start(self) -> None:
        self.round += 1
        for p in self.players.values():
            p.alive = p.team_index in (2, 3)
        self.log.round_start()
        self._fire("round_start", timelimit=0, fraglimit=0, objective="")
        self.tick()

    def round_end(self) -> None:
        self.log.round_end()
        self._fire("round_end", winner=0, reason=0, message="")
        self.tick()

    def _fire(self, event: str, **fields: int | str) -> None:
        if self.shim is not None:
            self.shim.event(event, fields)
