#!/usr/bin/env bash
# Churn at depth (not in CI): the churn tests with as many restarts as asked —
# a server, its clients and (through nanopu-switch) the switch, killed with
# SIGKILL and started again in turn, traffic flowing; no process may die
# except those killed, each churned client must be answered before it goes,
# and a last client's every request must be answered once or reported.
# Topologies: uring (kernel UDP sockets), memif (two hosts), memif_switch
# (two memif hosts through the switch): tests/e2e/churn_test.cc; af_packet
# (hosts and switch in network namespaces on veth pairs, as deploy/netns
# runs them; root): tests/e2e/process_restart_test.cc.
# Usage: bash deploy/churn.sh [restarts, default 1000] [build dir, default build]
#                             [topology: uring, memif, memif_switch, af_packet or all (default)]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
build=${2:-build}
topology=${3:-all}
case "$topology" in
  uring|memif|memif_switch|af_packet|all) ;;
  *) echo "churn.sh: topology '$topology': expected uring, memif, memif_switch, af_packet or all" >&2; exit 2 ;;
esac
ninja -C "$build" e2e_churn_test e2e_process_restart_test nanopu-server nanopu-loadgen nanopu-switch >/dev/null
start=$(date +%s)
export NANOPU_CHURN_RESTARTS=$n
if [ "$topology" != af_packet ]; then
  filter="*ChurnTest*"
  [ "$topology" = all ] || filter="*ChurnTest*/$topology"
  "$build/tests/e2e_churn_test" --gtest_filter="$filter"
fi
if [ "$topology" = af_packet ] || [ "$topology" = all ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "churn.sh: af_packet needs root (network namespaces): not run" >&2
    [ "$topology" = af_packet ] && exit 1
  else
    "$build/tests/e2e_process_restart_test" --gtest_filter='*ServerClientAndSwitchChurned*'
  fi
fi
echo "churn ($topology): $n restarts per topology in $(( $(date +%s) - start )) s, every process alive until killed"
