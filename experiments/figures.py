#!/usr/bin/python3
"""figures.py — draws the figures of `lintra reproduce` with matplotlib.

Usage: /usr/bin/python3 experiments/figures.py SPEC.json

SPEC.json (written by experiments/plot.cpp) holds one figure:
  {"out": "<path without extension>", "title": ..., "x_label": ..., "y_label": ...,
   "log_x": bool, "log_y": bool, "width": pixels, "height": pixels,
   "series": [{"label": str, "x": [...], "y": [...], "line": bool, "markers": bool, "color": int}]}
and writes <out>.png (at the requested pixel size) and <out>.svg beside it. Points that are not
finite, or not positive on a log axis, are left out and break the line there; a series with an empty
label stays out of the legend. The layout is computed with constrained_layout, so titles and labels
are never clipped (a title too long for the width is wrapped).

Debian's matplotlib works with Debian's interpreter only (/usr/bin/python3), not the first python3 on
PATH; the Agg backend needs no display.
"""
import json
import math
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.fonttype"] = "none"  # SVG text stays text: searchable, and tests can read it
import matplotlib.pyplot as plt  # noqa: E402

# The Okabe–Ito colour-blind-safe palette, as experiments/plot.h documents.
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"]
DPI = 100


def drawable(x, y, log_x, log_y):
    """Whether the point (x, y) can be drawn on these axes."""
    if x is None or y is None or not (math.isfinite(x) and math.isfinite(y)):
        return False
    return (not log_x or x > 0) and (not log_y or y > 0)


def segments(series, log_x, log_y):
    """The runs of consecutive drawable points of one series."""
    runs, run = [], ([], [])
    for x, y in zip(series["x"], series["y"]):
        if drawable(x, y, log_x, log_y):
            run[0].append(x)
            run[1].append(y)
        elif run[0]:
            runs.append(run)
            run = ([], [])
    if run[0]:
        runs.append(run)
    return runs


def draw_series(ax, s, log_x, log_y):
    color = PALETTE[s.get("color", 0) % len(PALETTE)]
    label = s.get("label") or None
    for i, (xs, ys) in enumerate(segments(s, log_x, log_y)):
        ax.plot(xs, ys, color=color, label=label if i == 0 else None,
                linestyle="-" if s.get("line", True) else "none",
                marker="o" if s.get("markers", False) or (len(xs) == 1 and s.get("line", True)) else None,
                markersize=4, linewidth=1.5)
        label = None
    if label:  # nothing drawable: the series still appears in the legend
        ax.plot([], [], color=color, label=label, linestyle="-" if s.get("line", True) else "none",
                marker="o" if s.get("markers", False) else None)


def draw(spec):
    width, height = spec.get("width", 800), spec.get("height", 500)
    fig, ax = plt.subplots(figsize=(width / DPI, height / DPI), dpi=DPI, layout="constrained")
    log_x, log_y = spec.get("log_x", False), spec.get("log_y", False)
    for s in spec["series"]:
        if len(s["x"]) != len(s["y"]):
            raise ValueError(f"series '{s.get('label', '')}' has {len(s['x'])} x values but {len(s['y'])} y values")
        draw_series(ax, s, log_x, log_y)
    if log_x:
        ax.set_xscale("log")
    if log_y:
        ax.set_yscale("log")
    chars = max(20, int(width / 9))  # about the characters of the title font that fit the width
    ax.set_title("\n".join(textwrap.wrap(spec.get("title", ""), chars)), fontsize=11)
    ax.set_xlabel(spec.get("x_label", ""))
    ax.set_ylabel(spec.get("y_label", ""))
    ax.grid(True, which="major", color="#dddddd", linewidth=0.8)
    ax.grid(True, which="minor", color="#f0f0f0", linewidth=0.5)
    if any(s.get("label") for s in spec["series"]):
        ax.legend(loc="best", fontsize=9, framealpha=0.85)
    fig.savefig(spec["out"] + ".png", dpi=DPI)
    fig.savefig(spec["out"] + ".svg")
    plt.close(fig)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: figures.py SPEC.json\n")
        return 2
    with open(argv[1], encoding="utf-8") as f:
        draw(json.load(f))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
