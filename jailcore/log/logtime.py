"""Time as the log tells it: ISO text (`2026-11-30T21:04:05`), the only clock the engine
has. Parsed timestamps are cached: the same few seconds are asked about again and again."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import lru_cache


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
