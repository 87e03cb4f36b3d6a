#!/usr/bin/env bash
# sweep_options_test.sh — `trnsim sweep --stack / --precision / --lora-rank / --hw-set` end to end: every layout
# carries the stack's fields (torchtitan: ZeRO-3 where DP > 1, unfused linears) and the precision, layouts the
# stack makes identical are listed once, the outputs name what every layout shares, and LoRA
# fine-tuning needs less memory than full training for the same layout.
set -euo pipefail
bin="$1"
trap 'echo "sweep_options_test.sh: line $LINENO failed (exit $?): $BASH_COMMAND" >&2' ERR
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
args=(--model llama2-7b --hw p5.48xlarge --nodes 1 --seq 512 --global-batch 16 --micro-batches 2 --workers 2)
"$bin" sweep "${args[@]}" --out "$tmp/plain" >/dev/null
"$bin" sweep "${args[@]}" --stack torchtitan --precision fp8 --out "$tmp/tt" >/dev/null
"$bin" sweep "${args[@]}" --lora-rank 16 --out "$tmp/lora" >/dev/null
"$bin" sweep "${args[@]}" --hw-set "intra_node.link_GBps_per_direction=45" --out "$tmp/slow" >/dev/null
python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
plain, tt, lora, slow = (json.load(open(f"{t}/{n}.json")) for n in ("plain", "tt", "lora", "slow"))
# --hw-set reaches the workers: NVLink at a tenth makes every TP layout slower, none faster.
assert slow["space"] == {"hw_set": "intra_node.link_GBps_per_direction=45"}, slow["space"]
base = {r["id"]: r["step_time_s"] for r in plain["rows"]}
pairs = [(r["step_time_s"], base[r["id"]], r["tp"]) for r in slow["rows"] if r["id"] in base]
assert pairs and all(s >= b * (1 - 1e-9) for s, b, _ in pairs), pairs
assert any(s > b * 1.01 for s, b, tp in pairs if tp > 1), pairs
assert tt["space"] == {"precision": "fp8", "stack": "torchtitan"}, tt["space"]
assert plain["space"] == {} and lora["space"] == {"lora_rank": 16}
# ZeRO-3 wherever there is more than one DP rank (the loader drops sharding over one rank).
bad = [r["id"] for r in tt["rows"] if r["zero"] != (3 if r["dp"] > 1 else 0) or r["fused"] is not False]
assert tt["rows"] and not bad, bad
ids = [r["id"] for r in tt["rows"]] + [f["id"] for f in tt["failed"]]
assert len(ids) == len(set(ids)), "a layout listed twice"
assert tt["enumerated"] < plain["enumerated"], (tt["enumerated"], plain["enumerated"])  # ZeRO and fusion collapse
assert tt["sweep_id"] != plain["sweep_id"] != lora["sweep_id"]
md = open(f"{t}/tt.md").read()
assert "Every layout: precision fp8; stack torchtitan (stacks/torchtitan.json);" in md
full = {r["id"]: r for r in plain["rows"]}
both = [r for r in lora["rows"] if r["id"] in full]
assert both and all(r["memory_per_core_gib"] < full[r["id"]]["memory_per_core_gib"] for r in both)
print(f"sweep options ok: {len(tt['rows'])} torchtitan fp8 layouts of {plain['enumerated']} plain, {len(both)} LoRA rows lighter")
PY
