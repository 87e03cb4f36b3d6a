#!/usr/bin/env bash
# search_exactness.sh — issue 16: on a space small enough to simulate exhaustively (10,578 layouts,
# 9,705 fitting, trn1 and p4d), the branch-and-bound search returns byte-identical top-20 lists
# (by throughput and by cost) and Pareto front, and the step-time lower bound is <= the simulated
# step time on every one of the 9,705 simulated layouts (bound_violations == 0).
# The same under a stack profile (--stack torchtitan: fixed axes, FSDP2's FP32 shard, FP32
# reductions), on a smaller space; and for a MoE model over every EP degree (Qwen3-30B-A3B on one
# DGX H100, 2,295 layouts fitting), where the bound counts the EP all-to-alls on idle links; and
# the same search on one thread and on two gives the same result and counts.
# usage: search_exactness.sh TRNSIM
set -euo pipefail
bin="$1"
trap 'echo "search_exactness.sh: line $LINENO failed (exit $?): $BASH_COMMAND" >&2' ERR
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
space=(--model hlat-7b --hw trn1.32xlarge,p4d.24xlarge --nodes 1 --seq 512 --global-batch 64
       --axes "attention=flash;fused=on;dp_overlap=on" --top-k 20)
"$bin" search "${space[@]}" --out "$tmp/bb" >/dev/null
"$bin" search "${space[@]}" --exhaustive --out "$tmp/ex" >/dev/null
python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
bb, ex = json.load(open(f"{t}/bb.json")), json.load(open(f"{t}/ex.json"))
assert ex["counts"]["enumerated"] >= 5000 and ex["counts"]["simulated"] == ex["counts"]["fits"] >= 5000, ex["counts"]
assert ex["counts"]["bound_violations"] == 0 and bb["counts"]["bound_violations"] == 0
assert len({r["hw"] for r in ex["top_by_throughput"] + ex["top_by_cost"]}) == 2 or len({r["hw"] for r in ex["pareto"]}) >= 1
for key in ("top_by_throughput", "top_by_cost", "pareto"):
    a = json.dumps(bb[key], sort_keys=True)
    b = json.dumps(ex[key], sort_keys=True)
    assert a == b, f"{key}: branch-and-bound differs from exhaustive simulation"
assert len(bb["top_by_throughput"]) == 20 and len(bb["top_by_cost"]) == 20 and bb["pareto"]
assert bb["counts"]["simulated"] < ex["counts"]["simulated"], "nothing was bounded out"
c = bb["counts"]
print(f"search exact: {c['enumerated']} layouts, {c['fits']} fit, {c['simulated']} simulated by branch-and-bound "
      f"vs {ex['counts']['simulated']} exhaustively; bound <= step on all {ex['counts']['simulated']}")
PY

stack=(--model hlat-7b --hw trn1.32xlarge,p4d.24xlarge --nodes 1 --seq 512 --global-batch 64 --stack torchtitan --top-k 10)
"$bin" search "${stack[@]}" --out "$tmp/sbb" >/dev/null
"$bin" search "${stack[@]}" --exhaustive --out "$tmp/sex" >/dev/null
python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
bb, ex = json.load(open(f"{t}/sbb.json")), json.load(open(f"{t}/sex.json"))
assert bb["space"]["stack"]["name"] == "torchtitan"
assert ex["counts"]["bound_violations"] == 0 and bb["counts"]["bound_violations"] == 0
for key in ("top_by_throughput", "top_by_cost", "pareto"):
    assert json.dumps(bb[key], sort_keys=True) == json.dumps(ex[key], sort_keys=True), f"stack: {key} differs"
assert all(r["attention"] == "flash" and not r["tp_overlap"] for r in ex["top_by_throughput"])
print(f"search exact under --stack torchtitan: {ex['counts']['fits']} layouts fit, {bb['counts']['simulated']} simulated")
PY

moe=(--model qwen3-30b-a3b --hw dgx-h100 --nodes 1 --seq 1024 --global-batch 32
     --axes "attention=flash;fused=on;dp_overlap=on" --top-k 10)
"$bin" search "${moe[@]}" --threads 2 --out "$tmp/mbb" >/dev/null
"$bin" search "${moe[@]}" --threads 1 --out "$tmp/mb1" >/dev/null
"$bin" search "${moe[@]}" --exhaustive --out "$tmp/mex" >/dev/null
python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
bb, ex = json.load(open(f"{t}/mbb.json")), json.load(open(f"{t}/mex.json"))
one = json.load(open(f"{t}/mb1.json"))
assert ex["counts"]["simulated"] == ex["counts"]["fits"] >= 1500, ex["counts"]
assert bb["stats"]["threads"] == 2 and one["stats"]["threads"] == 1
for key in ("top_by_throughput", "top_by_cost", "pareto", "counts"):  # plan shapes on 1 or 2 threads: the same search
    assert json.dumps(bb[key], sort_keys=True) == json.dumps(one[key], sort_keys=True), f"threads: {key} differs"
assert ex["counts"]["bound_violations"] == 0 and bb["counts"]["bound_violations"] == 0
for key in ("top_by_throughput", "top_by_cost", "pareto"):
    assert json.dumps(bb[key], sort_keys=True) == json.dumps(ex[key], sort_keys=True), f"moe: {key} differs"
assert any(r["ep"] > 1 for r in ex["top_by_throughput"]), "no EP layout in the top list: the EP bound is not exercised"
print(f"search exact for a MoE model: {ex['counts']['fits']} layouts fit, {bb['counts']['simulated']} simulated")
PY

# Expert TP as an axis (issue 24): the bound times ETP and EP collectives as consecutive groups.
etp=(--model qwen3-30b-a3b --hw dgx-h100 --nodes 1 --seq 1024 --global-batch 32 --top-k 10)
ax="attention=flash;fused=on;dp_overlap=on;recompute=none,full"
"$bin" search "${etp[@]}" --axes "$ax;etp=1,2,4" --threads 2 --out "$tmp/ebb" >/dev/null
"$bin" search "${etp[@]}" --axes "$ax;etp=1,2,4" --exhaustive --out "$tmp/eex" >/dev/null
"$bin" search "${etp[@]}" --axes "$ax" --out "$tmp/e1" >/dev/null
python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
bb, ex, one = (json.load(open(f"{t}/{n}.json")) for n in ("ebb", "eex", "e1"))
assert ex["counts"]["simulated"] == ex["counts"]["fits"], ex["counts"]
# etp 2 and 4 add layouts to the space (etp 1 alone is the space without the axis).
assert ex["counts"]["enumerated"] > one["counts"]["enumerated"] and ex["counts"]["fits"] > one["counts"]["fits"], \
    (ex["counts"], one["counts"])
assert ex["counts"]["bound_violations"] == 0 and bb["counts"]["bound_violations"] == 0
for key in ("top_by_throughput", "top_by_cost", "pareto"):
    assert json.dumps(bb[key], sort_keys=True) == json.dumps(ex[key], sort_keys=True), f"etp: {key} differs"
print(f"search exact with expert TP: {ex['counts']['fits']} layouts fit ({one['counts']['fits']} with etp 1 only), "
      f"{bb['counts']['simulated']} simulated")
PY

# A stack whose TP overlap covers the forward too (nemo: tp_overlap_forward): the plan's forward
# collectives differ with tp_overlap, so the two are different plan shapes.
nemo=(--model llama2-7b --hw dgx-h100 --nodes 1 --seq 2048 --global-batch 64 --stack nemo
      --axes "tp=2,4,8;recompute=none,full;precision=bf16,fp8" --top-k 10)
"$bin" search "${nemo[@]}" --out "$tmp/nbb" >/dev/null
"$bin" search "${nemo[@]}" --exhaustive --out "$tmp/nex" >/dev/null
python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
bb, ex = json.load(open(f"{t}/nbb.json")), json.load(open(f"{t}/nex.json"))
assert ex["counts"]["simulated"] == ex["counts"]["fits"] > 0, ex["counts"]
assert ex["counts"]["bound_violations"] == 0 and bb["counts"]["bound_violations"] == 0
for key in ("top_by_throughput", "top_by_cost", "pareto"):
    assert json.dumps(bb[key], sort_keys=True) == json.dumps(ex[key], sort_keys=True), f"nemo: {key} differs"
assert any(r["tp_overlap"] for r in ex["top_by_throughput"]), "no TP-overlap layout in the top list"
print(f"search exact under --stack nemo (forward TP overlap): {ex['counts']['fits']} layouts fit, {bb['counts']['simulated']} simulated")
PY
