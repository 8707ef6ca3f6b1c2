"""A simulated srcds with the jailcore shim: a real Source RCON server and a UDP log
emitter, for the tests, the benchmarks and `jailcore demo`.

It behaves the way the engine does where it matters to the daemon: AUTH is answered by an
empty RESPONSE_VALUE and then AUTH_RESPONSE (-1 for a wrong password); replies longer than
4096 bytes come in several RESPONSE_VALUE packets; a client packet over 1024 bytes is a
failed login and closes the socket; repeated failed logins ban the address; the console
splits commands at `;` and newlines outside quotes and drops `//` comments. It answers
protocol section 2's commands the way `sourcemod_bridge` does, and writes the log lines
their effects cause.
"""

from __future__ import annotations

import asyncio
import json
import re
import struct
from collections import deque
from collections.abc import Callable
from datetime import datetime

from ..logwriter import LogWriter, Who
from .rconproto import AUTH, AUTH_RESPONSE, EXECCOMMAND, MAX_BODY, MAX_INCOMING, RESPONSE_VALUE, encode

TEAM_NAMES = {"T": "TERRORIST", "CT": "CT"}
RING = 512  # ids the shim remembers (shim-protocol-ext)
_ID = re.compile(r"\s+@(\d+)$")


def split_commands(line: str) -> list[str]:
    """The engine's command splitter: `"` toggles quoting, `;` splits outside quotes,
    a newline always splits, `//` outside quotes starts a comment."""
    if ";" not in line and "\n" not in line and "//" not in line:
        return [line.strip()] if line.strip() else []
    out, cur, quoted, i = [], [], False, 0
    while i < len(line):
        ch = line[i]
        if ch == "\n":
            out.append("".join(cur))
            cur, quoted = [], False
        elif ch == '"':
            quoted = not quoted
            cur.append(ch)
        elif not quoted and ch == ";":
            out.append("".join(cur))
            cur = []
        elif not quoted and line.startswith("//", i):
            j = line.find("\n", i)
            if j < 0:
                break
            i = j
            continue
        else:
            cur.append(ch)
        i += 1
    out.append("".join(cur))
    return [c.strip() for c in out if c.strip()]


def tokenize(command: str) -> list[str]:
    args, cur, quoted, has = [], [], False, False
    for ch in command:
        if ch == '"':
            quoted, has = not quoted, True
        elif ch.isspace() and not quoted:
            if cur or has:
                args.append("".join(cur))
            cur, has = [], False
        else:
            cur.append(ch)
    if cur or has:
        args.append("".join(cur))
    return args


class SimServer:
    def __init__(
        self,
        password: str = "jailcore",
        log_to: tuple[str, int] | None = None,
        secret: str = "",
        start: datetime | str | None = None,
        max_failures: int = 5,
    ):
        self.password = password
        self.log_to = log_to
        self.secret = secret
        self.max_failures = max_failures
        self.log = LogWriter(start or datetime.now().replace(microsecond=0), step=0.0)
        self.players: dict[int, Who] = {}
        self.map = "jb_summer_jail_v3"
        self.round = 0
        self.warden: int | None = None
        self.received: list[str] = []  # every console command executed, in order
        self.failures: dict[str, int] = {}
        self.banned: set[str] = set()
        self.auth_packets = 0
        self.on_command: Callable[[str], None] | None = None
        # The shim's memory of ids it has run: a repeat answers `ok dup` and runs nothing.
        self.ids: deque[str] = deque(maxlen=RING)
        self.dups = 0
        # Fault modes, for the daemon's tests:
        self.plugin_loaded = True  # False: every jb_ command answers `Unknown command "..."`
        self.drop_after: set[str] = set()  # the next command of such a name runs, then the session closes unanswered
        self.never_answer: Callable[[str], bool] | None = None  # such a command hangs the session, unrun
        self.hold_replies = False  # commands run, their answers wait for release()
        self._held: list[tuple[asyncio.StreamWriter, bytes]] = []
        self._server: asyncio.base_events.Server | None = None
        self._clients: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task] = set()
        self._udp: asyncio.DatagramTransport | None = None
        self._sent = 0
        self._next_userid = 2
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

    def add_player(self, name: str, team: str, steamid: str | None = None) -> Who:
        uid = self._next_userid
        self._next_userid += 1
        who = Who(name, uid, steamid or f"STEAM_1:0:{100000 + uid}")
        self.players[uid] = who
        self.log.connect(who, TEAM_NAMES.get(team, team))
        return who

    def round_start(self) -> None:
        self.round += 1
        self.warden = None
        for p in self.players.values():
            p.alive = p.team in ("CT", "TERRORIST")
        self.log.round_start()

    def round_end(self) -> None:
        self.log.round_end()

    def make_warden(self, who: Who) -> None:
        self.warden = who.userid
        self.log.warden(who)

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
        authed = mute = False
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

    # -- the shim's commands (protocol section 2) ----------------------------------------------

    def execute(self, text: str) -> str:
        replies = []
        for command in split_commands(text):
            replies.append(self._run(command))
        out = "\n".join(replies)
        self.flush()
        return out

    def _run(self, command: str) -> str:
        m = _ID.search(command)
        bare = command[: m.start()] if m else command
        if self.plugin_loaded and m is not None and m.group(1) in self.ids:
            self.dups += 1
            return "ok dup"
        self.received.append(command)
        if self.on_command is not None:
            self.on_command(command)
        args = tokenize(bare)
        if not self.plugin_loaded and args and args[0].startswith("jb_"):
            return f'Unknown command "{args[0]}"'
        if m is not None:
            self.ids.append(m.group(1))
        return self._one(args)

    def hello(self) -> None:
        """The shim (re)loads: its id memory starts empty and it says hello in the log."""
        self.plugin_loaded = True
        self.ids.clear()
        self.log.hello()

    def _target(self, arg: str) -> Who | str:
        if not arg.startswith("#") or not arg[1:].isdigit():
            return "error: target must be #userid"
        who = self.players.get(int(arg[1:]))
        return who if who is not None else f"error: no player with userid {arg[1:]}"

    def _one(self, args: list[str]) -> str:
        if not args:
            return ""
        name, rest = args[0], args[1:]
        handler = getattr(self, f"_cmd_{name}", None)
        if handler is None:
            return f'Unknown command "{name}"'
        return handler(rest)

    def _with_target(self, rest: list[str], count: int, usage: str) -> Who | str:
        if len(rest) != count:
            return f"error: usage: {usage}"
        return self._target(rest[0])

    def _cmd_jb_warn(self, rest: list[str]) -> str:
        who = self._with_target(rest, 2, 'jb_warn #userid "text"')
        return who if isinstance(who, str) else "ok"

    def _cmd_jb_slay(self, rest: list[str]) -> str:
        who = self._with_target(rest, 2, 'jb_slay #userid "reason"')
        if isinstance(who, str):
            return who
        if not who.alive:
            return f"error: #{who.userid} is not alive"
        self.log.suicide(who)
        if who.userid == self.warden:
            self.warden = None
            self.log.trig(who, "jb_warden_removed", ' (reason "died")')
        return "ok"

    def _cmd_jb_teamswap(self, rest: list[str]) -> str:
        who = self._with_target(rest, 3, 'jb_teamswap #userid <T|CT> "reason"')
        if isinstance(who, str):
            return who
        team = TEAM_NAMES.get(rest[1])
        if team is None:
            return "error: team must be T or CT"
        if who.team != team:
            alive = who.alive
            self.log.join(who, team)
            who.alive = alive  # CS_SwitchTeam keeps him alive
            if who.userid == self.warden:
                self.warden = None
                self.log.trig(who, "jb_warden_removed", ' (reason "admin")')
        return "ok"

    def _cmd_jb_money(self, rest: list[str]) -> str:
        who = self._with_target(rest, 2, "jb_money #userid <delta>")
        if isinstance(who, str):
            return who
        return "ok" if rest[1].lstrip("-").isdigit() else "error: delta must be a whole number"

    def _cmd_jb_respawn(self, rest: list[str]) -> str:
        who = self._with_target(rest, 1, "jb_respawn #userid")
        if isinstance(who, str):
            return who
        if who.alive:
            return f"error: #{who.userid} is alive"
        who.alive = True
        return "ok"

    def _cmd_jb_say(self, rest: list[str]) -> str:
        return "ok" if len(rest) == 1 else 'error: usage: jb_say "text"'

    def _cmd_jb_hud(self, rest: list[str]) -> str:
        return "ok" if len(rest) == 1 else 'error: usage: jb_hud "text"'

    def _cmd_jb_cancel_prohibition(self, rest: list[str]) -> str:
        return "ok" if len(rest) == 1 and rest[0].isdigit() else "error: usage: jb_cancel_prohibition <K>"

    def _cmd_jb_status(self, rest: list[str]) -> str:
        return json.dumps(self.status(), ensure_ascii=False)

    def status(self) -> dict:
        teams = {"Unassigned": "Unassigned", "": "Unassigned"}
        return {
            "round": self.round,
            "map": self.map,
            "warden": self.warden,
            "players": [
                {
                    "userid": p.userid,
                    "steamid": p.steamid,
                    "name": p.name,
                    "team": teams.get(p.team, p.team),
                    "alive": p.alive,
                    "gagged": p.gagged,
                }
                for p in self.players.values()
            ],
        }

    def _cmd_kickid(self, rest: list[str]) -> str:
        if not rest or not rest[0].isdigit() or int(rest[0]) not in self.players:
            return "error: usage: kickid <userid> \"reason\""
        return self._remove(self.players[int(rest[0])])

    def _cmd_sm_ban(self, rest: list[str]) -> str:
        return self._remove(self._with_target(rest, 3, 'sm_ban #userid <minutes> "reason"'))

    def _cmd_jb_kick(self, rest: list[str]) -> str:
        return self._remove(self._with_target(rest, 2, 'jb_kick #userid "reason"'))

    def _cmd_jb_ban(self, rest: list[str]) -> str:
        who = self._with_target(rest, 3, 'jb_ban #userid <minutes> "reason"')
        if not isinstance(who, str) and not rest[1].isdigit():
            return "error: minutes must be a whole number"
        return self._remove(who)

    def _remove(self, who: Who | str) -> str:
        if isinstance(who, str):
            return who
        self.log.disconnect(self.players.pop(who.userid))
        return "ok"

