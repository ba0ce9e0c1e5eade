#!/usr/bin/env python3
"""Plots a tandem-bench --cpu-overhead CSV: for each collective, the CPU overhead's share of the
latency against the message size, one line per mode, and the model's share (dashed) where the CSV has
it.

    tools/plot_cpu_overhead.py tandem-cpu-overhead.csv [out.png]      (needs matplotlib)
"""
import csv
import sys
from collections import defaultdict

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "tandem-cpu-overhead.csv"
    out = sys.argv[2] if len(sys.argv) > 2 else path.rsplit(".", 1)[0] + ".png"
    series = defaultdict(lambda: defaultdict(list))  # collective -> mode -> rows
    for r in csv.DictReader(open(path)):
        series[r["collective"]][r["mode"]].append(r)
    collectives = sorted(series)
    fig, axes = plt.subplots(1, len(collectives), figsize=(5 * len(collectives), 4.2), squeeze=False)
    for ax, collective in zip(axes[0], collectives):
        for mode, rows in sorted(series[collective].items()):
            rows.sort(key=lambda r: int(r["bytes"]))
            x = [int(r["bytes"]) for r in rows]
            line, = ax.plot(x, [100 * float(r["share"]) for r in rows], marker="o", label=mode)
            model = [(int(r["bytes"]), 100 * float(r["model_cpu_s"]) / float(r["model_latency_s"]))
                     for r in rows if float(r["model_cpu_s"]) >= 0 and float(r["model_latency_s"]) > 0]
            if model:
                ax.plot(*zip(*model), linestyle="--", color=line.get_color(), label=f"{mode} (model)")
        ranks = next(iter(series[collective].values()))[0]["ranks"]
        ax.set_title(f"{collective}, {ranks} ranks")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("bytes")
        ax.set_ylabel("CPU overhead / latency (%)")
        ax.set_ylim(0, 110)
        ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main()
