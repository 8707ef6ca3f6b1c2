"""The standing state as `replay --state`, MQTT, `status` and the web page show it: what a
server admin reads of the engine, as plain JSON (protocol section 3's `{"state": ...}`)."""

from __future__ import annotations

from typing import Any

from jailcore.engine.context import Context
from jailcore.engine.rules.calendar import GlobalGames
from jailcore.engine.state import CT, T


def public(ctx: Context) -> dict[str, Any]:
    s = ctx.state
    warden = ctx.warden
    return {
        "map": s.map,
        "round": s.round,
        "day": ctx.day,
        "week": ctx.week,
        "freeday": s.freeday,
        "warden": {"userid": warden.userid, "steamid": warden.steamid, "name": warden.name} if warden else None,
        "orders": [{"text": o.text} for o in s.orders],
        "prohibitions": [{"text": p.text} for p in s.prohibitions],
        "game": {"name": s.game.name, "host": s.game.host} if s.game else None,
        "specialday": s.specialday,
        "global_games": s.rule(GlobalGames).played,
        "ctbans": [{"key": k, "steamid": b.steamid, "name": b.name, "until": b.until, "rounds": b.rounds, "rule": b.rule,
                    "ref": b.ref} for k, b in sorted(s.ctbans.items())],
        "online": {"T": ctx.count(T), "CT": ctx.count(CT)},
    }
