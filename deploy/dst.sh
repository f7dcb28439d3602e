#!/usr/bin/env bash
# Deterministic simulation testing at depth: nanopu-dst over many seeds
# (tools/simulator/dst.h). The test command runs 200 seeds; this runs as many as
# asked, in batches, printing each batch's summary and every failing seed's
# replay command.
#   bash deploy/dst.sh [SEEDS=10000] [BUILD_DIR=build] [FIRST_SEED=1]
set -euo pipefail
seeds=${1:-10000}
build=${2:-build}
first=${3:-1}
bin="$build/nanopu-dst"
[[ -x "$bin" ]] || { echo "dst.sh: no $bin (build first: cmake --build $build --target nanopu-dst)" >&2; exit 2; }
batch=1000
failed=0
start=$(date +%s)
for ((s = first; s < first + seeds; s += batch)); do
  n=$(( first + seeds - s < batch ? first + seeds - s : batch ))
  if ! "$bin" --first_seed="$s" --seeds="$n" --replay_every=100; then failed=1; fi
done
echo "dst.sh: $seeds seeds from $first in $(( $(date +%s) - start )) s: $([[ $failed == 0 ]] && echo 'all passed' || echo 'FAILURES above')"
exit $failed
