#!/usr/bin/env bash
# sweep_test.sh — end-to-end sweep checks run by ctest (issue 7):
#   a small sweep (96 configs) parses in all three formats and its best config validates;
#   results are identical with 1 and 2 workers; GNU parallel shards + merge equal one run;
#   a configuration that times out is recorded as failed without stopping the sweep.
set -euo pipefail
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
args=(--model bert-large --hw dl1.24xlarge --nodes 1 --seq 128 --global-batch 256 --micro-batches 32)
"$bin" sweep "${args[@]}" --workers 1 --out "$tmp/w1" | tail -2
"$bin" sweep "${args[@]}" --workers 2 --out "$tmp/w2" >/dev/null
TRNSIM_BIN="$bin" "$root/scripts/sweep-parallel" 3 "$tmp/gp" "${args[@]}" >/dev/null
"$bin" sweep "${args[@]}" --workers 2 --timeout 0.0001 --out "$tmp/to" >/dev/null
python3 - "$tmp" <<'PY'
import csv, json, sys
t = sys.argv[1]
w1, w2, gp, to = (json.load(open(f"{t}/{n}.json")) for n in ("w1", "w2", "gp", "to"))
assert len(w1["rows"]) >= 24, len(w1["rows"])
assert w1["rows"] == w2["rows"], "results depend on the worker count"
assert w1["rows"] == gp["rows"], "GNU parallel shards + merge differ from one run"
rows = list(csv.DictReader(open(f"{t}/w1.csv")))
assert len(rows) == len(w1["rows"]) and float(rows[0]["tokens_per_s"]) > 0
assert "| # |" in open(f"{t}/w1.md").read()
best = w1["best"]
assert best["tp"] * best["pp"] * best["dp"] == 8 and best["pareto"] and best["mfu"] > 0
assert len(to["rows"]) == 0 and len(to["failed"]) == len(w1["rows"]) and "timed out" in to["failed"][0]["error"]
print(f"sweep ok: {len(w1['rows'])} configs, best {best['id']}")
PY
