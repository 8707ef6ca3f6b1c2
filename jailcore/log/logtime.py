"""Time as the log tells it: ISO text (`2026-11-30T21:04:05`), the only clock the engine
has. Parsed timestamps are cached: the same few seconds are asked about again and again."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from functools import lru_cache

LOG_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?")


def is_time(value: str) -> bool:
    """A time of the calendar in the log's ISO shape: parsed, not only matched by shape
    (`2026-13-45T25:61:61` has the shape, and every reckoning with it raised)."""
    if not LOG_TIME.fullmatch(value):
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


@lru_cache(maxsize=4096)
def moment(iso: str) -> datetime:
    return datetime.fromisoformat(iso)


def seconds_between(earlier: str, later: str) -> float:
    return (moment(later) - moment(earlier)).total_seconds()


END_OF_TIME = "9999-12-31T23:59:59"


def plus_minutes(iso: str, minutes: int) -> str:
    try:
        return (moment(iso) + timedelta(minutes=minutes)).isoformat()
    except OverflowError:  # a server clock set near the year 9999: as good as for ever
        return END_OF_TIME


@lru_cache(maxsize=1024)
def plus_seconds(iso: str, seconds: float) -> str:
    """A moment later, as ISO text: compared as text with the events' own times, which
    is cheaper than subtracting datetimes on every line."""
    try:
        return (moment(iso) + timedelta(seconds=seconds)).isoformat()
    except OverflowError:
        return END_OF_TIME
