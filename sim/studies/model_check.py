#!/usr/bin/python3
"""Study: the model against the simulation.

For every schedule simulated by the bucket_bound study (sim/results/bucket_bound.csv) and for short
allreduces simulated here (recursive doubling, 8 B to 64 KiB): the LogGP cost tandem-model predicts
for the schedule (every rank's schedule as Tandem builds it, costed round by round) and its closed
form, beside the simulated time, with the ratios. The model is told what sim/run tells Tandem: the
platform's alpha is a latency that the messages a round starts at once share. Rows where schedule cost
and simulation differ by more than 15% are marked; the reasons are in the README section "Running at scale in simulation".

  sim/studies/model_check.py [--short-torus 4x4x4] [--plot-only]

Writes sim/results/model_check.csv, .md and .png.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

MODEL_KEY = {"ring": "ring", "rabenseifner": "rabenseifner", "recursive_doubling": "recursive doubling",
             "torus_bucket": "torus bucket (bidirectional)", "torus_bucket_uni": "torus bucket (unidirectional)"}


def predicted(coll, torus, n, alg):
    m = common.model(coll, torus, n, unidirectional=alg == "torus_bucket_uni", shared_latency=True)
    key = MODEL_KEY[alg]
    return m["schedule_costs"].get(key), m["costs"].get(key)


def measure(a):
    rows = []
    sims = [r for r in common.read_csv("bucket_bound") if r["algorithm"] in MODEL_KEY]
    common.say(f"short allreduces on {a.short_torus}")
    short = common.simulate(a.short_torus, ["--collectives", "allreduce", "--sizes", "8,512,4096,65536", "--reps", "1",
                                            "--iters", "4", "--modes", "tandem"],
                            settings=["TANDEM_ALLREDUCE=recursive_doubling"])
    if common.DRY_RUN:  # its one run printed; the rest is the model against committed rows
        return []
    for r in short:
        sims.append({"torus": a.short_torus, "ranks": r["ranks"], "collective": "allreduce", "bytes": r["bytes"],
                     "algorithm": "recursive_doubling", "simulated_s": r["median_s"]})
    for r in sims:
        schedule, closed = predicted(r["collective"], r["torus"], int(r["bytes"]), r["algorithm"])
        if schedule is None:
            continue
        sim = float(r["simulated_s"])
        rows.append({"torus": r["torus"], "ranks": r["ranks"], "collective": r["collective"], "bytes": r["bytes"],
                     "algorithm": r["algorithm"], "simulated_s": sim, "schedule_cost_s": schedule,
                     "closed_form_s": closed, "simulated_over_schedule": f"{sim / schedule:.3f}",
                     "simulated_over_closed_form": f"{sim / closed:.3f}",
                     "off_by_more_than_15pct": int(abs(sim / schedule - 1) > 0.15)})
    return rows


def report(rows):
    lines = [[r["torus"], r["collective"], r["algorithm"], r["bytes"], f'{float(r["simulated_s"]) * 1e6:.1f}',
              f'{float(r["schedule_cost_s"]) * 1e6:.1f}', r["simulated_over_schedule"],
              r["simulated_over_closed_form"], "**yes**" if int(r["off_by_more_than_15pct"]) else ""] for r in rows]
    common.write_table("model_check", "Simulated time against tandem-model's LogGP cost of the same schedule "
                       "(times in us)", ["torus", "collective", "algorithm", "bytes", "simulated", "schedule cost",
                                         "simulated / schedule", "simulated / closed form", "off > 15%"], lines)


def plot(rows):
    plt = common.pyplot()
    if not plt:
        return
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for alg in MODEL_KEY:
        pts = [(float(r["schedule_cost_s"]), float(r["simulated_s"])) for r in rows if r["algorithm"] == alg]
        if pts:
            ax.scatter([x for x, _ in pts], [y for _, y in pts], label=alg, s=18)
    lo = min(min(float(r["schedule_cost_s"]), float(r["simulated_s"])) for r in rows)
    hi = max(max(float(r["schedule_cost_s"]), float(r["simulated_s"])) for r in rows)
    for f, style in ((1, "-"), (1.15, "--"), (1 / 1.15, "--")):
        ax.plot([lo, hi], [lo * f, hi * f], color="gray", lw=0.8, ls=style)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("tandem-model: LogGP cost of the schedule (s)")
    ax.set_ylabel("SMPI: simulated time (s)")
    ax.set_title("model vs simulation (dashed: +-15%)")
    ax.legend(fontsize=7)
    common.save_plot(fig, "model_check")


def arguments(ap):
    ap.add_argument("--short-torus", default="4x4x4")


def main():
    common.run_study("model_check", __doc__, ("torus", "collective", "bytes", "algorithm"), arguments, measure,
                     report, plot)

if __name__ == "__main__":
    main()
