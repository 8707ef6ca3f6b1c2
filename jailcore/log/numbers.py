"""Whole numbers read from text a person or a game wrote: ASCII digits only, bounded.

`str.isdigit` and `int` take characters such as '²' or '٣' as digits (and `int` then
refuses some of them), and a number may be too big for SQLite's 64-bit integers or the
plugin's 32-bit cells: every reader of an id, a port, a length or a secret goes through
here and gets a number in range or None, never a traceback.
"""

from __future__ import annotations

_DIGITS = frozenset("0123456789")
SQLITE_MAX = 2**63 - 1
CELL_MAX = 2**31 - 1  # a SourcePawn cell


def is_digits(text: str) -> bool:
    return bool(text) and all(c in _DIGITS for c in text)


def whole(text: str, lo: int = 0, hi: int = SQLITE_MAX) -> int | None:
    """`text` as a whole number from `lo` to `hi`, or None."""
    text = text.strip()
    if not is_digits(text) or len(text) > len(str(hi)) + 1:
        return None
    value = int(text)
    return value if lo <= value <= hi else None
