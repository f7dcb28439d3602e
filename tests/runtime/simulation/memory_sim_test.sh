#!/usr/bin/env bash
# NEBULA's memory system under real service code (nanopu-sim,
# --memory_model; docs/design.md §5): MICA (the kv app, apps/mica) on one
# core that stands for §III's 60, offered 1.0 M SETs a second (the server
# 60 M). With receive buffers per connection the server's DRAM nears its
# bandwidth — each request waits hundreds of ns on it and the tail grows to
# tens of µs — while NEBULA's bounded buffers keep the DRAM near two thirds
# and the tail under a µs. A GET-heavy mix of 64-byte values, declared
# (:get=0.95,value=64) and sent (5 % SETs), costs the same per-connection buffers a fraction of
# the DRAM. The run replays to one trace hash; a live host refuses the flag.
# Usage: memory_sim_test.sh NANOPU_SIM NANOPU_SERVER WORK_DIR
set -euo pipefail
sim=$1 server=$2 work=$3
mkdir -p "$work"
die() { echo "FAIL: $*"; exit 1; }
run() {  # run NAME MEMORY_MODEL [SET_FRACTION]
  { printf 'switch sw --switch_gbps=100\n'
    printf 'host srv 10.0.0.1 02:00:00:00:00:01 server --app=kv --memory_model=%s\n' "$2"
    printf 'host cla 10.0.0.2 02:00:00:00:00:02 loadgen --server_ip=10.0.0.1 --service=kv --kv_keys=10000 --kv_set_fraction=%s --rate=1000000 --duration=0.01 --drain_timeout=1\n' "${3:-1}"
    printf 'link srv sw\nlink cla sw\n'; } >"$work/$1.topo"
  "$sim" "$work/$1.topo" --sim_progress=false >"$work/$1.out" 2>&1 || { cat "$work/$1.out"; die "nanopu-sim, $2"; }
}
run per_connection nebula_server:per_connection
run bounded nebula_server:bounded
run small_gets nebula_server:per_connection:get=0.95,value=64 0.05
"$sim" "$work/bounded.topo" --sim_progress=false >"$work/bounded2.out" 2>&1 || die "nanopu-sim, bounded, again"
gbs() { grep -o "the server's DRAM at [0-9.]* GB/s" "$1" | grep -o "[0-9.]* GB" | cut -d' ' -f1; }
waits() { grep -o "; [0-9.]* ns of DRAM waits a message" "$1" | grep -o "[0-9.]* ns" | cut -d' ' -f1; }
rate() { grep -o "throughput *[0-9]* msg/s" "$1" | grep -o "[0-9]*"; }
p99() { grep -A2 "latency (modelled round trip, us)" "$1" | tail -n 1 | awk '{print $5}'; }
for b in per_connection bounded small_gets; do
  echo "$b: DRAM $(gbs "$work/$b.out") GB/s, waits $(waits "$work/$b.out") ns a request, served $(rate "$work/$b.out")/s, p99 $(p99 "$work/$b.out") us"
done
awk -v c="$(gbs "$work/per_connection.out")" -v b="$(gbs "$work/bounded.out")" 'BEGIN { exit !(c > 1.3 * b) }' \
  || die "per-connection buffers did not cost the DRAM more"
awk -v w="$(waits "$work/per_connection.out")" 'BEGIN { exit !(w > 100) }' || die "per-connection: no DRAM waits"
awk -v c="$(gbs "$work/per_connection.out")" -v s="$(gbs "$work/small_gets.out")" 'BEGIN { exit !(s < 0.3 * c) }' \
  || die "small GETs declared did not cost the DRAM less"
awk -v c="$(p99 "$work/per_connection.out")" -v b="$(p99 "$work/bounded.out")" 'BEGIN { exit !(c > 10 * b) }' \
  || die "per-connection: the tail did not grow"
awk -v r="$(rate "$work/bounded.out")" -v p="$(p99 "$work/bounded.out")" 'BEGIN { exit !(r > 0.95 * 1000000 && p < 2) }' \
  || die "bounded: not every request served within 2 us"
[ "$(grep -o 'trace hash: [0-9a-f]*' "$work/bounded.out")" = "$(grep -o 'trace hash: [0-9a-f]*' "$work/bounded2.out")" ] \
  || die "two runs, two hashes"
rc=0; "$server" --lcores=0 --vdev=net_null0 --app=echo --memory_model=nebula_server:bounded \
  >"$work/live.out" 2>&1 || rc=$?
[ "$rc" != 0 ] && grep -q "run the host under nanopu-sim" "$work/live.out" || { cat "$work/live.out"; die "a live host took --memory_model (exit $rc)"; }
