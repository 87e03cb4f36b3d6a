#!/usr/bin/env bash
# bootstrap.sh — sourced by scripts/trnsim and scripts/test: on first use, install the
# Debian packages trnsim needs (as root, via apt-get) and build it in build/ (Release).
# Later calls only rebuild what changed. Set TRNSIM_BUILD_DIR or TRNSIM_CMAKE_FLAGS to vary.
set -euo pipefail
TRNSIM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TRNSIM_BUILD_DIR="${TRNSIM_BUILD_DIR:-$TRNSIM_ROOT/build}"
TRNSIM_PACKAGES="build-essential cmake pkg-config libsystemc-dev libeigen3-dev libboost-graph-dev nlohmann-json3-dev libfmt-dev libcli11-dev catch2 libbenchmark-dev parallel python3-matplotlib pybind11-dev python3-dev python3-jsonschema python3-pandas"

trnsim_install_packages() {
  local missing=()
  for p in $TRNSIM_PACKAGES; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "trnsim: installing missing Debian packages: ${missing[*]}" >&2
    local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
  fi
}

# Quiet unless something goes wrong: the build log goes to $TRNSIM_BUILD_DIR/build.log and
# only a first build (minutes) announces itself; a failed build prints the log's tail.
trnsim_build() {
  mkdir -p "$TRNSIM_BUILD_DIR"
  local log="$TRNSIM_BUILD_DIR/build.log"
  if [ ! -f "$TRNSIM_BUILD_DIR/CMakeCache.txt" ] || [ -n "${TRNSIM_CMAKE_FLAGS:-}" ]; then
    [ -f "$TRNSIM_BUILD_DIR/CMakeCache.txt" ] || echo "trnsim: first build in $TRNSIM_BUILD_DIR (a few minutes; log: $log)" >&2
    cmake -S "$TRNSIM_ROOT" -B "$TRNSIM_BUILD_DIR" -DCMAKE_BUILD_TYPE=Release ${TRNSIM_CMAKE_FLAGS:-} >"$log" 2>&1 ||
      { tail -n 40 "$log" >&2; return 1; }
  fi
  cmake --build "$TRNSIM_BUILD_DIR" -j "$(nproc)" >>"$log" 2>&1 || { tail -n 60 "$log" >&2; return 1; }
}

trnsim_install_packages
trnsim_build
