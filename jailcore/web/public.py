"""What the public sees of an enforcement in public mode: what a public ban list shows.
The name, the rule and its reason, the punishment, when, and whether it was pardoned;
not the steamid in full (a lookup key for harassment), not the game server's reply (its
errors name plugins and paths), not who pardoned or why, and no address a player
advertises in his name or in words the reason quotes."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jailcore.web.data import Entry

# scheme://…, www.…, a bare domain with a usual ending, an IPv4 address (with a port)
URL = re.compile(
    r"(?:[a-z][a-z0-9+.-]*://\S+|www\.\S+|\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b"
    r"|\b[\w-]+(?:\.[\w-]+)*\.(?:ru|su|рф|com|net|org|info|pro|xyz|club|site|online|top|me|io|gg|tk|ua|by|kz|de|eu|us|cc|tv|fun|shop|store|space)\b(?:[/:]\S*)?)",
    re.IGNORECASE,
)
LINK = "[ссылка]"


def unadvertised(text: str | None) -> str | None:
    return URL.sub(LINK, text) if text else text


def masked(steamid: str | None) -> str | None:
    """STEAM_1:0:123456789 → STEAM_1:0:12…; [U:1:246913578] → [U:1:24…]: enough to tell
    two players apart in a list, not to look one up."""
    if not steamid:
        return steamid
    m = re.fullmatch(r"(STEAM_\d:\d:|\[U:\d:)(\d+)(\]?)", steamid)
    return f"{m.group(1)}{m.group(2)[:2]}…{m.group(3)}" if m else "…"


def public_entry(entry: Entry) -> Entry:
    out: Entry = {k: entry[k] for k in ("src", "dom", "id", "time", "server", "round", "day", "action", "rule", "ref", "userid", "status")
           if k in entry}
    out.update(name=unadvertised(entry.get("name")), reason=unadvertised(entry.get("reason") or ""), steamid=masked(entry.get("steamid")),
               reply=None, command=None, detail="{}", pardonable=False,
               pardon={"by": "", "reason": "", "applied_at": None, "public": True} if entry.get("pardon") else None)
    if entry.get("moved"):
        out["moved"] = {"action": entry["moved"]["action"], "status": entry["moved"]["status"]}
    return out
