#!/usr/bin/env bash
# The second and third examples as their authors meet them: installs the
# build into a temporary prefix, builds examples/kv-service (C++ on calls and
# the public load generator) and examples/lnic-increment (C on lnic.h and
# nanopu_main.h) out of tree with CMake (find_package) and with make
# (pkg-config), and runs them:
#   - kv over net_memif, closed and open loop, every reply checked;
#   - kv over io_uring, closed loop; then its server killed (SIGKILL) and
#     restarted mid-run: every call must be answered or reported by id;
#   - the C service against nanopu-loadgen --expect=increment.
# A sanitizer build (EXTRA_FLAGS) builds each example with CMake only: the
# make way is a packaging check, the normal build's, and skipping it halves
# the sanitizer build's compiling here; every run below still happens.
# Usage: more_examples_test.sh BUILD_DIR SOURCE_DIR LOADGEN WORK_DIR [EXTRA_FLAGS [CXX CC]]
# CXX, CC: the compilers the CMake way uses; the build's own, so that a
# sanitizer build's examples link the same sanitizer runtime as its
# libraries (clang's, not the system compiler's).
set -euo pipefail
build=$1 src=$2 loadgen=$3 work=$4 flags=${5:-} cxx=${6:-c++} cc=${7:-cc}
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  rm -f "$work"/*.sock
}
trap cleanup EXIT
die() { echo "FAIL: $*"; exit 1; }
json_number() { grep -o "\"$2\":[0-9]*" "$1" | head -n 1 | cut -d: -f2; }

echo "== install into $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
pc_dir=$(dirname "$(find "$prefix" -name nanopu-loadgen.pc | head -n 1)")
[ -f "$pc_dir/nanopu-loadgen.pc" ] || die "nanopu-loadgen.pc not installed"

# In a sanitizer build the examples build as Debug (-O0, asserts on): -O3
# under ASan+UBSan took twice as long to compile (8 s against 4 for
# kv-service), and the examples' own code is not what runs long here.
build_type=Release
[ -z "$flags" ] || build_type=Debug
for ex in kv-service lnic-increment; do
  echo "== $ex: CMake (find_package)"
  cmake -S "$src/examples/$ex" -B "$work/$ex-cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=$build_type \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >"$work/$ex-configure.log"
  cmake --build "$work/$ex-cmake" -j 2 >"$work/$ex-build.log" 2>&1 || { cat "$work/$ex-build.log"; die "$ex: CMake build"; }
  [ -z "$flags" ] || continue
  echo "== $ex: make (pkg-config)"
  cp -r "$src/examples/$ex" "$work/$ex-make"
  make -j 2 -C "$work/$ex-make" PKG_CONFIG_PATH="$pc_dir" CXXFLAGS="-O2 -g $flags" CFLAGS="-O2 -g $flags" \
    >"$work/$ex-make.log" 2>&1 || { cat "$work/$ex-make.log"; die "$ex: make build"; }
done
kv=$work/kv-service-cmake
kv_make=$work/kv-service-make inc_make=$work/lnic-increment-make/lnic-increment
[ -z "$flags" ] || kv_make=$kv inc_make=""
lcore=$([ "$(nproc)" -gt 1 ] && echo 1 || echo 0)

# start NAME ARGS...: a server in the background; waits for its ready line.
start() {
  local name=$1
  shift
  "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 300); do grep -q "Ctrl-C stops" "$work/$name.log" 2>/dev/null && return 0; sleep 0.1; done
  cat "$work/$name.log"
  die "$name did not start"
}
stop_last() {
  local p=${pids[-1]}
  kill -TERM "$p" 2>/dev/null || true
  wait "$p" 2>/dev/null || true
  unset 'pids[-1]'
}
# client NAME EXPECTED_STATUS ARGS...: the run's status must be one of EXPECTED_STATUS (e.g. "0" or "0 3").
client() {
  local name=$1 expect=$2
  shift 2
  local rc=0
  "$@" --progress=false --poll=adaptive --json="$work/$name.json" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
  [[ " $expect " == *" $rc "* ]] || { cat "$work/$name.out" "$work/$name.err"; die "$name exited $rc"; }
  [ "$(json_number "$work/$name.json" bad_replies)" = 0 ] || die "$name: bad replies"
  grep -q " 0 wrong replies" "$work/$name.out" || [ "$name" = inc ] || { cat "$work/$name.out"; die "$name: wrong replies"; }
}

echo "== kv over net_memif: closed loop, then open loop, every reply checked"
sock=$work/kv.sock
start kv-memif "$kv/kv-server" --lcores=$lcore --vdev="net_memif0,role=server,socket=$sock" --poll=adaptive --threads=2
client kv-closed 0 "$kv/kv-client" --lcores=0 --vdev="net_memif0,role=client,socket=$sock" --count=2000 --outstanding=4 \
  --drain_timeout=5
client kv-open 0 "$kv/kv-client" --lcores=0 --vdev="net_memif0,role=client,socket=$sock" --rate=5000 --duration=0.5 \
  --server_context=2 --context=3 --drain_timeout=5
stop_last
grep -q "kv.gets" "$work/kv-memif.log" || die "kv-server printed no counters"

echo "== kv over io_uring (the make build, if made): closed loop"
port=$((20000 + RANDOM % 20000))
uring=(--backend=uring --udp_port=$port)
start kv-uring "$kv_make/kv-server" --lcores=$lcore "${uring[@]}" --ip=127.0.4.1 --poll=adaptive
client kv-uring 0 "$kv_make/kv-client" --lcores=0 "${uring[@]}" --ip=127.0.4.2 --server_ip=127.0.4.1 \
  --count=2000 --outstanding=4 --drain_timeout=5

echo "== kv over io_uring: the server killed and restarted mid-run"
# 6 s of calls; the kill comes once the first progress line (at 2 s) says calls flow
# (not after a fixed sleep: beside a hog the client may not have started),
# leaving the restarted server seconds to answer in.
"$kv/kv-client" --lcores=0 "${uring[@]}" --ip=127.0.4.2 --server_ip=127.0.4.1 --duration=6 --outstanding=4 \
  --drain_timeout=2 --progress=true --poll=adaptive --json="$work/restart.json" >"$work/restart.out" 2>"$work/restart.err" &
client_pid=$!
pids+=($client_pid)
for _ in $(seq 600); do grep -q "\] sent " "$work/restart.err" 2>/dev/null && break; sleep 0.1; done
kill -KILL "${pids[-2]}"
wait "${pids[-2]}" 2>/dev/null || true
sleep 0.3
start kv-uring-2 "$kv/kv-server" --lcores=$lcore "${uring[@]}" --ip=127.0.4.1 --poll=adaptive
rc=0
wait "$client_pid" || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ] || { cat "$work/restart.out" "$work/restart.err"; die "restart: client exited $rc"; }
j=$work/restart.json
sent=$(json_number "$j" sent) received=$(json_number "$j" received) lost=$(json_number "$j" lost)
given_up=$(json_number "$j" given_up)
[ "$sent" = $((received + lost + given_up)) ] || die "restart: sent $sent != received $received + lost $lost + given up $given_up"
reported=$(grep -c "^kv-client: call [0-9]* (" "$work/restart.err" || true)
[ "$reported" = $((lost + given_up)) ] || { cat "$work/restart.err"; die "restart: $reported calls reported by id, $((lost + given_up)) failed"; }
grep -q " 0 wrong replies" "$work/restart.out" || { cat "$work/restart.out"; die "restart: wrong replies"; }
stop_last
after=$(grep -o "kv.gets [0-9]*" "$work/kv-uring-2.log" | cut -d' ' -f2)
[ "${after:-0}" -gt 0 ] || die "the restarted server served nothing"
echo "   sent $sent, answered $received, failed $((lost + given_up)) (each reported by id); the new server answered $after GETs"

echo "== the C service (lnic.h, nanopu_main.h) against nanopu-loadgen --expect=increment"
sock=$work/inc.sock
for b in "$work/lnic-increment-cmake/lnic-increment" $inc_make; do
  start inc-server "$b" --lcores=$lcore --vdev="net_memif0,role=server,socket=$sock" --poll=adaptive
  client inc 0 "$loadgen" --lcores=0 --vdev="net_memif0,role=client,socket=$sock" --count=2000 --outstanding=4 \
    --expect=increment --size=256 --calibrate=false --drain_timeout=5
  stop_last
done
echo "kv-service and lnic-increment: built out of tree $([ -z "$flags" ] && echo "both ways" || echo "with CMake"), every reply checked, every failed call named"
