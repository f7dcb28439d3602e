#!/usr/bin/env bash
# Churn at depth (not in CI): the churn test (tests/e2e/churn_test.cc) with
# as many restarts as asked — a server and its clients on the io_uring
# backend, killed with SIGKILL and started again in turn, traffic flowing;
# no process may die except those killed, and the last client's every
# request must be answered once or reported.
# Usage: bash deploy/churn.sh [restarts, default 1000] [build dir, default build]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
build=${2:-build}
[ -x "$build/tests/e2e_churn_test" ] || ninja -C "$build" e2e_churn_test nanopu-server nanopu-loadgen >/dev/null
start=$(date +%s)
NANOPU_CHURN_RESTARTS=$n "$build/tests/e2e_churn_test"
echo "churn: $n restarts in $(( $(date +%s) - start )) s, every process alive until killed"
