"""What `jailcore status` says of the plugin on the game server: one older than this daemon
expects, with what to do about it, and the lines of it the daemon never got (gaps in its
`seq`), with whether the round's state is still in doubt for them (`engine/sequence.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jailcore.cli.tail import paint, safe
from jailcore.log.plugin import PLUGIN_UPDATE


def shim_said(state: Mapping[str, Any]) -> dict[str, Any]:
    """The plugin's part of a server's status, with what to do when it is old (for --json too)."""
    plugin = state.get("plugin")
    if isinstance(plugin, dict) and plugin.get("old"):
        return {"plugin": {**plugin, "update": PLUGIN_UPDATE}}
    return {}


def shim_notes(s: Mapping[str, Any], colour: bool) -> list[str]:
    """The plugin older than this daemon expects, with what to do; lines of it the daemon never
    got (gaps in its seq), and whether the round's state is still in doubt for them."""
    out = []
    plugin = s.get("plugin")
    if isinstance(plugin, dict) and plugin.get("old"):
        out.append(paint(safe(f"  plugin {plugin.get('version') or '(no version said)'} is older than the {plugin.get('expected')} "
                              f"this daemon expects: {PLUGIN_UPDATE}"), "31;1", colour))
    lost = s.get("lost_lines")
    if isinstance(lost, int) and lost:
        at = str(s.get("lost_at") or "?").replace("T", " ")
        doubt = ("; this round's state is in doubt until the next round: what depends on the warden, orders or game goes to "
                 "an admin") if s.get("doubt") else ""
        out.append(paint(safe(f"  lost plugin lines: {lost} (the last at {at}){doubt}"), "33", colour))
    return out
