"""A fake SourceMod that runs the real plugin: the compiled .smx in pysmx's SourcePawn VM
(patched in `smvm`), with every native it imports written in Python over the simulated
game world (`world.World`). SourceMod's own rules (chat triggers, admin access, replies,
targets, translations) are `smcore`'s, shared with the Python stand-in; the natives are in
`smnatives`.

`PluginHost` is a `world.Shim`: the simulated server sends it the RCON commands, the chat
lines, the client commands and the game events, and the plugin's bytecode answers.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar, overload

from jailcore.sim import smvm
from jailcore.sim.smcore import SourceModCore
from jailcore.sim.smnatives import EventData, NativeError, Natives, Params
from jailcore.sim.world import Client, EventFields, World

APL_SUCCESS = 0
T = TypeVar("T")
NativeCall = Callable[[Params], int | None]  # a bound `n_` method: its cell, or None for 0


class PluginHost(Natives, SourceModCore):
    kind = "plugin"

    def __init__(self, world: World, smx: Path, translations: Path | None = None, server_lang: str = "ru"):
        SourceModCore.__init__(self, world, translations, server_lang)
        self.smx = Path(smx)
        self.plugin, self.vm = smvm.load(self.smx)
        self.vm.native_call = self._native
        self.handles: dict[int, object] = {}
        self._next_handle = 0x100
        self.optional: set[str] = set()
        self.libraries: set[str] = {"basecomm"}  # other plugins' libraries present on the server
        self.own_libraries: set[str] = set()
        self.plugin_natives: dict[str, int] = {}  # natives the plugin made (CreateNative)
        self.trans_target = 0
        self.autoexec: list[str] = []
        self._native_args: tuple[int | bytes, ...] = ()
        table = self.native_table()
        self.natives_known = set(table)
        self._bound: list[NativeCall | None] = [getattr(self, table[n.name]) if n.name in table else None for n in self.plugin.natives]

    # -- the natives ------------------------------------------------------------------------------

    @classmethod
    def native_table(cls) -> dict[str, str]:
        """Every native this host implements, by SourceMod's name (`ArrayList.PushArray`): its method's name."""
        table = {}
        for attr in dir(cls):
            if attr.startswith("n_"):
                table[attr[2:].replace("__", ".")] = attr
        return table

    def imported(self) -> list[str]:
        return [n.name for n in self.plugin.natives]

    def missing(self) -> list[str]:
        """Natives the plugin imports that this host lacks (a plugin SourceMod would not load,
        unless they are optional)."""
        return [name for name, bound in zip(self.imported(), self._bound, strict=True) if bound is None]

    def _native(self, index: int, params: list[int]) -> int:
        native = self._bound[index]
        if native is None:
            raise NativeError(f"Native {self.plugin.natives[index].name} is not bound")
        return int(native(params) or 0)

    # -- calling the plugin -------------------------------------------------------------------------

    def call(self, funcid: int, *args: int | bytes) -> int:
        """Runs a plugin function by id. An error is logged as SourceMod logs it and the call
        answers 0, as a failed callback does: the plugin and the server go on."""
        public = self.plugin.publics_by_id.get(funcid)
        if public is None:
            raise NativeError(f"Invalid function id {funcid:#x}")
        try:
            return self.vm.invoke(public.code_offs, list(args))
        except (smvm.SourcePawnRuntimeError, NativeError) as error:
            trace = error.dump_stack() if isinstance(error, smvm.SourcePawnRuntimeError) else ""
            self.errors.append(f"Exception reported: {error} in {public.name}\n{trace}".rstrip())
            return 0

    def forward(self, name: str, *args: int | bytes) -> int:
        public = self.plugin.publics_by_name.get(name)
        return self.call(public.funcid, *args) if public is not None else 0

    def call_native(self, name: str, *args: int | bytes) -> int:
        """Another plugin calls one of this plugin's natives (CreateNative), e.g. a VIP plugin
        calling JailCore_ReportPrivilege(client, "kind")."""
        saved, self._native_args = self._native_args, args
        try:
            return self.call(self.plugin_natives[name], 1, len(args))
        finally:
            self._native_args = saved

    # -- loading (SourceMod's order) ------------------------------------------------------------------

    def load(self) -> None:
        self.vm.set_cell(smvm.pubvar_address(self.plugin, "MaxClients"), self.world.max_clients)
        for name in self.plugin.publics_by_name:
            if name.startswith(("__ext_", "__pl_")) and name.endswith("_SetNTVOptional"):
                self.forward(name)
        error = bytearray(256)
        if self.forward("AskPluginLoad2", self.new_handle("myself"), 0, bytes(error), len(error)) != APL_SUCCESS:
            raise RuntimeError("the plugin refused to load (AskPluginLoad2)")
        required = [name for name in self.missing() if name not in self.optional]
        if required:
            raise RuntimeError(f"the plugin imports natives this host lacks: {', '.join(required)}")
        for forward in ("OnPluginStart", "OnAllPluginsLoaded", "OnMapStart", "OnConfigsExecuted"):
            self.forward(forward)
        self.frame()

    # -- what the game tells SourceMod ----------------------------------------------------------------

    def on_say(self, client: Client, command: str, text: str) -> int:
        return self.forward("OnClientSayCommand", client.slot, command.encode(), text.encode())

    def on_client_connected(self, client: Client) -> None:
        for forward in ("OnClientConnected", "OnClientPutInServer", "OnClientPostAdminCheck"):
            self.forward(forward, client.slot)

    def on_client_disconnect(self, client: Client) -> None:
        self.forward("OnClientDisconnect", client.slot)

    def on_gag(self, client: Client) -> None:
        self.forward("BaseComm_OnClientGag", client.slot, int(client.gagged))

    def library_added(self, name: str) -> None:
        self.libraries.add(name)
        self.forward("OnLibraryAdded", name.encode())

    # -- handles ------------------------------------------------------------------------------------

    def new_handle(self, obj: object) -> int:
        self._next_handle += 1
        self.handles[self._next_handle] = obj
        return self._next_handle

    @overload
    def handle(self, value: int) -> object: ...

    @overload
    def handle(self, value: int, kind: type[T]) -> T: ...

    def handle(self, value: int, kind: type[T] | None = None) -> object:
        obj = self.handles.get(value)
        if obj is None or (kind is not None and not isinstance(obj, kind)):
            raise NativeError(f"Invalid Handle {value:x} (error 4)")
        return obj

    def event_call(self, funcid: int, mode: int, name: str, fields: EventFields) -> None:
        handle = self.new_handle(EventData(name, fields)) if mode != 2 else 0  # PostNoCopy: no handle
        try:
            self.call(funcid, handle, name.encode(), 0)
        finally:
            self.handles.pop(handle, None)
