"""TOML read for a config: parsed with its errors on one line each (`parse_toml`), and where
a key stands (`locate`), found by reading the file as an admin would (table
headers, then `key =` lines): every config error names its line."""

from __future__ import annotations

import re
import tomllib
from typing import Any

from jailcore.log.errors import ConfigError

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?")
_KEYLINE = re.compile(r'^\s*("[^"]*"|[A-Za-z0-9_-]+)\s*=')


def locate(text: str, path: tuple[Any, ...]) -> int | str:
    """The line that defines `path` (keys and array indices), found by reading the file
    as an admin would: table headers, then `key =` lines. '?' if it cannot be found."""
    want = tuple(p for p in path)
    table: tuple[Any, ...] = ()
    counts: dict[tuple[Any, ...], int] = {}
    best: int | str = "?"
    for number, line in enumerate(text.splitlines(), 1):
        h = _HEADER.match(line)
        if h:
            keys = tuple(k.strip().strip('"') for k in h.group(2).split("."))
            if h.group(1) == "[[":
                counts[keys] = counts.get(keys, -1) + 1
                table = (*keys, counts[keys])
            else:
                table = keys
            if best == "?" and table[: len(want)] == want:  # the table, or the first one inside it ([a.b] for a)
                best = number
            continue
        k = _KEYLINE.match(line)
        if k:
            full = (*table, k.group(1).strip('"'))
            if full == want:
                return number
            if full == want[: len(full)] and best == "?":
                best = number
    if best == "?":
        # the nearest enclosing table
        for cut in range(len(want) - 1, 0, -1):
            found = locate(text, want[:cut]) if cut < len(want) else "?"
            if found != "?":
                return found
    return best


# -- [web]: the admin page (`jailcore web`), kept apart from the rule set ---------------------

# `jailcore web adduser` writes scrypt hashes: scrypt$N$r$p$salt$hash (base64).
def line_of(problem: str) -> int:
    m = re.match(r".*?:(\d+): ", problem)
    return int(m.group(1)) if m else 0


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """The file's TOML, or a ConfigError with its line: bad TOML, or brackets nested past
    what tomllib follows (it recurses, and 600 nested arrays raise RecursionError)."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise ConfigError([f"{source}:{m.group(1) if m else '?'}: not valid TOML: {exc}"]) from None
    except RecursionError:
        raise ConfigError([f"{source}:{_deepest_line(text)}: not valid TOML for jailcore: arrays or tables nested too deep "
                           "(no setting of jailcore nests more than two)"]) from None


def _deepest_line(text: str) -> int:
    """The line where brackets nest deepest (a bad config's line to look at), 1 if none."""
    depth = most = 0
    line = best = 1
    for ch in text:
        if ch == "\n":
            line += 1
        elif ch in "[{":
            depth += 1
            if depth > most:
                most, best = depth, line
        elif ch in "]}":
            depth = max(0, depth - 1)
    return best
