"""The plugin this daemon expects on the game server: its version (`JB_VERSION` of
sourcemod_bridge/scripting/jailcore_bridge.sp; a test holds the two equal) and what to do
when the one there is older. Imports nothing of ours: `status` reads it without the parser.

1.2.0 writes the round line (`jb_round_start`); an older plugin leaves the round's start to
srcds's lines. One older than this is said in the daemon's log, in `status` and on the web page.
"""

from __future__ import annotations

import re

PLUGIN_VERSION = "1.2.0"
PLUGIN_UPDATE = ("update the plugin: build sourcemod_bridge/plugins/jailcore_bridge.smx with `make plugin` (or take the shipped "
                 "jailcore_bridge.smx), copy it to addons/sourcemod/plugins/ on the game server and run `sm plugins reload "
                 "jailcore_bridge` (or change the map)")
_NUMBER = re.compile(r"\d{1,9}")


def _version(text: str) -> tuple[int, ...]:
    parts = []
    for part in text.strip().split("."):
        digits = _NUMBER.match(part)
        parts.append(int(digits.group()) if digits else 0)
    return tuple(parts + [0] * (3 - len(parts)))


def older_plugin(version: str) -> bool:
    """Whether a plugin's `jb_hello` version is older than the one this daemon expects
    (an empty or unreadable one is: it cannot be the one we ship)."""
    return _version(version) < _version(PLUGIN_VERSION)
