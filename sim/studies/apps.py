#!/usr/bin/python3
"""Study: the applications at scale, in simulation (docs/apps.md).

The applications' real code, one rank per host; their computation measured on this machine and charged
to the simulated clock (measured kernels, sampled: TANDEM_APP_SAMPLE=3 with one calibration file for
all runs, for the FFT and the compression, whose data are then not computed).

The FFT and the compression run on the paper's machine: one switch (a one-level fat tree, each host
on one full-duplex link), as the overlap-patterns paper's cluster (Odin, one 288-port InfiniBand
switch). Its links carry 3.3 GB/s (--beta 3e-10, the studies' torus links 10 GB/s): this machine's core
computes an FFT plane or a bzip2 block several times faster than the paper's 2 GHz Opterons, and links
3x slower keep roughly its ratio of computation to communication. A test costs 5 ns per pending request
(--poll 5e-9; tools/test-cost: one MPI_Testsome costs 1 ns per pending receive on Open MPI here, 5.4
ns on MPICH) instead of the studies' 0.1 us: the pattern tests a tile's 2p requests after every item.
Sends are rendezvous (smpi/send-is-detached-thresh:0): SimGrid 3.32 keeps every detached (eager) send
in flight in one list that each completion walks, and a linear alltoall has p^2 of them (a 128-rank FFT
took 41 s of host time for 0.4% of simulated time). Their collectives are the single-round algorithms
(linear alltoall, gather and gatherv), in both variants: under inline progress the pattern's tests, one
per item, are the only progress, and a binomial gather advances one round per item on every forwarding
rank (at 64 ranks its 6 rounds took 6 items of 13 ms).

  fft:      tandem-fft3d, blocking against pipelined (inline progress: the pattern's tests), weak
            scaling: 16 x-planes of 512 x 32 per rank, tile and window auto, 3 runs (the median is not the
            first, which plans).
  compress: tandem-pcompress, blocking against pipelined, weak scaling: 32 blocks of 250 kB per rank
            (8 MB), two inputs: random bytes (the paper's input, which bzip2 cannot shrink) and made-up
            text (5.6 times smaller). Every rank's streams go to rank 0 over its one link: at 64 ranks
            the random input's 512 MB take 0.16 s of the ranks' 0.56 s of compression; at 512 ranks its
            4 GB take 1.2 s, longer than the compression, and no pipeline can hide more than that. The
            text is the other way: little to hide at 64 ranks (6% of the time), much at 512.
  cg:       tandem-cg on the studies' torus (1 us per link, 10 GB/s), classic against pipelined with dedicated
            collective processes (one per 8 ranks, added on top, sharing their block's first host) and
            pipelined inline, 8 .. 512 ranks, a fixed grid (strong scaling) and a fixed number of
            iterations; the crossover in ranks. MPI's own calls outside the solve (the DCPs' setup, the
            error norm) use Open MPI's algorithms (--selector ompi): SMPI's default allgather is N^2
            messages, and each completion walks SimGrid's list of those pending (8 s of host time at 128
            ranks + 16 DCPs, over 15 minutes at 256).
  sweep:    tandem-fft3d's pipelined total over tiles and windows at 64 ranks, the auto choice beside.

  sim/studies/apps.py [--parts fft,compress,cg,sweep] [--ranks 64,512] [--kernels measure|published|FILE]
                      [--partial FILE] [--plot-only] [--dry-run] [--raise-map-count]

Writes sim/results/apps.csv (replacing the rows it redid: the FFT's and the compression's at the sizes
given), apps.md, apps.png and apps_sweep.png; with --kernels measure (the default) the kernel costs it
measured in apps_kernels.txt, which --kernels published charges instead of this machine's.
"""
import argparse
import csv
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import dcp  # noqa: E402  (its platform and hostfile: DCPs added on top)

TORI = {8: "2x2x2", 16: "2x2x4", 32: "2x4x4", 64: "4x4x4", 128: "4x4x8", 256: "4x8x8", 512: "8x8x8"}
SAMPLE = "TANDEM_APP_SAMPLE=3"
SINGLE_ROUND = ["TANDEM_ALLTOALL=linear", "TANDEM_ALLTOALLV=linear", "TANDEM_GATHER=linear", "TANDEM_GATHERV=linear"]
SLOW_LINKS = 3e-10  # the FFT's and the compression's links (s per byte): see above
POLL = 5e-9  # the FFT's and the compression's cost of a test per pending request: see above
RENDEZVOUS = "smpi/send-is-detached-thresh:0"  # the FFT's and the compression's sends: see above
CSV = os.path.join(common.RESULTS, "apps.csv")
FIELDS = ["part", "ranks", "dcps", "app", "variant", "progress", "tile", "window", "reps", "total_s", "compute_s",
          "overhead_s", "args", "kernels"]
# The sampled kernels' costs the committed rows were charged ("name seconds-per-unit", the apps'
# TANDEM_APP_CALIBRATION file): --kernels published charges them instead of timing this machine's
# kernels, so that a committed cell reproduces elsewhere; a run that measures writes its own here.
KERNELS = os.path.join(common.RESULTS, "apps_kernels.txt")
PUBLISHED = KERNELS  # the committed costs, whatever --results says
KERNELS_USED = "measured"  # the rows' kernels column: measured, published, or the file given


def fft_args(ranks):
    return ["--n", f"{16 * ranks}x{max(512, ranks)}x32"]


def compress_args(ranks, kind):
    return ["--made-up", str(32 * ranks * 250000), "--made-up-kind", kind, "--block", "250000", "--out", "/dev/null"]


CG_GRID = "1024x1024"
CG_ITERATIONS = 200


def run(part, ranks, app, args, settings=(), dcps=0, tmp=None, paper=False):
    """One simulated run of the app (paper: on the paper's machine, see above); its row (or None if the
    simulation failed), also appended to the partial CSV (a long study that stops keeps what it had)."""
    row = run_once(part, ranks, app, args, settings, dcps, tmp, paper)
    if row and PARTIAL:
        new = not os.path.exists(PARTIAL)
        with open(PARTIAL, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS)
            if new:
                w.writeheader()
            w.writerow(row)
    return row


PARTIAL = None


def run_once(part, ranks, app, args, settings=(), dcps=0, tmp=None, paper=False):
    common.say(f"{part}: {app} on {ranks} ranks{f' + {dcps} DCPs' if dcps else ''}: {' '.join(args)}")
    selector = "ompi" if app == "cg" else None
    try:
        if dcps:
            xml = dcp.platform("torus", ranks, 0.0, tmp)
            got = common.simulate(None, args, settings=list(settings) + ["TANDEM_PROGRESS=dcp", f"TANDEM_DCP_COUNT={dcps}"],
                                  cfg=[dcp.EAGER], platform=(xml, dcp.hostfile(ranks, dcps, tmp), ranks + dcps),
                                  app=app, compute_data=app == "cg", selector=selector)
        else:
            saved = dict(common.PLATFORM)
            if paper:
                common.PLATFORM.update(beta=SLOW_LINKS, poll=POLL)
            try:
                got = common.simulate(TORI[ranks], args, settings=settings, cfg=[RENDEZVOUS if paper else dcp.EAGER],
                                      app=app, compute_data=app == "cg", selector=selector,
                                      fat_tree=f"1;{ranks};1;1" if paper else None)
            finally:
                common.PLATFORM.clear()
                common.PLATFORM.update(saved)
    except common.SimulationFailed as e:
        print(f"    failed: {e}", flush=True)
        return None
    if not got:  # --dry-run
        return None
    r = got[0]
    return {"part": part, "ranks": ranks, "dcps": dcps, "app": app, "variant": r["variant"], "progress": r["progress"],
            "tile": r["tile"], "window": r["window"], "reps": r["reps"], "total_s": r["total_s"],
            "compute_s": r["compute_s"], "overhead_s": r["overhead_s"], "args": " ".join(args),
            "kernels": KERNELS_USED if app != "cg" else "timed"}  # CG: each call timed, its data computed


def measure(a, tmp):
    ranks = [int(n) for n in a.ranks.split(",")]
    calibration = os.path.join(tmp, "kernels.txt")
    if a.kernels != "measure":  # a copy: the apps add a kernel they do not find to the file
        shutil.copy(PUBLISHED if a.kernels == "published" else a.kernels, calibration)
    settings = [SAMPLE, "TANDEM_APP_CALIBRATION=" + calibration] + SINGLE_ROUND
    rows = measure_parts(a, tmp, settings, ranks)
    if a.kernels == "measure" and not common.DRY_RUN and os.path.exists(calibration):
        keep_kernels(calibration)
    return rows


def keep_kernels(measured):
    """The kernels measured now replace those of the same name in KERNELS; the others stay (the rows of
    the parts not rerun were charged them)."""
    costs = dict(line.split() for line in open(KERNELS)) if os.path.exists(KERNELS) else {}
    costs.update(dict(line.split() for line in open(measured)))
    with open(KERNELS, "w") as f:
        f.writelines(f"{name} {value}\n" for name, value in sorted(costs.items()))
    print("kernel costs:", KERNELS)


def measure_parts(a, tmp, settings, ranks):
    rows = []
    for part in a.parts.split(","):
        if part == "fft":
            for p in ranks:
                for variant in ("blocking", "pipelined"):  # 3 runs: the median is not the first, which plans
                    rows.append(run(part, p, "fft3d", fft_args(p) + ["--variant", variant, "--reps", "3"], settings,
                                    paper=True))
        elif part == "compress":
            for kind in ("random", "text"):
                for p in ranks:
                    for variant in ("blocking", "pipelined"):
                        rows.append(run(part, p, "pcompress", compress_args(p, kind) + ["--variant", variant, "--reps", "3"],
                                        settings, paper=True))
        elif part == "cg":
            cg = ["--grid", CG_GRID, "--rtol", "1e-300", "--max-it", str(CG_ITERATIONS)]
            dcp.TORI.update(TORI)  # its platforms for every size here
            for p in [n for n in TORI if n <= max(ranks)]:
                rows.append(run(part, p, "cg", cg + ["--variant", "classic"]))
                rows.append(run(part, p, "cg", cg + ["--variant", "pipelined"]))
                rows.append(run(part, p, "cg", cg + ["--variant", "pipelined"], dcps=p // 8, tmp=tmp))
        elif part == "sweep":
            p = 64
            for tile in (1, 2, 4, 8, 16):
                for window in (1, 2, 4):
                    if tile * window <= 16:
                        rows.append(run(part, p, "fft3d", fft_args(p) + ["--tile", str(tile), "--window", str(window),
                                                                          "--reps", "3"], settings, paper=True))
            rows.append(run(part, p, "fft3d", fft_args(p) + ["--reps", "3"], settings, paper=True))  # auto
            rows.append(run(part, p, "fft3d", fft_args(p) + ["--tune", "--reps", "13"], settings,
                            paper=True))  # the tuner
        else:
            raise SystemExit(f"--parts: unknown part {part} (fft, compress, cg, sweep)")
    return [r for r in rows if r]


def pick(rows, **want):
    return [r for r in rows if all(str(r[k]) == str(v) for k, v in want.items())]


def input_of(row):
    """The compression's input (--made-up-kind), or '' for the FFT."""
    args = row["args"].split()
    return args[args.index("--made-up-kind") + 1] if "--made-up-kind" in args else ""


def report(rows):
    lines = ["FFT and compression on the paper's machine (one switch, 3.3 GB/s links):", "",
             "| app | input | ranks | blocking s | pipelined s | tile | window | overhead blocking s | "
             "overhead pipelined s | overhead removed | faster by |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for part, app in (("fft", "fft3d"), ("compress", "pcompress")):
        got = pick(rows, part=part)
        for kind in sorted({input_of(r) for r in got}):
            for p in sorted({int(r["ranks"]) for r in got}):
                b = [r for r in pick(got, ranks=p, variant="blocking") if input_of(r) == kind]
                q = [r for r in pick(got, ranks=p, variant="pipelined") if input_of(r) == kind]
                if not b or not q:
                    continue
                b, q = b[0], q[0]
                tb, tq, ob, oq = (float(b["total_s"]), float(q["total_s"]), float(b["overhead_s"]), float(q["overhead_s"]))
                lines.append(f"| {app} | {kind or '-'} | {p} | {tb:.4f} | {tq:.4f} | {q['tile']} | {q['window']} | "
                             f"{ob:.4f} | {oq:.4f} | {100 * (1 - oq / ob):.0f}% | {100 * (1 - tq / tb):.0f}% |")
    used = sorted({r.get("kernels") or "measured, not kept" for r in rows if r["part"] in ("fft", "compress")})
    if used:
        lines += ["", "Kernel costs charged (sim/results/apps_kernels.txt; --kernels): " + ", ".join(used) + "."]
    cg = pick(rows, part="cg")
    if cg:
        lines += ["", f"CG on the torus, {CG_GRID} grid, {CG_ITERATIONS} iterations (strong scaling):", "",
                  "| ranks | classic s | pipelined inline s | pipelined + DCPs s | DCPs | DCPs / classic |",
                  "|---|---|---|---|---|---|"]
        crossover = None
        for p in sorted({int(r["ranks"]) for r in cg}):
            c = pick(cg, ranks=p, variant="classic")
            i = pick(cg, ranks=p, variant="pipelined", dcps=0)
            d = [r for r in pick(cg, ranks=p, variant="pipelined") if int(r["dcps"]) > 0]
            if not c:
                continue
            tc = float(c[0]["total_s"])
            ti = f"{float(i[0]['total_s']):.4f}" if i else "-"
            td = float(d[0]["total_s"]) if d else None
            if td is not None and td < tc and crossover is None:
                crossover = p
            elif td is not None and td >= tc:
                crossover = None  # the crossover: faster from there on
            lines.append(f"| {p} | {tc:.4f} | {ti} | {f'{td:.4f}' if td else '-'} | {d[0]['dcps'] if d else '-'} | "
                         f"{f'{td / tc:.2f}' if td else '-'} |")
        lines += ["", f"Pipelined CG with DCPs is faster than classic CG from {crossover} ranks on." if crossover
                  else "Pipelined CG with DCPs is not faster than classic CG at any size simulated."]
    sweep = pick(rows, part="sweep")
    if sweep:
        fixed = [r for r in sweep if "--tile" in r["args"]]
        best = min(fixed, key=lambda r: float(r["total_s"]))
        auto = [r for r in sweep if "--tile" not in r["args"] and "--tune" not in r["args"]]
        tuned = [r for r in sweep if "--tune" in r["args"]]
        lines += ["", "FFT at 64 ranks, the pipelined total over tiles and windows (sim/results/apps_sweep.png):", "",
                  f"- best of the sweep: tile {best['tile']}, window {best['window']}, {float(best['total_s']):.4f} s"]
        for name, r in (("auto (the model)", auto), ("the tuner, median of its 13 runs", tuned)):
            if r:
                t = float(r[0]["total_s"])
                lines.append(f"- {name}: tile {r[0]['tile']}, window {r[0]['window']}, {t:.4f} s, "
                             f"{100 * (t / float(best['total_s']) - 1):+.1f}% of the best")
    return "\n".join(lines) + "\n"


def plot(rows):
    plt = common.pyplot()
    if not plt:
        return
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    ax = axes[0]
    for part, app in (("fft", "fft3d"), ("compress", "pcompress")):
        for kind in sorted({input_of(r) for r in pick(rows, part=part)}):
            for variant, style in (("blocking", "o-"), ("pipelined", "s--")):
                got = sorted([r for r in pick(rows, part=part, variant=variant) if input_of(r) == kind],
                             key=lambda r: int(r["ranks"]))
                if got:
                    ax.plot([int(r["ranks"]) for r in got], [float(r["overhead_s"]) * 1e3 for r in got], style,
                            label=f"{app}{' ' + kind if kind else ''} {variant}")
    cg = pick(rows, part="cg")
    ax2 = axes[1]
    for label, sel in (("classic", lambda r: r["variant"] == "classic"),
                       ("pipelined inline", lambda r: r["variant"] == "pipelined" and int(r["dcps"]) == 0),
                       ("pipelined + DCPs", lambda r: r["variant"] == "pipelined" and int(r["dcps"]) > 0)):
        got = sorted([r for r in cg if sel(r)], key=lambda r: int(r["ranks"]))
        if got:
            ax2.plot([int(r["ranks"]) for r in got], [float(r["total_s"]) * 1e3 for r in got], "o-", label=label)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("ranks")
    ax.set_ylabel("communication overhead (ms)")
    ax.set_yscale("log")
    ax.set_title("FFT and compression (one switch): overhead")
    ax.legend(fontsize=8)
    ax2.set_xscale("log", base=2)
    ax2.set_yscale("log")
    ax2.set_xlabel("ranks")
    ax2.set_ylabel(f"time of {CG_ITERATIONS} iterations (ms)")
    ax2.set_title(f"CG, {CG_GRID} grid")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(common.RESULTS, "apps.png"), dpi=110)
    sweep = [r for r in pick(rows, part="sweep") if "--tile" in r["args"]]
    if sweep:
        fig, ax = plt.subplots(figsize=(6, 4))
        for window in sorted({int(r["window"]) for r in sweep}):
            got = sorted([r for r in sweep if int(r["window"]) == window], key=lambda r: int(r["tile"]))
            ax.plot([int(r["tile"]) for r in got], [float(r["total_s"]) * 1e3 for r in got], "o-", label=f"window {window}")
        for r in pick(rows, part="sweep"):
            if "--tile" not in r["args"]:
                name = "tuner" if "--tune" in r["args"] else "auto"
                ax.plot([int(r["tile"])], [float(r["total_s"]) * 1e3], "k*" if name == "auto" else "r^", markersize=12,
                        label=f"{name} (tile {r['tile']}, window {r['window']})")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("tile (x-planes per alltoallv)")
        ax.set_ylabel("total (ms)")
        ax.set_title("tandem-fft3d pipelined, 64 ranks, one switch (simulated)")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(common.RESULTS, "apps_sweep.png"), dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parts", default="fft,compress,cg,sweep")
    ap.add_argument("--ranks", default="64,512")
    ap.add_argument("--plot-only", action="store_true", help="tables and plots from the committed CSV")
    ap.add_argument("--partial", help="append each run's row to this CSV as it comes")
    ap.add_argument("--kernels", default="measure",
                    help="the FFT's and the compression's kernel costs: measure (time them on this machine, the "
                         "default, and keep them in sim/results/apps_kernels.txt), published (charge the committed "
                         "ones there) or a calibration file")
    common.add_run_options(ap)
    a = ap.parse_args()
    common.use_run_options(a)
    global CSV, KERNELS, KERNELS_USED
    CSV, KERNELS = os.path.join(common.RESULTS, "apps.csv"), os.path.join(common.RESULTS, "apps_kernels.txt")
    KERNELS_USED = a.kernels if a.kernels in ("measure", "published") else os.path.basename(a.kernels)
    KERNELS_USED = "measured" if KERNELS_USED == "measure" else KERNELS_USED
    if a.kernels == "published" and not os.path.exists(PUBLISHED):
        raise SystemExit(f"--kernels published: {PUBLISHED} is missing")
    global PARTIAL
    PARTIAL = a.partial
    if a.dry_run:
        with common.workdir() as tmp:
            measure(a, tmp)
        return
    if a.plot_only:
        rows = list(csv.DictReader(open(CSV)))
    else:
        with common.workdir() as tmp:
            rows = measure(a, tmp)
        old = list(csv.DictReader(open(CSV))) if os.path.exists(CSV) else []
        parts, ranks = a.parts.split(","), [int(p) for p in a.ranks.split(",")]
        # what this run redid: the sweep and CG wholly, the FFT and the compression at its sizes
        redone = lambda r: r["part"] in parts and (r["part"] in ("sweep", "cg") or int(r["ranks"]) in ranks)
        rows = [r for r in old if not redone(r)] + rows
        with open(CSV, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS)
            w.writeheader()
            w.writerows(rows)
    text = report(rows)
    with open(os.path.join(common.RESULTS, "apps.md"), "w") as f:
        f.write("# The applications at scale (simulated)\n\nWritten by sim/studies/apps.py: see docs/apps.md.\n\n" + text)
    print(text)
    plot(rows)


if __name__ == "__main__":
    main()
