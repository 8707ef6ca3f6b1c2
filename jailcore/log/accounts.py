"""Who a player is, from the ways a game writes his SteamID: kept apart from the event
classes so that a command answering at once (`history`, `ctban list`) reads them without
building every event class. `log/events.py` names them too."""

from __future__ import annotations


def player_key(steamid: str, userid: int) -> str:
    """Who a player is across reconnects: the steamid, or the userid where the steamid is
    not a person's (bots, LAN, not yet validated)."""
    if steamid.startswith(("STEAM_0:", "STEAM_1:", "[U:")):
        return steamid
    return f"#{userid}"


STEAM64_BASE = 76561197960265728


ACCOUNT_MAX = 2**32 - 1  # Steam's account numbers are 32 bits: STEAM_1:1:9999999999 has the shape and names no one


def account(steamid: str) -> int | None:
    """The account number behind any way a game writes it: `STEAM_0:Y:Z` (CS:S) and
    `STEAM_1:Y:Z` (CS:GO) are both 2Z+Y, `[U:1:N]` is N, a SteamID64 is N + 76561197960265728;
    None for anything else, a number past 32 bits included (parsed, not only matched by shape)."""
    s = steamid.strip()
    n: int | None = None
    if s.startswith(("STEAM_0:", "STEAM_1:")):
        parts = s[8:].split(":")
        if len(parts) == 2 and all(p.isascii() and p.isdigit() and len(p) <= 10 for p in parts) and parts[0] in ("0", "1"):
            n = int(parts[1]) * 2 + int(parts[0])
    elif s.startswith("[U:1:") and s.endswith("]"):
        digits = s[5:-1]
        n = int(digits) if digits.isascii() and digits.isdigit() and len(digits) <= 10 else None
    elif len(s) == 17 and s.isascii() and s.isdigit() and int(s) > STEAM64_BASE:
        n = int(s) - STEAM64_BASE
    return n if n is not None and n <= ACCOUNT_MAX else None


def same_account(steamid: str) -> list[str]:
    """The other ways a log may name this account (to find a ban made on a server of the
    other game, or with another form), the given one excluded."""
    n = account(steamid)
    if n is None:
        return []
    forms = [f"STEAM_1:{n % 2}:{n // 2}", f"STEAM_0:{n % 2}:{n // 2}", f"[U:1:{n}]"]
    return [f for f in forms if f != steamid]
