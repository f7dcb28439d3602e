#!/usr/bin/python3
# Debian's python3-matplotlib belongs to /usr/bin/python3, not to a python3 found on PATH.
"""Turns nanopu-loadgen --json results into latency plots.

  python3 tools/plot_latency.py RESULT.json [RESULT.json ...] --out PREFIX

writes PREFIX-cdf.png (the measured latency CDF of each run, log-scaled tail
so p99 and p99.9 are readable) and, with two or more runs, PREFIX-p99.png
(p50 and p99 against offered load: the requested rate for open-loop runs,
the achieved throughput for closed-loop ones). The modelled nanoPU latency,
when a run carries it, is drawn dashed and labelled "modelled".
"""

import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"plot_latency: {path}: {e}")
    if "latency_ns" not in d:
        sys.exit(f"plot_latency: {path}: not a nanopu-loadgen --json result (no latency_ns)")
    return d


def label(path, d):
    name = os.path.splitext(os.path.basename(path))[0]
    load_text = f"{d['rate']:.0f} req/s offered" if d.get("rate", 0) > 0 else \
        f"closed loop, {d.get('outstanding', 1)} in flight"
    return f"{name}: {d.get('msg_bytes', '?')} B, {load_text}"


def save(fig, ax, out, xlabel, ylabel, title, legend_size):
    """Labels, grid and legend as both plots have them; writes the PNG."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=legend_size)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def plot_cdf(runs, out):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for path, d in runs:
        cdf = d["latency_ns"].get("cdf")
        if not cdf:
            l = d["latency_ns"]
            cdf = [[0.5, l["p50"]], [0.9, l["p90"]], [0.99, l["p99"]], [0.999, l["p999"]], [1, l["max"]]]
        xs = [ns / 1000 for _, ns in cdf]
        # Plot 1 - fraction on a log axis: the tail gets the room.
        ys = [max(1 - q, 1e-5) for q, _ in cdf]
        line, = ax.plot(xs, ys, marker=".", markersize=3, label=label(path, d) + " (measured)")
        # The modelled latencies of the same replies (nanopu-loadgen builds
        # them from the run: docs/design.md §5), same colour, dashed.
        mcdf = d.get("latency_ns_modelled", {}).get("cdf")
        if mcdf:
            ax.plot([ns / 1000 for _, ns in mcdf], [max(1 - q, 1e-5) for q, _ in mcdf], "--",
                    color=line.get_color(), label=label(path, d) + " (modelled nanoPU)")
    ax.set_yscale("log")
    ax.set_xscale("log")
    ax.invert_yaxis()
    ticks = [0.5, 0.1, 0.01, 0.001, 0.0001]
    ax.set_yticks(ticks)
    ax.set_yticklabels(["p50", "p90", "p99", "p99.9", "p99.99"])
    save(fig, ax, out, "round-trip latency (us)", "percentile", "nanopu-loadgen latency distribution", 7)


def offered(d):
    return d["rate"] if d.get("rate", 0) > 0 else d.get("throughput_msgs_per_s", 0)


def plot_p99(runs, out):
    points = sorted(((offered(d), d) for _, d in runs), key=lambda p: p[0])
    fig, ax = plt.subplots(figsize=(7, 4.5))
    xs = [x / 1000 for x, _ in points]
    ax.plot(xs, [d["latency_ns"]["p99"] / 1000 for _, d in points], "o-", label="p99 (measured)")
    ax.plot(xs, [d["latency_ns"]["p50"] / 1000 for _, d in points], "s-", label="p50 (measured)")
    modelled = [(x, d["latency_ns_modelled"]) for x, d in points if "latency_ns_modelled" in d]
    if modelled:
        ax.plot([x / 1000 for x, _ in modelled], [m["p99"] / 1000 for _, m in modelled], "o--",
                label="p99 (modelled nanoPU)")
    ax.set_yscale("log")
    save(fig, ax, out, "offered load (k requests/s; closed loop: achieved)", "latency (us)",
         "latency against load", 8)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", nargs="+", help="nanopu-loadgen --json files")
    p.add_argument("--out", required=True, help="output prefix: PREFIX-cdf.png, PREFIX-p99.png")
    a = p.parse_args()
    runs = [(path, load(path)) for path in a.results]
    written = [a.out + "-cdf.png"]
    plot_cdf(runs, written[0])
    if len(runs) >= 2:
        written.append(a.out + "-p99.png")
        plot_p99(runs, written[1])
    print("plots: " + " ".join(written))


if __name__ == "__main__":
    main()
