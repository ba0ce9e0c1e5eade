#!/usr/bin/env python3
"""Plots a tandem-bench --overlap CSV: for each collective and size, the application-side overhead
(time in the start call + time in the wait) against the computation placed between them, one line
per mode, and the overlap % (OSU definition) beside it.

    tools/plot_overlap.py tandem-overlap.csv [out.png]      (needs matplotlib)
"""
import csv
import sys
from collections import defaultdict

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "tandem-overlap.csv"
    out = sys.argv[2] if len(sys.argv) > 2 else path.rsplit(".", 1)[0] + ".png"
    series = defaultdict(lambda: defaultdict(list))  # (collective, bytes) -> mode -> rows
    for r in csv.DictReader(open(path)):
        series[(r["collective"], int(r["bytes"]))][r["mode"]].append(r)
    cases = sorted(series)
    fig, axes = plt.subplots(2, len(cases), figsize=(5 * len(cases), 7.5), squeeze=False)
    for i, case in enumerate(cases):
        top, bottom = axes[0][i], axes[1][i]
        for mode, rows in sorted(series[case].items()):
            x = [float(r["tcomp_s"]) * 1e6 for r in rows]
            top.plot(x, [float(r["overhead_s"]) * 1e6 for r in rows], marker="o", label=mode)
            bottom.plot(x, [float(r["overlap_pct"]) for r in rows], marker="o", label=mode)
        top.set_title(f"{case[0]}, {case[1]} bytes")
        top.set_ylabel("overhead: start + tests + wait (us)")
        top.set_yscale("log")
        bottom.set_xlabel("computation between start and wait (us)")
        bottom.set_ylabel("overlap (%)")
        bottom.set_ylim(-5, 105)
        top.grid(True, alpha=0.3)
        bottom.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main()
