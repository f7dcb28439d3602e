#!/usr/bin/env bash
# The demo: a loopback server and the load generator as two processes (two
# emulated nanoPU hosts) joined by DPDK's net_memif virtual device. No NIC.
# Usage: bash deploy/demo.sh                  (set-up and build included)
#        bash deploy/demo.sh --backend=uring  (kernel UDP sockets on io_uring
#        over 127.0.0.x instead of DPDK: no hugepage, no DPDK device)
set -euo pipefail
BACKEND=dpdk
for arg in "$@"; do
  case "$arg" in
    --backend=dpdk|--backend=uring) BACKEND=${arg#--backend=} ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "demo.sh: unknown argument '$arg' (use --backend=dpdk or --backend=uring)" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/.."
bash deploy/setup.sh
bash deploy/build.sh build  # the normal build, as deploy/test.sh's

SOCK=$(mktemp -u /tmp/nanopu-demo-XXXX.sock)
CPUS=$(nproc)
SERVER_LCORE=$([ "$CPUS" -gt 1 ] && echo 1 || echo 0)
trap 'kill "$SERVER" 2>/dev/null || true; rm -f "$SOCK"' EXIT
if [ "$BACKEND" = uring ]; then
  # Two hosts on one machine are two loopback addresses; one UDP port.
  PORT=$((20000 + $$ % 20000))
  SERVER_PORT_ARGS=(--backend=uring --ip=127.0.0.2 --udp_port=$PORT)
  CLIENT_PORT_ARGS=(--backend=uring --ip=127.0.0.3 --server_ip=127.0.0.2 --udp_port=$PORT)
  VIA="kernel UDP on io_uring (127.0.0.2 <-> 127.0.0.3, port $PORT)"
  # The kernel path serves ~100k echoes/s on this kind of machine (each
  # request is four datagrams at the server): offer a fifth of that.
  RATE=20000
else
  SERVER_PORT_ARGS=(--vdev="net_memif0,role=server,socket=$SOCK")
  CLIENT_PORT_ARGS=(--vdev="net_memif0,role=client,socket=$SOCK")
  VIA="net_memif"
  RATE=100000
fi

echo
echo "== nanopu demo: echo server (lcore $SERVER_LCORE) <-> load generator (lcore 0) over $VIA =="
LOG=build/demo-server.log
./build/nanopu-server --lcores="$SERVER_LCORE" "${SERVER_PORT_ARGS[@]}" \
    --app=echo --context=1 >"$LOG" 2>&1 &
SERVER=$!
# The memif client must connect after the server's port is up: wait for its ready line.
for _ in $(seq 300); do grep -q "Ctrl-C stops" "$LOG" 2>/dev/null && break; sleep 0.1; done
grep -q "Ctrl-C stops" "$LOG" || { cat "$LOG"; echo "demo: server did not start" >&2; exit 1; }
cat "$LOG"

echo
echo "-- closed loop, 1 request in flight, 64-byte requests, 5 s --"
./build/nanopu-loadgen --lcores=0 "${CLIENT_PORT_ARGS[@]}" \
    --server_context=1 --size=64 --outstanding=1 --duration=5 --json=build/demo-closed.json
echo
echo "-- open loop, Poisson $RATE requests/s, 64-byte requests, 5 s --"
./build/nanopu-loadgen --lcores=0 "${CLIENT_PORT_ARGS[@]}" \
    --server_context=1 --size=64 --rate=$RATE --duration=5 --json=build/demo-open.json
echo
kill -TERM "$SERVER"
wait "$SERVER" || true
echo "-- server counters --"
sed -n '/nanopu statistics/,$p' "$LOG"
trap - EXIT
rm -f "$SOCK"
echo "JSON results: build/demo-closed.json build/demo-open.json"
/usr/bin/python3 tools/plot_latency.py build/demo-closed.json build/demo-open.json --out build/demo
