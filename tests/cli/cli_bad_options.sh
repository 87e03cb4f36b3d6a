#!/bin/sh
# cli_bad_options.sh — issue 15 reproducers: every bad numeric option is a one-line usage error
# (exit 2) naming the option, never a crash (SIGFPE, "internal error: stoll") or a silent default.
# usage: cli_bad_options.sh TRNSIM
t="$1"
fail=0
check() {  # expected-fragment, then the command's arguments
  want="$1"; shift
  out=$("$t" "$@" 2>&1); rc=$?
  # ASan's note about SystemC's coroutine stacks is not the program's output.
  out=$(printf '%s\n' "$out" | grep -v -e '^==[0-9]*==WARNING: ASan is ignoring' -e '^False positive error reports may follow' \
        -e '^For details see https://github.com/google/sanitizers/issues/189')
  lines=$(printf '%s\n' "$out" | wc -l)
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! printf '%s' "$out" | grep -q -- "$want"; then
    echo "FAIL: trnsim $* -> rc $rc: $out"; fail=1
  fi
}
S="sweep --model llama2-7b --hw trn1.32xlarge"
for v in 0 abc 9223372036854775807; do check "--micro-batches" $S --nodes 1 --micro-batches "$v"; done
for v in 1.5 4abc 0 9223372036854775807; do check "--nodes" $S --nodes "$v"; done
for v in 0 -3 1e30; do check "--workers" $S --nodes 1 --workers "$v"; done
for v in 1e30 nan; do check "--seq" $S --nodes 1 --seq "$v"; done
check "--global-batch" $S --nodes 1 --global-batch 1e30
check "--timeout" $S --nodes 1 --timeout 0
check "dgx-a100-80g has no fp8 GEMMs" sweep --model llama2-7b --hw p5.48xlarge,dgx-a100-80g --nodes 1 --precision fp8
check "--precision" $S --nodes 1 --precision int4
check "--stack" $S --nodes 1 --stack no-such-stack
for v in false 0 banana; do check "--no-scaling takes no value" run workloads/llama7b_tp8_dp512.json --no-scaling="$v"; done
check "--quiet takes no value" validation --quiet=no
check "--lora-rank" sweep --model qwen3-30b-a3b --hw p5.48xlarge --nodes 1 --lora-rank 16
check "--lora-rank" $S --nodes 1 --lora-rank -1
for v in -1 nan; do check "--train-tokens" $S --nodes 1 --train-tokens "$v"; done
C="campaign workloads/llama7b_tp8_dp512.json"
for v in inf 1e308; do check "--tokens" $C --tokens "$v"; done
check "--mtbf-node-hours" $C --mtbf-node-hours 1e-9
check "--checkpoint-interval" $C --checkpoint-interval 1e-9
check "--checkpoint-interval" $C --checkpoint-interval -10
check "--storage-GBps" $C --storage-GBps 1e-12
check "--host-copy-GBps" $C --async-save --host-copy-GBps 0
check "--host-copy-GBps" $C --host-copy-GBps -1
check "--restart-min" $C --restart-min -1e6
check "--detect-min" $C --detect-min -100
# Parsing (CLI11): unknown options, missing values, values given twice, words outside a choice.
R="run workloads/llama7b_tp8_dp512.json"
check "unknown option --bogus" $R --bogus 1
check "unknown option -x" $R -x
check "--output needs a value" $R --output
check "--format is given more than once" $R --format json --format text
check "--format \"xml\" is not allowed; choose one of: text, json, md" $R --format xml
check "--set \"parallel.tp\": expected path=value" $R --set parallel.tp
for v in 0 -5 101 abc; do check "--sensitivity-pct" $R --sensitivity-pct "$v"; done
check "--sensitivity takes no value" $R --sensitivity=20
check "--hw-set \"hbm\": expected path=value" $R --hw-set hbm
check "--vs \"parallel.tp\": expected path=value" $R --vs parallel.tp
check "--vs-hw \"hbm\": expected path=value" $R --vs-hw hbm
check "--vs needs a value" $R --vs
check "--sensitivity-pct 0 is out of range" compare studies/r3-2023.json --sensitivity-pct 0 --quiet
check "--set \"name.x=1\": \"name\" is a value, not a section" $R --set "name.x=1"
check "--set \"parallel\": expected path=value" graph workloads/llama7b_tp8_dp512.json --set parallel
check "--set \"nodes\": expected path=value" $C --set nodes
check "--format \"xml\" is not allowed" $C --format xml
check "--recovery \"later\" is not allowed" $C --recovery later
# search: bad axes, an empty space.
Q="search --model llama2-7b --hw trn1.32xlarge --nodes 1"
check "--axes \"foo=1\": expected AXIS=V1,V2" $Q --axes foo=1
check "--axes tp: \"x\" is not a value" $Q --axes tp=x
check "--hw-set \"x\": expected path=value, e.g. hbm.bandwidth_GBps_per_chip" $Q --hw-set x
check "--axes precision: \"fp6\" is not a precision (bf16, fp8, mxfp8, nvfp4)" $Q --axes precision=fp6
check "the space is empty" $Q --axes tp=64
check "--top-k 0 is out of range" $Q --top-k 0
# search --stack: an unknown profile or a path is a usage error naming the option.
check "--stack: unknown stack" search --model llama2-7b --hw trn1.32xlarge --nodes 1 --stack torchtitn
check "--stack: \"../hw/trn1.32xlarge\" is not a stack name" search --model llama2-7b --hw trn1.32xlarge --nodes 1 --stack ../hw/trn1.32xlarge
# search fine-tuning options: LoRA on a MoE model, a document longer than the sequence.
check "--lora-rank: LoRA is modelled for dense attention / MLP decoders" search --model qwen3-30b-a3b --hw dgx-h100 --nodes 1 --lora-rank 8
check "--document-tokens 99999 is out of range" $Q --seq 4096 --document-tokens 99999
# compare: the study argument and numeric options.
check "expected one STUDY.json" compare
check "--tolerance" compare studies/r3-2023.json --tolerance 2
check "--jobs" compare studies/r3-2023.json --jobs 0
# validation --explain: a malformed row, an unknown dataset, a row that is not there; --trace alone.
check "--explain nvidia_nemo_moe: expected DATASET:ROW" validation --explain nvidia_nemo_moe
check "--explain seed:0: expected DATASET:ROW" validation --explain seed:0
check "--explain nemo:3: unknown dataset 'nemo'" validation --explain nemo:3
check "--explain seed:999: seed has no data row 999" validation --explain seed:999
check "--sensitivity needs --explain DATASET:ROW" validation --sensitivity
check "that row of .*nvidia_nemo_megatron_bridge.csv is in nvidia_nemo (--explain nvidia_nemo:1)" validation --explain nvidia_nemo_moe:1
check "--trace needs --explain DATASET:ROW" validation --trace /tmp/never-written.json
check "--workload needs --explain DATASET:ROW" validation --workload /tmp/never-written.json
# --version: exit 0, one line, pyproject.toml's version (the one version number).
want=$(sed -n 's/^version = "\(.*\)"$/trnsim \1 /p' "$(dirname "$0")/../../pyproject.toml")
out=$("$t" --version 2>&1); rc=$?
case "$out" in "$want"*) [ "$rc" -eq 0 ] || { echo "FAIL: trnsim --version -> rc $rc"; fail=1; } ;;
  *) echo "FAIL: trnsim --version printed '$out', expected it to start with '$want'"; fail=1 ;; esac
exit $fail
