#!/usr/bin/python3
"""plot.py — SVG plots from trnsim's JSON outputs (Debian python3-matplotlib).

  scripts/plot.py reproduction results/reproduction.json results/plots
      throughput and scaling efficiency vs nodes per published series, predicted vs published
  scripts/plot.py breakdown results/plots/breakdown.svg REPORT.json...
      stacked step-time breakdown bars from `trnsim run --format json` reports
  scripts/plot.py pareto results/sweep.json results/plots
      time-to-train vs cost-to-train of every simulated layout, Pareto front marked, per hardware
"""
import json
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

# Byte-identical SVGs from identical data: fixed element ids and no date stamp.
plt.rcParams["svg.hashsalt"] = "trnsim"


def reproduction(src, outdir):
    rows = json.load(open(src))["rows"]
    series = defaultdict(list)
    for r in rows:
        series[r["series"]].append(r)
    for name, rs in series.items():
        if len(rs) < 2:
            continue
        nodes = [r["nodes"] for r in rs]
        fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
        a.plot(nodes, [r["published_seq_per_s"] for r in rs], "o-", label="published")
        a.plot(nodes, [r["predicted_seq_per_s"] for r in rs], "s--", label="trnsim prediction")
        for r in rs:
            if r["calibration"]:
                a.annotate("calibration row", (r["nodes"], r["predicted_seq_per_s"]), fontsize=8)
        a.set(xlabel="nodes", ylabel="throughput (sequences/s)", title=name, xscale="log", yscale="log")
        a.legend()
        b.plot(nodes, [r["published_scaling_eff_pct"] for r in rs], "o-", label="published")
        b.plot(nodes, [r["predicted_scaling_eff_pct"] for r in rs], "s--", label="trnsim prediction")
        b.set(xlabel="nodes", ylabel="scaling efficiency (%)", title=name + ": scaling", xscale="log", ylim=(70, 105))
        b.legend()
        fig.tight_layout()
        fn = os.path.join(outdir, "scaling_" + name.lower().replace(" ", "_").replace(".", "") + ".svg")
        fig.savefig(fn, metadata={"Date": None})
        print("wrote", fn)


def breakdown(out, reports):
    keys = ["compute", "recompute", "tp_comm_exposed", "pp_comm_exposed", "pipeline_bubble", "dp_comm_exposed", "optimizer"]
    data = [json.load(open(f)) for f in reports]
    labels = [d["workload"]["name"] for d in data]
    fig, ax = plt.subplots(figsize=(max(6, len(data) * 0.9), 5))
    bottom = [0.0] * len(data)
    for k in keys:
        frac = [100 * d["step"]["breakdown_s"][k] / d["step"]["step_time_s"] for d in data]
        ax.bar(labels, frac, bottom=bottom, label=k)
        bottom = [x + y for x, y in zip(bottom, frac)]
    ax.set(ylabel="share of step time (%)", title="step-time breakdown (critical stage)")
    ax.legend(fontsize=8, loc="lower right")
    plt.xticks(rotation=60, ha="right", fontsize=7)
    fig.tight_layout()
    fig.savefig(out, metadata={"Date": None})
    print("wrote", out)


def pareto(src, outdir):
    doc = json.load(open(src))
    fig, ax = plt.subplots(figsize=(7, 5))
    by_hw = defaultdict(list)
    for r in doc["rows"]:
        by_hw[r["hw"]].append(r)
    for hw, rs in sorted(by_hw.items()):
        pts = ax.scatter([r["days_to_train"] for r in rs], [r["usd_to_train_on_demand"] / 1e6 for r in rs], s=6, alpha=0.4, label=hw)
        # this hardware's own front (the sweep's "pareto" flag is across all hardware)
        front, best_cost = [], float("inf")
        for r in sorted(rs, key=lambda r: (r["days_to_train"], r["usd_to_train_on_demand"])):
            if r["usd_to_train_on_demand"] < best_cost:
                front.append(r)
                best_cost = r["usd_to_train_on_demand"]
        if front:
            ax.plot([r["days_to_train"] for r in front], [r["usd_to_train_on_demand"] / 1e6 for r in front], "o-",
                    color=pts.get_facecolor()[0], markersize=5)
    ax.set(xlabel="days to train %.3g tokens" % doc["stats"]["train_tokens"], ylabel="cost to train (M$, on-demand)",
           xscale="log", yscale="log", title="time vs cost of every simulated layout (lines: Pareto front per hardware)")
    ax.legend()
    fig.tight_layout()
    fn = os.path.join(outdir, "pareto_" + os.path.splitext(os.path.basename(src))[0] + ".svg")
    fig.savefig(fn, metadata={"Date": None})
    print("wrote", fn)


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("reproduction", "breakdown", "pareto"):
        print(__doc__)
        sys.exit(2)
    kind = sys.argv[1]
    if kind == "breakdown":
        os.makedirs(os.path.dirname(sys.argv[2]) or ".", exist_ok=True)
        breakdown(sys.argv[2], sys.argv[3:])
    else:
        os.makedirs(sys.argv[3], exist_ok=True)
        {"reproduction": reproduction, "pareto": pareto}[kind](sys.argv[2], sys.argv[3])
