#!/usr/bin/env bash
# Builds kv-service against an installed nanopu and runs kv.topo on the
# modelled clock with one seed: the clients' results, then (last line) the
# run's trace hash. Same seed, same results and hash.
# Usage: sim.sh PREFIX SEED [BUILD_DIR]      PREFIX: where nanopu is installed
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix=${1:?usage: sim.sh PREFIX SEED [BUILD_DIR]} seed=${2:?usage: sim.sh PREFIX SEED [BUILD_DIR]}
build=${3:-${TMPDIR:-/tmp}/kv-service-build}
# A build directory already configured keeps its own settings (a test's
# sanitizer build); a new one is a Release build.
[ -f "$build/CMakeCache.txt" ] || cmake -S "$here" -B "$build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j 2 >/dev/null
"$build/kv-service" sim "$here/kv.topo" --sim_seed="$seed" --sim_progress=false
