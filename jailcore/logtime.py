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


def plus_minutes(iso: str, minutes: int) -> str:
    return (moment(iso) + timedelta(minutes=minutes)).isoformat()


@lru_cache(maxsize=1024)
def plus_seconds(iso: str, seconds: float) -> str:
    """A moment later, as ISO text: compared as text with the events' own times, which
    is cheaper than subtracting datetimes on every line."""
    return (moment(iso) + timedelta(seconds=seconds)).isoformat()
