"""How long each value jailcore keeps may be, in one place: the MariaDB schema's columns are
written from these numbers (`store/mariadb.py`), every door that takes a value from outside
refuses what is longer (the network's messages and the rows read back, `log/inbound.py` and
`log/shapes.py`; the log's names and SteamIDs, `log/lines.py`; a rule's `ref` and the server's
name in a config), and the store cuts every text it writes to its column (`fit`, `fit_text`),
so a value that slipped past a door is cut, never the statement that fails and stops the
daemon. SQLite has no widths: both backends write the same fitted values all the same.

Counted as MariaDB counts them: a VARCHAR(n) holds n characters (code points), a TEXT
65,535 bytes of UTF-8, an INT -2^31 .. 2^31 - 1.
"""

from __future__ import annotations

import re

KEY = 191  # a server's name, a rule's key and ref, an admin's name: 191 x 4 bytes is the longest utf8mb4 key InnoDB indexes everywhere (767 bytes)
STEAMID = 64  # a SteamID as the games write it (STEAM_1:1:2147483647 is 20)
NAME = 255  # a player's name (the games allow 32 bytes on CS:S, 128 on CS:GO)
WORD = 32  # an action's kind, a row's status, the RCON link's state
SHORT_WORD = 16  # a mode, the daemon's state, an answer (confirm or dismiss)
TIME = 40  # an ISO time, 2026-11-30T21:04:05.123456 (26)
TOPIC = 255  # an MQTT topic kept for later
ACCOUNT = 64  # a web account's name
TEXT = 4096  # characters of a reason, an order or a reply as the network and the admins' rows may give them
TEXT_BYTES = 65_535  # a TEXT column, in bytes of UTF-8
INT_MAX = 2**31 - 1  # an INT column (a round, a day, minutes, rounds)


_SURROGATE = re.compile("[\ud800-\udfff]")


def whole_letters(text: str) -> str:
    """A lone surrogate (half of a UTF-16 pair: no letter, and no database or file can write
    it as UTF-8) as U+FFFD; the doors refuse them, this is the store's last word."""
    return text if text.isascii() or not _SURROGATE.search(text) else _SURROGATE.sub("\ufffd", text)


def fit(text: str, chars: int) -> str:
    """`text` cut to `chars` characters (a VARCHAR column)."""
    return whole_letters(text if len(text) <= chars else text[:chars])


def fit_text(text: str, most: int = TEXT_BYTES) -> str:
    """`text` cut to `most` bytes of UTF-8, at a character (a TEXT column): 65,535 bytes hold
    at least 16,383 characters, so only a text longer than that is ever measured."""
    text = whole_letters(text)
    if len(text) * 4 <= most:
        return text
    raw = text.encode("utf-8")
    if len(raw) <= most:
        return text
    return raw[:most].decode("utf-8", "ignore")


def fit_int(value: int, most: int = INT_MAX) -> int:
    """A whole number held to an INT column's range."""
    return max(-most - 1, min(most, value))


def fit_or_none(text: str | None, chars: int) -> str | None:
    return None if text is None else fit(text, chars)


def fit_text_or_none(text: str | None) -> str | None:
    return None if text is None else fit_text(text)
