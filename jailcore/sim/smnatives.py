"""The natives of the fake SourceMod host, in Python over the simulated world. Each method
`n_Name` is the native `Name` (`n_ArrayList__PushArray` is `ArrayList.PushArray`) and gets
SourceMod's parameter array: `p[0]` is the count, `p[1]...` the arguments (strings, arrays
and by-reference values as addresses in the plugin's memory). Errors a native raises in
SourceMod (a bad client index, a missing phrase) are raised here as `NativeError`, with
SourceMod's wording, and abort the callback as they do on a server.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

import attrs

from jailcore.log.errors import PluginError
from jailcore.sim import smtext
from jailcore.sim.smcore import CHAT, CONSOLE, Timer, describe, read_flags
from jailcore.sim.world import Client, EventFields

_FLOAT = struct.Struct("<f")
_CELL = struct.Struct("<i")
BUFFER = 254  # SourceMod's buffers: chat, centre and hint text
REPLY_BUFFER = 1023  # ReplyToCommand (a reply shown in chat is cut to 191 bytes by smcore)
COMMAND_BUFFER = 256  # FakeClientCommand
LOG_BUFFER = 2048
FEATURE_AVAILABLE, FEATURE_UNKNOWN = 0, 2
AUTH_ENGINE, AUTH_STEAM2, AUTH_STEAM3, AUTH_STEAMID64 = range(4)

# A native's parameters as SourceMod passes them: the count, then one cell each.
Params = list[int]


class NativeError(PluginError):
    pass


# What a handle stands for, beside a `smcore.Timer` and the plugin's own ("myself"):


@attrs.define
class EventData:
    """A game event, while its hook runs."""

    name: str
    fields: EventFields


@attrs.frozen
class ConVarRef:
    name: str  # lower case, as `SourceModCore.cvars` keys it


@attrs.frozen
class ArrayData:
    """An ArrayList: `rows` of `blocksize` cells each."""

    blocksize: int
    rows: list[list[int]]


class StringMapData(dict[bytes, int]):
    """A StringMap of cells, by key."""


def c_int(value: int) -> int:
    return (value + 2**31) % 2**32 - 2**31


def as_float(cell: int) -> float:
    """A cell read as the float its bits hold (a `Float:` argument)."""
    value: float = _FLOAT.unpack(_CELL.pack(cell))[0]
    return value


def steam3(steam2: str) -> str:
    _, y, z = steam2.split(":")
    return f"[U:1:{int(z) * 2 + int(y)}]"


if TYPE_CHECKING:
    from jailcore.sim.hostface import Host as _Host
else:
    _Host = object  # the host is `smhost.PluginHost`: these methods are mixed into it


class Natives(_Host):
    # -- memory -----------------------------------------------------------------------------------

    def cell(self, addr: int) -> int:
        return self.vm._getheapcell(addr)

    def set_cell(self, addr: int, value: int) -> None:
        self.vm.set_cell(addr, value)

    def string(self, addr: int) -> bytes:
        return self.vm.string(addr)

    def text(self, addr: int) -> str:
        return self.vm.string(addr).decode("utf-8", "replace")

    def write(self, addr: int, size: int, data: bytes, utf8: bool = True) -> int:
        """Writes a string into a buffer of `size` bytes, cut to fit (not inside a UTF-8
        character unless utf8 is False, as the formatting natives cut); the bytes written."""
        if size <= 0:
            return 0
        data = smtext.cut(data, size) if utf8 else data[: size - 1]
        self.vm.check_range(addr, len(data) + 1)
        self.vm.memory[addr : addr + len(data) + 1] = data + b"\0"
        return len(data)

    def cells(self, addr: int, count: int) -> list[int]:
        self.vm.check_range(addr, count * 4)
        return list(struct.unpack_from(f"<{count}i", self.vm.memory, addr))

    def set_cells(self, addr: int, values: list[int]) -> None:
        self.vm.check_range(addr, len(values) * 4)
        struct.pack_into(f"<{len(values)}i", self.vm.memory, addr, *(c_int(v) for v in values))

    # -- clients ------------------------------------------------------------------------------------

    def client(self, index: int, in_game: bool = True) -> Client:
        if index < 1 or index > self.world.max_clients:
            raise NativeError(f"Client index {index} is invalid")
        found = self.world.slot(index)
        if found is None:
            raise NativeError(f"Client {index} is not {'in game' if in_game else 'connected'}")
        return found

    def client_or_console(self, index: int) -> Client | None:
        return None if index == 0 else self.client(index)

    # -- formatting (sprintf.cpp) ---------------------------------------------------------------------

    def _argument(self, conv: str, addr: int) -> smtext.Value:
        if conv in "diubxX":
            return self.cell(addr)
        if conv == "f":
            return as_float(self.cell(addr))
        if conv == "c":
            return self.vm._getheapchar(addr)
        if conv in "NL":
            index = self.cell(addr)
            if index == 0:
                return b"Console" if conv == "N" else describe(None).encode()
            found = self.world.slot(index) if 1 <= index <= self.world.max_clients else None
            if found is None:
                raise NativeError(f"Client index {index} is invalid")
            return found.name.encode() if conv == "N" else describe(found).encode()
        return self.string(addr)

    def format(self, fmt: bytes, params: list[int], arg: int, size: int) -> bytes:
        """atcprintf: fmt with the arguments params[arg:] (SourceMod passes every variadic
        argument by address); at most size-1 bytes, cut by bytes as SourceMod cuts."""
        out = bytearray()
        i, count = 0, params[0]
        while i < len(fmt):
            j = fmt.find(b"%", i)
            if j < 0:
                out += fmt[i:]
                break
            out += fmt[i:j]
            directive, i = smtext.read_directive(fmt, j + 1)
            conv = directive.conv
            if conv == "":
                out += b"%"
                break
            if conv not in "diubxXfcsNLtT":
                out += conv.encode()
                continue
            if arg > count or (conv == "T" and arg + 1 > count):
                raise NativeError(f"String formatted incorrectly - parameter {arg} (total {count})")
            if conv in "tT":
                key = self.text(params[arg])
                target = self.trans_target if conv == "t" else self.cell(params[arg + 1])
                arg += 1 if conv == "t" else 2
                out += self._translate(key, target, params, arg)
                arg += self._phrase_for(key, target).params
            else:
                out += smtext.render(directive, self._argument(conv, params[arg]))
                arg += 1
        return bytes(out[: max(size - 1, 0)])

    def _phrase_for(self, key: str, target: int) -> smtext.Phrase:
        to = None if target == 0 else self.world.slot(target)
        if target != 0 and to is None:
            raise NativeError(f"Translation failed: invalid client index {target}")
        try:
            return self.phrase(key, to)
        except KeyError as error:
            raise NativeError(error.args[0]) from None

    def _translate(self, key: str, target: int, params: list[int], arg: int) -> bytes:
        phrase = self._phrase_for(key, target)
        if arg + phrase.params - 1 > params[0]:
            raise NativeError(f"Translation string formatted incorrectly - missing at least {arg + phrase.params - 1 - params[0]} parameters")
        convs = {index: d.conv for part in phrase.parts if isinstance(part, tuple) for index, d in [part]}
        values = [self._argument(convs.get(k, "d"), params[arg + k]) for k in range(phrase.params)]
        return smtext.fill(phrase, values)

    def formatted(self, p: list[int], fmt_at: int, size: int = BUFFER) -> str:
        return self.format(self.string(p[fmt_at]), p, fmt_at + 1, size).decode("utf-8", "replace")

    # -- core, plugins and features -------------------------------------------------------------------

    def n_VerifyCoreVersion(self, p: Params) -> int:
        return 7

    def n_MarkNativeAsOptional(self, p: Params) -> None:
        self.optional.add(self.text(p[1]))

    def n_CreateNative(self, p: Params) -> None:
        self.plugin_natives[self.text(p[1])] = p[2]

    def n_RegPluginLibrary(self, p: Params) -> None:
        self.own_libraries.add(self.text(p[1]))

    def n_LibraryExists(self, p: Params) -> bool:
        return self.text(p[1]) in self.libraries

    def n_GetFeatureStatus(self, p: Params) -> int:
        name = self.text(p[2])
        known = name in self.natives_known if p[1] == 0 else False
        return FEATURE_AVAILABLE if known else FEATURE_UNKNOWN

    def _native_arg(self, n: int) -> int | bytes:
        """Argument n (from 1) of the call another plugin made to one of this plugin's natives."""
        if not 1 <= n <= len(self._native_args):
            raise NativeError(f"Invalid parameter number: {n}")
        return self._native_args[n - 1]

    def n_GetNativeCell(self, p: Params) -> int:
        value = self._native_arg(p[1])
        if not isinstance(value, int):
            raise NativeError(f"Invalid parameter number: {p[1]}")
        return value

    def n_GetNativeString(self, p: Params) -> int:
        value = self._native_arg(p[1])
        if not isinstance(value, bytes):
            raise NativeError(f"Invalid parameter number: {p[1]}")
        written = self.write(p[2], p[3], value)
        if p[0] >= 4:
            self.set_cell(p[4], written)
        return 0

    def n_ThrowNativeError(self, p: Params) -> None:
        raise NativeError(self.formatted(p, 2, 512))

    def n_AutoExecConfig(self, p: Params) -> None:
        self.autoexec.append(self.text(p[2]))

    def n_GetTime(self, p: Params) -> int:
        return int(self.world.time())

    def n_GetCurrentMap(self, p: Params) -> int:
        return self.write(p[1], p[2], self.world.map.encode())

    # -- strings --------------------------------------------------------------------------------------

    def n_strlen(self, p: Params) -> int:
        return len(self.string(p[1]))

    def n_strcmp(self, p: Params) -> int:
        a, b = self.string(p[1]), self.string(p[2])
        if p[0] >= 3 and not p[3]:
            a, b = a.lower(), b.lower()
        return (a > b) - (a < b)

    def n_strcopy(self, p: Params) -> int:
        return self.write(p[1], p[2], self.string(p[3]))

    def n_Format(self, p: Params) -> int:
        text = self.format(self.string(p[3]), p, 4, p[2])
        return self.write(p[1], p[2], text, utf8=False)

    n_FormatEx = n_Format

    def n_VFormat(self, p: Params) -> int:
        """Formats with the calling function's own arguments, from its parameter `p[4]` on."""
        frame = self.vm.FRM
        count = self.cell(frame + 8)
        caller = [count, *(self.cell(frame + 8 + 4 * i) for i in range(1, count + 1))]
        if p[4] > count + 1:
            raise NativeError(f"Argument index {p[4]} is invalid")
        text = self.format(self.string(p[3]), caller, p[4], p[2])
        return self.write(p[1], p[2], text, utf8=False)

    def n_IntToString(self, p: Params) -> int:
        return self.write(p[2], p[3], str(p[1]).encode())

    def n_StringToInt(self, p: Params) -> int:
        return smtext.strtoul(self.string(p[1]), p[2] if p[0] >= 2 else 10)[0]

    def n_StringToIntEx(self, p: Params) -> int:
        value, read = smtext.strtoul(self.string(p[1]), p[3] if p[0] >= 3 else 10)
        self.set_cell(p[2], value)
        return read

    def n_StripQuotes(self, p: Params) -> bool:
        text = self.string(p[1])
        stripped = smtext.strip_quotes(text)
        self.write(p[1], len(text) + 1, stripped)
        return stripped != text

    def n_TrimString(self, p: Params) -> int:
        text = self.string(p[1])
        return self.write(p[1], len(text) + 1, text.strip(smtext.WHITESPACE))

    def n_BreakString(self, p: Params) -> int:
        word, rest = smtext.break_string(self.string(p[1]), p[3])
        self.write(p[2], p[3], word, utf8=False)
        return rest

    def n_IsCharNumeric(self, p: Params) -> bool:
        return 48 <= (p[1] & 0xFF) <= 57

    # -- console commands -----------------------------------------------------------------------------

    def n_RegServerCmd(self, p: Params) -> None:
        funcid = p[2]
        self.reg_server(self.text(p[1]), lambda cmd: self.call(funcid, cmd.argc))

    def _reg_client(self, name: str, funcid: int, flags: int) -> None:
        self.reg_console(name, lambda client, cmd: self.call(funcid, client.slot if client else 0, cmd.argc), flags)

    def n_RegConsoleCmd(self, p: Params) -> None:
        self._reg_client(self.text(p[1]), p[2], 0)

    def n_RegAdminCmd(self, p: Params) -> None:
        self._reg_client(self.text(p[1]), p[2], p[3])

    def n_AddCommandListener(self, p: Params) -> int:
        funcid = p[1]
        name = self.text(p[2]) if p[0] >= 2 else ""
        self.listen(name, lambda client, cmd: self.call(funcid, client.slot if client else 0, cmd.name.encode(), cmd.argc))
        return 1

    def n_GetCmdArg(self, p: Params) -> int:
        arg = self.command.arg(p[1]) if self.command is not None else ""
        return self.write(p[2], p[3], arg.encode())

    def n_GetCmdArgString(self, p: Params) -> int:
        return self.write(p[1], p[2], (self.command.args if self.command is not None else "").encode())

    def n_GetCmdReplySource(self, p: Params) -> int:
        return self.reply_to

    def n_SetCmdReplySource(self, p: Params) -> int:
        old, self.reply_to = self.reply_to, CHAT if p[1] == CHAT else CONSOLE
        return old

    def n_ReplyToCommand(self, p: Params) -> None:
        self.trans_target = p[1]
        client = None if p[1] == 0 else self.client(p[1], in_game=False)
        self.reply(client, self.formatted(p, 2, REPLY_BUFFER))

    def n_PrintToServer(self, p: Params) -> None:
        self.print_server(self.formatted(p, 1, LOG_BUFFER))

    def n_FakeClientCommand(self, p: Params) -> None:
        client = self.client(p[1], in_game=False)
        self.trans_target = p[1]
        self.world.client_command(client, self.formatted(p, 2, COMMAND_BUFFER))

    def n_FakeClientCommandEx(self, p: Params) -> None:
        client = self.client(p[1], in_game=False)
        self.trans_target = p[1]
        line = self.formatted(p, 2, COMMAND_BUFFER)
        self.later(lambda: self.world.client_command(client, line))

    def n_CheckCommandAccess(self, p: Params) -> bool:
        return self.access(self.client_or_console(p[1]), p[3])

    def n_ReadFlagString(self, p: Params) -> int:
        bits, read = read_flags(self.text(p[1]))
        if p[0] >= 2:
            self.set_cell(p[2], read)
        return bits

    # -- convars --------------------------------------------------------------------------------------

    def n_CreateConVar(self, p: Params) -> int:
        name = self.text(p[1])
        self.create_cvar(name, self.text(p[2]))
        return self.new_handle(ConVarRef(name.lower()))

    def n_FindConVar(self, p: Params) -> int:
        name = self.text(p[1]).lower()
        return self.new_handle(ConVarRef(name)) if name in self.cvars else 0

    def n_ConVar__IntValue__get(self, p: Params) -> int:
        name = self.handle(p[1], ConVarRef).name
        try:
            return int(float(self.cvars[name]))
        except ValueError:
            return 0

    def n_ConVar__GetString(self, p: Params) -> int:
        name = self.handle(p[1], ConVarRef).name
        return self.write(p[2], p[3], self.cvars[name].encode())

    # -- players --------------------------------------------------------------------------------------

    def n_GetClientOfUserId(self, p: Params) -> int:
        found = self.world.players.get(p[1])
        return found.slot if found is not None else 0

    def n_GetClientUserId(self, p: Params) -> int:
        return self.client(p[1], in_game=False).userid

    def n_IsClientInGame(self, p: Params) -> bool:
        if p[1] < 1 or p[1] > self.world.max_clients:
            raise NativeError(f"Client index {p[1]} is invalid")
        return self.world.slot(p[1]) is not None

    def n_IsClientSourceTV(self, p: Params) -> bool:
        self.client(p[1], in_game=False)
        return False

    def n_IsFakeClient(self, p: Params) -> bool:
        return self.client(p[1], in_game=False).bot

    def n_IsPlayerAlive(self, p: Params) -> bool:
        return self.client(p[1]).alive

    def n_GetClientTeam(self, p: Params) -> int:
        return self.client(p[1]).team_index

    def n_GetTeamClientCount(self, p: Params) -> int:
        return self.world.team_count(p[1])

    def n_GetClientName(self, p: Params) -> bool:
        name = b"Console" if p[1] == 0 else self.client(p[1], in_game=False).name.encode()
        self.write(p[2], p[3], name)
        return True

    def n_GetClientAuthId(self, p: Params) -> bool:
        client = self.client(p[1], in_game=False)
        if client.bot or not client.steamid.startswith("STEAM_") or client.steamid.startswith("STEAM_ID"):
            self.write(p[3], p[4], b"")
            return False
        auth = {AUTH_ENGINE: client.steamid, AUTH_STEAM2: client.steamid, AUTH_STEAM3: steam3(client.steamid)}.get(p[2])
        if auth is None:
            _, y, z = client.steamid.split(":")
            auth = str(76561197960265728 + int(z) * 2 + int(y))
        self.write(p[3], p[4], auth.encode())
        return True

    def n_GetClientLanguage(self, p: Params) -> int:
        return 0 if self.client(p[1], in_game=False).lang == "en" else 1

    def n_KickClient(self, p: Params) -> None:
        client = self.client(p[1], in_game=False)
        reason = self.formatted(p, 2, 255) if p[0] >= 2 else ""
        self.later(lambda: self.world.kick(client, reason))

    def n_BanClient(self, p: Params) -> bool:
        client = self.client(p[1], in_game=False)
        minutes, reason, message, source = p[2], self.text(p[4]), self.text(p[5]), self.text(p[6])
        self.world.ban(client, minutes, reason, source)
        self.later(lambda: self.world.kick(client, message or reason))
        return True

    def n_strncmp(self, p: Params) -> int:
        num = p[3]
        a, b = self.text(p[1]).encode()[:num], self.text(p[2]).encode()[:num]
        if p[0] >= 4 and not p[4]:
            a, b = a.lower(), b.lower()
        return (a > b) - (a < b)

    def n_BanIdentity(self, p: Params) -> bool:
        self.world.ban_identity(self.text(p[1]), p[2], self.text(p[4]), self.text(p[5]))
        return True

    def n_RemoveBan(self, p: Params) -> bool:
        return self.world.unban(self.text(p[1]))

    def n_ChangeClientTeam(self, p: Params) -> None:
        self.world.change_team(self.client(p[1]), p[2])

    def n_CS_SwitchTeam(self, p: Params) -> None:
        self.world.change_team(self.client(p[1]), p[2], keep_alive=True)

    def n_CS_RespawnPlayer(self, p: Params) -> None:
        self.world.respawn(self.client(p[1]))

    def n_ForcePlayerSuicide(self, p: Params) -> None:
        client = self.client(p[1])
        if client.alive:
            self.world.suicide(client)

    def n_GetEntProp(self, p: Params) -> int:
        client, prop = self.client(p[1]), self.text(p[3])
        if prop != "m_iAccount":
            raise NativeError(f'Property "{prop}" not found (entity {p[1]}/player)')
        return client.money

    def n_SetEntProp(self, p: Params) -> None:
        client, prop = self.client(p[1]), self.text(p[3])
        if prop != "m_iAccount":
            raise NativeError(f'Property "{prop}" not found (entity {p[1]}/player)')
        client.money = p[4]

    def n_BaseComm_IsClientGagged(self, p: Params) -> bool:
        return self.client(p[1]).gagged

    def n_ProcessTargetString(self, p: Params) -> int:
        pattern, admin = self.text(p[1]), self.client_or_console(p[2])
        found = self.targets(pattern, admin, p[5])
        if isinstance(found, int):
            return found
        found = found[: p[4]]
        self.set_cells(p[3], [c.slot for c in found])
        self.write(p[6], p[7], found[0].name.encode() if len(found) == 1 else pattern.encode())
        self.set_cell(p[8], 0)
        return len(found)

    # -- text to players and to the log ---------------------------------------------------------------

    def n_SetGlobalTransTarget(self, p: Params) -> None:
        self.trans_target = p[1]

    def n_LoadTranslations(self, p: Params) -> None:
        self.load_translations(self.text(p[1]))

    def n_PrintToChat(self, p: Params) -> None:
        client = self.client(p[1])
        self.trans_target = p[1]
        client.chat.append(self.formatted(p, 2))

    def n_PrintCenterText(self, p: Params) -> None:
        client = self.client(p[1])
        self.trans_target = p[1]
        client.centre.append(self.formatted(p, 2))

    def n_PrintHintText(self, p: Params) -> None:
        client = self.client(p[1])
        self.trans_target = p[1]
        client.hint.append(self.formatted(p, 2))

    def n_LogToGame(self, p: Params) -> None:
        self.log_to_game(self.formatted(p, 1, LOG_BUFFER))

    def n_LogAction(self, p: Params) -> None:
        self.actions.append(self.formatted(p, 3, LOG_BUFFER))

    # -- events ---------------------------------------------------------------------------------------

    def n_HookEvent(self, p: Params) -> None:
        funcid, mode = p[2], p[3] if p[0] >= 3 else 1
        self.hook(self.text(p[1]), lambda name, fields: self.event_call(funcid, mode, name, fields))

    def n_Event__GetInt(self, p: Params) -> int:
        data = self.handle(p[1], EventData)
        value = data.fields.get(self.text(p[2]), p[3] if p[0] >= 3 else 0)
        return int(value)

    # -- ADT arrays and maps, handles, timers ---------------------------------------------------------

    def n_ArrayList__ArrayList(self, p: Params) -> int:
        blocksize = p[1] if p[0] >= 1 else 1
        return self.new_handle(ArrayData(blocksize, [[0] * blocksize for _ in range(p[2] if p[0] >= 2 else 0)]))

    def _array(self, value: int) -> tuple[int, list[list[int]]]:
        array = self.handle(value, ArrayData)
        return array.blocksize, array.rows

    def n_ArrayList__PushArray(self, p: Params) -> int:
        blocksize, rows = self._array(p[1])
        size = p[3] if p[0] >= 3 and p[3] >= 0 else blocksize
        rows.append((self.cells(p[2], min(size, blocksize)) + [0] * blocksize)[:blocksize])
        return len(rows) - 1

    def n_ArrayList__GetArray(self, p: Params) -> int:
        blocksize, rows = self._array(p[1])
        if not 0 <= p[2] < len(rows):
            raise NativeError(f"Invalid index {p[2]} (count: {len(rows)})")
        size = p[4] if p[0] >= 4 and p[4] >= 0 else blocksize
        values = rows[p[2]][: min(size, blocksize)]
        self.set_cells(p[3], values)
        return len(values)

    def n_ArrayList__Length__get(self, p: Params) -> int:
        return len(self._array(p[1])[1])

    def n_StringMap__StringMap(self, p: Params) -> int:
        return self.new_handle(StringMapData())

    def n_StringMap__SetValue(self, p: Params) -> bool:
        table = self.handle(p[1], StringMapData)
        key = self.string(p[2])
        if key in table and p[0] >= 4 and not p[4]:
            return False
        table[key] = p[3]
        return True

    def n_StringMap__GetValue(self, p: Params) -> bool:
        table = self.handle(p[1], StringMapData)
        key = self.string(p[2])
        if key not in table:
            return False
        self.set_cell(p[3], table[key])
        return True

    def n_StringMap__Remove(self, p: Params) -> bool:
        return self.handle(p[1], StringMapData).pop(self.string(p[2]), None) is not None

    def n_CloseHandle(self, p: Params) -> None:
        obj = self.handles.pop(p[1], None)
        if isinstance(obj, Timer):
            self.kill_timer(obj)

    def n_CreateTimer(self, p: Params) -> int:
        interval = as_float(p[1])
        funcid, data, flags = p[2], p[3] if p[0] >= 3 else 0, p[4] if p[0] >= 4 else 0
        handle = 0

        def fire() -> bool:
            result = self.call(funcid, handle, data)
            if not flags & 1:  # TIMER_REPEAT
                self.handles.pop(handle, None)
            return result != 4  # Plugin_Stop ends a repeating timer

        timer = self.add_timer(interval, fire, repeat=bool(flags & 1))
        handle = self.new_handle(timer)
        return handle

    def n_KillTimer(self, p: Params) -> None:
        timer = self.handle(p[1])
        if isinstance(timer, Timer):
            self.kill_timer(timer)
        self.handles.pop(p[1], None)
