"""What the natives (`smnatives.Natives`) read of the host they are mixed into, for the type
checker. `smhost.PluginHost` is `Natives` + `smcore.SourceModCore` and owns the VM, the
handles and the plugin's own tables; naming `PluginHost` from `smnatives` would close an
import circle, so the natives see their host through this Protocol and `SourceModCore`."""

from __future__ import annotations

from typing import Protocol, TypeVar, overload

from jailcore.sim.smcore import SourceModCore
from jailcore.sim.smvm import Machine
from jailcore.sim.world import EventFields

T = TypeVar("T")


class VmHost(Protocol):
    """The part of the host that `PluginHost` adds to `SourceModCore`."""

    vm: Machine
    handles: dict[int, object]
    optional: set[str]
    libraries: set[str]
    own_libraries: set[str]
    plugin_natives: dict[str, int]
    trans_target: int
    autoexec: list[str]
    natives_known: set[str]
    _native_args: tuple[int | bytes, ...]  # of the native another plugin is calling (call_native)

    def call(self, funcid: int, *args: int | bytes) -> int: ...

    def new_handle(self, obj: object) -> int: ...

    @overload
    def handle(self, value: int) -> object: ...

    @overload
    def handle(self, value: int, kind: type[T]) -> T: ...

    def event_call(self, funcid: int, mode: int, name: str, fields: EventFields) -> None: ...


class Host(SourceModCore, VmHost):
    """The whole host as the natives see it (only ever a base class for the type checker)."""
