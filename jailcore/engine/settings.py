"""What the engine reads of a server's config: each rule's typed settings (the base class
every rule's `Settings` extends, which `config/` also reads as its schema) and `ServerRules`,
the few server-wide facts. The engine sees the config only through these, so `config/`
stands above the engine and reads the rules' declarations downward."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import attrs

from jailcore.engine.catalogue import Catalogue, OnlineLimit
from jailcore.engine.ladder import Step, parse_ladder

Ladder = tuple[Step, ...]


def steps(*texts: str) -> Ladder:
    """A default ladder, written as in a config file."""
    return parse_ladder(list(texts))


@attrs.frozen
class RuleSettings:
    """Every rule has a switch and its server's own rule number; a rule that punishes
    also declares `ladder: Ladder = steps(...)`. `confirm = "admin"` makes its
    punishments proposals an admin confirms or dismisses (`proposals.py`); one nobody
    answers lapses after `confirm_minutes`, or at its round's end when its step is for
    that round only (a slay, a warning, a move). A punishment decided for a player who has
    left is still decided (and audited), and carried out if he returns within
    `return_minutes` (`punish.py`)."""

    enabled: bool = True
    ref: str = ""
    confirm: str = attrs.field(default="none", metadata={"choices": ("none", "admin")})
    confirm_minutes: int = 30
    # A punishment decided after the offender left waits this long for his return.
    return_minutes: int = 60


def choice(default: str, *choices: str) -> Any:
    """A setting that takes one of a few words."""
    return attrs.field(default=default, metadata={"choices": (default, *choices)})


class ServerRules(Protocol):
    """A server's rule set as the engine reads it (`config.Config` is one)."""

    @property
    def language(self) -> str: ...
    @property
    def mode(self) -> str: ...
    @property
    def ladder_reset(self) -> str: ...
    @property
    def week_length(self) -> int: ...
    @property
    def reset_on_map_change(self) -> bool: ...
    @property
    def rules(self) -> Mapping[str, RuleSettings]: ...
    @property
    def online_limits(self) -> Sequence[OnlineLimit]: ...
    @property
    def catalogue(self) -> Catalogue: ...

    def on(self, key: str) -> bool: ...
