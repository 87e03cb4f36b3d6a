#!/usr/bin/python3
"""sweep-summary.py SWEEP.json — Markdown table: per hardware and node count, the fastest
layout and the cheapest layout per token, with throughput, scaling efficiency (per-node
throughput of the fastest layout relative to the smallest cluster) and $ per million tokens."""
import json
import sys
from collections import defaultdict

doc = json.load(open(sys.argv[1]))
groups = defaultdict(list)
for r in doc["rows"]:
    groups[(r["hw"], r["nodes"])].append(r)
print("| hw | nodes | fastest layout | tokens/s | scaling eff. | $/M tokens | cheapest layout | $/M tokens |")
print("|---|---|---|---|---|---|---|---|")
base = {}
for (hw, nodes) in sorted(groups):
    rs = groups[(hw, nodes)]
    fast = max(rs, key=lambda r: r["tokens_per_s"])
    cheap = min(rs, key=lambda r: r["usd_per_million_tokens_on_demand"])
    base.setdefault(hw, (nodes, fast["tokens_per_s"]))
    n0, t0 = base[hw]
    eff = fast["tokens_per_s"] / nodes / (t0 / n0)
    short = lambda r: "TP%d PP%d DP%d mb%d %s ZeRO-%d" % (r["tp"], r["pp"], r["dp"], r["micro_batch"], r["checkpointing"], r["zero"])
    print("| %s | %d | %s | %.0f | %.1f%% | %.4f | %s | %.4f |" % (hw, nodes, short(fast), fast["tokens_per_s"], 100 * eff,
          fast["usd_per_million_tokens_on_demand"], short(cheap), cheap["usd_per_million_tokens_on_demand"]))
