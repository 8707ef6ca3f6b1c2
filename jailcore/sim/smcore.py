"""SourceMod's own behaviour around a plugin, for the host that runs the real plugin and for
the Python stand-in alike: which command a chat line triggers (`!w`, `/w`: ChatTriggers.cpp),
who may run an admin command (AdminCache.cpp), where a reply goes (server console, the
player's chat or console), which player a target string names (PlayerManager.cpp), phrase
translation by each player's language, game events, deferred work and timers.

A subclass supplies the plugin's side: it registers its commands, listeners and event hooks
as Python callables (the host's run the plugin's bytecode) and answers the forwards
(`on_say`, `on_client_connected`...).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import attrs

from jailcore.sim import smtext
from jailcore.sim.console import Command, parse
from jailcore.sim.world import Client, EventFields, World

CONSOLE, CHAT = 0, 1  # ReplySource
CONTINUE, HANDLED = 0, 3  # Action
PUBLIC_TRIGGERS, SILENT_TRIGGERS = "!", "/"
CHAT_REPLY = 191  # bytes of a reply shown in chat

# admin flag letters, in FlagBits order (admin.inc)
FLAG_LETTERS = {letter: 1 << i for i, letter in enumerate("abcdefghijklmn")} | {"z": 1 << 14} | {
    letter: 1 << (15 + i) for i, letter in enumerate("opqrst")}
ROOT = 1 << 14

FILTER_ALIVE, FILTER_DEAD, FILTER_CONNECTED, FILTER_NO_IMMUNITY, FILTER_NO_MULTI, FILTER_NO_BOTS = (1 << i for i in range(6))
TARGET_NONE, TARGET_NOT_ALIVE, TARGET_NOT_DEAD, TARGET_NOT_IN_GAME, TARGET_IMMUNE, TARGET_EMPTY, TARGET_NOT_HUMAN, TARGET_AMBIGUOUS = (
    0, -1, -2, -3, -4, -5, -6, -7)

ServerCallback = Callable[[Command], object]
ClientCallback = Callable[[Client | None, Command], int | None]
EventCallback = Callable[[str, EventFields], object]


def read_flags(letters: str) -> tuple[int, int]:
    """ReadFlagString: the bits of the letters up to the first that is not a flag, and how
    many letters that was."""
    bits = 0
    for n, letter in enumerate(letters):
        if letter not in FLAG_LETTERS:
            return bits, n
        bits |= FLAG_LETTERS[letter]
    return bits, len(letters)


def describe(client: Client | None) -> str:
    """%L: `Name<userid><auth><>`, no quotes; the console is Console<0><Console><Console>."""
    if client is None:
        return "Console<0><Console><Console>"
    return f"{client.name}<{client.userid}><{client.steamid}><>"


@attrs.define
class ConsoleCommand:
    callback: ClientCallback
    flags: int = 0  # admin flags needed (RegAdminCmd); 0 for everyone


@attrs.define
class Timer:
    at: float
    interval: float
    repeat: bool
    callback: Callable[[], bool]  # returns False to stop a repeating timer


class SourceModCore:
    kind = "sourcemod"

    def __init__(self, world: World, translations: Path | None = None, server_lang: str = "ru"):
        self.world = world
        self.translations = translations
        self.server_lang = server_lang
        self.phrases = smtext.Phrases()
        self.phrases.load_text(smtext.COMMON)
        self.server_commands: dict[str, ServerCallback] = {}
        self.console_commands: dict[str, ConsoleCommand] = {}
        self.listeners: dict[str, list[ClientCallback]] = {}
        self.hooks: dict[str, list[EventCallback]] = {}
        self.cvars: dict[str, str] = {}
        self.reply_to = CONSOLE
        self.command: Command | None = None  # the command being run, for GetCmdArg
        self.server_console: deque[str] = deque(maxlen=1000)  # the latest lines printed to the server console
        self.actions: list[str] = []  # LogAction lines: SourceMod's own log
        self.errors: list[str] = []  # plugin errors, as SourceMod logs them
        self._output: list[str] | None = None  # the running server command's reply
        self._later: list[Callable[[], object]] = []
        self._timers: list[Timer] = []
        self._trigger: str | None = None

    # -- the plugin's forwards (a subclass answers them) ---------------------------------------

    def on_say(self, client: Client, command: str, text: str) -> int:
        return CONTINUE

    def on_client_connected(self, client: Client) -> None:
        pass

    def on_client_disconnect(self, client: Client) -> None:
        pass

    def on_gag(self, client: Client) -> None:
        pass

    # -- registration ------------------------------------------------------------------------

    def reg_server(self, name: str, callback: ServerCallback) -> None:
        self.server_commands[name.lower()] = callback

    def reg_console(self, name: str, callback: ClientCallback, flags: int = 0) -> None:
        self.console_commands[name.lower()] = ConsoleCommand(callback, flags)

    def listen(self, name: str, callback: ClientCallback) -> None:
        self.listeners.setdefault(name.lower(), []).append(callback)

    def hook(self, name: str, callback: EventCallback) -> None:
        self.hooks.setdefault(name, []).append(callback)

    def create_cvar(self, name: str, default: str) -> str:
        return self.cvars.setdefault(name.lower(), default)

    def load_translations(self, name: str) -> bool:
        if name in ("common.phrases", "core.phrases"):
            return True
        path = (self.translations or Path()) / f"{name}.txt"
        if not path.is_file():
            self.errors.append(f"Could not find translation file {name}.txt")
            return False
        self.phrases.load(path)
        return True

    # -- commands ------------------------------------------------------------------------------

    @contextmanager
    def running(self, command: Command, reply_to: int | None = None) -> Iterator[None]:
        old_command, old_reply = self.command, self.reply_to
        self.command = command
        if reply_to is not None:
            self.reply_to = reply_to
        try:
            yield
        finally:
            self.command, self.reply_to = old_command, old_reply

    def server_command(self, line: str) -> str | None:
        """One command from the server console or RCON; None when it is not SourceMod's
        (the engine answers it). The reply is what the command printed, one line each."""
        cmd = parse(line)
        if cmd is None or not cmd.argv:
            return ""
        name = cmd.name.lower()
        if name in self.cvars:
            if cmd.argc:
                self.cvars[name] = cmd.arg(1)
                return ""
            return f'"{name}" = "{self.cvars[name]}"'
        callback = self.server_commands.get(name)
        if callback is None:
            return None
        out: list[str] = []
        previous, self._output = self._output, out
        try:
            with self.running(cmd, CONSOLE):
                callback(cmd)
        finally:
            self._output = previous
        return "\n".join(out)

    def client_command(self, client: Client, line: str) -> bool:
        """A command a player sent from his console: command listeners may refuse it, then
        SourceMod's console and admin commands run it. False: the engine's to handle."""
        cmd = parse(line)
        if cmd is None or not cmd.argv:
            return False
        name = cmd.name.lower()
        with self.running(cmd):
            for callback in [*self.listeners.get(name, []), *self.listeners.get("", [])]:
                if (callback(client, cmd) or CONTINUE) >= HANDLED:
                    return True
            entry = self.console_commands.get(name)
            if entry is None:
                return False
            if entry.flags and not self.access(client, entry.flags):
                self.reply(client, "[SM] " + self.tr("No Access", client))
            else:
                entry.callback(client, cmd)
        return True

    # -- chat triggers (ChatTriggers.cpp) --------------------------------------------------------

    def _trigger_command(self, args: str) -> str | None:
        word = ""
        for ch in args:
            if ch.isspace() or ch == '"' or len(word.encode()) >= 63:
                break
            word += ch
        if not word:
            return None
        if word.lower() in self.console_commands:
            return args
        if word.lower().startswith("sm_") or f"sm_{word}".lower() not in self.console_commands:
            return None
        return f"sm_{args}"

    def say_pre(self, client: Client, text: str, command: str) -> bool:
        """Before the engine prints the chat line: True blocks it. A silent trigger (`/w`)
        that names a command is blocked here and run in say_post."""
        self._trigger = None
        if not text:
            return False
        silent = text[0] in SILENT_TRIGGERS
        if silent or text[0] in PUBLIC_TRIGGERS:
            self._trigger = self._trigger_command(text[1:])
        if silent and self._trigger is not None:
            return True
        return self.on_say(client, command, text) >= HANDLED

    def say_post(self, client: Client, text: str, command: str) -> None:
        if self._trigger is not None:
            line, self._trigger = self._trigger, None
            old, self.reply_to = self.reply_to, CHAT
            try:
                self.client_command(client, line)
            finally:
                self.reply_to = old

    # -- events, forwards, frames ----------------------------------------------------------------

    def event(self, name: str, fields: EventFields) -> None:
        for callback in list(self.hooks.get(name, [])):
            callback(name, fields)

    def client_connected(self, client: Client) -> None:
        self.on_client_connected(client)

    def client_disconnect(self, client: Client) -> None:
        self.on_client_disconnect(client)

    def gag_changed(self, client: Client) -> None:
        self.on_gag(client)

    def later(self, work: Callable[[], object]) -> None:
        """Work for the next frame: KickClient, FakeClientCommandEx."""
        self._later.append(work)

    def add_timer(self, interval: float, callback: Callable[[], bool], repeat: bool = False) -> Timer:
        timer = Timer(self.world.time() + interval, interval, repeat, callback)
        self._timers.append(timer)
        return timer

    def kill_timer(self, timer: Timer) -> None:
        if timer in self._timers:
            self._timers.remove(timer)

    def frame(self) -> None:
        for _ in range(100):  # work done in a frame may queue more; a loop is the plugin's bug
            work, self._later = self._later, []
            for item in work:
                item()
            if not self._later:
                break
        now = self.world.time()
        for timer in [t for t in self._timers if t.at <= now]:
            if timer not in self._timers:
                continue
            again = timer.callback()
            if timer.repeat and again is not False and timer in self._timers:
                timer.at = now + timer.interval
            else:
                self.kill_timer(timer)

    # -- output ----------------------------------------------------------------------------------

    def reply(self, client: Client | None, text: str) -> None:
        """ReplyToCommand: the server console (the RCON reply), or the player's chat when the
        command came from a chat trigger, else his console."""
        if client is None:
            self.print_server(text)
        elif self.reply_to == CHAT:
            client.chat.append(smtext.fit(text, CHAT_REPLY + 1, utf8=False))
        else:
            client.console.append(text)

    def print_server(self, text: str) -> None:
        if self._output is not None:
            self._output.append(text)
        self.server_console.append(text)

    def log_to_game(self, text: str) -> None:
        self.world.log.add(text)

    # -- translations ------------------------------------------------------------------------------

    def language(self, to: Client | None) -> str:
        return to.lang if to is not None else self.server_lang

    def phrase(self, key: str, to: Client | None) -> smtext.Phrase:
        found = self.phrases.find(key, self.language(to), self.server_lang)
        if found is None:
            raise KeyError(f'Language phrase "{key}" not found')
        return found

    def tr(self, key: str, to: Client | None, *values: Client | str | int) -> str:
        """The phrase in `to`'s language (the server's for None) with these values: a client
        for {n:N}, text for {n:s}, numbers for the rest."""
        phrase = self.phrase(key, to)
        ready = [v.name.encode() if isinstance(v, Client) else v.encode() if isinstance(v, str) else v for v in values]
        return smtext.fill(phrase, ready).decode("utf-8", "replace")

    # -- admins and targets ------------------------------------------------------------------------

    def access(self, client: Client | None, flags: int) -> bool:
        """CheckCommandAccess without overrides: root, or every flag asked for."""
        if flags == 0 or client is None:
            return True
        if client.bot:
            return False
        bits, _ = read_flags(client.admin)
        return bool(bits & ROOT) or bits & flags == flags

    def _filter(self, admin: Client | None, target: Client, flags: int) -> int:
        if flags & FILTER_NO_BOTS and target.bot:
            return TARGET_NOT_HUMAN
        # immunity, simplified: an admin is out of reach of other admins but root
        if (admin is not None and not flags & FILTER_NO_IMMUNITY and target.admin and target is not admin
                and not read_flags(admin.admin)[0] & ROOT):
            return TARGET_IMMUNE
        if flags & FILTER_ALIVE and not target.alive:
            return TARGET_NOT_ALIVE
        if flags & FILTER_DEAD and target.alive:
            return TARGET_NOT_DEAD
        return 1

    def targets(self, pattern: str, admin: Client | None, flags: int) -> list[Client] | int:
        """ProcessTargetString: the clients the pattern names, or a COMMAND_TARGET_ code."""
        clients = self.world.clients()
        picked: Client | None = None
        if pattern.startswith("#"):
            digits = ""
            for ch in pattern[1:]:
                if not ch.isdigit():
                    break
                digits += ch
            picked = self.world.players.get(int(digits)) if digits else None
            if picked is None:
                steam = pattern[1:].replace("_", ":").replace("STEAM:", "STEAM_", 1)
                picked = next((c for c in clients if c.steamid == steam or c.name == pattern[1:]), None)
        elif pattern == "@me" and admin is not None:
            picked = admin
        elif pattern.startswith("@") and not flags & FILTER_NO_MULTI:
            groups: dict[str, Callable[[Client], bool]] = {"@all": lambda c: True, "@alive": lambda c: c.alive, "@dead": lambda c: not c.alive,
                      "@bots": lambda c: c.bot, "@humans": lambda c: not c.bot, "@!me": lambda c: c is not admin,
                      "@t": lambda c: c.team_index == 2, "@ct": lambda c: c.team_index == 3}
            if pattern in groups:
                chosen = [c for c in clients if groups[pattern](c) and self._filter(admin, c, flags) > 0]
                return chosen or TARGET_EMPTY
        if picked is None and not pattern.startswith("#"):
            needle = pattern.encode().lower()
            found = [c for c in clients if needle in c.name.encode().lower()]
            if len(found) > 1:
                return TARGET_AMBIGUOUS
            picked = found[0] if found else None
        if picked is None:
            return TARGET_NONE
        verdict = self._filter(admin, picked, flags)
        return [picked] if verdict > 0 else verdict
