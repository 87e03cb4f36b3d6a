#!/bin/bash
# cli_faults.sh — issue 15 reproducers for outputs and trusted inputs: a failed write is an error
# and leaves no partial file; a damaged op cache is ignored with a warning; campaigns that could not finish are
# refused and huge ones finish; reproduce / list reject what is not theirs.
# usage: cli_faults.sh TRNSIM   (run from the source root)
t="$1"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
R3=workloads/llama7b_tp8_dp512.json
fail=0
expect() {  # rc, fragment, command...
  want_rc="$1"; want="$2"; shift 2
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" -ne "$want_rc" ] || ! printf '%s' "$out" | grep -q -- "$want"; then
    echo "FAIL: $* -> rc $rc (want $want_rc, \"$want\"): $out"; fail=1
  fi
}
# 1. A write cut short by a file-size limit (1 KiB) is an error and leaves neither the file nor a temporary.
( ulimit -f 1; "$t" run "$R3" --trace "$tmp/trace.json" >"$tmp/out.txt" 2>"$tmp/err.txt"; echo $? >"$tmp/rc" )
[ "$(cat "$tmp/rc")" = 1 ] && grep -q "trace.json: cannot write file" "$tmp/err.txt" || { echo "FAIL: size-limited trace: rc $(cat "$tmp/rc") $(cat "$tmp/err.txt")"; fail=1; }
[ -z "$(ls "$tmp" | grep trace)" ] || { echo "FAIL: partial trace left: $(ls "$tmp")"; fail=1; }
expect 1 "cannot write file" "$t" run "$R3" --output "$tmp/no/such/dir/report.txt"
# 2. The op cache: written whole with a checksum; a damaged or hand-edited cache is ignored with a
#    warning naming it and why, and the step is simulated afresh (same answer as without a cache).
"$t" run "$R3" --op-cache "$tmp/ops" >/dev/null && [ -f "$tmp/ops" ] && [ -z "$(ls "$tmp" | grep 'ops\.')" ] ||
  { echo "FAIL: op cache not written to the file named (or a per-process file left): $(ls "$tmp")"; fail=1; }
head -n 1 "$tmp/ops" | grep -q '^trnsim-op-cache 1$' || { echo "FAIL: op cache header"; fail=1; }
expect 0 "step time" "$t" run "$R3" --op-cache "$tmp/ops"
sed '2s/ [0-9.e-]* / -1 /' "$tmp/ops" >"$tmp/neg"
fresh=$("$t" run "$R3" --format json | python3 -c "import json,sys; print(json.load(sys.stdin)['step']['step_time_s'])")
expect 0 "warning: $tmp/neg: checksum mismatch.*ignored" "$t" run "$R3" --op-cache "$tmp/neg"
got=$("$t" run "$R3" --format json --op-cache "$tmp/neg" 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['step']['step_time_s'])")
[ "$got" = "$fresh" ] || { echo "FAIL: a damaged op cache changed the answer: $got vs $fresh"; fail=1; }
expect 0 "step time" "$t" run "$R3" --op-cache "$tmp/neg"   # the damaged cache was rewritten whole: no warning now
printf '%s' "$out" | grep -q warning && { echo "FAIL: a damaged op cache was not rewritten: $out"; fail=1; }
sed '2s/ [0-9.e-]* / -1 /' "$tmp/ops" >"$tmp/neg"
python3 - "$tmp/neg" <<'PY'   # re-sign the edited file: the value check must catch it on its own
import sys
p = sys.argv[1]; text = open(p).read(); body = text[:text.rindex("checksum ")]
h = 1469598103934665603
for c in body.encode(): h = ((h ^ c) * 1099511628211) % 2**64
open(p, "w").write(body + "checksum %016x\n" % h)
PY
expect 0 "warning: .*finite non-negative" "$t" run "$R3" --op-cache "$tmp/neg"
printf 'key 1 2 3\n' >"$tmp/old"
expect 0 "warning: .*header" "$t" run "$R3" --op-cache "$tmp/old"
# Search: a space where nothing fits is an error (the outputs still show why).
expect 1 "none of the 144 layouts fits in memory" "$t" search --model llama2-7b --hw trn1.32xlarge --nodes 1 --axes "tp=1;pp=1;zero=0" --out "$tmp/oom"
grep -q "does not fit in HBM 144" "$tmp/oom.md" || { echo "FAIL: search rejection counts"; fail=1; }
# 3. Campaigns: a run that cannot make progress is refused; a 10^15-token one finishes (ctest TIMEOUT bounds it).
expect 1 "essentially never complete\|restarts" "$t" campaign "$R3" --mtbf-node-hours 100 --checkpoint-interval 1000000 --tokens 1e15
expect 0 "goodput" "$t" campaign "$R3" --tokens 1e15 --checkpoint-interval 1 --mtbf-node-hours 100 --trials 1000
# 4. Inputs that are not what a command reads.
expect 1 "not a published-results file" "$t" reproduce --published "$R3" --out "$tmp"
expect 1 "not a data directory" "$t" list --data-dir /nonexistent
# validation --explain prints the same prediction the validation report holds for that row
# (results/validation.json), then the row's step report; --trace writes its trace.
pred=$("$t" validation --explain seed:3 --trace "$tmp/row.json" | sed -n 's/^  predicted \([0-9.e+]*\) .*/\1/p')
python3 - "$pred" <<'PY' || { echo "FAIL: --explain seed:3 predicted '$pred' differs from results/validation.json"; fail=1; }
import json, sys
row = next(r for r in json.load(open("results/validation.json"))["rows"]
           if r["dataset"] == "seed" and r["row"] == 3 and r["quantity"] == "cluster_seq_per_s")
sys.exit(0 if abs(float(sys.argv[1]) / row["predicted"] - 1) < 1e-4 else 1)
PY
python3 -c "import json,sys; json.load(open(sys.argv[1]))['traceEvents']" "$tmp/row.json" || { echo "FAIL: --explain --trace wrote no trace"; fail=1; }
expect 0 "step time" "$t" validation --explain seed:3
# ... and with --sensitivity, the elasticities and how far each resource alone would have to move.
expect 0 "to give the measured value by one resource alone (step x" "$t" validation --explain seed:3 --sensitivity
# --workload: the row's workload as a file that `trnsim run` reproduces; a row whose model the
# dataset adapter builds (no models/ file) is refused by name and nothing is written.
"$t" validation --explain seed:3 --workload "$tmp/row_w.json" >/dev/null || { echo "FAIL: --explain --workload"; fail=1; }
step_row=$("$t" validation --explain seed:3 | sed -n 's/^step time  *\([0-9.]*\) s.*/\1/p')
step_run=$("$t" run "$tmp/row_w.json" | sed -n 's/^step time  *\([0-9.]*\) s.*/\1/p')
{ [ -n "$step_row" ] && [ "$step_row" = "$step_run" ]; } || { echo "FAIL: trnsim run of the --workload file: '$step_run' s, the row: '$step_row' s"; fail=1; }
expect 1 "built by the dataset adapter" "$t" validation --explain vtrain_single:3 --workload "$tmp/never.json"
[ ! -e "$tmp/never.json" ] || { echo "FAIL: --workload wrote a file for a row it refused"; fail=1; }
# A corpus directory with only some of the datasets' files: the others are skipped with a warning
# naming each file and listed in validation.json; --check fails on a dataset with a recorded limit
# whose file is not there; a dataset asked for by name must be there.
mkdir -p "$tmp/part"
cp data/validation/llmfoundry_mpt_2023_07_a100_80gb.csv "$tmp/part/"
expect 0 "warning: dataset torchtitan skipped: $tmp/part/torchtitan.csv is not there" \
  "$t" validation --data "$tmp/part" --no-leave-out --quiet --out "$tmp/partout"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); n={m['dataset'] for m in d['datasets_not_found']}; \
assert 'torchtitan' in n and 'llmfoundry' not in n and d['by_dataset']['llmfoundry / tokens_per_s_per_gpu']['rows'] > 0, n" \
  "$tmp/partout/validation.json" || { echo "FAIL: datasets_not_found in validation.json"; fail=1; }
expect 1 "kempnerforge / tokens_per_s_per_gpu .*MISSING" \
  "$t" validation --data "$tmp/part" --no-leave-out --quiet --out "$tmp/partout" --check results/validation/thresholds.json
expect 1 "torchtitan.csv: cannot open the CSV file" "$t" validation --data "$tmp/part" --dataset torchtitan --no-leave-out --quiet --out "$tmp/partout"
expect 1 "trnsim calibrate: $tmp/part/.* is not there .*the fit needs every dataset" "$t" calibrate --data "$tmp/part" --out "$tmp/partout"
# An output that cannot be written is refused before the fit: `calibrate --apply` must not rewrite the hw
# files for a fit whose report it then cannot write (it did: the fit applied, then the write failed).
hw_before=$(cat hw/*.json | md5sum)
expect 1 "calibration.json" "$t" calibrate --apply --out "$tmp/no/such/dir"
[ "$(cat hw/*.json | md5sum)" = "$hw_before" ] || { echo "FAIL: calibrate --apply changed hw files with an unwritable --out"; fail=1; }
expect 1 "reproduction.json" "$t" reproduce --out "$tmp/no/such/dir"
# search and sweep refuse an unwritable output prefix before any work, where they used to search or
# sweep first and lose the result: the one line is the error (no search progress lines), and no
# configuration ran (the sweep's --op-cache file is never written).
for cmd in "search --model llama2-7b --hw trn1.32xlarge --nodes 1 --seq 2048 --global-batch 64" \
           "sweep --model bert-large --hw dl1.24xlarge --nodes 1 --seq 128 --global-batch 256 --micro-batches 32 --op-cache $tmp/sweep-ops"; do
  out=$($t $cmd --out "$tmp/no/such/dir/x" 2>&1); rc=$?
  [ "$rc" = 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && printf '%s' "$out" | grep -q "x.json: cannot write file" ||
    { echo "FAIL: ${cmd%% *} with an unwritable --out: rc $rc: $out"; fail=1; }
done
[ ! -e "$tmp/sweep-ops" ] || { echo "FAIL: sweep with an unwritable --out ran its configurations first"; fail=1; }
# Memory over the usable HBM: by less than trnsim's memory error on published runs (results/validation.json's
# peak-memory rows, +2.6 % at the 95th percentile) the step is predicted with a warning (stderr and the report's
# notes); by more, refused with exit 1. The R3 layout's own peak sets the capacity 1 % and 10 % short of it.
peak=$("$t" run "$R3" --format json --no-scaling --no-split-advice | python3 -c "import json,sys; print(json.load(sys.stdin)['memory_per_core_gib']['total'])")
short1=$(python3 -c "print($peak / 16 / 1.01)")    # trn1: 32 GiB per chip, 2 cores
short10=$(python3 -c "print($peak / 16 / 1.10)")
expect 0 "warning: .*does not fit in HBM.*over by 1.0 %.*its step is predicted" "$t" run "$R3" --no-scaling --no-split-advice --hw-set "hbm.usable_fraction=$short1"
printf '%s' "$out" | grep -q "^step time" || { echo "FAIL: a marginal layout was not predicted: $out"; fail=1; }
printf '%s' "$out" | grep -q "^note: warning: .*does not fit in HBM" || { echo "FAIL: the report does not carry the warning: $out"; fail=1; }
expect 1 "does not fit in HBM" "$t" run "$R3" --no-scaling --no-split-advice --hw-set "hbm.usable_fraction=$short10"
printf '%s' "$out" | grep -q "step time" && { echo "FAIL: a layout 10 % over was predicted: $out"; fail=1; }
exit $fail
