#!/usr/bin/env bash
# Builds and runs every test: the normal build, the same suite built with
# AddressSanitizer + UndefinedBehaviorSanitizer, the ring and scheduler tests
# under ThreadSanitizer, and a short libFuzzer run — each in its own build
# directory.
# Usage: bash deploy/test.sh     (set-up included)
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/setup.sh

echo "== build (RelWithDebInfo) =="
bash deploy/build.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo
echo "== tests =="
(cd build && ctest --output-on-failure)

echo "== build (ASan + UBSan) =="
bash deploy/build.sh build-asan -DCMAKE_BUILD_TYPE=Debug -DNANOPU_SANITIZE=ON -DNANOPU_BUILD_BENCH=OFF
echo "== tests under ASan + UBSan =="
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
   LSAN_OPTIONS="suppressions=$PWD/../lsan.supp" \
   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure)

echo "== build (ThreadSanitizer) =="
bash deploy/build.sh build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNANOPU_TSAN=ON -DNANOPU_BUILD_BENCH=OFF
echo "== ring and scheduler tests under ThreadSanitizer =="
(cd build-tsan && TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/../tsan.supp" \
   ctest --output-on-failure -R 'scheduler_|e2e_isolation|e2e_loopback_ring|FiberTest|HtsPolicyTest|CoreSelectorTest')

echo "== fuzz smoke run (libFuzzer, 10 s per target) =="
bash deploy/fuzz.sh 10
