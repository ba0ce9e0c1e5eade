"""What the studies share: simulated runs through sim/run, the model through tandem-model, tables."""
import argparse
import contextlib
import csv
import functools
import json
import os
import shlex
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(TOP, "sim", "results")
# The platform of every study (sim/make-platform's defaults): 1 us per link, 10 GB/s links,
# reductions at 1.5e-10 s per byte (Tandem's built-in gamma), no per-message overhead.
PLATFORM = {"alpha": 1e-6, "beta": 1e-10, "gamma": 1.5e-10, "overhead": 0.0}
MiB = 1 << 20


def ranks_of(dims):
    p = 1
    for d in dims.split("x"):
        p *= int(d)
    return p


# --raise-map-count, passed on to sim/run; --dry-run: simulate() prints its command instead, its files
# (platforms, CSVs) in DRY_DIR, which stays (add_run_options)
RAISE_MAP_COUNT = False
BUILD = None  # --build: sim/run's simulation build (default build-sim/)
DRY_RUN = False
DRY_DIR = None
dry_runs = 0


def add_run_options(ap):
    """The options every study takes for its simulated runs."""
    ap.add_argument("--raise-map-count", action="store_true",
                    help="as root, let sim/run raise vm.max_map_count (system-wide) for each run that needs "
                         "more maps and restore it after (see docs/simulation.md)")
    ap.add_argument("--build", help="the TANDEM_SMPI build the runs use (sim/run's --build; default build-sim/)")
    ap.add_argument("--results", help="write the CSV, table and plot in this directory instead of sim/results "
                                      "(its CSV merged as the committed one would be)")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the sim/run command of each run, one per line, runnable as printed (their "
                         "platform files are kept), and run nothing")


def use_run_options(a):
    global RAISE_MAP_COUNT, BUILD, DRY_RUN, DRY_DIR, RESULTS
    RAISE_MAP_COUNT = a.raise_map_count
    BUILD = os.path.abspath(a.build) if a.build else None
    RESULTS = os.path.abspath(a.results) if a.results else RESULTS
    DRY_RUN = a.dry_run
    if DRY_RUN:
        DRY_DIR = tempfile.mkdtemp(prefix="tandem-dry-run-")
        print(f"# the runs of this study, run by nothing (--dry-run); their files in {DRY_DIR}", flush=True)


@contextlib.contextmanager
def workdir():
    """A directory for a study's platform files: temporary, or under --dry-run kept (the printed commands
    name its files)."""
    if DRY_RUN:
        yield DRY_DIR
    else:
        with tempfile.TemporaryDirectory() as tmp:
            yield tmp


def dry_run(cmd):
    """Under --dry-run: prints cmd (a sim/run command whose --csv is the placeholder CSV) with a CSV of its
    own in DRY_DIR, and returns True."""
    global dry_runs
    if not DRY_RUN:
        return False
    dry_runs += 1
    cmd = [os.path.join(DRY_DIR, f"run-{dry_runs}.csv") if c == CSV_PLACEHOLDER else c for c in cmd]
    print(shlex.join(cmd), flush=True)
    return True


CSV_PLACEHOLDER = "{csv}"


def say(text):
    """A study's progress line: under --dry-run a shell comment among the commands."""
    print(("# " if DRY_RUN else "") + text, flush=True)


class SimulationFailed(RuntimeError):
    """A simulated run ended in error (SimGrid's message was printed); a study may go on without it."""


def simulate(torus, bench_args, settings=(), selector=None, cfg=(), platform=None, app=None, compute_data=False,
             fat_tree=None):
    """tandem-bench (or app: tandem-fft3d, ...) on the torus (sim/run; cfg: SimGrid configuration items),
    on the fat tree (SimGrid's notation, '1;64;1;1': one switch), or on platform: (platform file,
    hostfile, ranks) written beforehand; its CSV rows. Raises SimulationFailed if the run fails."""
    cmd = [sys.executable, os.path.join(TOP, "sim", "run"), "--csv", CSV_PLACEHOLDER, "--quiet"]
    if app:
        cmd += ["--app", app]
    if compute_data:
        cmd.append("--compute-data")
    if RAISE_MAP_COUNT:
        cmd.append("--raise-map-count")
    if BUILD:
        cmd += ["--build", BUILD]
    if platform:
        cmd += ["--platform", platform[0], "--hostfile", platform[1], "--ranks", str(platform[2])]
    else:
        cmd += ["--fat-tree", fat_tree] if fat_tree else ["--torus", torus]
        for key, value in PLATFORM.items():
            cmd += ["--" + key, str(value)]
    for s in settings:
        cmd += ["--set", s]
    if selector:
        cmd += ["--selector", selector]
    for item in cfg:
        cmd += ["--cfg", item]
    cmd += ["--"] + list(bench_args)
    if dry_run(cmd):
        return []
    fd, path = tempfile.mkstemp(suffix=".csv")
    os.close(fd)
    cmd = [path if c == CSV_PLACEHOLDER else c for c in cmd]
    try:
        # sim/run's stderr (what it changes on the system, why it stops) goes straight through
        run = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        print("   ", run.stdout.strip().splitlines()[-1] if run.stdout.strip() else "(no output)", flush=True)
        if run.returncode != 0:
            sys.stderr.write(run.stdout)
            raise SimulationFailed(f"simulation failed (exit {run.returncode}): {' '.join(cmd)}")
        return list(csv.DictReader(open(path)))
    finally:
        os.unlink(path)


def tandem_model():
    """A native build's tandem-model (the model needs no MPI run)."""
    for build in ("build-openmpi", "build-mpich", "build"):
        path = os.path.join(TOP, build, "tools", "tandem-model")
        if os.path.exists(path):
            return path
    raise SystemExit("the studies need tandem-model from a native build: run scripts/test openmpi (or "
                     "cmake -S . -B build-openmpi && cmake --build build-openmpi) first")


@functools.lru_cache(maxsize=None)
def model(collective, dims, nbytes, unidirectional=False, gamma=None, shared_latency=False):
    """tandem-model bounds --json: lower bound, closed forms and schedule costs (gamma: instead of the
    platform's; shared_latency: the platform's alpha is a latency that messages started at once share, as
    sim/run tells Tandem, else every message pays all of it, as the papers' closed forms do). Cached
    (costing every rank's schedule takes seconds at 4096 ranks): the dict returned is shared, read it
    only."""
    cmd = [tandem_model(), "bounds", "--collective", collective, "--dims", dims, "--bytes", str(nbytes),
           "--alpha", str(PLATFORM["alpha"] + 2 * PLATFORM["overhead"]), "--beta", str(PLATFORM["beta"]),
           "--gamma", str(PLATFORM["gamma"] if gamma is None else gamma), "--json"]
    if shared_latency:
        cmd += ["--latency", str(PLATFORM["alpha"])]
    if unidirectional:
        cmd.append("--unidirectional")
    return json.loads(subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout)


def write_csv(name, rows):
    os.makedirs(RESULTS, exist_ok=True)
    path = os.path.join(RESULTS, name + ".csv")
    with open(path, "w", newline="") as f:
        fields = list(dict.fromkeys(k for r in rows for k in r))  # a column added later: empty in older rows
        out = csv.DictWriter(f, fieldnames=fields, restval="")
        out.writeheader()
        out.writerows(rows)
    return path


def merge_csv(name, rows, key):
    """Writes rows over the committed CSV: key names a cell (the columns a rerun of it keeps), and the
    rows measured now replace every row of the cells they belong to, a cell's sweep included; the other
    cells stay (so a study can be run one scale at a time). Returns all rows."""
    path = os.path.join(RESULTS, name + ".csv")
    fresh = {tuple(str(r.get(k, "")) for k in key) for r in rows}  # a key column added later: empty before
    kept = [r for r in (read_csv(name) if os.path.exists(path) else [])
            if tuple(str(r.get(k, "")) for k in key) not in fresh]
    merged = kept + rows
    write_csv(name, merged)
    print("CSV:", path)
    return merged


def read_csv(name):
    return list(csv.DictReader(open(os.path.join(RESULTS, name + ".csv"))))


def write_table(name, title, header, lines):
    """A Markdown table beside the CSV (the note and README quote it)."""
    path = os.path.join(RESULTS, name + ".md")
    with open(path, "w") as f:
        f.write(f"{title}\n\n| " + " | ".join(header) + " |\n|" + "---|" * len(header) + "\n")
        for line in lines:
            f.write("| " + " | ".join(str(c) for c in line) + " |\n")
    print(open(path).read())
    return path


def pyplot():
    """matplotlib's pyplot (drawing to files), or None after one line saying the plot is skipped: the
    studies need only Python to measure and write their tables."""
    try:
        import matplotlib
    except ImportError:
        print("plot skipped: matplotlib is not installed (apt-get install python3-matplotlib); the CSV and "
              "the table are written", flush=True)
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save_plot(fig, name):
    """Writes the study's PNG beside its CSV."""
    fig.tight_layout()
    path = os.path.join(RESULTS, name + ".png")
    fig.savefig(path, dpi=110)
    print("plot:", path)


def run_study(name, doc, key, arguments, measure, report, plot):
    """A study's command line: its own arguments (arguments(parser)), then either measure (rows merged
    into the committed CSV by key) or --plot-only (the committed CSV); then its table and plot."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    arguments(ap)
    add_run_options(ap)
    ap.add_argument("--plot-only", action="store_true", help="table and plot from the committed CSV")
    a = ap.parse_args()
    use_run_options(a)
    if a.dry_run:
        measure(a)
        return
    try:
        rows = read_csv(name) if a.plot_only else merge_csv(name, measure(a), key)
    except SimulationFailed as e:
        raise SystemExit(str(e))
    report(rows)
    plot(rows)
    if getattr(a, "failed", None):  # measured rows were kept; say which runs are missing
        raise SystemExit(f"{len(a.failed)} simulated runs failed: " + "; ".join(a.failed))
