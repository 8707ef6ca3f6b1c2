"""A steamid in any of the forms admins paste: STEAM_0:Y:Z (CS:S), STEAM_1:Y:Z (CS:GO),
[U:1:N] and the SteamID64 of a profile link (7656119…). A CT ban matches the text as the
server's log writes it, so a ban is written in the form that server's log uses."""

from __future__ import annotations

import re

BASE = 76561197960265728  # SteamID64 of account 0 (individual, public universe)
_LEGACY = re.compile(r"STEAM_([01]):([01]):([0-9]{1,10})", re.ASCII)
_U = re.compile(r"\[U:1:([0-9]{1,10})\]", re.ASCII)
_64 = re.compile(r"7656119[0-9]{10}", re.ASCII)
_PROFILE = re.compile(r"(?:https?://)?steamcommunity\.com/profiles/(7656119[0-9]{10})/?", re.ASCII)


def account(text: str) -> int | None:
    """The account number a steamid names, or None if the text is not one."""
    text = text.strip()
    text = (m.group(1) if (m := _PROFILE.fullmatch(text)) else text)
    if m := _LEGACY.fullmatch(text):
        return int(m.group(3)) * 2 + int(m.group(2))
    if m := _U.fullmatch(text):
        return int(m.group(1))
    if _64.fullmatch(text) and 0 <= int(text) - BASE < 2**32:
        return int(text) - BASE
    return None


def written(number: int, style: str) -> str:
    """The account as a log of this style writes it: "STEAM_0", "STEAM_1" or "[U:1:"."""
    if style == "[U:1:":
        return f"[U:1:{number}]"
    return f"{style}:{number % 2}:{number // 2}"


def profile(steamid: str | None) -> str | None:
    """The player's Steam profile page."""
    number = account(steamid or "")
    return f"https://steamcommunity.com/profiles/{BASE + number}" if number is not None else None


def style_of(steamid: str) -> str | None:
    for style in ("STEAM_0", "STEAM_1", "[U:1:"):
        if steamid.startswith(style):
            return style
    return None
