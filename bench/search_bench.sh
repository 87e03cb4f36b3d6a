#!/usr/bin/env bash
# search_bench.sh — the search benchmarks, REPEATS runs each (default 3), one process per run:
#   llama   issue 16: Llama-2 7B on trn1, trn1n, p4d and p5 at 8 to 256 nodes;
#   deepseek issue 24: DeepSeek-V3 on DGX H100 and DGX B200 at 32 to 512 nodes (256-4,096 GPUs),
#           global batch 15,360 sequences of 4,096 tokens (the DeepSeek-V3 report's), every
#           precision each chip has, every recompute policy and CP 1, 2, 4: over 10 M layouts.
# Each prints per run the layouts enumerated, fitting and simulated, CPU seconds (user + system of
# all threads), wall seconds, layouts per CPU-second and peak RSS, then the medians.
# usage: bench/search_bench.sh [TRNSIM] [REPEATS] [llama|deepseek|all] [THREADS]
set -euo pipefail
bin="${1:-$(dirname "$0")/../build/trnsim}"; repeats="${2:-3}"; which="${3:-all}"; threads="${4:-$(nproc)}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
llama=(--model llama2-7b --hw trn1.32xlarge,trn1n.32xlarge,p4d.24xlarge,p5.48xlarge --nodes 8,16,32,64,128,256)
deepseek=(--model deepseek-v3 --hw dgx-h100,dgx-b200 --nodes 32,64,128,256,512 --global-batch 15360
          --axes "precision=bf16,fp8,mxfp8,nvfp4;recompute=none,selective,full,op_selective;cp=1,2,4")
for space in llama deepseek; do
  [[ "$which" == all || "$which" == "$space" ]] || continue
  declare -n args="$space"
  for i in $(seq "$repeats"); do
    python3 - "$bin" "$tmp/$space$i" "$threads" "${args[@]}" <<'PY'
import json, resource, subprocess, sys
bin, out, threads, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
subprocess.run([bin, "search", *args, "--threads", threads, "--out", out], check=True, stdout=subprocess.DEVNULL)
d = json.load(open(out + ".json"))
d["stats"]["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
json.dump(d, open(out + ".json", "w"))
c, s = d["counts"], d["stats"]
print(f"{out.rsplit('/', 1)[1]}: {c['enumerated']} layouts, {c['fits']} fit, {c['simulated']} simulated, {c['plan_shapes']} plan shapes, "
      f"{s['cpu_s']:.1f} CPU-s, {s['wall_s']:.1f} s wall on {s['threads']} threads, {s['layouts_per_cpu_s']:.0f} layouts/CPU-s, "
      f"peak RSS {s['peak_rss_mib']:.0f} MiB, bound violations {c['bound_violations']}")
PY
  done
  python3 - "$tmp" "$space" "$repeats" <<'PY'
import json, statistics, sys
runs = [json.load(open(f"{sys.argv[1]}/{sys.argv[2]}{i}.json")) for i in range(1, int(sys.argv[3]) + 1)]
med = lambda f: statistics.median(f(r) for r in runs)
print(f"{sys.argv[2]} median: {med(lambda r: r['stats']['cpu_s']):.1f} CPU-s, {med(lambda r: r['stats']['wall_s']):.1f} s wall, "
      f"{med(lambda r: r['stats']['layouts_per_cpu_s']):.0f} layouts per CPU-s, {med(lambda r: r['counts']['simulated']):.0f} simulated of "
      f"{runs[0]['counts']['enumerated']} enumerated, peak RSS {med(lambda r: r['stats']['peak_rss_mib']):.0f} MiB")
PY
done
