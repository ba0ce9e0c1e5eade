#!/usr/bin/env python3
"""The simulation studies' own machinery, without a simulation (issue 51): a rerun of a cell replaces
all of its rows, its sweep included, and keeps the other cells; without matplotlib a study skips its
plot with one line and still writes its table; --dry-run prints one sim/run command per run, whose
platform files exist, and changes no committed result; the node study's runs and hostfiles.
  test_studies.py TOP"""
import contextlib
import hashlib
import io
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

TOP = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "sim", "studies"))
import apps  # noqa: E402
import common  # noqa: E402
import dcp  # noqa: E402

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def cell_row(topology, dcps, tcomp, overhead):
    return {"topology": topology, "ranks": 512, "message_overhead_s": 0.0, "receive_overhead_s": "", "bytes": 8,
            "mode": "tandem-dcp", "dcps": dcps, "part": "overlap", "tcomp_s": tcomp, "overhead_s": overhead}


def merge_replaces_cells():
    with tempfile.TemporaryDirectory() as tmp:
        common.RESULTS = tmp
        old = [cell_row("torus", 8, t, 1.0) for t in (1e-6, 2e-6, 4e-6)] + [cell_row("torus", 64, 1e-6, 2.0)]
        common.write_csv("dcp", old)
        # the rerun of the 8-DCP cell measured another latency: other computation times
        new = [cell_row("torus", 8, t, 3.0) for t in (1.1e-6, 2.2e-6)]
        with contextlib.redirect_stdout(io.StringIO()):
            merged = common.merge_csv("dcp", new, dcp.CELL)
        on_disk = common.read_csv("dcp")
        eight = [r for r in on_disk if r["dcps"] == "8"]
        check(sorted(float(r["tcomp_s"]) for r in eight) == [1.1e-6, 2.2e-6],
              f"the rerun cell holds its new sweep only: {[r['tcomp_s'] for r in eight]}")
        check(all(float(r["overhead_s"]) == 3.0 for r in eight), "the rerun cell's rows are the new ones")
        check([r["dcps"] for r in on_disk if r["dcps"] == "64"] == ["64"], "the other cell stays")
        check(len(merged) == len(on_disk) == 3, f"3 rows in all, not {len(on_disk)}")


def plot_skipped_without_matplotlib():
    saved = sys.modules.get("matplotlib")
    sys.modules["matplotlib"] = None  # import matplotlib now raises ImportError
    try:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            plt = common.pyplot()
        check(plt is None, "common.pyplot() without matplotlib returns None")
        lines = out.getvalue().splitlines()
        check(len(lines) == 1 and lines[0].startswith("plot skipped: matplotlib is not installed"),
              f"one line says the plot is skipped: {lines}")
    finally:
        if saved is None:
            del sys.modules["matplotlib"]
        else:
            sys.modules["matplotlib"] = saved


def dry_run_lists_commands():
    results = os.path.join(TOP, "sim", "results")
    before = {f: hashlib.sha1(open(os.path.join(results, f), "rb").read()).hexdigest() for f in os.listdir(results)}
    study = [sys.executable, os.path.join(TOP, "sim", "studies", "dcp.py"), "--dry-run", "--topologies", "torus",
             "--ranks", "8", "--dcps", "1,2", "--sizes", "8"]
    run = subprocess.run(study, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check(run.returncode == 0, f"dcp.py --dry-run exits 0, not {run.returncode}: {run.stdout}")
    commands = [shlex.split(line) for line in run.stdout.splitlines() if line and not line.startswith("#")]
    kept = run.stdout.splitlines()[0].rsplit(" ", 1)[-1] if run.stdout else ""  # "...; their files in DIR"
    check(len(commands) == 3, f"3 runs (the baseline, 1 and 2 DCPs), not {len(commands)}: {run.stdout}")
    for cmd in commands:
        check(cmd[1] == os.path.join(TOP, "sim", "run") and "--" in cmd, f"a sim/run command: {cmd}")
        for option in ("--platform", "--hostfile"):
            given = cmd[cmd.index(option) + 1] if option in cmd else ""
            check(os.path.exists(given), f"{option} {given} exists for the command to run as printed")
        check(cmd[cmd.index("--csv") + 1].endswith(".csv"), f"a CSV of its own: {cmd}")
    check(["TANDEM_DCP_COUNT=2" in cmd for cmd in commands].count(True) == 1, "the 2-DCP run sets its DCPs")
    if "tandem-dry-run-" in kept:
        shutil.rmtree(kept, ignore_errors=True)
    after = {f: hashlib.sha1(open(os.path.join(results, f), "rb").read()).hexdigest() for f in os.listdir(results)}
    check(before == after, "a dry run changes nothing in sim/results")


def nodes_dry_run():
    """nodes.py: a node run and a flat one per platform and dealing, their hostfiles dealt as asked."""
    study = [sys.executable, os.path.join(TOP, "sim", "studies", "nodes.py"), "--dry-run", "--platforms", "fat-tree-8",
             "--dealt", "blocked,round-robin"]
    run = subprocess.run(study, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check(run.returncode == 0, f"nodes.py --dry-run exits 0, not {run.returncode}: {run.stdout}")
    commands = [shlex.split(line) for line in run.stdout.splitlines() if line and not line.startswith("#")]
    check(len(commands) == 4, f"4 runs (node and flat, blocked and round-robin), not {len(commands)}: {run.stdout}")
    for cmd in commands:
        hosts = cmd[cmd.index("--hostfile") + 1] if "--hostfile" in cmd else ""
        lines = open(hosts).read().split() if os.path.exists(hosts) else []
        want = ["node-0", "node-1"] if "round-robin" in hosts else ["node-0", "node-0"]
        check(len(lines) == 128 and lines[:2] == want, f"{hosts}: 128 ranks, starting {want}")
        check(any(c.startswith("TANDEM_LOGGP=") for c in cmd), f"Tandem told the platform's LogGP: {cmd}")
    check(["TANDEM_ALLREDUCE=node" in cmd for cmd in commands].count(True) == 2, "two runs force the node forms")
    kept = run.stdout.splitlines()[0].rsplit(" ", 1)[-1] if run.stdout else ""
    if "tandem-dry-run-" in kept:
        shutil.rmtree(kept, ignore_errors=True)
    bad = subprocess.run(study[:-4] + ["--platforms", "fat-tree-9"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    check(bad.returncode != 0 and "'fat-tree-9' is not fat-tree-H" in bad.stdout,
          f"an unknown platform is refused by name: {bad.stdout}")


def measured_kernels_kept():
    """A run that measured the FFT's kernels keeps them beside the committed compression's."""
    with tempfile.TemporaryDirectory() as tmp:
        apps.KERNELS = os.path.join(tmp, "apps_kernels.txt")
        with open(apps.KERNELS, "w") as f:
            f.write("fft3d-x 1e-3\npcompress-block 2e-9\n")
        measured = os.path.join(tmp, "kernels.txt")
        with open(measured, "w") as f:
            f.write("fft3d-x 5e-4\nfft3d-plane 1e-4\n")
        with contextlib.redirect_stdout(io.StringIO()):
            apps.keep_kernels(measured)
        kept = dict(line.split() for line in open(apps.KERNELS))
        check(kept == {"fft3d-x": "5e-4", "fft3d-plane": "1e-4", "pcompress-block": "2e-9"},
              f"measured kernels replace theirs, the others stay: {kept}")


merge_replaces_cells()
plot_skipped_without_matplotlib()
measured_kernels_kept()
dry_run_lists_commands()
nodes_dry_run()
print(f"test_studies: {len(failures)} failed: {'FAIL' if failures else 'PASS'}")
sys.exit(1 if failures else 0)
