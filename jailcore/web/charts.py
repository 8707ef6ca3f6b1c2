"""Charts as inline SVG drawn on the server: geometry here, markup in the template (so
every label is escaped like any other text), no chart library, nothing from a CDN."""

from __future__ import annotations

# Distinguishable on white and in print; the rest cycle.
PALETTE = ("#2b6cb0", "#c05621", "#2f855a", "#b7791f", "#6b46c1", "#c53030", "#2c7a7b", "#97266d", "#4a5568", "#718096")
WIDTH, HEIGHT, LEFT, BOTTOM, TOP = 720, 240, 34, 28, 8


def _ticks(top: int) -> list[int]:
    step = max(1, -(-top // 4))
    return list(range(0, top + 1, step))


def stacked(dates: list[str], series: dict[str, list[int]]) -> dict:
    """One bar a day, stacked by series (rule or server), with a legend."""
    names = sorted(series, key=lambda k: -sum(series[k]))
    totals = [sum(series[k][i] for k in names) for i in range(len(dates))]
    top = max(totals, default=0) or 1
    ticks = _ticks(top)
    top = max(top, ticks[-1])
    plot_h = HEIGHT - BOTTOM - TOP
    slot = (WIDTH - LEFT) / max(len(dates), 1)
    bars = []
    for i, day in enumerate(dates):
        y: float = HEIGHT - BOTTOM
        for j, name in enumerate(names):
            n = series[name][i]
            if not n:
                continue
            h = n / top * plot_h
            y -= h
            bars.append({"x": round(LEFT + i * slot + slot * 0.12, 1), "y": round(y, 1), "w": round(slot * 0.76, 1), "h": round(h, 1),
                         "colour": PALETTE[j % len(PALETTE)], "title": f"{day} {name}: {n}"})
    every = max(1, len(dates) // 7)
    labels = [{"x": round(LEFT + (i + 0.5) * slot, 1), "text": day[5:]} for i, day in enumerate(dates) if i % every == 0]
    grid = [{"y": round(HEIGHT - BOTTOM - v / top * plot_h, 1), "text": v} for v in ticks]
    legend = [{"colour": PALETTE[j % len(PALETTE)], "name": name, "total": sum(series[name])} for j, name in enumerate(names)]
    return {"width": WIDTH, "height": HEIGHT, "left": LEFT, "bars": bars, "labels": labels, "grid": grid, "legend": legend,
            "empty": not bars, "base": HEIGHT - BOTTOM}


def hbars(items: list[tuple[str, int]]) -> dict:
    """Horizontal bars, largest first: the rules that fire most."""
    top = max((n for _, n in items), default=0) or 1
    row, label_w = 26, 230
    bars = [{"y": i * row, "w": round(n / top * (WIDTH - label_w - 50), 1), "label": label, "n": n,
             "colour": PALETTE[i % len(PALETTE)]} for i, (label, n) in enumerate(items)]
    return {"width": WIDTH, "height": max(row * len(items), row), "label_w": label_w, "bars": bars, "empty": not items}
