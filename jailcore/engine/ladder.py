"""Punishment ladders, written the rulebook's way.

`устное предупреждение → перевод за ТТ → блокировка входа за КТ на 30 минут` is
`["warn", "teamswap", "ctban 30m"]`: the first offence gets the first step, the next one
the next step, and the last step repeats. Durations: `30m` minutes, `2h` hours, `3r`
rounds; `ban 0` is permanent; `autoslay 2` slays at the next two round starts; `money 100`.
"""

from __future__ import annotations

import re
from typing import cast

import attrs

from jailcore.engine.vocabulary import STEPS as ACTIONS
from jailcore.engine.vocabulary import ActionKind
from jailcore.log.errors import ConfigError

# A CT ban or server ban longer than ten years is a typo; it would also overflow the
# date arithmetic of `until`.
MAX_MINUTES = 10 * 366 * 24 * 60
MAX_AMOUNT = 1_000_000


class LadderError(ConfigError):
    pass


@attrs.frozen
class Step:
    action: ActionKind
    minutes: int | None = None
    rounds: int | None = None
    amount: int | None = None

    def __str__(self) -> str:
        if self.action == "ban" and self.minutes == 0:
            return "ban 0"
        if self.minutes is not None:
            return f"{self.action} {self.minutes}m"
        if self.rounds is not None:
            return f"{self.action} {self.rounds}r"
        if self.amount is not None:
            return f"{self.action} {self.amount}"
        return self.action

    def number(self) -> int:
        """The number of a ban (its minutes), an autoslay (its rounds) or money (its amount):
        `parse_step` refuses any of them without it, so a step that lacks it is a bug."""
        number = self.minutes if self.action == "ban" else self.amount
        if number is None:
            raise LadderError(f"{self}: a {self.action} step without its number")
        return number


_STEP = re.compile(r"\s*([a-z]+)(?:\s+(-?[0-9]{1,12})\s*([mhdr]?))?\s*")  # ASCII digits, bounded: never int()'s limits


def parse_step(text: str) -> Step:
    m = _STEP.fullmatch(text)
    if m is None or m.group(1) not in ACTIONS:
        raise LadderError(f"unknown step {text!r}; steps are {', '.join(ACTIONS)} (e.g. 'ctban 30m', 'ban 10m', 'autoslay 2')")
    action = cast(ActionKind, m.group(1))  # one of STEPS, as checked above
    number, unit = m.group(2), m.group(3)
    if action in ("ctban", "ban"):
        if number is None:
            raise LadderError(f"{text!r}: {action} needs a duration, e.g. '{action} 30m' (or '{action} 3r' in rounds)")
        n = int(number)
        if n < 0:
            raise LadderError(f"{text!r}: a duration cannot be negative")
        if n * {"": 1, "m": 1, "h": 60, "d": 1440, "r": 1}[unit] > MAX_MINUTES:
            raise LadderError(f"{text!r}: longer than ten years; use '{action} 0' for permanent" if action == "ban" else
                              f"{text!r}: longer than ten years")
        if unit == "r":
            if action == "ban":
                raise LadderError(f"{text!r}: a server ban is in minutes, not rounds")
            return Step(action, rounds=n)
        return Step(action, minutes=n * {"": 1, "m": 1, "h": 60, "d": 1440}[unit])
    if action in ("autoslay", "money"):
        if number is None or unit:
            raise LadderError(f"{text!r}: {action} needs a plain number, e.g. '{action} 2'")
        if abs(int(number)) > MAX_AMOUNT:
            raise LadderError(f"{text!r}: {number} is out of range (at most {MAX_AMOUNT})")
        return Step(action, amount=int(number))
    if number is not None:
        raise LadderError(f"{text!r}: {action} takes no number")
    return Step(action)


def parse_ladder(items: list[str]) -> tuple[Step, ...]:
    return tuple(parse_step(x) for x in items)
