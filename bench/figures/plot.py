#!/usr/bin/env python3
"""Plots a nanopu-figures CSV: plot.py <csv> <png> <bar|line> <title> <ylabel>.
line: the first column is x, every other column a series; or, when the
first column is text (a long table: series, x, y), one series per name.
bar: the text columns label the bars, the first numeric column is the height."""
import csv
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt


def numeric(v):
    try:
        float(v)
        return True
    except ValueError:
        return False


def wide(header, data):
    """A long table (series, x, y: nanopu-figures mica and setint) as a wide
    one: x, then a column per series (empty where a series has no point)."""
    names = list(dict.fromkeys(r[0] for r in data))
    xs = sorted({float(r[1]) for r in data})
    cell = {(r[0], float(r[1])): r[2] for r in data}
    rows = [[repr(x)] + [cell.get((n, x), "") for n in names] for x in xs]
    return [header[1]] + names, rows


def main():
    src, dst, kind, title, ylabel = sys.argv[1:6]
    with open(src, newline="") as f:
        rows = list(csv.reader(f))
    header, data = rows[0], rows[1:]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    if kind == "line" and data and len(header) == 3 and not numeric(data[0][0]):
        header, data = wide(header, data)
    if kind == "line":
        x = [float(r[0]) for r in data]
        for i, name in enumerate(header[1:], start=1):
            # Beside measured series, the modelled ones are dashed.
            # An empty cell (no sample at that x: a workload without messages of a size) is a gap.
            ax.plot(x, [float(r[i]) if r[i] else float("nan") for r in data], marker="o" if len(x) <= 40 else None,
                    linestyle="--" if "modelled" in name and "measured" in " ".join(header) else "-",
                    label=name)
        ax.set_xlabel(header[0])
        if x and min(x) > 0 and max(x) / min(x) > 1000:
            ax.set_xscale("log")  # message sizes: bytes to tens of kilobytes
        ax.legend(fontsize="small")
    else:
        col = next(i for i, v in enumerate(data[0]) if numeric(v))
        labels = [" / ".join(r[:col]) for r in data]
        ax.barh(range(len(data)), [float(r[col]) for r in data])
        ax.set_yticks(range(len(data)))
        ax.set_yticklabels(labels, fontsize="small")
        ax.invert_yaxis()
        ax.set_xlabel(ylabel)
    if kind == "line":
        ax.set_ylabel(ylabel)
        values = [float(v) for r in data for v in r[1:] if v and float(v) > 0]
        if values and max(values) / min(values) > 100:
            ax.set_yscale("log")  # tails span orders of magnitude
    ax.set_title(title if "modelled" in title else title + " (modelled)")
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main()
