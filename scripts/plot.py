#!/usr/bin/python3
"""plot.py — SVG plots from trnsim's JSON outputs (Debian python3-matplotlib).

  scripts/plot.py reproduction results/reproduction.json results/plots
      throughput and scaling efficiency vs nodes per published series, predicted vs published
  scripts/plot.py breakdown results/plots/breakdown.svg REPORT.json...
      stacked step-time breakdown bars from `trnsim run --format json` reports
  scripts/plot.py pareto results/sweep.json results/plots
      time-to-train vs cost-to-train of every simulated layout, Pareto front marked, per hardware
  scripts/plot.py collectives results/collectives_p5.json results/plots
      bus bandwidth against message size per node count, trnsim against a measured table
      (`trnsim collective --compare TABLE --format json`), one panel per collective
  scripts/plot.py validation results/validation.json results/plots
      predicted vs measured per hardware family (log-log, y = x, +-10% band), and signed error
      against TP, PP, sequence length and model size
"""
import json
import re
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402

# Byte-identical SVGs from identical data: fixed element ids and no date stamp.
plt.rcParams["svg.hashsalt"] = "trnsim"


def node_ticks(ax, nodes):
    """One labelled tick per node count plotted (1, 2, 4 ... not 2x10^0), no minor ticks."""
    ax.xaxis.set_major_locator(ticker.FixedLocator(sorted(set(nodes))))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda x, _: "%g" % x))
    ax.xaxis.set_minor_locator(ticker.NullLocator())


def plain_log_ticks(axis):
    """Log axis ticks at 1-2-5 steps in plain numbers, so even a narrow range has several."""
    axis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(ticker.FuncFormatter(lambda x, _: "%g" % x))
    axis.set_minor_locator(ticker.LogLocator(base=10, subs="all"))
    axis.set_minor_formatter(ticker.NullFormatter())


def natural_key(text):
    """Sort '4node' before '16node': digit runs compare as numbers."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]


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
        node_ticks(a, nodes)
        plain_log_ticks(a.yaxis)
        a.legend()
        b.plot(nodes, [r["published_scaling_eff_pct"] for r in rs], "o-", label="published")
        b.plot(nodes, [r["predicted_scaling_eff_pct"] for r in rs], "s--", label="trnsim prediction")
        b.set(xlabel="nodes", ylabel="scaling efficiency (%)", title=name + ": scaling", xscale="log", ylim=(70, 105))
        node_ticks(b, nodes)
        b.legend()
        fig.tight_layout()
        fn = os.path.join(outdir, "scaling_" + name.lower().replace(" ", "_").replace(".", "") + ".svg")
        fig.savefig(fn, metadata={"Date": None})
        print("wrote", fn)


PERF = ("iteration_time", "cluster_seq_per_s", "tokens_per_s_per_gpu")


def validation(src, outdir):
    rows = [r for r in json.load(open(src))["rows"] if r["status"] in ("predicted", "calibration")]
    perf = [r for r in rows if r["quantity"] in PERF]
    fams = sorted({r["family"] for r in perf})
    fig, axes = plt.subplots(1, len(fams), figsize=(5 * len(fams), 4.6), squeeze=False)
    for ax, fam in zip(axes[0], fams):
        rs = [r for r in perf if r["family"] == fam]
        for q, marker in zip(PERF, "os^"):
            sel = [r for r in rs if r["quantity"] == q]
            if not sel:
                continue
            for calib, face, edge in ((False, "C0", "C0"), (True, "none", "C3")):
                pts = [r for r in sel if (r["status"] == "calibration") == calib]
                if pts:
                    ax.scatter([r["measured"] for r in pts], [r["predicted"] for r in pts], s=10, marker=marker, rasterized=True,
                               facecolors=face, edgecolors=edge, label=f"{q} ({'calibration' if calib else 'prediction'}, {len(pts)})")
        lo = min(min(r["measured"], r["predicted"]) for r in rs) * 0.8
        hi = max(max(r["measured"], r["predicted"]) for r in rs) * 1.25
        ax.plot([lo, hi], [lo, hi], "k-", lw=0.8, label="y = x")
        ax.fill_between([lo, hi], [lo * 0.9, hi * 0.9], [lo * 1.1, hi * 1.1], color="grey", alpha=0.2, label="+-10 %")
        ax.set(xscale="log", yscale="log", xlabel="measured (s, seq/s or tokens/s/GPU)",
               ylabel="trnsim prediction (same unit)", title=f"{fam}: predicted vs measured")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "validation_scatter.svg"))
    plt.close(fig)
    feats = (("tp", "tensor-parallel degree"), ("pp", "pipeline-parallel degree"), ("seq", "sequence length (tokens)"),
             ("params_b", "model size (billions of parameters)"))
    fig, axes = plt.subplots(1, 4, figsize=(18, 4.2))
    for ax, (key, label) in zip(axes, feats):
        for fam in fams:
            rs = [r for r in perf if r["family"] == fam and r["status"] == "predicted"]
            ax.scatter([r[key] for r in rs], [r["error_pct"] for r in rs], s=8, alpha=0.6, label=fam, rasterized=True)
        ax.axhline(0, color="k", lw=0.8)
        ax.axhspan(-10, 10, color="grey", alpha=0.2)
        ax.set(xscale="log", xlabel=label, ylabel="error % (+: trnsim predicts faster)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "validation_error_vs_feature.svg"))
    plt.close(fig)


def breakdown(out, reports):
    keys = ["compute", "recompute", "tp_comm_exposed", "pp_comm_exposed", "pipeline_bubble", "dp_comm_exposed", "optimizer"]
    data = sorted((json.load(open(f)) for f in reports), key=lambda d: natural_key(d["workload"]["name"]))
    labels = [d["workload"]["name"] for d in data]
    fig, ax = plt.subplots(figsize=(max(6, len(data) * 0.9) + 2.5, 5))
    bottom = [0.0] * len(data)
    for k in keys:
        frac = [100 * d["step"]["breakdown_s"][k] / d["step"]["step_time_s"] for d in data]
        ax.bar(labels, frac, bottom=bottom, label=k)
        bottom = [x + y for x, y in zip(bottom, frac)]
    ax.set(ylabel="share of step time (%)", title="step-time breakdown (critical stage)", ylim=(0, 100))
    # outside the axes, to the right, so it covers no bar; top-down in stacking order
    handles, names = ax.get_legend_handles_labels()
    ax.legend(handles[::-1], names[::-1], fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
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
        colour = pts.get_facecolor()[0][:3]  # opaque, unlike the scatter
        if front:
            ax.plot([r["days_to_train"] for r in front], [r["usd_to_train_on_demand"] / 1e6 for r in front], "o-",
                    color=colour, markersize=5)
        # Each node count is a streak (cost = price x nodes x time): label it at its slow end, away from the fronts.
        for n in sorted({r["nodes"] for r in rs}):
            slowest = max((r for r in rs if r["nodes"] == n), key=lambda r: r["days_to_train"])
            ax.annotate("%s, %d nodes" % (hw.split(".")[0], n), (slowest["days_to_train"], slowest["usd_to_train_on_demand"] / 1e6),
                        xytext=(3, 3), textcoords="offset points", ha="left", va="bottom", fontsize=6, color=colour)
    ax.set(xlabel="days to train %.3g tokens" % doc["stats"]["train_tokens"], ylabel="cost to train (M$, on-demand)",
           xscale="log", yscale="log", title="time vs cost of every simulated layout\n(lines: Pareto front per hardware; "
           "labels: node count of each streak)")
    plain_log_ticks(ax.xaxis)
    plain_log_ticks(ax.yaxis)
    ax.legend()
    fig.tight_layout()
    fn = os.path.join(outdir, "pareto_" + os.path.splitext(os.path.basename(src))[0] + ".svg")
    fig.savefig(fn, metadata={"Date": None})
    print("wrote", fn)


def collectives(src, outdir):
    doc = json.load(open(src))
    ops = sorted({r["op"] for r in doc["rows"]})
    fig, axes = plt.subplots(1, len(ops), figsize=(5.2 * len(ops), 4.2), squeeze=False)
    for ax, op in zip(axes[0], ops):
        rows = [r for r in doc["rows"] if r["op"] == op]
        nodes = sorted({r["nodes"] for r in rows})
        for i, n in enumerate(nodes):
            pts = sorted((r["size_bytes"] / 2**20, r["busbw_GBps"], r["measured_busbw_GBps"]) for r in rows if r["nodes"] == n)
            color = plt.cm.viridis(i / max(1, len(nodes) - 1))
            ax.plot([p[0] for p in pts], [p[2] for p in pts], "o-", color=color, label=f"{n} nodes measured")
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "x--", color=color, label=f"{n} nodes trnsim")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("message size per rank (MiB)")
        ax.set_ylabel("bus bandwidth (GB/s)")
        ax.set_title(f"{op} on {doc['hw']}: measured (o) vs trnsim (x)")
        ax.grid(alpha=0.3)
    axes[0][-1].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fn = os.path.join(outdir, "collectives_" + os.path.splitext(os.path.basename(src))[0].split("_", 1)[-1] + ".svg")
    fig.savefig(fn, metadata={"Date": None})
    print("wrote", fn)


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("reproduction", "breakdown", "pareto", "validation", "collectives"):
        print(__doc__)
        sys.exit(2)
    kind = sys.argv[1]
    if kind == "breakdown":
        os.makedirs(os.path.dirname(sys.argv[2]) or ".", exist_ok=True)
        breakdown(sys.argv[2], sys.argv[3:])
    else:
        os.makedirs(sys.argv[3], exist_ok=True)
        {"reproduction": reproduction, "pareto": pareto, "validation": validation, "collectives": collectives}[kind](sys.argv[2], sys.argv[3])
