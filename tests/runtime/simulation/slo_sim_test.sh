#!/usr/bin/env bash
# SLO-aware admission on the modelled clock (nanopu-sim; docs/services.md,
# "A call rejected for load"): an echo service spinning 2 us a request under
# a closed loop of 16, once with a 6 us SLO on its context and once without.
# With it, every answered call's modelled p99 is within the SLO and the rest
# are rejected, each heard by the client (rejected = given up, none lost);
# without it, the same throughput waits ~16 services deep. The run replays
# to one trace hash.
# Usage: slo_sim_test.sh NANOPU_SIM WORK_DIR
set -euo pipefail
sim=$1 work=$2
mkdir -p "$work"
topo() {  # topo EXTRA_SERVER_FLAGS
  printf 'switch sw --switch_gbps=100\n'
  printf 'host srv 10.0.0.1 02:00:00:00:00:01 server --app=service --context=1 %s\n' "$1"
  printf 'host cla 10.0.0.2 02:00:00:00:00:02 loadgen --server_ip=10.0.0.1 --server_context=1 --size=64 --service_ns=2000 --outstanding=16 --duration=0.005\n'
  printf 'link srv sw\nlink cla sw\n'
}
die() { echo "FAIL: $*"; exit 1; }
topo "--context_slo=1:2:6" >"$work/slo.topo"
topo "" >"$work/noslo.topo"
# Exit 3 with the SLO: the client's rejected calls are calls not answered.
for run in slo slo2; do
  rc=0; "$sim" "$work/slo.topo" --sim_progress=false >"$work/$run.out" 2>&1 || rc=$?
  [ "$rc" = 3 ] || { cat "$work/$run.out"; die "nanopu-sim with the SLO exited $rc, not 3"; }
done
"$sim" "$work/noslo.topo" --sim_progress=false >"$work/noslo.out" 2>&1 || { cat "$work/noslo.out"; die "nanopu-sim without"; }
p99() { grep -A2 "latency (modelled round trip, us)" "$1" | tail -n 1 | awk '{print $5}'; }
field() { grep -o "$2 [0-9]*" "$1" | head -n 1 | awk '{print $NF}'; }
with=$(p99 "$work/slo.out") without=$(p99 "$work/noslo.out")
given_up=$(field "$work/slo.out" "given-up") rejected=$(field "$work/slo.out" "rejected for load")
lost=$(field "$work/slo.out" "lost")
echo "p99 with a 6 us SLO: $with us ($rejected rejected for load, $given_up given up, $lost lost); without: $without us"
awk -v p="$with" 'BEGIN { exit !(p > 0 && p <= 6) }' || die "p99 $with us with a 6 us SLO"
awk -v p="$without" 'BEGIN { exit !(p > 12) }' || die "p99 $without us without an SLO: the queue did not build"
[ "${rejected:-0}" -gt 0 ] && [ "$rejected" = "$given_up" ] && [ "$lost" = 0 ] || die "rejections not each heard"
[ "$(grep -o 'trace hash [0-9a-f]*' "$work/slo.out")" = "$(grep -o 'trace hash [0-9a-f]*' "$work/slo2.out")" ] || die "two runs, two hashes"
# At start the server prints Erlang-C's view of its SLO (NEBULA §IV-C): one
# core, waits as M/M/1's and the service its mean, meets a 3x SLO at p99
# only up to load 0.065.
grep -q "context 1: Erlang-C (M/M/1 waits, the service its mean; modelled): the SLO holds at p99 up to load 0.065" \
  "$work/slo.out" \
  || die "no Erlang-C sizing line at start"
