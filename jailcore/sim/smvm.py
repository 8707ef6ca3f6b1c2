"""pysmx's SourcePawn VM, patched where the plugin needs it. Every patch is named here and
tested in tests/test_shim_vm.py (`test_vm_patches`):

1. `Machine._execute`: one dispatch table built at load instead of a lookup, a decode and a
   record per instruction. pysmx appends every executed instruction to `_executed` and
   mirrors the stack in a Python list (`_stack`): both grow without bound in a long-running
   server, and the mirror is scanned on every local store. Both are dropped.
2. An opcode with no working handler raises `INVALID_INSTRUCTION`; pysmx logs it and goes
   on with the next cell, which then runs the instruction's operands as code.
3. PRI and ALT stay 32-bit: pysmx leaves Python's unbounded integers in them after `shl`,
   `smul`, `add`..., so a comparison right after an overflow went the wrong way.
4. Memory reads are bounds-checked (pysmx reads through a raw pointer: a bad address read
   the Python process's memory); the heap is a bytearray so strings are found with `find`.
5. `lidx` reads PRI*4+ALT (pysmx read PRI+4+ALT); `movs` and `fill` copy memory in one step
   (pysmx built a Python list of the bytes moved); `not` leaves 0 or 1, not a bool.
6. A call runs under an instruction budget (a watchdog like SourceMod's): an endless loop in
   the plugin is an error, not a hung test.
7. Natives are called with their parameters as a list, `[count, p1, p2, ...]`, no frame of
   their own: a native reads the calling function's frame for `VFormat`, as SourceMod does.
8. `Typeset` (at load): pysmx reads a typeset's signature, an offset into rtti.data where a
   count and that many function types stand, as if it were a type id; whether a plugin then
   loads depends on where its typesets happen to fall (an assertion fails for some builds).
   The signature is read as what it is.

pysmx ships no type information, so to the type checker its classes are `Any`: what this
package reads of them is written down here (`Plugin`, `Public`..., and the registers and
state declared on `Machine`), and the rest of `sim` sees pysmx only through this module.
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Callable, Mapping, Sequence
from ctypes import c_byte
from pathlib import Path
from typing import NoReturn, Protocol

import smx.plugin
from smx import reader
from smx.definitions import cell
from smx.errors import SourcePawnErrorCode
from smx.exceptions import SourcePawnRuntimeError
from smx.opcodes import SourcePawnInstructionParam, sp_opcodes_list
from smx.pawn import SMXInstructions
from smx.plugin import SourcePawnPlugin
from smx.runtime import SourcePawnPluginRuntime
from smx.vm import SourcePawnAbstractMachine

_CELL = struct.Struct("<i")
_SHORT = struct.Struct("<h")
BUDGET = 20_000_000  # instructions per call from the host before the watchdog stops it
MIN32, SPAN32 = -(2**31), 2**32

# pysmx's handlers that only raise (opcodes spcomp does not generate, or never written)
_BROKEN = {
    "sign_pri", "sign_alt", "align_pri", "align_alt", "lctrl", "sctrl", "push_r", "ret", "call_pri", "jrel",
    "jless", "jleq", "jgrtr", "jgeq", "umul", "udiv", "udiv_alt", "less", "leq", "grtr", "geq", "cmps",
    "sysreq_pri", "file", "line", "symbol", "srange", "jump_pri", "symtag", "sysreq_d", "sysreq_nd",
    "stackadjust", "ldgfn_pri", "rebase", "fabs", "float_", "floatsub", "floatmul", "floatdiv", "round",
    "floor", "ceil", "round_to_zero", "floatcmp",
}


# -- what this package reads of pysmx's plugin (`smx.plugin.SourcePawnPlugin` and its records)


class Native(Protocol):
    name: str


class Public(Protocol):
    name: str
    funcid: int
    code_offs: int


class Pubvar(Protocol):
    name: str
    offs: int


class PCode(Protocol):
    pcode: int  # where the code section starts in `base`
    size: int


class Plugin(Protocol):
    base: bytes  # the whole file image, unpacked
    pcode: PCode
    data: int  # where the data section starts in `base`
    datasize: int
    memsize: int
    natives: Sequence[Native]  # by index, as the plugin's code calls them
    publics_by_id: Mapping[int, Public]
    publics_by_name: Mapping[str, Public]
    pubvars: Sequence[Pubvar]


class Frame(Protocol):
    """A frame of pysmx's call stack (`smx.vm.Frame`)."""

    addr: int | None


def wrap32(value: int) -> int:
    return (value - MIN32) % SPAN32 + MIN32


# An instruction's handler: the machine, then the instruction's operands.
Handler = Callable[..., None]


class Instructions(SMXInstructions):  # type: ignore[misc]  # pysmx is untyped (see the module's notes)
    """pysmx's handlers with the fixes of patch 5."""

    def lidx(self, amx: Machine, *_: int) -> None:
        amx.PRI = amx._getheapcell(amx.PRI * 4 + amx.ALT)

    def not_(self, amx: Machine, *_: int) -> None:
        amx.PRI = 0 if amx.PRI else 1

    def movs(self, amx: Machine, num_bytes: int) -> None:
        dst, src = amx.ALT, amx.PRI
        amx.check_range(dst, num_bytes)
        amx.check_range(src, num_bytes)
        amx.memory[dst : dst + num_bytes] = amx.memory[src : src + num_bytes]

    def fill(self, amx: Machine, num_bytes: int) -> None:
        dst = amx.ALT
        count = num_bytes // 4
        amx.check_range(dst, count * 4)
        amx.memory[dst : dst + count * 4] = _CELL.pack(wrap32(amx.PRI)) * count


def working_handlers(instructions: Instructions) -> dict[int, tuple[Handler, tuple[bool, ...]]]:
    """opcode -> (handler, for each operand whether it is frame-relative)."""
    table: dict[int, tuple[Handler, tuple[bool, ...]]] = {}
    for op, ins in enumerate(sp_opcodes_list):
        handler = getattr(instructions, ins.method, None)
        if handler is None or ins.method in _BROKEN or ins.name.startswith("trk."):
            continue
        table[op] = (handler, tuple(p is SourcePawnInstructionParam.STACK for p in ins.params))
    return table


def opcodes_used(plugin: Plugin) -> set[str]:
    """Every instruction in the plugin's code, by a linear walk (case tables skipped)."""
    code = plugin.base[plugin.pcode.pcode :][: plugin.pcode.size]
    cells = array("i", code[: len(code) // 4 * 4])
    used: set[str] = set()
    i = 0
    while i < len(cells):
        ins = sp_opcodes_list[cells[i] & 0xFFFF]
        used.add(ins.name)
        i += 1 + (2 + 2 * cells[i + 1] if ins.name == "casetbl" else len(ins.params))
    return used


class Machine(SourcePawnAbstractMachine):  # type: ignore[misc]  # pysmx is untyped: what is used of it is declared here
    native_call: Callable[[int, list[int]], int]  # set by the host: (native index, params) -> cell
    # pysmx's (SourcePawnAbstractMachine.__init__): the plugin, and the registers as cells
    plugin: Plugin
    PRI: int  # primary register
    ALT: int  # alternate register
    FRM: int  # the frame pointer
    CIP: int  # code instruction pointer
    _frames: list[Frame]

    def init(self) -> None:
        plugin = self.plugin
        self.COD = plugin.pcode.pcode
        self.DAT = plugin.data
        self.data = plugin.base[self.DAT :][: plugin.datasize]
        self.code = plugin.base[self.COD :][: plugin.pcode.size]
        self.memory = bytearray(plugin.memsize)
        self.memory[: plugin.datasize] = self.data
        self.heap = (c_byte * plugin.memsize).from_buffer(self.memory)
        self.HEA = plugin.datasize
        self._hp_scope = self.HEA
        self.STP = plugin.memsize
        self.STK = self.STP
        self.FRM = self.STK
        self.instructions = Instructions()
        self._cells = array("i", self.code[: len(self.code) // 4 * 4])
        self._table = working_handlers(self.instructions)
        self._stack: list[object] = []
        self._executed: list[object] = []
        self.instr = 0
        self.instr_addr = 0
        self.instr_line = None
        self.halted = False
        self.exception: SourcePawnRuntimeError | None = None
        self.budget = BUDGET
        self.initialized = True

    def report_error(self, code_or_msg: SourcePawnErrorCode | str, msg: str | None = None) -> NoReturn:
        # pysmx asserts that no error is pending; one raised outside a call would then block
        # every later report. A call restores the state anyway (invoke).
        code = code_or_msg if isinstance(code_or_msg, SourcePawnErrorCode) else SourcePawnErrorCode.USER
        message = msg if msg is not None else code_or_msg if isinstance(code_or_msg, str) else code.msg
        error = SourcePawnRuntimeError(message, amx=self, code=code)
        self.exception = error
        raise error

    # -- memory (patch 4) ----------------------------------------------------------------------

    def check_range(self, addr: int, size: int) -> None:
        if addr < 0 or addr + size > self.STP or (self.HEA <= addr < self.STK and size):
            self.report_error(SourcePawnErrorCode.MEMACCESS, f"Invalid memory access at {addr}")

    def _getheapcell(self, offset: int) -> int:
        if not 0 <= offset <= self.STP - 4:
            self.report_error(SourcePawnErrorCode.MEMACCESS, f"Invalid memory access at {offset}")
        value: int = _CELL.unpack_from(self.memory, offset)[0]
        return value

    def _getheapchar(self, offset: int) -> int:
        if not 0 <= offset < self.STP:
            self.report_error(SourcePawnErrorCode.MEMACCESS, f"Invalid memory access at {offset}")
        return self.memory[offset]

    def _getheapbyte(self, offset: int) -> int:
        value = self._getheapchar(offset)
        return value - 256 if value > 127 else value

    def _getheapshort(self, offset: int) -> int:
        if not 0 <= offset <= self.STP - 2:
            self.report_error(SourcePawnErrorCode.MEMACCESS, f"Invalid memory access at {offset}")
        value: int = _SHORT.unpack_from(self.memory, offset)[0]
        return value

    def _getheapstring(self, offset: int) -> str:
        return self.string(offset).decode("utf-8", "replace")

    def string(self, addr: int) -> bytes:
        if not 0 <= addr < self.STP:
            self.report_error(SourcePawnErrorCode.MEMACCESS, f"Invalid string address {addr}")
        end = self.memory.find(b"\0", addr)
        return bytes(self.memory[addr : end if end >= 0 else self.STP])

    def set_cell(self, addr: int, value: int) -> None:
        self.check_range(addr, 4)
        _CELL.pack_into(self.memory, addr, wrap32(value))

    # -- the stack without its Python mirror (patch 1) ---------------------------------------------

    def _push(self, value: int) -> None:
        self.STK -= 4
        if self.STK < self.HEA:
            self.report_error(SourcePawnErrorCode.STACKLOW)
        _CELL.pack_into(self.memory, self.STK, wrap32(int(value)))

    def _pop(self) -> int:
        value: int = _CELL.unpack_from(self.memory, self.STK)[0]
        self.STK += 4
        return value

    def _filter_stack(self, new_stk: int) -> None:
        pass

    def _stack_set(self, set_addr: int, set_val: int) -> None:
        pass

    # -- natives (patch 7) ---------------------------------------------------------------------

    def _nativecall(self, index: int, paramoffs: int) -> int:
        count = self._getheapcell(paramoffs)
        params = [count, *(_CELL.unpack_from(self.memory, paramoffs + 4 * i)[0] for i in range(1, count + 1))]
        return self.native_call(index, params)

    # -- the interpreter (patches 1, 2, 3, 6) -----------------------------------------------------

    def _execute(self, code_offs: int) -> int:
        self.halted = False
        self.CIP = code_offs
        cells, table, frames = self._cells, self._table, self._frames
        budget = self.budget
        while not self.halted:
            cip = self.CIP
            self.instr_addr = cip
            if frames:
                frames[-1].addr = cip
            word = cells[cip >> 2]
            entry = table.get(word & 0xFFFF)
            if entry is None:
                self.report_error(SourcePawnErrorCode.INVALID_INSTRUCTION, f"Invalid instruction {word & 0xFFFF} at {cip}")
            handler, operands = entry
            self.instr = word
            if operands:
                args = [cells[(cip >> 2) + 1 + i] + (self.FRM if stack else 0) for i, stack in enumerate(operands)]
                self.CIP = cip + 4 + 4 * len(operands)
                handler(self, *args)
            else:
                self.CIP = cip + 4
                handler(self)
            pri, alt = self.PRI, self.ALT
            if not MIN32 <= pri < -MIN32:
                self.PRI = wrap32(int(pri))
            if not MIN32 <= alt < -MIN32:
                self.ALT = wrap32(int(alt))
            budget -= 1
            if budget <= 0:
                self.budget = BUDGET
                self.report_error(SourcePawnErrorCode.TIMEOUT, "Script execution timed out")
        self.budget = budget
        return self.PRI

    def invoke(self, code_offs: int, args: list[int | bytes]) -> int:
        """Runs the function at code_offs with these arguments (bytes are copied onto the heap
        as strings) and returns its PRI. The machine's registers and frames are restored
        afterwards, also after an error, so a failed callback leaves the plugin usable and a
        call made from inside a native returns to where that native was called."""
        saved = (self.STK, self.HEA, self.FRM, self._hp_scope, self.CIP, self.halted, len(self._frames), self.instr_addr)
        outer = len(self._frames) == 0
        if outer:
            self.budget = BUDGET
        try:
            cells: list[int] = []
            for arg in args:
                if isinstance(arg, bytes):
                    size = (len(arg) + 4) // 4 * 4
                    addr = self.HEA
                    if addr + size >= self.STK:
                        self.report_error(SourcePawnErrorCode.HEAPLOW)
                    self.memory[addr : addr + size] = arg.ljust(size, b"\0")
                    self.HEA += size
                    cells.append(addr)
                else:
                    cells.append(int(arg))
            self.CIP = 0  # code 0 is a HALT: the function returns there and stops
            for value in reversed(cells):
                self._push(value)
            self._push(len(cells))
            self.instructions.call(self, code_offs)
            return self._execute(code_offs)
        finally:
            (self.STK, self.HEA, self.FRM, self._hp_scope, self.CIP, self.halted, depth, self.instr_addr) = saved
            del self._frames[depth:]
            self.exception = None


class Typeset(reader.RTTITypeset):  # type: ignore[misc]  # pysmx is untyped
    """A typeset with its function types read from its signature (patch 8)."""

    def __init__(self, plugin: SourcePawnPlugin, name: int, signature: int):
        super(reader.RTTITypeset, self).__init__(plugin, name)
        self.signature = signature
        self.rtti = None
        parser = plugin.rtti_parser_from_offset(signature)
        self.types = [parser.decode_new() for _ in range(parser.decode_uint32())]


def load(path: Path | str) -> tuple[Plugin, Machine]:
    """The compiled plugin and a machine ready to run it."""
    saved, smx.plugin.RTTITypeset = smx.plugin.RTTITypeset, Typeset
    try:
        with open(path, "rb") as fh:
            plugin = SourcePawnPlugin(fh)
    finally:
        smx.plugin.RTTITypeset = saved
    runtime = SourcePawnPluginRuntime(plugin)
    runtime.console_redirect = None
    plugin.runtime = runtime
    machine = Machine(runtime, plugin)
    runtime.amx = machine
    machine.init()
    return plugin, machine


def pubvar_address(plugin: Plugin, name: str) -> int:
    for var in plugin.pubvars:
        if var.name == name:
            return var.offs - plugin.data
    raise KeyError(name)


__all__ = ["BUDGET", "Machine", "Plugin", "Public", "SourcePawnRuntimeError", "cell", "load", "opcodes_used", "pubvar_address", "working_handlers"]
