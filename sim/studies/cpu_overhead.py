#!/usr/bin/env python3
"""The CPU overhead share of Tandem's collectives at scale, simulated beside the model.

The case for non-blocking collectives claims that a collective keeps the CPU busy for a small share of
its time (under 10% for the MPIs it measured), shrinking with the ranks and the message size. Here, on
the studies' torus (k x k x k for 8 .. 4096 ranks; 1 us and 10 GB/s per link, reductions at 1.5e-10 s
per byte) with each message costing its sender o_s and its receiver o_r of CPU time (smpi/os, smpi/ois,
smpi/or: by default this machine's, as tandem-model loggp measured them for 1-byte messages), every
point runs `tandem-bench --cpu-overhead` in SMPI: Tandem's choice of algorithm, inline progress with
test calls (2 per rank, 64 to 256; alltoall and bcast to 1024) in a computation of 4 times the latency; the CPU overhead is the time
left in the calls (the overlap method: simulation has no CPU clock). Test calls and clock reads cost nothing here
(smpi/test 0, and smpi/wtime 0 as sim/run sets): the share counts the collective's own CPU time, not
the price of polling for it.

The model (`tandem-model overhead`) counts the CPU time of the algorithm the simulation ran from a LogGP
table that `tandem-model loggp` measured on a simulated pair of these hosts (sizes around SMPI's 64 KiB
switch, where o_r falls to nothing, measured), and replays every rank's rounds on it on the same torus
(a message k links away arrives (k - 1) L later; messages share the links of their routes as SimGrid
routes them, evenly while they cross one at once; a message starts once its receive is posted, as SMPI
starts them by default: --eager-limit 0).
Sizes are the whole vector; allgather and alltoall pass the bench a rank's block of vector / ranks
(8 bytes at least). Copies cost nothing in simulation, as in the model.

    sim/studies/cpu_overhead.py [--ranks 8,64,512] [--sizes 8,64K,1M] [--collectives allreduce,bcast]
    sim/studies/cpu_overhead.py --remodel       (the committed simulations, the model anew)
    sim/studies/cpu_overhead.py --plot-only
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

import common

NAME = "cpu_overhead"
COLLECTIVES = ("allreduce", "bcast", "allgather", "alltoall")
# this machine's 1-byte o_s and o_r (tandem-model loggp, Open MPI over shared memory; medians of 21)
O_S, O_R = 1.7e-7, 5.3e-7
BLOCKED = ("allgather", "alltoall")  # the bench's size is one rank's block
GOAL = 0.20  # the model's share within 20% of the simulated one


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def torus_of(ranks):
    k = round(ranks ** (1 / 3))
    if k ** 3 != ranks:
        raise SystemExit(f"--ranks {ranks}: the study's tori are cubes (8, 64, 512, 4096)")
    return f"{k}x{k}x{k}"


def ranks_of(dims):
    return common.ranks_of(dims)


def bench_bytes(collective, vector, ranks):
    return max(8, vector // ranks) if collective in BLOCKED else vector


def loggp_table(a, tmp):
    """tandem-model loggp --save on a simulated pair of the study's hosts: the model's table."""
    xml, hosts, table = (os.path.join(tmp, f) for f in ("pair.xml", "pair.hosts", "loggp.txt"))
    p = common.PLATFORM
    subprocess.run([sys.executable, os.path.join(common.TOP, "sim", "make-platform"), "torus", "2", "-o", xml,
                    "--hostfile", hosts, "--alpha", str(p["alpha"]), "--beta", str(p["beta"]), "--gamma",
                    str(p["gamma"]), "--send-overhead", str(a.send_overhead), "--receive-overhead",
                    str(a.receive_overhead), "--poll", "0"], check=True, stdout=subprocess.DEVNULL)
    model = os.path.join(common.TOP, "build-sim", "tools", "tandem-model")
    subprocess.run(["smpirun", "-np", "2", "-platform", xml, "-hostfile", hosts, "--log=root.thresh:warning",
                    "--cfg=smpi/async-small-thresh:65536", model, "loggp", "--reps", "3", "--sizes",
                    "1,64,1K,16K,32K,64K,128K,256K,1M,4M,64M", "--save", table], check=True, stdout=subprocess.DEVNULL)
    # SMPI charges MPI_Reduce_local nothing (gamma measured 0): Tandem charges the platform's gamma itself
    lines = [f"gamma {p['gamma']:g}\n" if line.startswith("gamma ") else line for line in open(table)]
    open(table, "w").writelines(lines)
    return table


def model_share(collective, algorithm, dims, nbytes, table):
    """The model of the algorithm the simulation ran ("allreduce_ring": ring) on the same torus."""
    name = algorithm[len(collective) + 1:] if algorithm.startswith(collective + "_") else algorithm
    out = subprocess.run([common.tandem_model(), "overhead", "--collective", collective, "--algorithm", name,
                          "--ranks", str(common.ranks_of(dims)), "--dims", dims, "--bytes", str(nbytes), "--loggp",
                          table, "--eager-limit", "0", "--json"],  # SMPI starts each message at its receive
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    m = json.loads(out)
    return m["algorithm"], m["cpu_most"], m["latency"]


def remodel(a, tmp):
    """The committed rows with the model's columns computed anew (the simulations kept)."""
    table = loggp_table(a, tmp)
    rows = common.read_csv(NAME)
    for r in rows:
        algorithm, cpu, latency = model_share(r["collective"], r["algorithm"], r["torus"], int(r["bytes"]), table)
        r.update({"model_algorithm": algorithm, "model_cpu_s": f"{cpu:.6g}", "model_latency_s": f"{latency:.6g}",
                  "model_share": f"{cpu / latency:.4f}"})
    return rows


def measure(a):
    rows = []
    a.failed = []
    sizes = [parse_size(s) for s in a.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        if a.remodel:
            return remodel(a, tmp)
        if not common.DRY_RUN:
            subprocess.run(["cmake", "--build", common.BUILD or os.path.join(common.TOP, "build-sim")], check=True,
                           stdout=subprocess.DEVNULL)
        table = None if common.DRY_RUN else loggp_table(a, tmp)  # for the model beside each row
        for ranks in (int(r) for r in a.ranks.split(",")):
            dims = torus_of(ranks)
            for collective in a.collectives.split(","):
                bench_sizes = sorted({bench_bytes(collective, v, ranks) for v in sizes})
                common.say(f"{collective} on {ranks} ranks, sizes {bench_sizes}")
                try:
                    sim = simulate(dims, collective, bench_sizes, a)
                except common.SimulationFailed as e:
                    a.failed.append(str(e))
                    continue
                for r in sim:
                    if r["mode"] != "tandem-inline+test":
                        continue
                    nbytes = int(r["bytes"])
                    algorithm, cpu, latency = model_share(collective, r["algorithm"], dims, nbytes, table)
                    share = float(r["share"])
                    rows.append({"collective": collective, "ranks": ranks, "torus": dims, "bytes": nbytes,
                                 "vector_bytes": nbytes * ranks if collective in BLOCKED else nbytes,
                                 "send_overhead_s": a.send_overhead, "receive_overhead_s": a.receive_overhead,
                                 "algorithm": r["algorithm"], "latency_s": r["latency_s"],
                                 "cpu_overhead_s": r["cpu_overhead_s"], "share": f"{share:.4f}",
                                 "model_algorithm": algorithm, "model_cpu_s": f"{cpu:.6g}",
                                 "model_latency_s": f"{latency:.6g}", "model_share": f"{cpu / latency:.4f}",
                                 "wall_s": r["wall_s"]})
    return rows


def tests_for(collective, ranks):
    """Test calls within the computation: a round waits for a test after its data arrives, and the
    pairwise alltoall has ranks - 1 rounds; with too few tests the overlap method counts the rounds that
    wait for one (10 tests: 88% of a 64-rank alltoall of 16 KiB blocks; 256: 11%, its messages' o). So
    has the ring allgather of a large bcast (256 tests: 55% of a 512-rank bcast of 1 MiB). The others
    have tens of rounds; each test costs the simulation wall time."""
    return min(1024 if collective in ("alltoall", "bcast") else 256, max(64, 2 * ranks))


def simulate(dims, collective, sizes, a):
    p = common.PLATFORM
    cmd = [sys.executable, os.path.join(common.TOP, "sim", "run"), "--torus", dims, "--csv", common.CSV_PLACEHOLDER, "--quiet",
           "--alpha", str(p["alpha"]), "--beta", str(p["beta"]), "--gamma", str(p["gamma"]), "--poll", "0",
           "--send-overhead", str(a.send_overhead), "--receive-overhead", str(a.receive_overhead), "--",
           "--cpu-overhead", "--collectives", collective, "--sizes", ",".join(str(s) for s in sizes),
           "--reps", "1", "--iters", "1", "--modes", "tandem-inline+test", "--tests", str(tests_for(collective, ranks_of(dims)))]
    if common.RAISE_MAP_COUNT:
        cmd.insert(2, "--raise-map-count")
    if common.BUILD:
        cmd[2:2] = ["--build", common.BUILD]
    if common.dry_run(cmd):
        return []
    fd, path = tempfile.mkstemp(suffix=".csv")
    os.close(fd)
    cmd = [path if c == common.CSV_PLACEHOLDER else c for c in cmd]
    try:
        run = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)  # sim/run's stderr straight through
        print("   ", run.stdout.strip().splitlines()[-1] if run.stdout.strip() else "(no output)", flush=True)
        if run.returncode != 0:
            sys.stderr.write(run.stdout)
            raise common.SimulationFailed(f"simulation failed (exit {run.returncode}): {' '.join(cmd)}")
        return list(csv.DictReader(open(path)))
    finally:
        os.unlink(path)


def fmt_size(n):
    n = int(n)
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div} {unit}"
    return f"{n} B"


def report(rows):
    lines, within = [], 0
    for r in sorted(rows, key=lambda r: (r["collective"], int(r["ranks"]), int(r["vector_bytes"]))):
        share, model = float(r["share"]), float(r["model_share"])
        error = model / share - 1 if share > 0 else float("inf")
        within += abs(error) <= GOAL
        lines.append([r["collective"], r["ranks"], fmt_size(r["vector_bytes"]), r["algorithm"],
                      f"{float(r['latency_s']) * 1e6:.1f}", f"{float(r['cpu_overhead_s']) * 1e6:.2f}",
                      f"{100 * share:.1f}%", f"{100 * model:.1f}%", f"{100 * error:+.0f}%"])
    common.write_table(
        NAME, f"CPU overhead share, simulated (tandem-inline+test, overlap method) beside the model; "
              f"o_s {rows[0]['send_overhead_s']} s, o_r {rows[0]['receive_overhead_s']} s per message; "
              f"{within} of {len(rows)} within {100 * GOAL:.0f}%",
        ["collective", "ranks", "vector", "algorithm", "latency us", "cpu us", "share", "model", "model error"],
        lines)


def plot(rows):
    plt = common.pyplot()
    if not plt:
        return
    collectives = [c for c in COLLECTIVES if any(r["collective"] == c for r in rows)]
    fig, axes = plt.subplots(1, len(collectives), figsize=(4.6 * len(collectives), 4), squeeze=False)
    for ax, collective in zip(axes[0], collectives):
        mine = [r for r in rows if r["collective"] == collective]
        for ranks in sorted({int(r["ranks"]) for r in mine}):
            pts = sorted((int(r["vector_bytes"]), float(r["share"]), float(r["model_share"]))
                         for r in mine if int(r["ranks"]) == ranks)
            line, = ax.plot([p[0] for p in pts], [100 * p[1] for p in pts], marker="o", label=f"{ranks} ranks")
            ax.plot([p[0] for p in pts], [100 * p[2] for p in pts], linestyle="--", color=line.get_color())
        ax.axhline(10, color="gray", linewidth=0.8, linestyle=":")
        ax.set_xscale("log", base=2)
        ax.set_ylim(0, 105)
        ax.set_xlabel("vector bytes")
        ax.set_ylabel("CPU overhead / latency (%)")
        ax.set_title(f"{collective} (dashed: model)")
        ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize=7)
    common.save_plot(fig, NAME)


def arguments(ap):
    ap.add_argument("--ranks", default="8,64,512", help="cubes: 8, 64, 512, 4096")
    ap.add_argument("--sizes", default="8,1K,64K,1M,16M", help="vector bytes, K/M suffixes")
    ap.add_argument("--collectives", default=",".join(COLLECTIVES))
    ap.add_argument("--send-overhead", type=float, default=O_S, help=f"o_s, s (default {O_S})")
    ap.add_argument("--receive-overhead", type=float, default=O_R, help=f"o_r, s (default {O_R})")
    ap.add_argument("--remodel", action="store_true", help="the committed simulations, the model computed anew")


if __name__ == "__main__":
    common.run_study(NAME, __doc__, ("collective", "ranks", "vector_bytes", "send_overhead_s", "receive_overhead_s"),
                     arguments, measure, report, plot)
