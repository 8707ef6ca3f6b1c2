"""What an admin asks of the audit log (`jailcore tail`, `history`, the web page's filters):
one typed filter, turned into SQL by the store and matched in Python for what never reaches a
database (the network's actions over MQTT). Nothing here is written by a player: a name he
chose is a parameter, never SQL."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

import attrs

from jailcore.log.errors import AuditError
from jailcore.log.numbers import is_digits, whole

_DURATION = re.compile(r"([0-9]{1,18})\s*([smhdw])", re.ASCII)
USERID = re.compile(r"#?([0-9]{1,9})", re.ASCII)  # a #userid: ASCII digits, never a number a database cannot hold
_PERSONAL = ("STEAM_", "[U:")


def since_time(text: str, now: datetime | None = None) -> str:
    m = _DURATION.fullmatch(text.strip())
    if m:
        n, unit = int(m.group(1)), m.group(2)
        try:
            delta = timedelta(**{{"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}[unit]: n})
            return ((now or datetime.now()) - delta).isoformat(timespec="seconds")
        except OverflowError:  # before year 1: everything there is
            return datetime.min.isoformat(timespec="seconds")
    try:
        return datetime.fromisoformat(text.strip()).isoformat(timespec="seconds")
    except ValueError:
        raise AuditError(f"--since takes an ISO time (2026-11-30T20:00) or a duration (30m, 2h, 1d), not {text!r}") from None


def personal(player: str) -> bool:
    """A steamid (STEAM_X:Y:Z or [U:1:N]) rather than a name or a #userid."""
    return player.startswith(_PERSONAL)


@attrs.frozen
class Filter:
    """The audit log's rows an admin asked for; an empty field asks nothing. `player` is a
    #userid (digits), a steamid, or part of a name (matched case-blind, Cyrillic included)."""

    server: str = ""
    player: str = ""
    rule: str = ""
    action: str = ""
    since: str = ""

    @classmethod
    def of(cls, **given: Any) -> Filter:
        """From the command line's options (None for not given); unknown keys are ignored."""
        return cls(**{f.name: str(given.get(f.name) or "") for f in attrs.fields(cls)})

    def query(self) -> dict[str, str]:
        return {k: v for k, v in attrs.asdict(self).items() if v}

    @property
    def name(self) -> str:
        """The part of a name asked for, casefolded; '' when the player is a #userid or steamid."""
        if not self.player or is_digits(self.player.lstrip("#")) or personal(self.player):
            return ""
        return self.player.casefold()

    def terms(self) -> list[tuple[str, str, object]]:
        """(column, how, value) for each condition: `=`, `rule` (the rule or its games), `>=`,
        `has` (part of the name). The store spells them in its SQL; `matches` in Python."""
        out: list[tuple[str, str, object]] = []
        if self.player:
            bare = self.player.lstrip("#")
            if is_digits(bare):
                userid = whole(bare)
                out.append(("userid", "=", userid if userid is not None else -1))  # too big for any userid: matches none
            elif personal(self.player):
                out.append(("steamid", "=", self.player))
            else:
                out.append(("name", "has", self.player.casefold()))
        if self.rule:
            out.append(("rule", "rule", self.rule))
        if self.action:
            out.append(("action", "=", self.action))
        if self.since:
            out.append(("time", ">=", since_time(self.since)))
        if self.server:
            out.append(("server", "=", self.server))
        return out

    def check(self) -> None:
        """Raises AuditError for a `since` that is not a time (before any database is opened)."""
        self.terms()

    def matches(self, row: Mapping[str, Any]) -> bool:
        """The same conditions as the store's SQL, for a row that is in no database."""
        for column, how, value in self.terms():
            have = row.get(column)
            if how == "=" and have != value:
                return False
            if how == "rule" and not (have == value or str(have or "").startswith(f"{value}.")):
                return False
            if how == ">=" and not (have is not None and str(have) >= str(value)):
                return False
            if how == "has" and str(value) not in str(have or "").casefold():
                return False
        return True
