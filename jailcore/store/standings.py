"""A server's standing state, read back as its daemon saved it beside each snapshot (table
`standing`, in the snapshot's transaction): what `jailcore status`, `ctban list` and the web
page's servers show. The session works it out once, under the server's own config
(`session.session.standing`: the public state, the plugin's, each CT ban's reason and giver,
each ladder's steps and the special-day cooldown's rounds, none when the rule is off); the
command line and the web page read it here, and the cooldown it implies is worked out in one
place (`cooldown_of`). Before issue 35 four places rebuilt it from the snapshot, and the web
page's took the cooldown of a config whose rule was off."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

import attrs

from jailcore.log.logtime import is_time


@attrs.frozen
class Cooldown:
    """The special-day cooldown a server stands at."""

    rounds: int  # rounds between two special days, under the server's config
    next: int  # the first round another special day may be
    left: int  # rounds still to wait (0: one may be now)


def cooldown_of(state: Mapping[str, Any], rounds: int | None) -> Cooldown | None:
    """The cooldown of a standing whose round and last special day are known, under `rounds`
    (None: the rule is off, or not known)."""
    rnd, special = state.get("round"), state.get("specialday")
    if rounds is None or type(rnd) is not int or type(special) is not int:
        return None
    return Cooldown(rounds, special + rounds, max(0, special + rounds - rnd))


@attrs.frozen
class Standing:
    """One server's standing as its daemon last saved it; `state` is the saved JSON object (its
    CT bans whose end is no time left out: `readable_ban`)."""

    server: str
    state: Mapping[str, Any]

    @property
    def cooldown(self) -> Cooldown | None:
        """Under the server's own config, as its daemon saved it (`cooldown_rounds`)."""
        rounds = self.state.get("cooldown_rounds")
        return cooldown_of(self.state, rounds if type(rounds) is int else None)


def read_standing(server: str, text: str) -> Standing | None:
    """A saved standing's text, read; None when it is not a JSON object (a row no daemon of ours wrote)."""
    try:
        state = json.loads(text)
    except ValueError:
        return None
    if not isinstance(state, dict):
        return None
    if isinstance(state.get("ctbans"), list):
        state["ctbans"] = [b for b in state["ctbans"] if readable_ban(server, b)]
    return Standing(server, state)


def readable_ban(server: str, ban: Any) -> bool:
    """A CT ban of a saved standing whose end is a time of the calendar (or a count of rounds):
    one saved by a version that took a network message unparsed (`until "2026-13-45T25:61:61"`)
    is left out with a line, never a traceback, and the rest are shown."""
    if not isinstance(ban, dict):
        return False
    until, rounds = ban.get("until"), ban.get("rounds")
    if (until is None or (isinstance(until, str) and is_time(until))) and (rounds is None or type(rounds) is int):
        return True
    logging.getLogger("jailcore").warning("server %r: its saved CT ban of %r is left out: its end %r is no time", server,
                                          str(ban.get("steamid"))[:64], str(until if until is not None else rounds)[:64])
    return False
