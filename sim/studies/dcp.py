#!/usr/bin/python3
"""Study: dedicated collective processes (DCPs) at scale, in simulation.

512 application ranks, one per host of an 8x8x8 torus (or of a 512-host fat tree), and K DCPs added
on top (the application keeps its 512 ranks; tandem-run --dcp-ratio's distribution): each DCP shares
the host of the first rank of the block it serves (hosts with two cores), so that its clients are
its neighbours in host order. Iallreduce of 8 B and 1 MiB through the DCPs (tandem-bench --overlap,
mode tandem-dcp: latency, application-side overhead, overlap) against K, beside the same platform
without DCPs: the blocking MPI_Allreduce of SMPI's `ompi` selector and Tandem's inline progress with
test calls. The DCP model (tandem-model dcp: the platform's alpha, beta and gamma, alpha shared by
messages started at once, a poll per client message at the DCP) beside it: it knows no hop counts.

Small messages go eagerly (smpi/async-small-thresh 64 KiB, in every run of this study): SMPI's
default starts a message only when its receive is posted, which a DCP probing for its clients'
messages one at a time would pay once per client; real MPIs deliver small messages before that.

  sim/studies/dcp.py [--topologies torus,fat-tree] [--dcps 8,64] [--sizes 8,1M] [--plot-only]

Writes sim/results/dcp.csv, .md and .png.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

APP_RANKS = 512
TOPOLOGIES = {"torus": ("torus", "8x8x8"), "fat-tree": ("fat-tree", "2;16,32;1,16;1,1")}
EAGER = "smpi/async-small-thresh:65536"
POLL = 1e-7  # sim/make-platform's default cost of an MPI_Test or MPI_Iprobe


def platform(topology, tmp):
    """The topology's platform, hosts of two cores (an application rank and maybe a DCP)."""
    kind, shape = TOPOLOGIES[topology]
    xml = os.path.join(tmp, topology + ".xml")
    cmd = [os.path.join(common.TOP, "sim", "make-platform"), kind, shape, "-o", xml, "--ranks-per-host", "2"]
    for key, value in common.PLATFORM.items():
        cmd += ["--" + key, str(value)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return xml


def hostfile(dcps, tmp):
    """Rank r on host r, and the DCP of each block of APP_RANKS / dcps hosts on the block's first host,
    right after its application rank (the mapping takes each node's highest rank as its DCP)."""
    block = APP_RANKS // dcps if dcps else APP_RANKS + 1
    path = os.path.join(tmp, f"dcps{dcps}.hosts")
    with open(path, "w") as f:
        for h in range(APP_RANKS):
            f.write(f"node-{h}\n")
            if dcps and h % block == 0:
                f.write(f"node-{h}\n")
    return path


def measure(a):
    sizes = [common.MiB if s.upper() == "1M" else int(s) for s in a.sizes.split(",")]
    dcp_counts = [int(k) for k in a.dcps.split(",")]
    if any(APP_RANKS % k for k in dcp_counts):
        raise SystemExit(f"--dcps: divisors of {APP_RANKS}")
    rows = []
    a.failed = []
    with tempfile.TemporaryDirectory() as tmp:
        for topology in a.topologies.split(","):
            xml = platform(topology, tmp)
            for n in sizes:
                runs = [(0, "mpi-blocking,tandem-inline+test", [])]
                runs += [(k, "tandem-dcp", ["TANDEM_PROGRESS=dcp", f"TANDEM_DCP_COUNT={k}"]) for k in dcp_counts]
                for k, modes, settings in runs:
                    print(f"{topology}, {n} bytes, {k} DCPs", flush=True)
                    try:
                        got = common.simulate(None, ["--overlap", "--collectives", "allreduce", "--sizes", str(n),
                                                     "--reps", "1", "--iters", "2", "--tests", "10", "--modes", modes],
                                              settings=settings, selector="ompi", cfg=[EAGER],
                                              platform=(xml, hostfile(k, tmp), APP_RANKS + k))
                    except common.SimulationFailed as e:
                        a.failed.append(f"{topology} {n} B {k} DCPs: {e}")
                        continue
                    for r in got:
                        r["topology"] = topology
                        r["dcps"] = k
                    rows += got
    return rows


def model_latency(nbytes, dcps):
    """tandem-model dcp's latency of the allreduce through dcps DCPs added to APP_RANKS ranks."""
    p = common.PLATFORM
    # as sim/run tells Tandem: alpha is a latency that messages started at once share; a DCP's cost per
    # client message is its poll
    out = subprocess.run([common.tandem_model(), "dcp", "--ranks", str(APP_RANKS), "--bytes", str(nbytes), "--alpha",
                          str(p["alpha"]), "--beta", str(p["beta"]), "--gamma", str(p["gamma"]), "--latency",
                          str(p["alpha"]), "--overhead", str(POLL), "--json"],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    got = json.loads(out)
    for r in got["ratios"]:
        if r["added"]["dcps"] == dcps:
            return r["added"]["latency"]
    return None


def summary(rows, topology, nbytes, mode, dcps):
    mine = [r for r in rows if r["topology"] == topology and int(r["bytes"]) == nbytes and r["mode"] == mode and
            int(r["dcps"]) == dcps]
    if not mine:
        return None
    mine.sort(key=lambda r: float(r["tcomp_s"]))
    return {"latency": float(mine[0]["pure_s"]), "floor": min(float(r["overhead_s"]) for r in mine),
            "overlap": float(mine[-1]["overlap_pct"]), "tcomp": float(mine[-1]["tcomp_s"])}


def report(rows):
    lines = []
    for topology in sorted({r["topology"] for r in rows}):
        for n in sorted({int(r["bytes"]) for r in rows if r["topology"] == topology}):
            blocking = summary(rows, topology, n, "mpi-blocking", 0)
            cases = [("mpi-blocking", 0), ("tandem-inline+test", 0)]
            cases += [("tandem-dcp", k) for k in sorted({int(r["dcps"]) for r in rows if int(r["dcps"]) > 0})]
            for mode, k in cases:
                s = summary(rows, topology, n, mode, k)
                if not s:
                    continue
                model = model_latency(n, k) if k else None
                lines.append([topology, n, mode, k or "-", f"1:{APP_RANKS // k}" if k else "-",
                              f"{s['latency'] * 1e6:.1f}",
                              f"{s['latency'] / blocking['latency']:.2f}" if blocking else "-",
                              f"{model * 1e6:.1f}" if model else "-", f"{s['floor'] * 1e6:.2f}",
                              f"{s['tcomp'] * 1e6:.0f}", f"{s['overlap']:.0f}%"])
    common.write_table("dcp", f"Iallreduce among {APP_RANKS} application ranks through K dedicated collective "
                       "processes (SMPI; simulated us; DCPs added on top, one on the host of each block's first "
                       "rank)",
                       ["topology", "bytes", "mode", "DCPs", "ratio", "latency", "latency / blocking",
                        "model latency", "overhead floor", "largest Tcomp", "overlap there"], lines)


def plot(rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    topologies = sorted({r["topology"] for r in rows})
    sizes = sorted({int(r["bytes"]) for r in rows})
    fig, axes = plt.subplots(len(topologies), len(sizes), figsize=(5 * len(sizes), 3.6 * len(topologies)),
                             squeeze=False)
    for i, topology in enumerate(topologies):
        for j, n in enumerate(sizes):
            ax = axes[i][j]
            ks = sorted({int(r["dcps"]) for r in rows if int(r["dcps"]) > 0 and r["topology"] == topology and
                         int(r["bytes"]) == n})
            got = [(k, summary(rows, topology, n, "tandem-dcp", k)) for k in ks]
            got = [(k, s) for k, s in got if s]
            if got:
                ax.plot([k for k, _ in got], [s["latency"] * 1e6 for _, s in got], "o-", label="through K DCPs")
                ax.plot([k for k, _ in got], [s["floor"] * 1e6 for _, s in got], "s--", label="application overhead")
            for mode, style in (("mpi-blocking", "k:"), ("tandem-inline+test", "g-.")):
                s = summary(rows, topology, n, mode, 0)
                if s:
                    ax.axhline(s["latency"] * 1e6, linestyle=style[1:], color=style[0], label=mode)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("DCPs (K)")
            ax.set_ylabel("simulated us")
            ax.set_title(f"{topology}, {n} B, {APP_RANKS} ranks")
            ax.legend(fontsize=7)
    common.save_plot(fig, "dcp")


def arguments(ap):
    ap.add_argument("--topologies", default="torus", help="torus and/or fat-tree")
    ap.add_argument("--dcps", default="8,64", help=f"DCP counts (divisors of {APP_RANKS})")
    ap.add_argument("--sizes", default="8", help="bytes: 8 and/or 1M")


if __name__ == "__main__":
    common.run_study("dcp", __doc__, ("topology", "bytes", "mode", "dcps", "tcomp_s"), arguments, measure, report,
                     plot)
