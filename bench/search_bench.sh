#!/usr/bin/env bash
# search_bench.sh — issue 16's benchmark: `trnsim search` over the whole layout space of Llama-2 7B
# on trn1, trn1n, p4d and p5 at 8 to 256 nodes (top-20 by throughput and by cost, Pareto front),
# REPEATS times (default 3); prints each run's layouts enumerated, simulated, CPU seconds and
# layouts per CPU-second, then the medians. One process, so CPU-s = its user + system time.
# usage: bench/search_bench.sh [TRNSIM] [REPEATS]
set -euo pipefail
bin="${1:-$(dirname "$0")/../build/trnsim}"; repeats="${2:-3}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for i in $(seq "$repeats"); do
  "$bin" search --model llama2-7b --hw trn1.32xlarge,trn1n.32xlarge,p4d.24xlarge,p5.48xlarge \
    --nodes 8,16,32,64,128,256 --out "$tmp/run$i" >/dev/null
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); c=d['counts']; s=d['stats']
print(f\"run $i: {c['enumerated']} layouts, {c['fits']} fit, {c['simulated']} simulated, {c['plan_shapes']} plan shapes, \"
      f\"{s['cpu_s']:.1f} CPU-s, {s['layouts_per_cpu_s']:.0f} layouts/CPU-s, bound violations {c['bound_violations']}\")" "$tmp/run$i.json"
done
python3 - "$tmp" "$repeats" <<'PY'
import json, statistics, sys
runs = [json.load(open(f"{sys.argv[1]}/run{i}.json")) for i in range(1, int(sys.argv[2]) + 1)]
med = lambda f: statistics.median(f(r) for r in runs)
print(f"median: {med(lambda r: r['stats']['cpu_s']):.1f} CPU-s, {med(lambda r: r['stats']['layouts_per_cpu_s']):.0f} layouts per CPU-s, "
      f"{med(lambda r: r['counts']['simulated']):.0f} simulated of {runs[0]['counts']['enumerated']} enumerated")
PY
