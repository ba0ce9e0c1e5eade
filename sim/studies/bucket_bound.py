#!/usr/bin/python3
"""Study: the torus bucket algorithms against their lower bound, in simulation.

For each torus, collective and vector size: the simulated time of Tandem's ring, Rabenseifner
(allreduce), bidirectional and unidirectional torus bucket, the halfway bucket (allgather), and of SMPI's `ompi` selector (Open MPI's
blocking algorithms), beside the lower bound and the bucket cost formula of tandem-model for the
platform's alpha, beta and gamma (common.PLATFORM), and the ratio measured / lower bound (the
bidirectional bound: the simulated links are full duplex).

Two bounds: tandem-model's (and issue 4's) adds the bandwidth bound (p-1)/p n beta / (2N) (twice that
for allreduce) and the computation bound (p-1)/p n gamma, which is a bound for an algorithm that
reduces after it receives. Tandem's segmented steps reduce one segment while the next arrives, so
reductions hide behind the links, and the bound of such an algorithm is the larger of the two: the
table gives the ratio to both.

  sim/studies/bucket_bound.py [--tori 4x4x4,8x8x4,8x8x8,16x8x4] [--sizes 1,8,64] [--algorithms ...]
                              [--collectives allreduce,reduce_scatter,allgather] [--rendezvous-sends [all]]
                              [--chains C] [--plot-only]

--rendezvous-sends runs Tandem's algorithms with no detached (eager) sends in SMPI
(smpi/send-is-detached-thresh:0). SimGrid 3.32 keeps every detached send in flight in one global list
and walks all of it at each completion, which makes thousands of ranks quadratic: 16x16x16 needs it.
It is a modelling change, not only a faster simulation: SMPI's default sends messages below 64 KiB
eagerly, as MPI libraries do. The bucket moves little (allgather of 16 KiB per rank on 4x4x4: 33.1 ->
32.1 us; the 8 MiB allreduce on 8x8x8: 1.4725 ms either way), but a ring, whose step then waits for
both neighbours, slows at small steps: on 4x4x4 the 1 MiB allreduce 0.635 -> 0.742 ms and the 16 KiB
per rank reduce-scatter 0.343 -> 0.450 ms. So pass it only where it is needed (the committed rows use
it at 4096 ranks only); the rows say which. The native `ompi` runs keep SMPI's default unless `--rendezvous-sends all`: their blocking sends may depend on eager
delivery (a send posted before its receive would deadlock, which SimGrid reports), but Open MPI's ring
allreduce (SMPI's `lr`, sendrecv steps) does not, and on 8x8x8 at 8 MiB it moved by 0.3% (3.065 ->
3.056 ms; 71 s -> 16 s wall). The CSV's `sends` column says which runs had rendezvous sends.

SMPI charges nothing for the reductions inside its own collectives, so the `ompi` rows of allreduce and
reduce-scatter leave out work that Tandem's rows pay (at 8 MiB, (p-1)/p n gamma = 1.26 ms of the
1.5 ms bound). The table adds a column with that work put back (ompi_charged_ratio); the plain `ompi`
ratio is the one most favourable to Open MPI's algorithms.

Writes sim/results/bucket_bound.csv, .md (the table) and .png. Sizes are the whole vector n in MiB
(reduce-scatter and allgather: n/p per rank).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

RENDEZVOUS = "smpi/send-is-detached-thresh:0"
# The simulation set-up of the rows measured now (the CSV's platform column): rows without it were
# measured with SimGrid's cross traffic and SMPI's default barrier before timing (marked o in the table).
PLATFORM_VERSION = "no cross traffic, recursive-doubling barrier"
BENCH_NAME = {"allreduce": "allreduce", "reduce_scatter": "reduce_scatter_block", "allgather": "allgather"}
ENV_NAME = {"allreduce": "TANDEM_ALLREDUCE", "reduce_scatter": "TANDEM_REDUCE_SCATTER_BLOCK",
            "allgather": "TANDEM_ALLGATHER"}
LABEL = {"ring": "ring", "rabenseifner": "Rabenseifner", "torus_bucket": "bucket bi",
         "torus_bucket_uni": "bucket uni", "torus_bucket_halfway": "bucket halfway", "ompi": "SMPI ompi"}
COLOR = {"ring": "tab:blue", "rabenseifner": "tab:orange", "torus_bucket": "tab:green",
         "torus_bucket_uni": "tab:olive", "torus_bucket_halfway": "tab:purple", "ompi": "tab:red"}


def measure(a):
    a.tori, a.collectives, a.algorithms = a.tori.split(","), a.collectives.split(","), a.algorithms.split(",")
    a.sizes = [int(s) for s in a.sizes.split(",")]
    rows, failed = [], []
    for torus in a.tori:
        p = common.ranks_of(torus)
        for coll in a.collectives:
            per_rank = coll != "allreduce"
            for alg in a.algorithms:
                if (alg == "rabenseifner" and coll != "allreduce") or (alg == "torus_bucket_halfway" and coll != "allgather"):
                    continue
                for mib in a.sizes:
                    common.say(f"{torus} {coll} {alg} {mib} MiB")
                    try:
                        rows += measure_one(a, torus, coll, alg, mib * common.MiB // (p if per_rank else 1))
                    except common.SimulationFailed as e:  # out of memory (SimGrid exit 137), most often: the rest still counts
                        print("    skipped:", e, flush=True)
                        failed.append(f"{torus} {coll} {alg} {mib} MiB")
    a.failed = failed  # run_study exits non-zero after writing what was measured
    return rows


def measure_one(a, torus, coll, alg, count_bytes):
    """One simulated run (one size: its wall time and memory are its own); its rows."""
    p = common.ranks_of(torus)
    per_rank = coll != "allreduce"
    # one timed run: the simulation is deterministic, and host time (which a warm-up would take out) is
    # not charged
    bench = ["--collectives", BENCH_NAME[coll], "--sizes", str(count_bytes), "--reps", "1", "--iters", "1",
             "--warmup", "0"]
    rendezvous = a.rendezvous_sends == "all" or (a.rendezvous_sends == "tandem" and alg != "ompi")
    cfg = [RENDEZVOUS] if rendezvous else []
    if alg == "ompi":
        got = common.simulate(torus, bench + ["--modes", "mpi-blocking"], selector="ompi", cfg=cfg)
    else:
        settings = [f"{ENV_NAME[coll]}={alg}"] + ([f"TANDEM_BUCKET_CHAINS={a.chains}"] if a.chains else [])
        got = common.simulate(torus, bench + ["--modes", "tandem"], settings=settings, cfg=cfg)
    rows = []
    for r in got:
        n = int(r["bytes"]) * (p if per_rank else 1)
        m = common.model(coll, torus, n)
        uni = common.model(coll, torus, n, unidirectional=True)
        rows.append({"torus": torus, "ranks": p, "collective": coll, "bytes": n, "algorithm": alg,
                     "tandem_algorithm": r["algorithm"], "simulated_s": r["median_s"],
                     "lower_bound_s": m["costs"]["lower bound"],
                     "bucket_formula_s": m["costs"]["torus bucket (bidirectional)"],
                     "bucket_uni_formula_s": uni["costs"]["torus bucket (unidirectional)"],
                     "ratio_to_bound": f'{float(r["median_s"]) / m["costs"]["lower bound"]:.3f}',
                     "wall_s": r["wall_s"], "peak_memory_mb": r["peak_memory_mb"],
                     "sends": "rendezvous" if rendezvous else "detached", "platform": PLATFORM_VERSION,
                     "chains": a.chains if a.chains and alg != "ompi" else ""})
    return rows


def overlapped_bound(coll, torus, n):
    """max(bandwidth bound, computation bound): the bound when reductions overlap communication."""
    summed = common.model(coll, torus, n)["costs"]["lower bound"]
    bandwidth = common.model(coll, torus, n, gamma=0)["costs"]["lower bound"]
    return max(bandwidth, summed - bandwidth)


def lockstep_floor(coll, torus, n):
    """The least time of one lock-step schedule of the bucket: the overlapped bound plus one alpha for
    each of its sequential steps (sum of d_i - 1 per reduce-scatter or allgather). Rounds advance in
    lock-step (a round starts when the last one's messages are all in), so every step pays a start-up
    with the links idle that no segmenting hides. Chains (independent lanes, TANDEM_BUCKET_CHAINS) go
    below it: one chain's start-up overlaps another's transfer."""
    steps = sum(int(d) - 1 for d in torus.split("x")) * (2 if coll == "allreduce" else 1)
    return overlapped_bound(coll, torus, n) + steps * common.PLATFORM["alpha"]


def ratio(row):
    """Simulated / lower bound, from the times (the CSV's ratio_to_bound is rounded)."""
    return float(row["simulated_s"]) / float(row["lower_bound_s"])


def ompi_charged_ratio(row):
    """An `ompi` row's ratio with its reductions charged; None for allgather (nothing to reduce).
    SMPI charges no time for the reductions inside its own collectives (the `ompi` allreduce of
    8 MiB on 4x4x4 takes 2.336 ms with gamma 0.15 and 1.5 ns/B alike; Tandem's ring goes from 2.60 to
    13.4 ms). Its ring allreduce (`lr`) reduces each received block before the next step, so charged it
    would take (p-1)/p n gamma more; Open MPI's ring reduce-scatter reduces a block while the next one
    arrives, so for it this is the most it would add."""
    if row["collective"] == "allgather":
        return None
    p, n = int(row["ranks"]), int(row["bytes"])
    return (float(row["simulated_s"]) + (p - 1) / p * n * common.PLATFORM["gamma"]) / float(row["lower_bound_s"])


def report(rows):
    algs = [a for a in LABEL if any(r["algorithm"] == a for r in rows)]
    keys = sorted({(r["torus"], r["collective"], int(r["bytes"])) for r in rows},
                  key=lambda k: (common.ranks_of(k[0]), k[0], k[1], k[2]))
    lines = []
    for torus, coll, n in keys:
        got = {r["algorithm"]: r for r in rows if (r["torus"], r["collective"], int(r["bytes"])) == (torus, coll, n)}
        any_row = next(iter(got.values()))
        overlapped = overlapped_bound(coll, torus, n)
        line = [torus, coll, f"{n // common.MiB} MiB", f'{float(any_row["lower_bound_s"]) * 1e3:.3f}',
                f"{overlapped * 1e3:.3f}", f'{float(any_row["bucket_formula_s"]) * 1e3:.3f}']
        for alg in algs:
            mark = "r" if alg in got and got[alg].get("sends") == "rendezvous" else ""
            mark += "o" if alg in got and got[alg].get("platform") != PLATFORM_VERSION else ""
            mark += f'c{got[alg]["chains"]}' if alg in got and got[alg].get("chains") else ""
            line.append(f'{ratio(got[alg]):.2f}{mark}' if alg in got else "")
        bucket = got.get("torus_bucket")
        line.append(f'{float(bucket["simulated_s"]) / overlapped:.2f}' if bucket else "")
        line.append(f'{lockstep_floor(coll, torus, n) / float(any_row["lower_bound_s"]):.2f}')
        charged = ompi_charged_ratio(got["ompi"]) if "ompi" in got else None
        line.append(f"{charged:.2f}" if charged is not None else "")
        lines.append(line)
    header = (["torus", "collective", "n", "bound ms", "overlapped bound ms", "bucket formula ms"] +
              [LABEL[a] + " / bound" for a in algs] + ["bucket bi / overlapped bound",
                                                        "lock-step floor / bound",
                                                        "SMPI ompi + its reductions / bound"])
    common.write_table("bucket_bound", "Simulated time / lower bound (SMPI, full-duplex torus, alpha 1 us, "
                       "beta 0.1 ns/B, gamma 0.15 ns/B; bound: bandwidth + computation, overlapped bound: "
                       "the larger of the two; lock-step floor: the overlapped bound + alpha per sequential bucket step, "
                       "the least one lock-step chain can take (several chains can go below it); "
                       "no cross traffic, runs started at a recursive-doubling barrier; "
                       "r: run with rendezvous sends, --rendezvous-sends; o: measured with SimGrid's cross "
                       "traffic and SMPI's default barrier, not rerun; cN: N chains forced, --chains)",
                       header, lines)


def plot(rows):
    plt = common.pyplot()
    if not plt:
        return
    panels = sorted({(r["torus"], r["collective"]) for r in rows}, key=lambda k: (common.ranks_of(k[0]), k))
    cols = min(3, len(panels))
    fig, axes = plt.subplots((len(panels) + cols - 1) // cols, cols, figsize=(5 * cols, 3.6 * ((len(panels) + cols - 1) // cols)),
                             squeeze=False)
    for ax, (torus, coll) in zip(axes.flat, panels):
        mine = [r for r in rows if r["torus"] == torus and r["collective"] == coll]
        for alg in LABEL:
            pts = sorted((int(r["bytes"]), ratio(r)) for r in mine if r["algorithm"] == alg)
            if pts:
                ax.plot([b / common.MiB for b, _ in pts], [v for _, v in pts], marker="o", label=LABEL[alg], color=COLOR[alg])
            fixed = sorted((int(r["bytes"]), ompi_charged_ratio(r)) for r in mine
                           if r["algorithm"] == alg == "ompi" and ompi_charged_ratio(r) is not None)
            if fixed:  # with the reductions SMPI does not charge
                ax.plot([b / common.MiB for b, _ in fixed], [v for _, v in fixed], marker="o", ls="--",
                        label=LABEL[alg] + " + its reductions", color=COLOR[alg])
        ax.axhline(1.0, color="black", lw=0.8)
        ax.axhline(1.1, color="gray", lw=0.8, ls="--")
        ax.set_xscale("log", base=2)
        ax.set_title(f"{coll}, {torus} ({common.ranks_of(torus)} ranks)")
        ax.set_xlabel("vector (MiB)")
        ax.set_ylabel("simulated / lower bound")
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    common.save_plot(fig, "bucket_bound")


def arguments(ap):
    ap.add_argument("--tori", default="4x4x4,8x8x4,8x8x8,16x8x4")
    ap.add_argument("--sizes", default="1,8,64", help="vector sizes in MiB")
    ap.add_argument("--chains", type=int, default=0,
                    help="TANDEM_BUCKET_CHAINS for Tandem's runs (default: Tandem's choice, two on these "
                         "tori from 8 MiB; at 4096 ranks they take 2.5-8.2 GB)")
    ap.add_argument("--collectives", default="allreduce,reduce_scatter,allgather")
    ap.add_argument("--algorithms", default="ring,rabenseifner,torus_bucket,torus_bucket_uni,torus_bucket_halfway,ompi")
    ap.add_argument("--rendezvous-sends",
                    nargs="?", const="tandem", choices=("tandem", "all"),
                    help="Tandem's runs (or all runs) without SMPI's detached sends (needed at thousands of ranks)")


def main():
    common.run_study("bucket_bound", __doc__, ("torus", "collective", "bytes", "algorithm"), arguments, measure,
                     report, plot)

if __name__ == "__main__":
    main()
