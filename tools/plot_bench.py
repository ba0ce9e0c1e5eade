#!/usr/bin/env python3
"""Plots a tandem-bench CSV: per collective, median time per operation against message size for
Tandem and native MPI (with min..max as error bars), and the ratio Tandem / best native.

    tools/plot_bench.py tandem-bench.csv [out.png]      (needs numpy and matplotlib)
"""
import csv
import sys
from collections import defaultdict

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "tandem-bench.csv"
    out = sys.argv[2] if len(sys.argv) > 2 else path.rsplit(".", 1)[0] + ".png"
    rows = list(csv.DictReader(open(path)))
    series = defaultdict(lambda: defaultdict(list))  # collective -> mode -> [(bytes, med, lo, hi)]
    for r in rows:
        series[r["collective"]][r["mode"]].append(
            (int(r["bytes"]), float(r["median_s"]), float(r["min_s"]), float(r["max_s"])))
    colls = sorted(series)
    fig, axes = plt.subplots(2, len(colls), figsize=(4.5 * len(colls), 7), squeeze=False)
    for i, coll in enumerate(colls):
        ax, ratio_ax = axes[0][i], axes[1][i]
        for mode, points in sorted(series[coll].items()):
            points.sort()
            x = [p[0] for p in points]
            med = [p[1] for p in points]
            err = [[p[1] - p[2] for p in points], [p[3] - p[1] for p in points]]
            ax.errorbar(x, med, yerr=err, marker="o", capsize=2, label=mode)
        ax.set(xscale="log", yscale="log", title=coll, xlabel="bytes", ylabel="seconds per operation")
        ax.legend(fontsize=8)
        tandem = dict((p[0], p[1]) for p in series[coll]["tandem"])
        natives = [dict((p[0], p[1]) for p in series[coll][m]) for m in series[coll] if not m.startswith("tandem")]
        sizes = sorted(tandem)
        ratios = [tandem[b] / min(n[b] for n in natives if b in n) for b in sizes]
        ratio_ax.plot(sizes, ratios, marker="o")
        ratio_ax.axhline(1.0, color="gray", lw=0.8)
        ratio_ax.set(xscale="log", xlabel="bytes", ylabel="tandem / best native")
    meta = rows[0]
    fig.suptitle(f"{meta['ranks']} ranks, {meta['ranks_per_node']} per node with {meta['cores']} cores"
                 + (" (oversubscribed)" if meta["oversubscribed"] == "1" else ""))
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(out)


if __name__ == "__main__":
    main()
