#!/usr/bin/env python3
"""The model against tandem-bench --cpu-overhead over several runs of it: for each cell (collective,
size) of one mode, the model's CPU time over the one measured in each run, the runs' median of that
ratio, and how many cells fall within the tolerance, per run and by the medians. A machine whose speed
drifts moves single cells of a run; the medians over runs say where the model itself is off.

    tools/cpu_overhead_runs.py run1.csv run2.csv ... [--mode tandem-inline+test] [--within 0.3]
"""
import argparse
import csv
import statistics
import sys


def ratios(path, mode):
    """{(collective, bytes): model cpu / measured cpu} of one run's CSV, the cells the model costed."""
    cells = {}
    for r in csv.DictReader(open(path)):
        model, measured = float(r["model_cpu_s"]), float(r["cpu_overhead_s"])
        if r["mode"] == mode and model >= 0 and measured > 0:
            cells[(r["collective"], int(r["bytes"]))] = model / measured
    return cells


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="CSVs of tandem-bench --cpu-overhead")
    ap.add_argument("--mode", default="tandem-inline+test", help="the mode to compare (default tandem-inline+test)")
    ap.add_argument("--within", type=float, default=0.3, help="the tolerance, a fraction (default 0.3)")
    a = ap.parse_args()
    if a.within <= 0:
        sys.exit(f"--within {a.within}: wants a fraction above 0")
    runs = [ratios(path, a.mode) for path in a.runs]
    cells = sorted(set().union(*runs))
    if not cells:
        sys.exit(f"no cell of mode {a.mode} with the model's CPU time in {', '.join(a.runs)}")
    ok = lambda ratio: abs(ratio - 1) <= a.within + 1e-12  # noqa: E731
    print(f"model cpu / measured cpu, mode {a.mode}, {len(runs)} runs")
    print(f"{'collective':<12}{'bytes':>10}  " + "".join(f"{'run ' + str(i + 1):>8}" for i in range(len(runs))) + f"{'median':>9}")
    medians = {}
    for cell in cells:
        values = [run[cell] for run in runs if cell in run]
        medians[cell] = statistics.median(values)
        shown = "".join(f"{run[cell]:8.2f}" if cell in run else f"{'-':>8}" for run in runs)
        print(f"{cell[0]:<12}{cell[1]:>10}  {shown}{medians[cell]:9.2f}{'' if ok(medians[cell]) else '  off'}")
    per_run = [sum(ok(v) for v in run.values()) for run in runs]
    print(f"within {a.within:.0%}: " + ", ".join(f"{n} of {len(run)}" for n, run in zip(per_run, runs)) +
          f" by run; {sum(ok(m) for m in medians.values())} of {len(cells)} by the runs' medians")


if __name__ == "__main__":
    main()
