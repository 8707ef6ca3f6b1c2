"""Text as SourceMod makes it, for the SourceMod host that runs the plugin and for the Python
stand-in alike: format directives (`%d`, `%-5s`, `%N`...: core/logic/sprintf.cpp) and
translation phrase files (`"Phrases" { "key" { "#format" "{1:s}" "en" "..." } }`:
core/logic/Translator.cpp). Pure functions over bytes: the VM's strings are bytes, and
SourceMod truncates and pads by bytes, not characters.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import attrs

from jailcore.log.errors import PluginError

LADJUST, ZEROPAD, UPPER = 1, 2, 4
ENGLISH = "en"

# A directive's argument, already read: a cell for numbers, bytes for strings (see `render`).
Value = int | float | bytes


@attrs.frozen
class Directive:
    conv: str  # the conversion character: d i u b x X f c s N L t T %, or "" at the end
    flags: int = 0
    width: int = 0
    prec: int = -1


def read_directive(fmt: bytes, i: int) -> tuple[Directive, int]:
    """The directive whose text starts at fmt[i] (just after the `%`), and where the text
    goes on. Flags as sprintf.cpp reads them: `-`, `0`, `!` (no escape), width, `.prec`."""
    flags, width, prec = 0, 0, -1
    while i < len(fmt):
        ch = chr(fmt[i])
        i += 1
        if ch == "-":
            flags |= LADJUST
        elif ch == "0":
            flags |= ZEROPAD
        elif ch == "!":
            pass  # NOESCAPE: only matters with a database escaper
        elif ch == ".":
            n = 0
            while i < len(fmt) and chr(fmt[i]).isdigit():
                n = n * 10 + fmt[i] - 48
                i += 1
            prec = n
        elif ch.isdigit():
            n = ord(ch) - 48
            while i < len(fmt) and chr(fmt[i]).isdigit():
                n = n * 10 + fmt[i] - 48
                i += 1
            width = n
        else:
            return Directive(ch, flags, width, prec), i
    return Directive(""), i


def _pad_number(digits: str, d: Directive) -> bytes:
    fill = "0" if d.flags & ZEROPAD else " "
    if d.flags & LADJUST:
        return digits.ljust(d.width, fill).encode()
    return digits.rjust(d.width, fill).encode()  # as SourceMod: zeros go before a minus sign


def _float(value: float, d: Directive) -> bytes:
    if math.isnan(value):
        return b"NaN".ljust(d.width)
    prec = 6 if d.prec < 0 else d.prec
    text = f"{abs(value):.{prec}f}"
    whole, _, frac = text.partition(".")
    if len(whole) > 16:  # SourceMod writes at most 16 significant digits, then zeros
        whole = whole[:16] + "0" * (len(whole) - 16)
    text = whole + ("." + frac if prec else "")
    sign = "-" if value < 0 else ""
    if d.flags & LADJUST:
        return (sign + text).ljust(d.width).encode()
    if d.flags & ZEROPAD:
        return (sign + text.rjust(d.width - len(sign), "0")).encode()
    return (sign + text).rjust(d.width).encode()


def render(d: Directive, value: Value) -> bytes:
    """One directive's output for a value already read: a cell for numbers, bytes for
    strings (a name for %N, the %L identity, the key's translation for %t)."""
    conv = d.conv
    if conv in "di":
        return _pad_number(str(int(value)), d)
    if conv == "u":
        return _pad_number(str(int(value) & 0xFFFFFFFF), d)
    if conv == "b":
        return _pad_number(format(int(value) & 0xFFFFFFFF, "b"), d)
    if conv in "xX":
        return _pad_number(format(int(value) & 0xFFFFFFFF, "X" if conv == "X" else "x"), d)
    if conv == "f":
        return _float(float(value), d)
    if conv == "c":
        return value[:1] if isinstance(value, bytes) else bytes([int(value) & 0xFF])
    text = bytes(value) if not isinstance(value, (int, float)) else str(value).encode()
    if d.prec >= 0:
        text = text[: d.prec]
    return text + b" " * max(d.width - len(text), 0)  # SourceMod pads strings on the right


def cut(text: bytes, size: int) -> bytes:
    """At most size-1 bytes (a buffer of `size` with its NUL), not splitting a UTF-8 character:
    what `strcopy` and the other UTF-8 aware natives write."""
    if len(text) < size:
        return text
    text = text[: max(size - 1, 0)]
    end = len(text)
    i = end - 1
    while i >= 0 and text[i] & 0xC0 == 0x80:
        i -= 1
    if i >= 0 and text[i] >= 0xC0:
        need = 2 if text[i] < 0xE0 else 3 if text[i] < 0xF0 else 4
        if end - i < need:
            return text[:i]
    return text


def fit(text: str, size: int, utf8: bool = True) -> str:
    """A Python string as it comes back out of a buffer of `size` bytes: cut as `strcopy`
    cuts (utf8) or as the formatting natives cut (bytes; a split character reads as U+FFFD)."""
    raw = text.encode("utf-8")
    raw = cut(raw, size) if utf8 else raw[: max(size - 1, 0)]
    return raw.decode("utf-8", "replace")


WHITESPACE = b" \t\n\v\f\r"


def strtoul(text: bytes, base: int = 10) -> tuple[int, int]:
    """C's strtoul as StringToInt and StringToIntEx call it: the value cast to a cell, and
    how many bytes it read (0 when there is no number)."""
    i = 0
    while i < len(text) and text[i] in WHITESPACE:
        i += 1
    sign = 1
    if text[i : i + 1] in (b"+", b"-"):
        sign = -1 if text[i : i + 1] == b"-" else 1
        i += 1
    start, value = i, 0
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"[:base]
    while i < len(text) and chr(text[i]).lower() in digits:
        value = value * base + digits.index(chr(text[i]).lower())
        i += 1
    if i == start:
        return 0, 0
    value = min(value, 2**64 - 1)  # ULONG_MAX on overflow
    return (sign * value % 2**64 + 2**31) % 2**32 - 2**31, i


def break_string(source: bytes, size: int) -> tuple[bytes, int]:
    """BreakString: the first argument (quoted or not, at most size-1 bytes) and where the
    next one starts in source, -1 when there is none."""
    i = 0
    while i < len(source) and source[i] in WHITESPACE:
        i += 1
    if i == len(source):
        return b"", -1
    if source[i : i + 1] == b'"':
        end = source.find(b'"', i + 1)
        word = source[i + 1 :] if end < 0 else source[i + 1 : end]
        i = len(source) if end < 0 else end + 1
    else:
        start = i
        while i < len(source) and source[i] not in WHITESPACE:
            i += 1
        word = source[start:i]
    while i < len(source) and source[i] in WHITESPACE:
        i += 1
    return word[: max(size - 1, 0)], (-1 if i == len(source) else i)


def strip_quotes(text: bytes) -> bytes:
    return text[1:-1] if text[:1] == b'"' and text[-1:] == b'"' else text


# -- phrase files -----------------------------------------------------------------------------


@attrs.frozen
class Phrase:
    """One translation: literal bytes and, in order of use, (parameter index, directive)."""

    parts: tuple[bytes | tuple[int, Directive], ...]
    params: int  # how many arguments the phrase takes (its #format count)


class PhraseError(PluginError, ValueError):
    pass


_TOKEN = re.compile(rb'\s+|//[^\n]*|/\*.*?\*/|"((?:\\.|[^"\\])*)"|([{}])|([^\s{}"]+)', re.S)
_ESCAPES = {b"n": b"\n", b"t": b"\t", b"r": b"\r", b"\\": b"\\", b'"': b'"'}


def _tokens(data: bytes) -> Iterator[tuple[str, bytes]]:
    pos = 0
    while pos < len(data):
        m = _TOKEN.match(data, pos)
        if m is None:
            raise PhraseError(f"unreadable text at byte {pos}")
        pos = m.end()
        if m.group(1) is not None:
            yield "str", re.sub(rb"\\(.)", lambda e: _ESCAPES.get(e.group(1), e.group(0)), m.group(1))
        elif m.group(2) is not None:
            yield m.group(2).decode(), b""
        elif m.group(3) is not None:
            yield "str", m.group(3)


# A KeyValues section: each key's value, or its section.
KeyValues = dict[str, "bytes | KeyValues"]


def read_keyvalues(data: bytes) -> KeyValues:
    """A SourceMod KeyValues (SMC) text as nested dicts; a repeated key keeps the first."""
    root: KeyValues = {}
    stack = [root]
    key: bytes | None = None
    for kind, value in _tokens(data):
        if kind == "str":
            if key is None:
                key = value
            else:
                stack[-1].setdefault(key.decode("utf-8", "replace"), value)
                key = None
        elif kind == "{":
            if key is None:
                raise PhraseError("a section without a name")
            section = stack[-1].setdefault(key.decode("utf-8", "replace"), {})
            stack.append(section if isinstance(section, dict) else {})  # a value of that name came first: it is kept
            key = None
        else:
            if len(stack) == 1:
                raise PhraseError("an unmatched }")
            stack.pop()
    if len(stack) != 1:
        raise PhraseError("an unclosed section")
    return root


_FORMAT = re.compile(rb"\{(\d+):([^}]*)\}")
_USE = re.compile(rb"\{(\d+)\}")


def compile_phrase(text: bytes, fmt: bytes | None) -> Phrase:
    """Translator.cpp's reading: each `{n}` of the #format list becomes that parameter's
    directive, the first use of each only; anything else is literal."""
    if not fmt:
        return Phrase((text.replace(b"\\{", b"{"),), 0)
    specs = {int(n): b"%" + spec for n, spec in _FORMAT.findall(fmt)}
    count = len(specs)
    parts: list[bytes | tuple[int, Directive]] = []
    used: set[int] = set()
    pos = 0
    for m in _USE.finditer(text):
        idx = int(m.group(1))
        if not 1 <= idx <= count or idx in used:
            continue
        parts.append(text[pos : m.start()])
        directive, _ = read_directive(specs[idx], 1)
        parts.append((idx - 1, directive))
        used.add(idx)
        pos = m.end()
    parts.append(text[pos:])
    return Phrase(tuple(p for p in parts if p != b""), count)


class Phrases:
    """Every phrase of the files loaded, by key and language."""

    def __init__(self) -> None:
        self._phrases: dict[str, dict[str, Phrase]] = {}

    def load_text(self, data: bytes) -> None:
        phrases = read_keyvalues(data).get("Phrases")
        if not isinstance(phrases, dict):
            return
        for key, entry in phrases.items():
            if not isinstance(entry, dict):
                continue
            fmt = entry.get("#format")
            fmt = fmt if isinstance(fmt, bytes) else None
            langs = self._phrases.setdefault(key, {})
            for lang, text in entry.items():
                if lang != "#format" and isinstance(text, bytes):
                    langs.setdefault(lang, compile_phrase(text, fmt))

    def load(self, path: Path) -> None:
        self.load_text(path.read_bytes())

    def find(self, key: str, lang: str, server_lang: str) -> Phrase | None:
        """The client's language, then the server's, then English, as Translate() falls back."""
        langs = self._phrases.get(key, {})
        for candidate in (lang, server_lang, ENGLISH):
            if candidate in langs:
                return langs[candidate]
        return None

    def keys(self) -> set[str]:
        return set(self._phrases)

    def languages(self, key: str) -> set[str]:
        return set(self._phrases.get(key, {}))


def fill(phrase: Phrase, values: Sequence[Value]) -> bytes:
    """The phrase with its parameters' values (already read: see `render`)."""
    out = b""
    for part in phrase.parts:
        if isinstance(part, bytes):
            out += part
        else:
            index, directive = part
            out += render(directive, values[index])
    return out


# Phrases of SourceMod's common.phrases that its stocks use (FindTarget's errors and the
# access message): written for this host, in the same keys.
COMMON = """
"Phrases"
{
    "No matching client"            { "en" "No matching client was found."                      "ru" "Игрок не найден." }
    "No matching clients"           { "en" "No matching clients were found."                    "ru" "Игроки не найдены." }
    "More than one client matched"  { "en" "More than one client matched the given pattern."    "ru" "Подходит больше одного игрока." }
    "Unable to target"              { "en" "You cannot target this player."                     "ru" "Нельзя выбрать этого игрока." }
    "Target must be alive"          { "en" "This command can only be used on alive players."    "ru" "Только на живых игроков." }
    "Target must be dead"           { "en" "This command can only be used on dead players."     "ru" "Только на мёртвых игроков." }
    "Target is not in game"         { "en" "The player is not fully in game yet."               "ru" "Игрок ещё не в игре." }
    "Cannot target bot"             { "en" "This command cannot be used on bots."               "ru" "Команда не для ботов." }
    "No Access"                     { "en" "You do not have access to this command."            "ru" "У вас нет доступа к этой команде." }
}
""".encode()
