"""A steamid in any of the forms admins paste: STEAM_0:Y:Z (CS:S), STEAM_1:Y:Z (CS:GO),
[U:1:N] and the SteamID64 of a profile link (7656119…). A CT ban matches the text as the
server's log writes it, so a ban is written in the form that server's log uses."""

from __future__ import annotations

import re

from jailcore.log import accounts

BASE = 76561197960265728  # SteamID64 of account 0 (individual, public universe)
# A profile link as a browser's address bar or the Steam client copies it: any scheme or none,
# `www.` or `m.`, a trailing slash, a tab (`/home`), a query (`?l=russian`) or a fragment.
_PROFILE = re.compile(r"(?:https?://)?(?:www\.|m\.)?steamcommunity\.com/profiles/([0-9]+)(?:[/?#].*)?", re.ASCII | re.IGNORECASE)
_U = re.compile(r"\[?U:1:([0-9]{1,10})\]?", re.ASCII | re.IGNORECASE)  # [U:1:N], also without its brackets
ACCOUNTS = 2**32  # an account number is 32 bits; 0 is no one's


def account(text: str) -> int | None:
    """The account number a steamid names, in any form a player or an admin pastes (STEAM_0/1
    in any case, [U:1:N], the SteamID64, a profile link), or None if the text is not one."""
    text = "".join(text.split())
    if m := _PROFILE.fullmatch(text):
        text = m.group(1)
    elif m := _U.fullmatch(text):
        text = f"[U:1:{m.group(1)}]"
    elif text[:6].upper() == "STEAM_":
        text = "STEAM_" + text[6:]
    number = accounts.account(text)
    return number if number is not None and 0 < number < ACCOUNTS else None


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
