#!/usr/bin/env bash
# run_fuzzers.sh — run each libFuzzer harness for SECONDS (default 60), seeded with the shipped
# files and the broken-input corpus (tests/bad), under ASan + UBSan. Exit non-zero on the first
# harness that finds a crash, a sanitizer report, a leak-free hang (-timeout) or an unexpected
# exception; the reproducer is left in the build directory (crash-*, timeout-*).
# usage: tests/fuzz/run_fuzzers.sh BUILD_DIR [SECONDS]
set -euo pipefail
build="$1"; seconds="${2:-60}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
seed() {  # harness, then seed files
  local h="$1"; shift
  mkdir -p "$work/$h"
  cp "$@" "$work/$h/"
}
seed fuzz_hw "$root"/hw/*.json "$root"/tests/bad/hw_*.json "$root"/tests/bad/duplicate_key.json "$root"/tests/bad/malformed_json.json
seed fuzz_model "$root"/models/*.json "$root"/tests/bad/model_*.json "$root"/tests/bad/number_overflow.json
seed fuzz_workload "$root"/workloads/*.json "$root"/tests/bad/*.json
seed fuzz_cli "$root"/tests/fuzz/cli_seeds/*
cd "$build"
fuzz() {
  # detect_leaks=0: the process-wide SystemC kernel and platform live until exit by design.
  ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "./tests/fuzz/$1" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
    -print_final_stats=1 "$work/$1" >"$work/$1.log" 2>&1
}
# Two at a time (one per core of the CI machine): 2 x SECONDS of wall time for all four.
status=0
for pair in "fuzz_hw fuzz_model" "fuzz_workload fuzz_cli"; do
  pids=()
  for h in $pair; do fuzz "$h" & pids+=($!); done
  i=0
  for h in $pair; do
    if wait "${pids[$i]}"; then
      echo "$h: ${seconds} s, $(grep -E "stat::number_of_executed_units" "$work/$h.log" | awk '{print $2}') inputs," \
           "$(grep -E "stat::new_units_added" "$work/$h.log" | awk '{print $2}') new coverage units, no findings"
    else
      echo "$h: FINDING"; tail -n 40 "$work/$h.log"; status=1
    fi
    i=$((i + 1))
  done
done
exit $status
