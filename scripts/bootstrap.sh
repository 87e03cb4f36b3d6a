#!/usr/bin/env bash
# bootstrap.sh — sourced by scripts/trnsim and scripts/test: on first use, install the Debian
# packages the task needs (as root, via apt-get, without "recommended" extras) and build in build/
# (Release). Later calls only rebuild what changed. Set TRNSIM_BUILD_DIR or TRNSIM_CMAKE_FLAGS to vary.
#   TRNSIM_BOOTSTRAP=run  (scripts/trnsim): the build tools and libraries, and only the `trnsim` target
#   TRNSIM_BOOTSTRAP=test (scripts/test):   also Catch2, Google Benchmark, pybind11, the Python test
#                                           and plotting packages, and every target
set -euo pipefail
TRNSIM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TRNSIM_BUILD_DIR="${TRNSIM_BUILD_DIR:-$TRNSIM_ROOT/build}"
TRNSIM_BOOTSTRAP="${TRNSIM_BOOTSTRAP:-run}"
TRNSIM_RUN_PACKAGES="g++ make ninja-build cmake pkg-config libsystemc-dev libeigen3-dev libboost-graph-dev nlohmann-json3-dev libfmt-dev libcli11-dev libgoogle-perftools-dev"
TRNSIM_TEST_PACKAGES="catch2 libbenchmark-dev parallel pybind11-dev python3-dev python3-jsonschema python3-pandas python3-matplotlib python3-setuptools python3-venv python3-pip"
# Plotting (scripts/plot.py, the Python example) needs python3-matplotlib: scripts/test installs it;
# `trnsim_install_packages python3-matplotlib` is what a plot-only user runs.

trnsim_install_packages() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "trnsim: installing missing Debian packages: ${missing[*]}" >&2
    local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  fi
}

# Quiet unless something goes wrong: the build log goes to $TRNSIM_BUILD_DIR/build.log and
# only a first build (about 2.5 minutes on 2 cores for `trnsim`, 4 for every target) announces itself; a failed build prints the log's tail.
trnsim_build() {
  mkdir -p "$TRNSIM_BUILD_DIR"
  local log="$TRNSIM_BUILD_DIR/build.log" gen=()
  command -v ninja >/dev/null 2>&1 && [ ! -f "$TRNSIM_BUILD_DIR/CMakeCache.txt" ] && gen=(-G Ninja)
  if [ ! -f "$TRNSIM_BUILD_DIR/CMakeCache.txt" ] || [ -n "${TRNSIM_CMAKE_FLAGS:-}" ] || [ "$TRNSIM_BOOTSTRAP" = test ]; then
    [ -f "$TRNSIM_BUILD_DIR/CMakeCache.txt" ] || echo "trnsim: first build in $TRNSIM_BUILD_DIR (about 2.5 minutes on 2 cores, 4 with the tests; log: $log)" >&2
    cmake "${gen[@]}" -S "$TRNSIM_ROOT" -B "$TRNSIM_BUILD_DIR" -DCMAKE_BUILD_TYPE=Release ${TRNSIM_CMAKE_FLAGS:-} >"$log" 2>&1 ||
      { tail -n 40 "$log" >&2; return 1; }
  fi
  local target=()
  [ "$TRNSIM_BOOTSTRAP" = run ] && target=(--target trnsim)
  cmake --build "$TRNSIM_BUILD_DIR" -j "$(nproc)" "${target[@]}" >>"$log" 2>&1 || { tail -n 60 "$log" >&2; return 1; }
}

if [ "$TRNSIM_BOOTSTRAP" = test ]; then
  # shellcheck disable=SC2086
  trnsim_install_packages $TRNSIM_RUN_PACKAGES $TRNSIM_TEST_PACKAGES
else
  # shellcheck disable=SC2086
  trnsim_install_packages $TRNSIM_RUN_PACKAGES
fi
trnsim_build
