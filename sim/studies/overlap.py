#!/usr/bin/python3
"""Study: overlap at scale with inline progress, in simulation.

Iallreduce of 8 B and 1 MiB at 64 and 512 ranks (4x4x4 and 8x8x8 tori): the latency and the
application-side overhead (time in the start call + in the test calls' wait) against the computation
inserted between start and wait, with --tests test calls spread through the computation, beside the
blocking MPI_Allreduce of SMPI's `ompi` selector (Open MPI's algorithms). This is tandem-bench --overlap
(simulated computation: smpi_execute_benched) under sim/run.

SMPI's own non-blocking collectives (modes mpi, mpi+test) are a linear exchange whose messages the
simulated network moves with no help from the ranks and whose reductions cost nothing: a perfectly
offloaded best case no real MPI reaches. They are measured for 8 B at 64 ranks only (the linear
exchange of 1 MiB, whose reductions SMPI really computes, takes too long to simulate).

  sim/studies/overlap.py [--scales 64,512] [--tests 10] [--plot-only]

Writes sim/results/overlap.csv, .md and .png.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

TORUS = {64: "4x4x4", 512: "8x8x8"}
# SMPI's own non-blocking collectives (mpi, mpi+test): 8 B at 64 ranks only (see above)
NATIVE_NONBLOCKING = {(64, 8)}


def measure(a):
    a.scales = [int(s) for s in a.scales.split(",")]
    if any(p not in TORUS for p in a.scales):
        raise SystemExit("--scales: 64 and/or 512")
    rows = []
    for p in a.scales:
        for n in (8, 1 << 20):
            common.say(f"{p} ranks, {n} bytes")
            modes = "mpi-blocking,tandem-inline,tandem-inline+test"
            if (p, n) in NATIVE_NONBLOCKING:
                modes = "mpi,mpi+test," + modes
            got = common.simulate(TORUS[p], ["--overlap", "--collectives", "allreduce", "--sizes", str(n), "--reps", "1",
                                             "--iters", "2", "--tests", str(a.tests), "--modes", modes],
                                  selector="ompi")
            for r in got:
                r["torus"] = TORUS[p]
                r["tests"] = a.tests
            rows += got
    return rows


def overhead(r):
    """time in the start call, the test calls and the wait (the application's side)"""
    return float(r["overhead_s"])


def report(rows):
    lines = []
    for p in sorted({int(r["ranks"]) for r in rows}):
        for n in sorted({int(r["bytes"]) for r in rows}):
            mine = [r for r in rows if int(r["ranks"]) == p and int(r["bytes"]) == n]
            for mode in dict.fromkeys(r["mode"] for r in mine):
                pts = sorted((float(r["tcomp_s"]), r) for r in mine if r["mode"] == mode)
                first, last = pts[0][1], pts[-1][1]
                floor = min(overhead(r) for _, r in pts)
                lines.append([p, n, mode, f'{float(first["pure_s"]) * 1e6:.1f}',
                              f"{overhead(first) * 1e6:.1f}", f"{floor * 1e6:.2f}",
                              f'{float(last["tcomp_s"]) * 1e6:.1f}', f"{overhead(last) * 1e6:.2f}",
                              f'{float(last["overlap_pct"]):.0f}%'])
    common.write_table("overlap", "Iallreduce overhead against inserted computation (SMPI, inline progress; "
                       "times in simulated us)", ["ranks", "bytes", "mode", "latency", "overhead at Tcomp=0",
                                                  "overhead floor", "largest Tcomp", "overhead there",
                                                  "overlap there (OSU)"], lines)


def plot(rows):
    plt = common.pyplot()
    if not plt:
        return
    panels = sorted({(int(r["ranks"]), int(r["bytes"])) for r in rows})
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 3.8), squeeze=False)
    for ax, (p, n) in zip(axes[0], panels):
        mine = [r for r in rows if int(r["ranks"]) == p and int(r["bytes"]) == n]
        for mode in dict.fromkeys(r["mode"] for r in mine):
            pts = sorted((float(r["tcomp_s"]) * 1e6, overhead(r) * 1e6) for r in mine if r["mode"] == mode)
            ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=mode)
        ax.set_title(f"Iallreduce {n} B, {p} ranks")
        ax.set_xlabel("computation between start and wait (us)")
        ax.set_ylabel("overhead: start + tests + wait (us)")
        ax.legend(fontsize=7)
    common.save_plot(fig, "overlap")


def arguments(ap):
    ap.add_argument("--scales", default="64,512", help="ranks: 64 and/or 512")
    ap.add_argument("--tests", type=int, default=10, help="test calls during the computation (+test modes)")


def main():
    common.run_study("overlap", __doc__, ("ranks",), arguments, measure, report, plot)

if __name__ == "__main__":
    main()
