"""What a config is told beyond its refusals: the known key a misspelt one is near, and
what a config that loads still lacks for `jailcore run` where the daemon's own environment
may give it (said by `check-config`, which passes)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any, Protocol


def known_under(name: str, schema: Mapping[str, Any], arrays: Iterable[str]) -> list[str]:
    """The keys and tables that may stand in table `name` ("" for the file's top, where [web] is too)."""
    known = list(schema.get(name, {})) if name else ["web"]
    prefix = f"{name}." if name else ""
    known += [s[len(prefix):].split(".")[0] for s in (*schema, *arrays) if s.startswith(prefix)]
    return sorted(set(known))


def did_you_mean(key: str, known: Iterable[str]) -> str:
    """`; did you mean 'rounds'?` for a misspelt key, or nothing when none is close."""
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.75)
    return f"; did you mean {close[0]!r}?" if close else ""


class _Loaded(Protocol):  # the part of a Config read here (config.py imports this module)
    @property
    def source(self) -> str: ...

    @property
    def rcon_password(self) -> str: ...


def warnings(config: _Loaded) -> list[str]:
    """What a config lacks that the daemon's environment may give: the admin's shell rarely
    has the service's /etc/jailcore/jailcore.env, and the daemon without a password never
    tries an empty one (io/rcon.py)."""
    out = []
    if not config.rcon_password:
        out.append(f"{config.source}: rcon.password: warning: no RCON password, in the file or in JAILCORE_RCON_PASSWORD here: "
                   "the daemon logs in with the game server's rcon_password, from [rcon] password in this file or "
                   "JAILCORE_RCON_PASSWORD in its environment (/etc/jailcore/jailcore.env under systemd); without one it sends nothing")
    return out
