"""Charts as inline SVG drawn on the server: geometry here, markup in the template (so
every label is escaped like any other text), no chart library, nothing from a CDN."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypedDict

# Distinguishable on white and in print; the rest cycle.
PALETTE = ("#2b6cb0", "#c05621", "#2f855a", "#b7791f", "#6b46c1", "#c53030", "#2c7a7b", "#97266d", "#4a5568", "#718096")
WIDTH, HEIGHT, LEFT, BOTTOM, TOP = 1000, 290, 80, 48, 28  # a desktop card draws it about 1:1


def _ticks(top: int) -> list[int]:
    """About four steps from 0 to the first at or above `top`: the tallest bar stays under a line with its number."""
    step = max(1, -(-top // 4))
    return [step * i for i in range(-(-top // step) + 1)]


def colours(series: dict[str, list[int]]) -> dict[str, str]:
    """One colour per series (a rule, a server), the same in every chart of the page:
    the palette's first colours for the series with the most."""
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(sorted(series, key=lambda k: (-sum(series[k]), k)))}


class Bar(TypedDict):
    """One series' part of a day's bar: where it stands in the SVG, its colour, its tooltip."""

    x: float
    y: float
    w: float
    h: float
    colour: str
    title: str


class DayLabel(TypedDict):
    x: float
    text: str
    anchor: str  # the SVG's text-anchor


class GridLine(TypedDict):
    y: float
    text: int


class LegendItem(TypedDict):
    colour: str
    name: str
    total: int


class Stacked(TypedDict):
    """A chart of one bar a day, stacked by series, as the template draws it."""

    width: int
    height: int
    left: int
    bars: list[Bar]
    labels: list[DayLabel]
    grid: list[GridLine]
    legend: list[LegendItem]
    empty: bool
    base: int  # the bars' baseline


class HBar(TypedDict):
    pct: float  # its length: its share of the largest, 0 to 100
    label: str  # shortened to LABEL characters
    full: str  # the whole label: its tooltip
    n: int
    colour: str


class HBars(TypedDict):
    bars: list[HBar]
    empty: bool


def stacked(dates: list[str], series: dict[str, list[int]], names_shown: dict[str, str] | None = None,
            day: Callable[[str], str] = lambda d: d[5:]) -> Stacked:
    """One bar a day, stacked by series (rule or server), with a legend. `day` writes a date
    under its bar; the newest day (today) always has its date, and every `every`-th before it."""
    colour = colours(series)
    names = list(colour)
    totals = [sum(series[k][i] for k in names) for i in range(len(dates))]
    top = max(totals, default=0) or 1
    ticks = _ticks(top)
    top = max(top, ticks[-1])
    plot_h = HEIGHT - BOTTOM - TOP
    slot = (WIDTH - LEFT) / max(len(dates), 1)
    bars: list[Bar] = []
    for i, date in enumerate(dates):
        y: float = HEIGHT - BOTTOM
        for name in names:
            n = series[name][i]
            if not n:
                continue
            h = n / top * plot_h
            y -= h
            bars.append({"x": round(LEFT + i * slot + slot * 0.12, 1), "y": round(y, 1), "w": round(slot * 0.76, 1), "h": round(h, 1),
                         "colour": colour[name], "title": f"{day(date)} {(names_shown or {}).get(name, name)}: {n}"})
    every = max(1, len(dates) // 5)  # five or six dates: on a phone too, in either language, they do not touch
    last = len(dates) - 1
    labels: list[DayLabel] = [{"x": round(LEFT + (i + 0.5) * slot, 1), "text": day(date), "anchor": "middle"}
              for i, date in enumerate(dates) if (last - i) % every == 0]
    if labels and len(dates) > 7:  # the newest under its bar, kept inside the card: it ends at the plot's edge
        labels[-1].update({"x": WIDTH, "anchor": "end"})
    grid: list[GridLine] = [{"y": round(HEIGHT - BOTTOM - v / top * plot_h, 1), "text": v} for v in ticks]
    legend: list[LegendItem] = [{"colour": colour[name], "name": (names_shown or {}).get(name, name), "total": sum(series[name])} for name in names]
    return {"width": WIDTH, "height": HEIGHT, "left": LEFT, "bars": bars, "labels": labels, "grid": grid, "legend": legend,
            "empty": not bars, "base": HEIGHT - BOTTOM}


LABEL = 40  # characters of a bar's label shown; the whole label is its tooltip


def hbars(items: list[tuple[str, str, int]], colour: dict[str, str]) -> HBars:
    """Horizontal bars, largest first: the rules that fire most, each in its colour. Each row is
    HTML (its label text at the page's own size, on a phone too) with its bar as a small SVG
    whose length is its share of the largest (`pct`, 0 to 100)."""
    top = max((n for _, _, n in items), default=0) or 1
    bars: list[HBar] = [{"pct": round(n / top * 100, 1), "label": _short(label), "full": label, "n": n,
             "colour": colour.get(key, PALETTE[i % len(PALETTE)])} for i, (key, label, n) in enumerate(items)]
    return {"bars": bars, "empty": not items}


def _short(label: str) -> str:
    return label if len(label) <= LABEL else label[: LABEL - 1].rstrip() + "…"
