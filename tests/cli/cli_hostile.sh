#!/bin/bash
# cli_hostile.sh — what a hostile or careless input must not break: each numbered case is a
# reproducer that crashed, lost or damaged output, or answered wrongly, and now gets a one-line
# error (exit 1 or 2) or the right answer.
# usage: cli_hostile.sh TRNSIM   (run from the source root)
t="$1"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
TN=workloads/torchneuron_llama3.1_8b_trn2_tp4_fsdp16.json
MOE=workloads/qwen3_30b_a3b_gb200_ep8.json
fail=0
expect() {  # rc, fragment (in stdout or stderr), command...; an error is one line on stderr
  want_rc="$1"; want="$2"; shift 2
  # (ASan's notes on SystemC's coroutine stacks are not trnsim's output)
  out=$("$@" 2>"$tmp/stderr"); rc=$?; err=$(grep -v -e "^==[0-9]*==WARNING: ASan is ignoring" -e "^False positive error reports may follow" -e "^For details see https://github.com/google/sanitizers" "$tmp/stderr"); out="$out$err"
  if [ "$rc" -ne "$want_rc" ] || ! printf '%s' "$out" | grep -q -- "$want"; then
    echo "FAIL: $(printf '%.300s' "$*") -> rc $rc (want $want_rc, \"$want\"): $(printf '%.400s' "$out")"; fail=1
  fi
  [ "$want_rc" -eq 0 ] || [ "$(printf '%s\n' "$err" | grep -c .)" -le 1 ] || { echo "FAIL: more than one line of error: $err"; fail=1; }
}
# 1-2. Deep nesting: a one-line error, not a crash or gigabytes of memory (the test's time-out bounds it).
python3 -c "print('{\"a\":'*100000+'1'+'}'*100000)" >"$tmp/n.json"
python3 -c "print('{\"a\":'+'['*200000+']'*200000+'}')" >"$tmp/a.json"
expect 1 "nested deeper than 256 levels" "$t" run "$tmp/n.json"
expect 1 "nested deeper than 256 levels" "$t" validate "$tmp/a.json"
expect 2 "nested deeper than 256 levels" "$t" run "$TN" --set "parallel.tp=$(python3 -c "print('['*1000+']'*1000)")"
# 3 and 9. Search axes are range-checked (pp=0 was SIGFPE).
for ax in pp=0 "pp=0,1" tp=0 ep=0 cp=0 mb=0 vs=0 etp=0; do
  expect 2 "out of range; a degree is a whole number" "$t" search --model llama3.1-8b --hw dgx-h100 --nodes 1 --axes "$ax" --out "$tmp/s"
done
expect 2 "ZeRO stages are 0, 1, 2 and 3" "$t" search --model llama3.1-8b --hw dgx-h100 --nodes 1 --axes zero=9 --out "$tmp/s"
expect 2 "no listed degree splits the sequence of 4096 tokens" "$t" search --model llama3.1-8b --hw dgx-h100 --nodes 1 --seq 4096 --axes cp=3 --out "$tmp/s"
python3 - "$tmp" <<'PY'
import json, sys
d = json.load(open("studies/r3-2023.json"))
t = sys.argv[1]
def w(file, **edit):
    x = json.loads(json.dumps(d)); x.update(edit); json.dump(x, open(f"{t}/{file}.json", "w"))
w("axes0", axes="tp=0")
w("evil", name="../evil"); w("abs", name="/tmp/x"); w("hidden", name="")
m = json.loads(json.dumps(d["models"])); m[0]["chips"] = 2047; w("chips", models=m)
w("pairs", pairs=[{"trainium": "trn1.32xlarge", "gpu": "p5.48xlarge"}])
h = json.loads(json.dumps(d["hardware"])); h[0]["hw"] = "../hw/trn1.32xlarge"; w("trav", hardware=h)
p = json.load(open("prices/aws-2023.json"))
first = next(iter(p["instances"])); plan = p["plans"][0]; p["instances"][first][plan] = 0
json.dump(p, open(f"{t}/free.json", "w"))
PY
expect 1 "/axes: tp: \"0\" is out of range" "$t" compare "$tmp/axes0.json" --out "$tmp/c"
# 6. A study's name is a name, not a path.
for n in evil abs hidden; do expect 1 "/name: .* is not a name" "$t" compare "$tmp/$n.json" --out "$tmp/c"; done
[ ! -e results/.md ] && [ ! -e evil.md ] || { echo "FAIL: a study name wrote outside results/"; fail=1; }
# 12. Silent acceptances: chips that are not whole nodes, pairs naming no study hardware, a free price,
#     a MoE block without a MoE layer, empty option values, --vs with nothing.
expect 1 "/models/0/chips: 2047 chips is not a whole number of trn1.32xlarge nodes" "$t" compare "$tmp/chips.json" --out "$tmp/c"
expect 1 "/pairs/0/gpu: \"p5.48xlarge\" is not one of the study's hardware entries" "$t" compare "$tmp/pairs.json" --out "$tmp/c"
expect 1 "out of range" "$t" compare studies/r3-2023.json --prices "$tmp/free.json" --out "$tmp/c"
python3 -c "
import json; m = json.load(open('models/qwen3-30b-a3b.json')); m['moe']['dense_layers'] = m['layers']
json.dump(m, open('$tmp/nomoe.json', 'w'))"
expect 1 "/moe: no layer is a MoE layer" "$t" validate "$tmp/nomoe.json"
expect 2 "--vs is given an empty value" "$t" run "$TN" --vs ""
expect 2 "--dataset is given an empty value" "$t" validation --dataset ""
expect 2 "--stack is given an empty value" "$t" search --model llama3.1-8b --hw dgx-h100 --nodes 1 --stack ""
# 13. Names, not paths, reach the data directory.
expect 2 "--hw ../hw/dgx-h100: .* is not an instance name" "$t" search --model llama3.1-8b --hw ../hw/dgx-h100 --nodes 1
expect 2 "--model ../models/llama3.1-8b: not a model name" "$t" sweep --model ../models/llama3.1-8b --hw dgx-h100 --nodes 1
expect 1 "/hardware/0/hw: \"../hw/trn1.32xlarge\" is not an instance name" "$t" compare "$tmp/trav.json" --out "$tmp/c"
# 14. validate tells a study and a price file from a workload.
expect 0 "ok   studies/r3-2023.json" "$t" validate studies/r3-2023.json prices/aws-2023.json
expect 1 "FAIL .*pairs/0/gpu" "$t" validate "$tmp/pairs.json"
# 15. An error under a long --set names the failing field, not the whole list.
long=$(python3 -c "print(';'.join(['parallel.tp=4']*6000) + ';parallel.tp=3')")
out=$("$t" run "$TN" --set "$long" 2>&1); rc=$?
{ [ "$rc" = 1 ] && [ "${#out}" -lt 600 ] && printf '%s' "$out" | grep -q "6001 edits"; } ||
  { echo "FAIL: long --set error: rc $rc, ${#out} bytes: $(printf '%.300s' "$out")"; fail=1; }
# 10. Invalid UTF-8 and symlink loops are input errors (exit 1 or 2), not internal errors.
bad=$(printf 'parallel.tp=\xff\xfe')
expect 2 "not valid UTF-8" "$t" run "$TN" --set "$bad"
expect 2 "not valid UTF-8" "$t" run "$TN" --vs "$bad"
expect 2 "not valid UTF-8" "$t" run "$TN" --output "$tmp/$(printf '\xff').txt"
mkdir -p "$tmp/data"; cp -r hw models stacks "$tmp/data/"
ln -s loop.json "$tmp/data/models/loop.json"; ln -s loop.json "$tmp/data/stacks/loop.json"
expect 1 "loop.json" "$t" run "$TN" --data-dir "$tmp/data" --set "model=loop"
expect 1 "loop.json" "$t" run "$TN" --data-dir "$tmp/data" --set "stack=loop"
expect 0 "models:" "$t" list --data-dir "$tmp/data"
# 11. The CP factor is in the product the message shows.
expect 1 "tp x pp x cp x dp = 1 x 1 x 2 x 8 = 16" "$t" run "$MOE" --set "parallel.cp=2"
# 5. A failed write to standard output is an error.
for args in "run $TN" "run $TN --format json" "list"; do
  # shellcheck disable=SC2086
  "$t" $args >/dev/full 2>"$tmp/err"; rc=$?
  [ "$rc" = 1 ] && grep -q "standard output: cannot write" "$tmp/err" || { echo "FAIL: $args > /dev/full -> rc $rc: $(cat "$tmp/err")"; fail=1; }
done
# 4. A special file is written in place, never replaced by a regular file.
mkfifo "$tmp/fifo"; cat "$tmp/fifo" >"$tmp/fifo.out" & reader=$!
"$t" run "$TN" --output "$tmp/fifo" >/dev/null 2>&1 || { echo "FAIL: --output FIFO"; fail=1; }
wait $reader
[ -p "$tmp/fifo" ] && grep -q "step time" "$tmp/fifo.out" || { echo "FAIL: the FIFO was replaced or got nothing"; fail=1; }
echo keep >"$tmp/real.txt"; ln -s real.txt "$tmp/link.txt"
"$t" run "$TN" --output "$tmp/link.txt" >/dev/null 2>&1
[ -L "$tmp/link.txt" ] && grep -q "step time" "$tmp/real.txt" || { echo "FAIL: a symlinked output lost its link"; fail=1; }
expect 1 "is a directory" "$t" run "$TN" --output "$tmp"
# 7. Partial result sets: nothing of a set is left when one of its files cannot be written.
expect 1 "cannot write file" "$t" run "$TN" --trace "$tmp/ok.json" --output "$tmp/none/x.txt"
[ ! -e "$tmp/ok.json" ] || { echo "FAIL: run left its trace beside a failed report"; fail=1; }
mkdir -p "$tmp/cmp.svg"
expect 1 "cmp.svg: is a directory" "$t" compare studies/r3-2023.json --out "$tmp/cmp"
[ ! -e "$tmp/cmp.json" ] && [ ! -e "$tmp/cmp.md" ] || { echo "FAIL: compare left part of its set"; fail=1; }
expect 1 "cannot write file" "$t" validation --explain seed:3 --trace "$tmp/t.json" --workload "$tmp/none/w.json"
[ ! -e "$tmp/t.json" ] || { echo "FAIL: --explain left its trace beside a failed workload"; fail=1; }
# 8. --op-cache creates the file it names; a directory is refused before any work.
"$t" run "$TN" --op-cache "$tmp/oc.bin" >/dev/null && [ -f "$tmp/oc.bin" ] && [ -z "$(ls "$tmp" | grep 'oc\.bin\.')" ] ||
  { echo "FAIL: --op-cache did not create the file it names: $(ls "$tmp")"; fail=1; }
expect 2 "--op-cache .*: is a directory" "$t" run "$TN" --op-cache "$tmp"
# trnsim collective: its options checked before anything is simulated; a measured table compared.
expect 2 "--hw is required" "$t" collective
expect 2 "--op broadcast: use all_reduce" "$t" collective --hw p5.48xlarge --op broadcast
expect 2 "--size 8G..32M: expected LO..HI" "$t" collective --hw p5.48xlarge --size 8G..32M
expect 2 "\"32Q\" is not a size" "$t" collective --hw p5.48xlarge --size 32M,32Q
expect 0 "mean abs error on bus bandwidth: .* over 80 rows" "$t" collective --hw p5.48xlarge --compare data/validation/nccl_tests_p5_efa.csv
expect 1 "no row is for trn1.32xlarge" "$t" collective --hw trn1.32xlarge --compare data/validation/nccl_tests_p5_efa.csv
printf 'collective,nodes,size_MB,busbw_GBps\nall_reduce,2,32,-1\n' >"$tmp/neg.csv"
expect 1 "neg.csv: row 1: column busbw_GBps: \"-1\" is not a positive number" "$t" collective --hw p5.48xlarge --compare "$tmp/neg.csv"
# 16. A search shows progress on stderr (a line per stage where stderr is not a terminal); --quiet silences it.
"$t" search --model llama2-7b --hw trn1.32xlarge --nodes 1,2 --out "$tmp/prog" >/dev/null 2>"$tmp/prog.err"
grep -q "trnsim search: .* layouts enumerated" "$tmp/prog.err" && grep -q "trnsim search: .* plan shapes" "$tmp/prog.err" &&
  grep -q "trnsim search: .* layouts fit, .* simulated" "$tmp/prog.err" || { echo "FAIL: search progress: $(cat "$tmp/prog.err")"; fail=1; }
"$t" search --model llama2-7b --hw trn1.32xlarge --nodes 1 --out "$tmp/prog" --quiet >/dev/null 2>"$tmp/prog.err"
[ ! -s "$tmp/prog.err" ] || { echo "FAIL: search --quiet printed: $(cat "$tmp/prog.err")"; fail=1; }
# No stray temporaries anywhere in the scratch directory.
[ -z "$(find "$tmp" -name '*.tmp.*')" ] || { echo "FAIL: temporaries left: $(find "$tmp" -name '*.tmp.*')"; fail=1; }
exit $fail
