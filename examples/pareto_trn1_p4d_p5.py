#!/usr/bin/env python3
"""pareto_trn1_p4d_p5.py — notebook-style example of the trnsim Python module: sweep Llama-2 7B
layouts on trn1 vs p4d vs p5, plot throughput against cost per token, and print the Pareto front
(layouts no other layout beats on both tokens/s and $ per million tokens).

Run from anywhere after the README's set-up command:
    PYTHONPATH=build python3 examples/pareto_trn1_p4d_p5.py --nodes 16 --out pareto.svg
The test suite runs it on a small space (--small).
"""
import argparse
import os
import sys

import trnsim

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--model", default="llama2-7b")
parser.add_argument("--hw", default="trn1.32xlarge,p4d.24xlarge,p5.48xlarge", help="comma-separated instance names")
parser.add_argument("--nodes", default="16", help="comma-separated node counts")
parser.add_argument("--small", action="store_true", help="a quick space: micro-batch 1, sequence 2048, global batch 256")
parser.add_argument("--out", default="pareto_trn1_p4d_p5.svg", help="plot file (SVG or PNG)")
args = parser.parse_args()

# 1. Sweep: every valid layout (TP, PP, DP, micro-batch, recompute, ZeRO, fusion) on each instance.
options = dict(seq=2048, global_batch=256, micro_batches=[1]) if args.small else {}
rows = trnsim.sweep(args.model, args.hw.split(","), [int(n) for n in args.nodes.split(",")], workers=os.cpu_count(), **options)
print(f"{len(rows)} layouts simulated")

# 2. The Pareto front of throughput (higher is better) vs $ per million tokens (lower is better).
def cost(r):
    return r["usd_per_million_tokens_on_demand"]

front = [r for r in rows if not any(q["tokens_per_s"] >= r["tokens_per_s"] and cost(q) <= cost(r)
                                      and (q["tokens_per_s"], cost(q)) != (r["tokens_per_s"], cost(r)) for q in rows)]
front.sort(key=lambda r: -r["tokens_per_s"])
print(f"\nPareto front ({len(front)} layouts): tokens/s vs $ per million tokens (on-demand)")
print(f"{'layout':<62} {'tokens/s':>12} {'$/M tokens':>11} {'GiB/core':>9}")
for r in front:
    print(f"{r['id']:<62} {r['tokens_per_s']:>12,.0f} {cost(r):>11.4f} {r['memory_per_core_gib']:>9.1f}")

# 3. Plot (matplotlib, no display needed).
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("matplotlib is not installed; the front is printed above")
fig, ax = plt.subplots(figsize=(7, 5))
for hw in args.hw.split(","):
    mine = [r for r in rows if r["hw"] == hw]
    ax.scatter([r["tokens_per_s"] for r in mine], [cost(r) for r in mine], s=8, alpha=0.5, label=f"{hw} ({len(mine)} layouts)")
ax.plot([r["tokens_per_s"] for r in front], [cost(r) for r in front], "k.-", label="Pareto front")
ax.set(xlabel="throughput (tokens/s)", ylabel="cost ($ per million tokens, on-demand)", xscale="log",
       title=f"{args.model}, {args.nodes} nodes: every simulated layout")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(args.out)
print(f"\nwrote {args.out}")
