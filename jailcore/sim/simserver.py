"""A simulated srcds with the jailcore shim: a real Source RCON server and a UDP log
emitter, for the tests, the benchmarks and `jailcore demo`.

It behaves the way the engine does where it matters to the daemon: AUTH is answered by an
empty RESPONSE_VALUE and then AUTH_RESPONSE (-1 for a wrong password); replies longer than
4096 bytes come in several RESPONSE_VALUE packets; a client packet over 1024 bytes is a
failed login and closes the socket; repeated failed logins ban the address; the console
splits commands at `;` and newlines outside quotes and drops `//` comments.

The shim's commands are answered by the shim (`self.shim`): the real plugin, compiled and
run in a SourcePawn VM by `smhost` when pysmx is installed, else the Python stand-in
(`standin`). The game world (`world`) is simulated: players act through `say`, `join`,
`kill`..., and the shim writes its own log lines, as on a server.
"""

from __future__ import annotations

import asyncio
import json
import os
import struct
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TypedDict

from jailcore.config import shipped
from jailcore.io.rconproto import AUTH, AUTH_RESPONSE, EXECCOMMAND, MAX_BODY, MAX_INCOMING, RESPONSE_VALUE, encode
from jailcore.sim import smbuild
from jailcore.sim.console import split_commands, tokenize
from jailcore.sim.logwriter import LogWriter
from jailcore.sim.world import Client, Shim, World

__all__ = ["SimServer", "Status", "make_shim", "split_commands", "tokenize"]


class StatusPlayer(TypedDict):
    userid: int
    steamid: str
    name: str
    team: str  # TERRORIST, CT, Spectator, Unassigned
    alive: bool
    gagged: bool


class Status(TypedDict):
    """The shim's answer to `jb_status` (protocol.md section 2)."""

    round: int
    map: str
    warden: int | None  # userid
    players: list[StatusPlayer]


def make_shim(kind: str, world: World) -> tuple[Shim, str]:
    """The shim for the simulated server, and a note on which one it is and why.
    kind: "plugin" (the real plugin in the VM; pysmx needed), "stand-in", or "auto"."""
    if kind in ("plugin", "auto"):
        try:
            from jailcore.sim.smhost import PluginHost

            # JAILCORE_SMX, else the .smx an installed wheel was built with, else one compiled from the checkout's sources
            smx = Path(os.environ["JAILCORE_SMX"]) if os.environ.get("JAILCORE_SMX") else shipped.compiled() or smbuild.cached_plugin()
            return PluginHost(world, smx, smbuild.TRANSLATIONS), f"the real plugin ({smx.name}) in a SourcePawn VM"
        except ImportError:
            if kind == "plugin":
                raise
            reason = "pysmx is not installed"
        except smbuild.BuildError as error:
            if kind == "plugin":
                raise
            reason = str(error).splitlines()[0]
    else:
        reason = "asked for"
    from jailcore.sim.standin import StandIn

    return StandIn(world), f"the Python stand-in for the plugin ({reason})"


class SimServer:
    def __init__(
        self,
        password: str = "jailcore",
        log_to: tuple[str, int] | None = None,
        secret: str = "",
        start: datetime | str | None = None,
        max_failures: int = 5,
        shim: str = "auto",
        max_clients: int = 64,
    ):
        self.password = password
        self.log_to = log_to
        self.secret = secret
        self.max_failures = max_failures
        self.log = LogWriter(start or datetime.now().replace(microsecond=0), step=0.0)
        self.world = World(self.log, max_clients)
        self.shim, self.shim_note = make_shim(shim, self.world)
        self.world.shim = self.shim
        self.shim.load()
        self.received: list[str] = []  # every console command executed, in order
        self.failures: dict[str, int] = {}
        self.banned: set[str] = set()
        self.auth_packets = 0
        self.on_command: Callable[[str], None] | None = None
        # Faults a real server shows, for the reliability tests:
        self.dups = 0  # commands the shim answered `ok dup` (run once already)
        self.plugin_loaded = True  # False: every jb_ command answers `Unknown command "..."`
        self.drop_after: set[str] = set()  # the next command of such a name runs, then the session closes unanswered
        self.never_answer: Callable[[str], bool] | None = None  # such a command hangs the session, unrun
        self.hold_replies = False  # commands run, their answers wait for release()
        self._held: list[tuple[asyncio.StreamWriter, bytes]] = []
        self._server: asyncio.base_events.Server | None = None
        self._clients: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._udp: asyncio.DatagramTransport | None = None
        self._sent = 0
        self.port = 0

    # -- lifetime --------------------------------------------------------------------------

    async def start(self, port: int = 0) -> int:
        self._server = await asyncio.start_server(self._client, "127.0.0.1", port)
        self.port = self._server.sockets[0].getsockname()[1]
        if self.log_to and self._udp is None:
            await self.log_to_daemon(self.log_to)
        return self.port

    async def log_to_daemon(self, addr: tuple[str, int]) -> None:
        self.log_to = addr
        if self._udp is not None:
            self._udp.close()
        loop = asyncio.get_running_loop()
        self._udp, _ = await loop.create_datagram_endpoint(asyncio.DatagramProtocol, remote_addr=addr)

    async def stop_rcon(self) -> None:
        """The server goes away: the listener closes and every session is dropped."""
        if self._server is not None:
            self._server.close()
            for w in list(self._clients):
                w.close()
            if self._tasks:
                await asyncio.wait(list(self._tasks), timeout=2)
            await self._server.wait_closed()
            self._server = None

    async def stop(self) -> None:
        await self.stop_rcon()
        if self._udp is not None:
            self._udp.close()
            self._udp = None

    # -- the log -----------------------------------------------------------------------------

    def flush(self) -> int:
        """Send every line written since the last flush, one datagram each."""
        lines = self.log.lines[self._sent :]
        self._sent = len(self.log.lines)
        if self._udp is not None:
            head = b"\xff\xff\xff\xff" + (b"S" + self.secret.encode() if self.secret else b"R")
            for line in lines:
                self._udp.sendto(head + line.encode("utf-8") + b"\n\x00")
        return len(lines)

    def drop_unsent(self) -> int:
        """Lines written since the last flush are lost on the way (UDP): never sent."""
        lost = len(self.log.lines) - self._sent
        self._sent = len(self.log.lines)
        return lost

    # -- the game world ------------------------------------------------------------------------

    @property
    def players(self) -> dict[int, Client]:
        return self.world.players

    @property
    def round(self) -> int:
        return self.world.round

    @property
    def map(self) -> str:
        return self.world.map

    @property
    def warden(self) -> int | None:
        """The shim's warden (userid), as its jb_status says."""
        return self.status()["warden"]

    def status(self) -> Status:
        status: Status = json.loads(self.shim.server_command("jb_status") or "{}")
        return status

    def add_player(self, name: str, team: str, steamid: str | None = None, admin: str = "", lang: str = "ru") -> Client:
        """A player connects and picks a team (through the team menu: the shim may refuse CT)."""
        return self.world.connect(name, team, steamid, admin=admin, lang=lang)

    def round_start(self) -> None:
        self.world.round_start()

    def round_end(self) -> None:
        self.world.round_end()

    def say(self, who: Client, text: str) -> None:
        self.world.say(who, text)

    def join(self, who: Client, team: str) -> bool:
        return self.world.join(who, team)

    def kill(self, killer: Client, victim: Client, weapon: str = "ak47") -> None:
        self.world.kill(killer, victim, weapon)

    def disconnect(self, who: Client) -> None:
        self.world.disconnect(who)

    def make_warden(self, who: Client) -> None:
        self.world.say(who, "!w")

    def hello(self) -> None:
        """The plugin is loaded (again): its id memory starts empty and it says hello in the log."""
        self.plugin_loaded = True
        self.reload_shim()

    def reload_shim(self) -> None:
        """`sm plugins reload`: a fresh plugin (or stand-in) over the same game; it says hello."""
        self.shim, self.shim_note = make_shim(self.shim.kind, self.world)
        self.world.shim = self.shim
        self.shim.load()

    # -- RCON --------------------------------------------------------------------------------

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")[0]
        if peer in self.banned:
            writer.close()
            return
        self._clients.add(writer)
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        authed = False
        mute = False
        try:
            while True:
                (size,) = struct.unpack("<i", await reader.readexactly(4))
                if size < 10 or size > MAX_INCOMING:
                    self._failed(peer)
                    break
                data = await reader.readexactly(size)
                request_id, kind = struct.unpack("<ii", data[:8])
                body = data[8:-2].decode("utf-8", "replace")
                if kind == AUTH:
                    self.auth_packets += 1
                    authed = body == self.password
                    # srcds: an empty RESPONSE_VALUE first, then AUTH_RESPONSE, in one write
                    answer = encode(request_id, RESPONSE_VALUE, b"") + encode(request_id if authed else -1, AUTH_RESPONSE, b"")
                    writer.write(answer)
                    if not authed:
                        self._failed(peer)
                        if peer in self.banned:
                            break
                elif kind == EXECCOMMAND and authed and mute:
                    continue  # a hung server reads on and answers nothing
                elif kind == EXECCOMMAND and authed:
                    if body and self.never_answer is not None and self.never_answer(body):
                        mute = True
                        continue
                    reply = self.execute(body) if body else ""
                    name = body.split(maxsplit=1)[0] if body else ""
                    if name in self.drop_after:
                        self.drop_after.discard(name)
                        break  # ran it, and the session died before the answer left
                    payload = reply.encode("utf-8")
                    chunks = [payload[i : i + MAX_BODY] for i in range(0, len(payload), MAX_BODY)] or [b""]
                    answer = b"".join(encode(request_id, RESPONSE_VALUE, c) for c in chunks)
                    if self.hold_replies:
                        self._held.append((writer, answer))
                        continue
                    writer.write(answer)
                else:
                    break  # a command before a successful login: srcds drops the session
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self._clients.discard(writer)
            writer.close()

    def release(self) -> None:
        """Send the answers held back by `hold_replies`, in order."""
        self.hold_replies = False
        held, self._held = self._held, []
        for writer, answer in held:
            if not writer.is_closing():
                writer.write(answer)

    def _failed(self, peer: str) -> None:
        self.failures[peer] = self.failures.get(peer, 0) + 1
        if self.failures[peer] >= self.max_failures:
            self.banned.add(peer)

    # -- console commands ------------------------------------------------------------------------

    def execute(self, text: str) -> str:
        replies = []
        for command in split_commands(text):
            self.received.append(command)
            if self.on_command is not None:
                self.on_command(command)
            replies.append(self.run_command(command))
        self.world.tick()  # the frame after the packet's commands: deferred kicks, queued commands
        out = "\n".join(replies)
        self.flush()
        return out

    def run_command(self, command: str) -> str:
        """One console command: the shim's own (its bytecode or the stand-in answers), else the
        engine's and SourceMod's commands the daemon may use."""
        if not self.plugin_loaded:
            return self._engine(tokenize(command))  # without the plugin its commands are unknown
        reply = self.shim.server_command(command)
        if reply == "ok dup":
            self.dups += 1
        if reply is None:
            reply = self._engine(tokenize(command))
        return reply

    def _engine(self, args: list[str]) -> str:
        if not args:
            return ""
        name, rest = args[0].lower(), args[1:]
        if name == "kickid":
            who = self.players.get(int(rest[0])) if rest and rest[0].isdigit() else None
            if who is None:
                return 'error: usage: kickid <userid> "reason"'
            self.world.kick(who, rest[1] if len(rest) > 1 else "Kicked by Console")
            return "ok"
        if name == "sm_ban":
            who = self.players.get(int(rest[0][1:])) if len(rest) == 3 and rest[0][1:].isdigit() else None
            if who is None or not rest[1].isdigit():
                return 'error: usage: sm_ban #userid <minutes> "reason"'
            self.world.ban(who, int(rest[1]), rest[2], "sm_ban")
            self.world.kick(who, rest[2])
            return "ok"
        return f'Unknown command "{args[0]}"'
