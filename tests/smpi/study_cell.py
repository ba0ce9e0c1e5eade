#!/usr/bin/env python3
"""A study cell for real, at 8 ranks (issue 51): sim/studies/dcp.py measures the cell (8 application
ranks, 1 DCP, 8 B) into a results directory of its own, exit 0, its rows there and nothing changed in
sim/results; then its --dry-run lists the cell's commands, and the DCP run's command, run as printed,
gives the study's rows to the last digit. The study needs tandem-model from a native build (skipped,
77, without one).
  study_cell.py TOP SMPI_BUILD"""
import csv
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

TOP, BUILD = sys.argv[1], sys.argv[2]
STUDY = [sys.executable, os.path.join(TOP, "sim", "studies", "dcp.py"), "--topologies", "torus", "--ranks", "8",
         "--dcps", "1", "--sizes", "8", "--build", BUILD]
FIELDS = ("tcomp_s", "pure_s", "overhead_s", "overlap_pct")
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


if not any(os.path.exists(os.path.join(TOP, b, "tools", "tandem-model")) for b in ("build-openmpi", "build-mpich", "build")):
    print("study_cell: no native build's tandem-model: skipped")
    sys.exit(77)
results_dir = os.path.join(TOP, "sim", "results")
before = {f: hashlib.sha1(open(os.path.join(results_dir, f), "rb").read()).hexdigest() for f in os.listdir(results_dir)}
with tempfile.TemporaryDirectory() as results:
    run = subprocess.run(STUDY + ["--results", results], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check(run.returncode == 0, f"the study exits 0, not {run.returncode}:\n{run.stdout}")
    rows = list(csv.DictReader(open(os.path.join(results, "dcp.csv")))) if run.returncode == 0 else []
    dcp = sorted([r for r in rows if r["mode"] == "tandem-dcp"], key=lambda r: float(r["tcomp_s"]))
    check(len(dcp) > 1 and all(float(r["pure_s"]) > 0 for r in dcp), f"the DCP cell's sweep rows: {len(dcp)}")
    check({r["mode"] for r in rows} == {"mpi-blocking", "tandem-inline+test", "tandem-dcp"},
          f"the cell and its baselines: {sorted({r['mode'] for r in rows})}")
    listed = subprocess.run(STUDY + ["--results", results, "--dry-run"], stdout=subprocess.PIPE, text=True)
    commands = [shlex.split(line) for line in listed.stdout.splitlines() if line and not line.startswith("#")]
    kept = listed.stdout.splitlines()[0].rsplit(" ", 1)[-1] if listed.stdout else ""  # "...; their files in DIR"
    check(len(commands) == 2, f"2 runs listed (the baseline, the DCPs), not {len(commands)}")
    by_hand = [c for c in commands if "TANDEM_PROGRESS=dcp" in c]
    if by_hand:
        cmd = by_hand[0]
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        check(out.returncode == 0, f"the printed command runs: {shlex.join(cmd)}\n{out.stdout}")
        again = sorted(csv.DictReader(open(cmd[cmd.index("--csv") + 1])), key=lambda r: float(r["tcomp_s"])) \
            if out.returncode == 0 else []
        check([[r[f] for f in FIELDS] for r in again] == [[r[f] for f in FIELDS] for r in dcp],
              "the printed command gives the study's rows")
    if "tandem-dry-run-" in kept:
        shutil.rmtree(kept, ignore_errors=True)
after = {f: hashlib.sha1(open(os.path.join(results_dir, f), "rb").read()).hexdigest() for f in os.listdir(results_dir)}
check(before == after, "sim/results unchanged")
print(f"study_cell: {len(failures)} failed: {'FAIL' if failures else 'PASS'}")
sys.exit(1 if failures else 0)
