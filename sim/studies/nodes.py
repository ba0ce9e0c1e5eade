#!/usr/bin/python3
"""Study: node-aware collectives at scale, in simulation.

Hosts of 16 ranks on a fat tree or a torus of hosts: the node-aware allreduce and bcast (forced:
TANDEM_ALLREDUCE=node, TANDEM_BCAST=node; `auto` does not take them in simulation) beside flat Tandem
(its own choice) and SMPI's `ompi` and `mpich` selectors, 8 B and 1 MiB, one call timed from a
recursive-doubling barrier (sim/run). Ranks are numbered host by host (blocked), or dealt to the hosts
in turn (round-robin, as `mpirun --map-by node` does).

The node algorithms' steps inside a host run as messages over its loopback (4 times a link's
bandwidth; latency 0.25 us, about Open MPI's 8-byte osu_latency between this machine's two cores,
0.22-0.60 us; MPICH's 0.67-0.72; TANDEM_SHM=off): every algorithm pays the same for a message inside a
host. With --segment they go through the simulated segment instead (src/base/smpi_support.h): a cell's
hand-off costs shm_flag = the loopback's latency, and a byte into or out of a cell shm_beta = the
loopback's time per byte, CPU time of the rank that copies (SMPI charges its messages' bytes to the
network, not to the CPUs). Rows of such runs say "segment" (column intra).

--rendezvous-sends runs with no detached (eager) sends in SMPI (smpi/send-is-detached-thresh:0): SimGrid
3.32 walks every detached send in flight at each completion, so thousands of ranks exchanging small
messages at once (a ring or Rabenseifner among 256 hosts) take hours. It is a modelling change (see
sim/studies/bucket_bound.py); the CSV's `sends` column says which rows had it.

SMPI charges nothing for the reductions inside its own collectives, while Tandem's are charged at the
platform's gamma, so the allreduce rows also give SMPI's time with (p-1)/p n gamma put back, the least
reduction work a rank of any allreduce does (as sim/studies/bucket_bound.py does).

  sim/studies/nodes.py [--platforms fat-tree-8,fat-tree-16,torus-4x4] [--dealt blocked,round-robin]
                       [--sizes 8,1M] [--calls allreduce,bcast] [--runs node,flat] [--overhead O] [--rendezvous-sends]
                       [--segment]
                       [--plot-only]

Platforms: fat-tree-H (H hosts of 16 ranks: 8, 16, 64 or 256) and torus-DIMS (a torus of hosts of 16,
e.g. torus-4x4, torus-4x4x4). Writes sim/results/nodes.csv, .md and .png.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

RANKS_PER_HOST = 16
LOOPBACK_LATENCY = 2.5e-7
RENDEZVOUS = "smpi/send-is-detached-thresh:0"
# SimGrid's fat trees of H hosts: two levels, H = d1 * d2 hosts below
FAT_TREES = {8: "2;4,2;1,2;1,1", 16: "2;4,4;1,4;1,1", 64: "2;8,8;1,8;1,1", 256: "2;16,16;1,16;1,1"}
VARIANTS = ("node", "flat", "ompi", "mpich")
CALLS = ("allreduce", "bcast")


def parse_size(text):
    text = text.strip().upper()
    scale = {"K": 1 << 10, "M": 1 << 20}.get(text[-1:], 1)
    return int(text.rstrip("KM")) * scale


def platform_args(name):
    """make-platform's topology and shape for a platform name, and its hosts."""
    kind, _, shape = name.partition("-")
    if kind == "fat" and shape.startswith("tree-") and int(shape[5:]) in FAT_TREES:
        hosts = int(shape[5:])
        return "fat-tree", FAT_TREES[hosts], hosts
    if kind == "torus" and shape:
        return "torus", shape, common.ranks_of(shape)
    raise SystemExit(f"--platforms: '{name}' is not fat-tree-H (H in {sorted(FAT_TREES)}) or torus-DIMS")


def make_platform(tmp, name, dealt, overhead):
    topology, shape, hosts = platform_args(name)
    base = os.path.join(tmp, f"{name}-{dealt}")
    cmd = [sys.executable, os.path.join(common.TOP, "sim", "make-platform"), topology, shape,
           "--ranks-per-host", str(RANKS_PER_HOST), "--loopback-latency", str(LOOPBACK_LATENCY),
           "-o", base + ".xml", "--hostfile", base + ".hosts"]
    for key, value in dict(common.PLATFORM, overhead=overhead).items():
        cmd += ["--" + key, str(value)]
    if dealt == "round-robin":
        cmd.append("--round-robin")
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return base + ".xml", base + ".hosts", hosts * RANKS_PER_HOST


def measure(a):
    platforms, dealts = a.platforms.split(","), a.dealt.split(",")
    sizes = ",".join(str(parse_size(s)) for s in a.sizes.split(","))
    for name in platforms:
        platform_args(name)
    if any(d not in ("blocked", "round-robin") for d in dealts):
        raise SystemExit("--dealt: blocked and/or round-robin")
    calls, runs = a.calls.split(","), a.runs.split(",")
    if any(c not in CALLS for c in calls) or any(r not in ("node", "flat") for r in runs):
        raise SystemExit("--calls: allreduce and/or bcast; --runs: node and/or flat")
    bench = ["--collectives", ",".join(calls), "--sizes", sizes, "--reps", "1", "--iters", "1"]
    # the platform's LogGP parameters, as sim/run tells Tandem on the platforms it writes: a message's
    # start-up is the latency, shared by the messages a rank starts together, and the sender's and the
    # receiver's CPU time (--overhead), paid per message; and the simulated segment's (the loopback's
    # latency and time per byte)
    pf = common.PLATFORM
    rows, failed = [], []
    with common.workdir() as tmp:
        loggp_file = os.path.join(tmp, "loggp.txt")
        params = (f"alpha {pf['alpha'] + 2 * a.overhead:g}\nbeta {pf['beta']:g}\ngamma {pf['gamma']:g}\n"
                  f"latency {pf['alpha']:g}\nshm_flag {LOOPBACK_LATENCY:g}\nshm_beta {pf['beta'] / 4:g}\n")
        with open(loggp_file, "w") as f:
            f.write(params)
        loggp = f"TANDEM_LOGGP={loggp_file}"
        in_rows = "TANDEM_LOGGP=(" + ",".join(params.split()[1::2]) + ")"  # its values, not a temporary file"
        intra = "TANDEM_SHM=on" if a.segment else "TANDEM_SHM=off"
        for name in platforms:
            for dealt in dealts:
                platform = make_platform(tmp, name, dealt, a.overhead)
                # one run: Tandem's node algorithms beside SMPI's ompi; the other: flat Tandem beside mpich
                for variant, settings, selector in (("node", [loggp, intra, "TANDEM_ALLREDUCE=node",
                                                              "TANDEM_BCAST=node"], "ompi"),
                                                    ("flat", [loggp, intra], "mpich")):
                    if variant not in runs:
                        continue
                    common.say(f"{name} ({platform[2]} ranks, {dealt}): Tandem {variant}, SMPI {selector}")
                    try:
                        got = common.simulate(None, bench + ["--modes", "tandem,mpi-blocking"], settings=settings,
                                              selector=selector, platform=platform,
                                              cfg=[RENDEZVOUS] if a.rendezvous_sends else [])
                    except common.SimulationFailed as e:
                        print("    skipped:", e, flush=True)
                        failed.append(f"{name} {dealt} {variant}")
                        continue
                    for r in got:
                        r["platform_name"], r["dealt"] = name, dealt
                        r["variant"] = variant if r["mode"] == "tandem" else selector
                        r["loopback_latency_s"] = LOOPBACK_LATENCY
                        r["message_overhead_s"] = str(float(a.overhead))  # sim/run knows only its own platforms'
                        r["sends"] = "rendezvous" if a.rendezvous_sends else "eager"
                        r["intra"] = "segment" if a.segment else ""  # empty: messages (rows from before too)
                        r["settings"] = r["settings"].replace(loggp, in_rows)
                    rows += got
    a.failed = failed
    return rows


def overhead(row):
    """The CPU time a message cost its sender and its receiver in the row's run (0: the main table's)."""
    return float(row.get("message_overhead_s") or 0.0)


def us(seconds):
    return f"{seconds * 1e6:.1f}"


def report(rows):
    lines = []
    cells = dict.fromkeys((r["platform_name"], int(r["ranks"]), r["dealt"], overhead(r)) for r in rows)
    for name, p, dealt, o, segment in sorted(((*c, s) for c in cells for s in (False, True)),
                                             key=lambda c: (c[3], c[4], c[1], c[0], c[2])):
        mine = [r for r in rows if (r["platform_name"], int(r["ranks"]), r["dealt"], overhead(r)) == (name, p, dealt, o)]
        for call in CALLS:
            for n in sorted({int(r["bytes"]) for r in mine if r["collective"] == call}):
                here = [r for r in mine if r["collective"] == call and int(r["bytes"]) == n]
                # the others from the runs over messages where there are some (they use no cells)
                t = {r["variant"]: r for r in sorted(here, key=lambda r: r.get("intra") != "segment")}
                t.update({r["variant"]: r for r in here if r["variant"] == "node" and bool(r.get("intra")) == segment})
                if "node" not in t or bool(t["node"].get("intra")) != segment:
                    continue
                node = float(t["node"]["median_s"])
                # SMPI's reductions, put back (allreduce only): (p-1)/p n gamma
                charge = (p - 1) / p * n * float(t["node"]["gamma_s_per_byte"]) if call == "allreduce" else 0.0
                mark = "r" if t["node"].get("sends") == "rendezvous" else ""
                label = name + (" (r)" if mark else "") + (f", o {o * 1e6:g} us" if o else "") + (", segment" if segment else "")
                cols = [label, p, dealt, call, n, us(node)]
                others = []
                for v in ("flat", "ompi", "mpich"):
                    if v not in t:
                        cols.append("")
                        continue
                    time = float(t[v]["median_s"])
                    cols.append(us(time) + (f" ({t[v]['algorithm']})" if v == "flat" else ""))
                    others.append(time + (charge if v != "flat" else 0.0))
                cols.append(us(float(t["ompi"]["median_s"]) + charge) if charge and "ompi" in t else "")
                cols.append(us(float(t["mpich"]["median_s"]) + charge) if charge and "mpich" in t else "")
                cols.append(f"{node / min(others):.2f}" if others else "")
                lines.append(cols)
    common.write_table(
        "nodes", "Node-aware allreduce and bcast at scale (SMPI, hosts of 16 ranks, alpha 1 us, beta 0.1 ns/B, "
        "gamma 0.15 ns/B; simulated us of one call; a host's ranks talk over its loopback, latency 0.25 us, or with segment through the simulated segment (shm_flag 0.25 us, shm_beta 0.025 ns/B of CPU time); (r): "
        "rendezvous sends, --rendezvous-sends; o: a message's CPU time for its sender and its receiver each, --overhead, "
        "else none; SMPI's + reductions: "
        "(p-1)/p n gamma added to SMPI's allreduce, which charges its reductions nothing; node / best: the node "
        "form over the fastest other, SMPI's with its reductions)",
        ["platform", "ranks", "ranks dealt", "call", "bytes", "Tandem node", "Tandem flat (its algorithm)",
         "SMPI ompi", "SMPI mpich", "ompi + reductions", "mpich + reductions", "node / best"], lines)


def plot(rows):
    plt = common.pyplot()
    if not plt:
        return
    panels = [(call, n) for call in CALLS for n in sorted({int(r["bytes"]) for r in rows})]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.8), squeeze=False)
    fat = [r for r in rows if r["platform_name"].startswith("fat-tree") and r["dealt"] == "blocked" and not overhead(r)
           and not r.get("intra")]
    for ax, (call, n) in zip(axes[0], panels):
        for v in VARIANTS:
            pts = sorted((int(r["ranks"]), float(r["median_s"]) * 1e6) for r in fat
                         if r["collective"] == call and int(r["bytes"]) == n and r["variant"] == v)
            if pts:
                ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=v)
        ax.set_xscale("log", base=2)
        size = f"{n >> 20} MiB" if n >= 1 << 20 and n % (1 << 20) == 0 else f"{n} B"
        ax.set_title(f"{call} {size}, fat trees of 16-rank hosts")
        ax.set_xlabel("ranks")
        ax.set_ylabel("simulated us")
        ax.legend(fontsize=7)
    common.save_plot(fig, "nodes")


def arguments(ap):
    ap.add_argument("--platforms", default="fat-tree-8,fat-tree-16,torus-4x4",
                    help="fat-tree-H (H hosts: 8, 16, 64, 256) and torus-DIMS (a torus of hosts), comma-separated")
    ap.add_argument("--dealt", default="blocked", help="blocked and/or round-robin: how ranks are given to hosts")
    ap.add_argument("--sizes", default="8,1M", help="bytes per call, K/M suffixes")
    ap.add_argument("--rendezvous-sends", action="store_true",
                    help="no detached (eager) sends in SMPI: needed at 4096 ranks (see above)")
    ap.add_argument("--overhead", type=float, default=0.0,
                    help="CPU time a message costs its sender and its receiver each, s (smpi/os, smpi/ois, smpi/or; "
                         "default 0: messages cost only latency and bandwidth)")
    ap.add_argument("--segment", action="store_true",
                    help="the node algorithms' steps inside a host through the simulated segment (see above), "
                         "not as messages")
    ap.add_argument("--calls", default=",".join(CALLS), help="allreduce and/or bcast")
    ap.add_argument("--runs", default="node,flat",
                    help="node (Tandem's node forms beside SMPI's ompi) and/or flat (flat Tandem beside SMPI's "
                         "mpich): one simulated run each; a run's rows replace only its own cells in the CSV, so "
                         "the runs of thousands of ranks can be made one call and size at a time")


def main():
    common.run_study("nodes", __doc__, ("platform_name", "dealt", "message_overhead_s", "variant", "collective", "bytes", "intra"), arguments, measure, report, plot)


if __name__ == "__main__":
    main()
