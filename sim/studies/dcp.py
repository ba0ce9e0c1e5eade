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

Job size (--ranks 8,64,512: tori 2x2x2, 4x4x4, 8x8x8) with K = ranks / R DCPs (--ratio R) shows the
application-side overhead per operation against the number of ranks, and --overhead O charges every
message O seconds of CPU time at its sender and its receiver (SimGrid's smpi/os, smpi/ois and
smpi/or; --receive-overhead R makes the receiver's R): the application's side of a call through its
DCP is then a send and a receive. This machine's 1-byte o_s and o_r, as tandem-model loggp measures
them (docs/simulation.md), are --overhead 1.7e-7 --receive-overhead 5.3e-7. tandem-bench's computation
sweep gives the overhead against the computation inserted between start and wait.

--topologies torus-dims is the torus with Tandem told what it is (TANDEM_TORUS_DIMS and TANDEM_LOGGP,
as sim/run tells it on its own platforms; the torus and fat-tree rows ran without, on Tandem's default
selection): a communicator of all the hosts' ranks in host order then runs the torus bucket
algorithms, the application's for inline progress and, at 1:1, the DCPs' own. --segment sets the
DCPs' segment (TANDEM_DCP_SEGMENT); at 1 MiB the bucket wants segments of 256 KiB, where 64 KiB ones
each take a bucket of their own (slower in simulated time, and unfinished after 15 minutes of host
time at 64 ranks).

Small messages go eagerly (smpi/async-small-thresh 64 KiB) unless --rendezvous: SMPI's
default starts a message only when its receive is posted, which a DCP probing for its clients'
messages one at a time would pay once per client; real MPIs deliver small messages before that.
--rendezvous keeps SMPI's default (the rows' topology ends in "+rendezvous"): at 1:1 each DCP's
schedule posts its receives as it starts, so it loses little there, and SimGrid simulates the
torus bucket's small eager sends among 1024 processes too slowly to finish. --latency-only times the
latency alone with tandem-bench's latency part (3 calls a run instead of the sweep's 27; the tables
show no overhead or overlap for those rows).

  sim/studies/dcp.py [--topologies torus,fat-tree,torus-dims] [--ranks 512] [--dcps 8,64|none | --ratio 8]
                     [--sizes 8,1M] [--overhead 0] [--receive-overhead R] [--segment BYTES] [--rendezvous]
                     [--latency-only] [--no-baseline] [--plot-only]

Writes sim/results/dcp.csv, .md and .png.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

APP_RANKS = 512  # the main table's job
TORI = {8: "2x2x2", 64: "4x4x4", 512: "8x8x8"}
FAT_TREES = {512: "2;16,32;1,16;1,1"}
EAGER = "smpi/async-small-thresh:65536"
# A cell of the table: a rerun replaces all its rows (its sweep's computation times are multiples of the
# latency measured, which differs from run to run)
CELL = ("topology", "ranks", "message_overhead_s", "receive_overhead_s", "bytes", "mode", "dcps", "part")


def cpu_of(row):
    """A row's CPU time per message, (at the sender, at the receiver): receive_overhead_s is left empty
    where the two are equal (and in rows from before it was a column)."""
    sent = float(row["message_overhead_s"])
    return sent, float(row.get("receive_overhead_s") or sent)


def cpu_label(cpu):
    return f"{cpu[0] * 1e6:.2f}" if cpu[0] == cpu[1] else f"{cpu[0] * 1e6:.2f} / {cpu[1] * 1e6:.2f}"


def platform_of(topology):
    """The simulated network of a row's topology: torus-dims and +rendezvous are ways to run on it."""
    return topology.replace("+rendezvous", "").replace("-dims", "")


def platform(topology, ranks, cpu, tmp):
    """The topology's platform for `ranks` application ranks, hosts of two cores (an application rank
    and maybe a DCP); cpu: the CPU time of a message at its sender and at its receiver."""
    topology = platform_of(topology)
    shapes = TORI if topology == "torus" else FAT_TREES
    if ranks not in shapes:
        raise SystemExit(f"--ranks {ranks}: the {topology} study knows {sorted(shapes)}")
    xml = os.path.join(tmp, f"{topology}{ranks}o{cpu[0]:g}-{cpu[1]:g}.xml")
    cmd = [os.path.join(common.TOP, "sim", "make-platform"), topology, shapes[ranks], "-o", xml,
           "--ranks-per-host", "2"]
    for key, value in dict(common.PLATFORM, overhead=cpu[0]).items():
        cmd += ["--" + key, str(value)]
    cmd += ["--send-overhead", str(cpu[0]), "--receive-overhead", str(cpu[1])]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return xml


def told(topology, ranks, cpu):
    """torus-dims: Tandem is told the torus (TANDEM_TORUS_DIMS: a communicator of all the hosts' ranks in
    host order, the application's or the DCPs' at 1:1, runs the torus bucket algorithms) and the
    platform's parameters (TANDEM_LOGGP), as sim/run tells it on its own platforms."""
    if not topology.startswith("torus-dims"):
        return []
    p = common.PLATFORM
    return [f"TANDEM_TORUS_DIMS={TORI[ranks]}",
            f"TANDEM_LOGGP={p['alpha'] + cpu[0] + cpu[1]:g},{p['beta']:g},{p['gamma']:g},{p['alpha']:g}"]


def hostfile(ranks, dcps, tmp):
    """Rank r on host r, and the DCP of each block of ranks / dcps hosts on the block's first host,
    right after its application rank (the mapping takes each node's highest rank as its DCP)."""
    block = ranks // dcps if dcps else ranks + 1
    path = os.path.join(tmp, f"r{ranks}dcps{dcps}.hosts")
    with open(path, "w") as f:
        for h in range(ranks):
            f.write(f"node-{h}\n")
            if dcps and h % block == 0:
                f.write(f"node-{h}\n")
    return path


def measure(a):
    sizes = [common.MiB if s.upper() == "1M" else int(s) for s in a.sizes.split(",")]
    rows = []
    a.failed = []
    with common.workdir() as tmp:
        for topology in a.topologies.split(","):
            topology += "+rendezvous" if a.rendezvous else ""
            for ranks in [int(n) for n in a.ranks.split(",")]:
                dcp_counts = ([ranks // a.ratio] if a.ratio else [] if a.dcps == "none" else
                              [int(k) for k in a.dcps.split(",")])
                if any(k < 1 or ranks % k for k in dcp_counts):
                    raise SystemExit(f"--dcps, --ratio: DCP counts must divide {ranks}")
                cpu = (a.overhead, a.overhead if a.receive_overhead is None else a.receive_overhead)
                xml = platform(topology, ranks, cpu, tmp)
                for n in sizes:
                    baseline = "mpi-blocking,tandem" if a.latency_only else "mpi-blocking,tandem-inline+test"
                    runs = [] if a.no_baseline else [(0, baseline, [])]
                    segment = [f"TANDEM_DCP_SEGMENT={a.segment}"] if a.segment else []
                    runs += [(k, "tandem" if a.latency_only else "tandem-dcp",
                              ["TANDEM_PROGRESS=dcp", f"TANDEM_DCP_COUNT={k}"] + segment) for k in dcp_counts]
                    for k, modes, settings in runs:
                        common.say(f"{topology}, {ranks} ranks, {n} bytes, {k} DCPs, CPU per message {cpu_label(cpu)} us")
                        part = [] if a.latency_only else ["--overlap", "--tests", "10"]
                        try:
                            got = common.simulate(None, part + ["--collectives", "allreduce", "--sizes", str(n),
                                                                "--reps", "1", "--iters", "2", "--modes", modes],
                                                  settings=told(topology, ranks, cpu) + settings,
                                                  selector="ompi", cfg=[] if a.rendezvous else [EAGER],
                                                  platform=(xml, hostfile(ranks, k, tmp), ranks + k))
                        except common.SimulationFailed as e:
                            a.failed.append(f"{topology} {ranks} ranks {n} B {k} DCPs: {e}")
                            continue
                        if a.latency_only:
                            got = [latency_row(r, k) for r in got]
                        for r in got:
                            r["topology"] = topology
                            r["dcps"] = k
                            r["message_overhead_s"] = cpu[0]  # sim/run knows only its own platforms'
                            r["receive_overhead_s"] = cpu[1] if cpu[1] != cpu[0] else ""
                            r["dcp_segment"] = a.segment if k else ""
                        rows += got
    return rows


def latency_row(r, dcps):
    """A row of tandem-bench's latency part as one of --overlap's at Tcomp 0, without what only the sweep
    measures (the overhead, the overlap): mode tandem is Tandem through the DCPs, or inline without."""
    mode = r["mode"] if r["mode"] != "tandem" else "tandem-dcp" if dcps else "tandem-inline"
    return {"collective": r["collective"], "bytes": r["bytes"], "ranks": r["ranks"], "mode": mode, "tcomp_s": 0,
            "pure_s": r["median_s"], "overhead_s": "", "overlap_pct": "", "part": "latency"}


def model_latency(nbytes, dcps, ranks=APP_RANKS, cpu=(0.0, 0.0)):
    """tandem-model dcp's latency of the allreduce through dcps DCPs added to `ranks` ranks, every message
    costing cpu's CPU time at its sender and its receiver (the model takes their mean at both)."""
    overhead = (cpu[0] + cpu[1]) / 2
    p = common.PLATFORM
    # as sim/run tells Tandem: alpha is a latency that messages started at once share (a DCP blocks for
    # its messages: it pays no polls)
    out = subprocess.run([common.tandem_model(), "dcp", "--ranks", str(ranks), "--bytes", str(nbytes), "--alpha",
                          str(p["alpha"]), "--beta", str(p["beta"]), "--gamma", str(p["gamma"]), "--latency",
                          str(p["alpha"]), "--overhead", str(overhead), "--json"],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    got = json.loads(out)
    for r in got["ratios"]:
        if r["added"]["dcps"] == dcps:
            return r["added"]["latency"]
    return None


def summary(rows, topology, nbytes, mode, dcps, ranks=APP_RANKS, cpu=(0.0, 0.0)):
    mine = [r for r in rows if r["topology"] == topology and int(r["bytes"]) == nbytes and r["mode"] == mode and
            int(r["dcps"]) == dcps and int(r["ranks"]) == ranks and cpu_of(r) == cpu]
    if not mine:
        return None
    swept = [r for r in mine if r.get("part") != "latency"]  # a sweep's rows if any, else --latency-only's
    mine = sorted(swept or mine, key=lambda r: float(r["tcomp_s"]))
    return {"latency": float(mine[0]["pure_s"]),
            "floor": min(float(r["overhead_s"]) for r in swept) if swept else None,
            "overlap": float(swept[-1]["overlap_pct"]) if swept else None,
            "tcomp": float(swept[-1]["tcomp_s"]) if swept else None,
            "sweep": [(float(r["tcomp_s"]), float(r["overhead_s"])) for r in swept]}


def shown(value, form, scale=1.0):
    """A summary's value for a table: '-' where the run did not measure it."""
    return "-" if value is None else format(value * scale, form)


def report(rows):
    lines = []
    for topology in sorted({r["topology"] for r in rows}):
        for n in sorted({int(r["bytes"]) for r in rows if r["topology"] == topology}):
            blocking = summary(rows, topology, n, "mpi-blocking", 0)
            cases = [("mpi-blocking", 0), ("tandem-inline+test", 0), ("tandem-inline", 0)]
            cases += [("tandem-dcp", k) for k in sorted({int(r["dcps"]) for r in rows if int(r["dcps"]) > 0})]
            for mode, k in cases:
                s = summary(rows, topology, n, mode, k)
                if not s:
                    continue
                model = model_latency(n, k) if k else None
                lines.append([topology, n, mode, k or "-", f"1:{APP_RANKS // k}" if k else "-",
                              f"{s['latency'] * 1e6:.1f}",
                              f"{s['latency'] / blocking['latency']:.2f}" if blocking else "-",
                              f"{model * 1e6:.1f}" if model else "-", shown(s["floor"], ".2f", 1e6),
                              shown(s["tcomp"], ".0f", 1e6), shown(s["overlap"], ".0f") + "%" * bool(s["sweep"])])
    common.write_table("dcp", f"Iallreduce among {APP_RANKS} application ranks through K dedicated collective "
                       "processes (SMPI; simulated us; DCPs added on top, one on the host of each block's first "
                       "rank; no CPU time per message)",
                       ["topology", "bytes", "mode", "DCPs", "ratio", "latency", "latency / blocking",
                        "model latency", "overhead floor", "largest Tcomp", "overlap there"], lines)
    lines = []
    for topology, n, cpu, ranks, k in sorted({(r["topology"], int(r["bytes"]), cpu_of(r), int(r["ranks"]),
                                               int(r["dcps"])) for r in rows if r["mode"] == "tandem-dcp"}):
        s = summary(rows, topology, n, "tandem-dcp", k, ranks, cpu)
        blocking = summary(rows, topology, n, "mpi-blocking", 0, ranks, cpu)
        model = model_latency(n, k, ranks, cpu)
        lines.append([topology, n, cpu_label(cpu), ranks, k, f"1:{ranks // k}", f"{s['latency'] * 1e6:.1f}",
                      f"{model * 1e6:.1f}" if model else "-",
                      f"{blocking['latency'] * 1e6:.1f}" if blocking else "-", shown(s["floor"], ".2f", 1e6),
                      " ".join(f"{o * 1e6:.2f}" for _, o in s["sweep"]) or "-",
                      shown(s["overlap"], ".0f") + "%" * bool(s["sweep"])])
    common.write_table("dcp_scaling", "Iallreduce through DCPs against the job's size and the CPU time each message "
                       "costs (SMPI; simulated us; the application's overhead per operation at each computation "
                       "of tandem-bench's sweep, smallest first)",
                       ["topology", "bytes", "CPU per message (send / receive)", "application ranks", "DCPs", "ratio", "latency",
                        "model latency", "blocking latency", "overhead floor", "overhead at each Tcomp", "overlap at the largest"],
                       lines)


def plot(rows):
    plt = common.pyplot()
    if not plt:
        return
    main = [r for r in rows if int(r["ranks"]) == APP_RANKS and cpu_of(r) == (0.0, 0.0)]
    topologies = sorted({r["topology"] for r in main})
    sizes = sorted({int(r["bytes"]) for r in main})
    scaling = sorted({(r["topology"], int(r["bytes"]), cpu_of(r)) for r in rows
                      if r["mode"] == "tandem-dcp" and int(r["ranks"]) != APP_RANKS})
    if not sizes:  # a cell of another size of job (a study cell's run): nothing of the main figure
        return
    fig, axes = plt.subplots(len(topologies) + bool(scaling), len(sizes),
                             figsize=(5 * len(sizes), 3.6 * (len(topologies) + bool(scaling))), squeeze=False)
    if scaling:  # the application's overhead per operation against the job's size
        ax = axes[-1][0]
        for topology, n, cpu in scaling:
            got = sorted({(int(r["ranks"]), int(r["dcps"])) for r in rows if r["mode"] == "tandem-dcp" and
                          r["topology"] == topology and int(r["bytes"]) == n and
                          cpu_of(r) == cpu})
            points = [(ranks, summary(rows, topology, n, "tandem-dcp", k, ranks, cpu)) for ranks, k in got]
            points = [(ranks, s) for ranks, s in points if s["floor"] is not None]
            ax.plot([ranks for ranks, _ in points], [s["floor"] * 1e6 for _, s in points], "o-",
                    label=f"{topology}, {n} B, {cpu_label(cpu)} us CPU per message")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("application ranks (DCPs 1:8)")
        ax.set_ylabel("application overhead, simulated us")
        ax.set_ylim(bottom=0)
        ax.set_title("overhead per operation against the job's size")
        ax.legend(fontsize=7)
        for extra in axes[-1][1:]:
            extra.axis("off")
        # the latency against K where each message costs CPU time: the optimum, with the model
        costly = sorted({(r["topology"], int(r["bytes"]), cpu_of(r)) for r in rows
                         if r["mode"] == "tandem-dcp" and int(r["ranks"]) == APP_RANKS and
                         cpu_of(r) != (0.0, 0.0)})
        if costly and len(axes[-1]) > 1:
            ax = axes[-1][1]
            ax.axis("on")
            for topology, n, cpu in costly:
                ks = sorted({int(r["dcps"]) for r in rows if r["mode"] == "tandem-dcp" and r["topology"] == topology and
                             int(r["bytes"]) == n and int(r["ranks"]) == APP_RANKS and
                             cpu_of(r) == cpu})
                got = [(k, summary(rows, topology, n, "tandem-dcp", k, APP_RANKS, cpu)) for k in ks]
                label = f"{topology}, {n} B, {cpu_label(cpu)} us CPU per message"
                ax.plot(ks, [s["latency"] * 1e6 for _, s in got], "o-", label=f"through K DCPs ({label})")
                modelled = [(k, model_latency(n, k, APP_RANKS, cpu)) for k in ks]
                modelled = [(k, m) for k, m in modelled if m]
                ax.plot([k for k, _ in modelled], [m * 1e6 for _, m in modelled], "s:", label="model")
                blocking = summary(rows, topology, n, "mpi-blocking", 0, APP_RANKS, cpu)
                if blocking:
                    ax.axhline(blocking["latency"] * 1e6, linestyle=":", color="k", label="mpi-blocking")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("DCPs (K)")
            ax.set_ylabel("simulated us")
            ax.set_title(f"latency against K, {APP_RANKS} ranks, CPU time per message")
            ax.legend(fontsize=7)
    for i, topology in enumerate(topologies):
        for j, n in enumerate(sizes):
            ax = axes[i][j]
            ks = sorted({int(r["dcps"]) for r in rows if int(r["dcps"]) > 0 and r["topology"] == topology and
                         int(r["bytes"]) == n})
            got = [(k, summary(rows, topology, n, "tandem-dcp", k)) for k in ks]
            got = [(k, s) for k, s in got if s]
            if got:
                ax.plot([k for k, _ in got], [s["latency"] * 1e6 for _, s in got], "o-", label="through K DCPs")
                swept = [(k, s) for k, s in got if s["floor"] is not None]
                if swept:
                    ax.plot([k for k, _ in swept], [s["floor"] * 1e6 for _, s in swept], "s--",
                            label="application overhead")
            for mode, style in (("mpi-blocking", "k:"), ("tandem-inline+test", "g-."), ("tandem-inline", "g-.")):
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
    ap.add_argument("--topologies", default="torus",
                    help="torus, fat-tree, torus-dims (the torus, Tandem told its dimensions and parameters)")
    ap.add_argument("--segment", type=int, default=0, help="TANDEM_DCP_SEGMENT of the DCP runs (default: Tandem's)")
    ap.add_argument("--ranks", default=str(APP_RANKS), help="application ranks: 8, 64, 512 (fat tree: 512)")
    ap.add_argument("--dcps", default="8,64", help="DCP counts (divisors of the ranks), or none (the baselines)")
    ap.add_argument("--ratio", type=int, default=0, help="instead of --dcps: ranks / R DCPs")
    ap.add_argument("--sizes", default="8", help="bytes: 8 and/or 1M")
    ap.add_argument("--overhead", type=float, default=0.0, help="CPU time per message at each end, s")
    ap.add_argument("--receive-overhead", type=float, help="the receiver's instead (--overhead: the sender's), s")
    ap.add_argument("--rendezvous", action="store_true",
                    help="every message starts at its receive (SMPI's default), not small ones eagerly")
    ap.add_argument("--latency-only", action="store_true",
                    help="the latency alone (tandem-bench's latency part: a few calls, not --overlap's sweep)")
    ap.add_argument("--no-baseline", action="store_true", help="leave out the runs without DCPs")


if __name__ == "__main__":
    common.run_study("dcp", __doc__, CELL, arguments, measure, report, plot)
