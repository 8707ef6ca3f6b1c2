"""Characters a player can put in his name that change how the text around them is drawn
without being seen: bidi overrides and isolates (a right-to-left override makes «Вася Админ»
out of «нимдА ясаВ»), zero-width and other format characters, control bytes, and the blank
letters (Hangul fillers, the braille blank) that pass for nothing. Shown to an admin, every
one of them is neutralised: the web page drops them, `jailcore tail` escapes them."""

from __future__ import annotations

import re

_RANGES = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f"  # control bytes (tab and newline stay: raw log lines)
    "\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5\u180b-\u180f"
    "\u200b-\u200f\u202a-\u202e\u2060-\u206f\u2800\u3164\ufeff\uffa0\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
INVISIBLE = re.compile(f"[{_RANGES}]")


def visible(text: str) -> str:
    """The text without the characters that hide or reorder it."""
    return INVISIBLE.sub("", text)
