#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a while; fails if
# a fuzzer finds a crash.
# Usage: bash deploy/fuzz.sh [seconds per target, default 10]
# A longer run: bash deploy/fuzz.sh 3600   (the corpus grows in build-fuzz/corpus-*)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-10}
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DNANOPU_BUILD_FUZZ=ON -DNANOPU_BUILD_TESTS=OFF -DNANOPU_BUILD_BENCH=OFF >/dev/null
for target in frame ndp_receiver homa_receiver thread_api switch kv_request chain_message rdma_request dot_request compute_request; do
  ninja -C build-fuzz "${target}_fuzz" >/dev/null
  corpus=build-fuzz/corpus-$target
  mkdir -p "$corpus"
  cp -n fuzz/corpus/$target/* "$corpus"/ 2>/dev/null || true
  echo "== fuzzing $target for ${SECONDS_PER_TARGET}s =="
  log=build-fuzz/$target.log
  if ! ./build-fuzz/fuzz/${target}_fuzz -max_total_time="$SECONDS_PER_TARGET" -print_final_stats=1 \
      -artifact_prefix=build-fuzz/ "$corpus" >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "fuzz: $target found a crash (artifact in build-fuzz/)" >&2
    exit 1
  fi
  grep -E "stat::number_of_executed_units|stat::new_units_added" "$log"
done
