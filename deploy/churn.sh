#!/usr/bin/env bash
# Churn at depth (not in CI): the churn test (tests/e2e/churn_test.cc) with
# as many restarts as asked — a server and its clients, killed with SIGKILL
# and started again in turn, traffic flowing, on the io_uring backend and on
# net_memif; no process may die except those killed, and the last client's
# every request must be answered once or reported.
# Usage: bash deploy/churn.sh [restarts, default 1000] [build dir, default build]
#                             [backend: uring, memif or all (default)]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
build=${2:-build}
backend=${3:-all}
case "$backend" in
  uring|memif) filter="*ChurnTest*/$backend" ;;
  all) filter="*ChurnTest*" ;;
  *) echo "churn.sh: backend '$backend': expected uring, memif or all" >&2; exit 2 ;;
esac
[ -x "$build/tests/e2e_churn_test" ] || ninja -C "$build" e2e_churn_test nanopu-server nanopu-loadgen >/dev/null
start=$(date +%s)
NANOPU_CHURN_RESTARTS=$n "$build/tests/e2e_churn_test" --gtest_filter="$filter"
echo "churn ($backend): $n restarts per backend in $(( $(date +%s) - start )) s, every process alive until killed"
