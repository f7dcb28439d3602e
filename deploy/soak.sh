#!/usr/bin/env bash
# Soak: a million requests of mixed sizes between two processes (nanopu-server
# and nanopu-loadgen over net_memif), both receiving through the
# fault-injecting wire, and every reply checked: each must arrive exactly
# once. Prints, per size and in total, delivered once / lost / given up /
# duplicated / bad, the retransmissions, and the server's buffer gauges at
# the end (every slot back).  Not part of CI (minutes of CPU).
# Usage: bash deploy/soak.sh [total requests, default 1000000] [build dir, default build] [delay_us, default 0]
# delay_us > 0: the server also holds every frame it receives that long (a
# slow peer: round trips of 2 x delay_us), and every request must still be
# answered once, none given up.
set -euo pipefail
cd "$(dirname "$0")/.."
TOTAL=${1:-1000000}
BUILD=${2:-build}
DELAY_US=${3:-0}
FAULTS="drop=0.1,reorder=0.1,dup=0.05,trim=0.05,corrupt=0.01"
SERVER_FAULTS=$FAULTS
[ "$DELAY_US" -gt 0 ] && SERVER_FAULTS="$FAULTS,delay_us=$DELAY_US"
SIZES=(16 100 1000 3000 20000)
PER_SIZE=$((TOTAL / ${#SIZES[@]}))
SOCK=$(mktemp -u /tmp/nanopu-soak-XXXX.sock)
OUT=$(mktemp -d /tmp/nanopu-soak-XXXX)
CPUS=$(nproc)
SERVER_LCORE=$([ "$CPUS" -gt 1 ] && echo 1 || echo 0)
SERVER=""
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -f "$SOCK"' EXIT

# A server per size (each size's counters on their own; memif's teardown
# race, which once made this necessary, is fenced: docs/design.md §9).
# --link_hold=0: its client leaves for good, so replies still unacknowledged
# then are given up at once rather than held for a client that will not return.
start_server() {
  "$BUILD/nanopu-server" --lcores="$SERVER_LCORE" --vdev="net_memif0,role=server,socket=$SOCK" \
    --app=echo --faults="$SERVER_FAULTS,seed=1" --rto_us=100 --peer_dead_ms=500 --rto_max_ms=100 --link_hold=0 >"$OUT/server-$1.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 300); do grep -q "Ctrl-C stops" "$OUT/server-$1.log" 2>/dev/null && break; sleep 0.1; done
}
echo "soak: $TOTAL requests (${#SIZES[@]} sizes x $PER_SIZE), faults on both hosts' receive paths: $FAULTS"
[ "$DELAY_US" -gt 0 ] && echo "soak: a slow server: it holds every frame it receives ${DELAY_US} us"
printf "%8s %10s %10s %8s %9s %11s %6s %12s %8s\n" size sent "once" lost given-up duplicated bad retransmits seconds
sum() { awk -v k="\"$1\":" -F"$1\":" '{split($2,a,","); s+=a[1]} END {print s+0}' "$OUT"/load-*.json; }
context=2
failed=0
for size in "${SIZES[@]}"; do
  start_server "$size"
  start=$(date +%s.%N)
  # Each size: a new server and client process (the context also seeds the faults).
  if ! "$BUILD/nanopu-loadgen" --lcores=0 --vdev="net_memif0,role=client,socket=$SOCK" \
      --server_context=1 --context=$context --size="$size" --count="$PER_SIZE" --outstanding=16 \
      --expect=echo --faults="$FAULTS,seed=$context" --rto_us=100 --drain_timeout=10 \
      --progress=false --calibrate=false --stats --json="$OUT/load-$size.json" >"$OUT/load-$size.log" 2>&1; then
    failed=1
  fi
  end=$(date +%s.%N)
  j=$(cat "$OUT/load-$size.json")
  field() { echo "$j" | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"; }
  retx=$(sed -n 's/^ *nic.tx_retransmits *\([0-9]*\)/\1/p' "$OUT/load-$size.log")
  printf "%8s %10s %10s %8s %9s %11s %6s %12s %8.1f\n" "$size" "$(field sent)" "$(field received)" \
    "$(field lost)" "$(field given_up)" "$(field duplicates)" "$(field bad_replies)" "${retx:-0}" \
    "$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')"
  context=$((context + 1))
  # Replies whose last ACK the wire dropped after the client left are
  # retransmitted until given up (the client silent for --peer_dead_ms,
  # 0.5 s here): wait that out so the gauges below speak of leaks only.
  # (A partial message would be kept 4 x peer_dead + rto_max + 1 s, 3.1 s.)
  sleep 4
  kill -TERM "$SERVER"
  wait "$SERVER" || { echo "soak: the server of size $size did not exit cleanly"; failed=1; }
done
printf "%8s %10s %10s %8s %9s %11s %6s\n" total "$(sum sent)" "$(sum received)" "$(sum lost)" \
  "$(sum given_up)" "$(sum duplicates)" "$(sum bad_replies)"
trap - EXIT
rm -f "$SOCK"
echo "servers (counters at exit, summed; the gauges outbound_in_use / reassembly_in_use are printed only"
echo "when not 0; a give-up here is a reply whose last ACK the wire dropped after its client had exited):"
# counters REGEX LOGS...: the nic.* counters matching REGEX, summed over LOGS.
counters() {
  local re=$1
  shift
  cat "$@" | RE=$re awk '$1 ~ ENVIRON["RE"] {s[$1] += $2} END {for (k in s) printf "  %-36s %d\n", k, s[k]}' | sort
}
counters '^nic\.(tx_retransmits|rx_dup_packets|rx_beyond_id_memory|fault_|tx_msgs_failed|tx_msgs_held_for_ids|.*_in_use)' "$OUT"/server-*.log
echo "clients (replies are messages too: a reply delivered twice shows here):"
counters '^nic\.(rx_msgs_delivered|rx_dup_packets|rx_beyond_id_memory|tx_retransmits|tx_msgs_held_for_ids)$' "$OUT"/load-*.log
if cat "$OUT"/server-*.log | grep -qE "outbound_in_use|reassembly_in_use"; then
  echo "soak: buffer slots still in use at the end"; failed=1
fi
echo "logs: $OUT"
[ "$(sum received)" = "$(sum sent)" ] && [ "$(sum duplicates)" = 0 ] && [ "$failed" = 0 ] \
  && echo "soak: every request answered exactly once" || { echo "soak: FAILED"; exit 1; }
