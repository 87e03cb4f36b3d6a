#!/usr/bin/env bash
# sweep_test.sh — end-to-end sweep checks run by ctest (issue 7):
#   a small sweep (96 configs) parses in all three formats and its best config validates;
#   results are identical with 1 and 2 workers; GNU parallel shards + merge equal one run;
#   a configuration that times out is recorded as failed without stopping the sweep;
#   (issue 15) a hung or SIGKILLed worker costs only its own configuration, retried alone once and
#   then recorded with its reason; the time-out is per configuration; SIGINT stops the workers and
#   leaves no scratch directory.
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
# Fault injection (app/sweep/fault_injection.hpp): one configuration hangs, or its worker is SIGKILLed.
victim=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['rows'][5]['id'])" "$tmp/w1.json")
TRNSIM_INJECT_FAULT="hang:$victim" "$bin" sweep "${args[@]}" --workers 2 --timeout 2 --allow-failures --out "$tmp/hang" >/dev/null 2>&1
TRNSIM_INJECT_FAULT="crash:$victim" "$bin" sweep "${args[@]}" --workers 2 --allow-failures --out "$tmp/crash" >/dev/null 2>&1
# SIGINT mid-sweep (a worker hung on the victim): exit 130, workers gone, no trnsim-sweep-* left.
mkdir "$tmp/scratch"
TMPDIR="$tmp/scratch" TRNSIM_INJECT_FAULT="hang:$victim" "$bin" sweep "${args[@]}" --workers 2 --timeout 600 --out "$tmp/int" \
  >/dev/null 2>"$tmp/int.err" &
sweep_pid=$!
for _ in $(seq 600); do grep -qs "$victim" "$tmp"/scratch/trnsim-sweep-*/*.beat && break; sleep 0.05; done
grep -qs "$victim" "$tmp"/scratch/trnsim-sweep-*/*.beat || { echo "the hung worker never started"; kill -9 $sweep_pid; exit 1; }
kill -INT $sweep_pid
rc=0; wait $sweep_pid || rc=$?
[ "$rc" -eq 130 ] || { echo "interrupted sweep exited $rc, expected 130"; exit 1; }
[ -z "$(ls -A "$tmp/scratch")" ] || { echo "scratch left after SIGINT: $(ls "$tmp/scratch")"; exit 1; }
[ ! -e "$tmp/int.json" ] || { echo "an interrupted sweep wrote results"; exit 1; }
grep -q "interrupted by signal 2" "$tmp/int.err"
! pgrep -f "trnsim-sweep-$sweep_pid" >/dev/null || { echo "workers of the interrupted sweep still run"; exit 1; }
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
for name, why in (("hang", "timed out after 2 s on one configuration"), ("crash", "crashed with signal 9")):
    d = json.load(open(f"{t}/{name}.json"))
    assert [f["id"] for f in d["failed"]] == [w1["rows"][5]["id"]], (name, d["failed"])
    assert d["failed"][0]["error"] == why, (name, d["failed"][0])
    assert len(d["rows"]) == len(w1["rows"]) - 1, (name, len(d["rows"]))
    strip = lambda rows: [{k: v for k, v in r.items() if k != "pareto"} for r in rows]  # the front may move
    assert all(r in strip(w1["rows"]) for r in strip(d["rows"])), f"{name}: the other configurations changed"
print(f"sweep ok: {len(w1['rows'])} configs, best {best['id']}")
PY
