#!/usr/bin/env bash
# sweep_test.sh — end-to-end sweep checks run by ctest (issue 7):
#   a small sweep (96 configs) parses in all three formats and its best config validates;
#   results are identical with 1 and 2 workers; GNU parallel shards + merge equal one run;
#   a configuration that times out is recorded as failed without stopping the sweep.
set -euo pipefail
bin="$1"; root="$2"
trap 'echo "sweep_test.sh: line $LINENO failed (exit $?): $BASH_COMMAND" >&2' ERR
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
args=(--model bert-large --hw dl1.24xlarge --nodes 1 --seq 128 --global-batch 256 --micro-batches 32)
"$bin" sweep "${args[@]}" --workers 1 --out "$tmp/w1" | tail -2
"$bin" sweep "${args[@]}" --workers 2 --out "$tmp/w2" >/dev/null
TRNSIM_BIN="$bin" "$root/scripts/sweep-parallel" 3 "$tmp/gp" "${args[@]}" >/dev/null
# Every configuration times out: exit 1 unless --allow-failures; the failures are in every output.
if "$bin" sweep "${args[@]}" --workers 2 --timeout 0.0001 --out "$tmp/to" >/dev/null 2>"$tmp/to.err"; then
  echo "a sweep whose configurations all failed exited 0"; exit 1
fi
grep -q "configuration(s) failed" "$tmp/to.err"
"$bin" sweep "${args[@]}" --workers 2 --timeout 0.0001 --allow-failures --out "$tmp/to" >/dev/null
grep -q ",failed," "$tmp/to.csv" && grep -q "## Failed configurations" "$tmp/to.md"
# Merge takes the shards of one sweep, each once: duplicates, gaps, other sweeps and run reports are errors.
"$bin" sweep "${args[@]}" --workers 1 --shard 1/2 --out "$tmp/s1" >/dev/null
"$bin" sweep "${args[@]}" --workers 1 --shard 2/2 --out "$tmp/s2" >/dev/null
"$bin" merge "$tmp/s1.json" "$tmp/s2.json" --out "$tmp/m" >/dev/null
for bad in "$tmp/s1.json $tmp/s1.json $tmp/s2.json|given twice" "$tmp/s1.json|missing" "$tmp/s1.json $tmp/w1.json|another sweep" \
           "$root/results/reports/llama7b_tp8_dp512.json|not a sweep shard"; do
  files=${bad%|*}; want=${bad#*|}
  # shellcheck disable=SC2086
  if "$bin" merge $files --out "$tmp/bad" >/dev/null 2>"$tmp/merge.err"; then echo "merge accepted: $files"; exit 1; fi
  grep -q "$want" "$tmp/merge.err" || { echo "merge of $files: expected '$want', got: $(cat "$tmp/merge.err")"; exit 1; }
done
python3 - "$tmp" <<'PY'
import csv, json, sys
t = sys.argv[1]
w1, w2, gp, to, m = (json.load(open(f"{t}/{n}.json")) for n in ("w1", "w2", "gp", "to", "m"))
assert m["rows"] == w1["rows"], "two shards merged differ from one run"
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
