#!/usr/bin/env bash
# The demo: a loopback server and the load generator as two processes (two
# emulated nanoPU hosts) joined by DPDK's net_memif virtual device. No NIC.
# Usage: bash deploy/demo.sh     (set-up and build included)
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/setup.sh
bash deploy/build.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo

SOCK=$(mktemp -u /tmp/nanopu-demo-XXXX.sock)
CPUS=$(nproc)
SERVER_LCORE=$([ "$CPUS" -gt 1 ] && echo 1 || echo 0)
trap 'kill "$SERVER" 2>/dev/null || true; rm -f "$SOCK"' EXIT

echo
echo "== nanopu demo: echo server (lcore $SERVER_LCORE) <-> load generator (lcore 0) over net_memif =="
LOG=build/demo-server.log
./build/nanopu-server --lcores="$SERVER_LCORE" --vdev="net_memif0,role=server,socket=$SOCK" \
    --app=echo --context=1 >"$LOG" 2>&1 &
SERVER=$!
# The memif client must connect after the server's port is up: wait for its ready line.
for _ in $(seq 300); do grep -q "Ctrl-C stops" "$LOG" 2>/dev/null && break; sleep 0.1; done
grep -q "Ctrl-C stops" "$LOG" || { cat "$LOG"; echo "demo: server did not start" >&2; exit 1; }
cat "$LOG"

echo
echo "-- closed loop, 1 request in flight, 64-byte requests, 5 s --"
./build/nanopu-loadgen --lcores=0 --vdev="net_memif0,role=client,socket=$SOCK" \
    --server_context=1 --size=64 --outstanding=1 --duration=5 --json=build/demo-closed.json
echo
echo "-- open loop, Poisson 100k requests/s, 64-byte requests, 5 s --"
./build/nanopu-loadgen --lcores=0 --vdev="net_memif0,role=client,socket=$SOCK" \
    --server_context=1 --size=64 --rate=100000 --duration=5 --json=build/demo-open.json
echo
kill -TERM "$SERVER"
wait "$SERVER" || true
echo "-- server counters --"
sed -n '/nanopu statistics/,$p' "$LOG"
trap - EXIT
rm -f "$SOCK"
echo "JSON results: build/demo-closed.json build/demo-open.json"
/usr/bin/python3 tools/plot_latency.py build/demo-closed.json build/demo-open.json --out build/demo
