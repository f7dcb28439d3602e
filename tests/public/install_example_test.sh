#!/usr/bin/env bash
# Installs the build into a temporary prefix, builds examples/echo-service out
# of tree twice — CMake (find_package(nanopu)) and make (pkg-config nanopu) —
# and runs each build against nanopu-loadgen over net_memif (the CMake one
# also on the traditional path, both ends); the load
# generator exits 0 only when every reply came back, word for word.
# In a plain build the make way is also linked statically (pkg-config --static).
# Usage: install_example_test.sh BUILD_DIR EXAMPLE_DIR LOADGEN WORK_DIR [EXTRA_FLAGS]
#   EXTRA_FLAGS: compiler and linker flags of a sanitizer build, given to the example too
set -euo pipefail
build=$1 example=$2 loadgen=$3 work=$4 flags=${5:-}
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
server_pid=""
sock=""
cleanup() {
  [ -n "$server_pid" ] && kill -TERM "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  [ -n "$sock" ] && rm -f "$sock"
  true
}
trap cleanup EXIT

echo "== install into $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
test -f "$prefix/include/nanopu/runtime.h"
pc_dir=$(dirname "$(find "$prefix" -name nanopu.pc | head -n 1)")

echo "== build with CMake (find_package)"
cmake -S "$example" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >"$work/cmake-configure.log"
cmake --build "$work/cmake-build" >"$work/cmake-build.log" 2>&1 || { cat "$work/cmake-build.log"; exit 1; }

# A sanitizer build (EXTRA_FLAGS) stops at CMake: the make ways are packaging
# checks, the normal build's.
if [ -z "$flags" ]; then
  echo "== build with make (pkg-config)"
  cp -r "$example" "$work/make-src"
  rm -rf "$work/make-src/build"
  make -C "$work/make-src" PKG_CONFIG_PATH="$pc_dir" CXXFLAGS="-O2 -g" >"$work/make.log" 2>&1 \
    || { cat "$work/make.log"; exit 1; }
  echo "== build with make STATIC=1 (pkg-config --static: DPDK and its PMDs linked in)"
  cp -r "$example" "$work/static-src"
  rm -f "$work/static-src/echo-service"
  make -C "$work/static-src" STATIC=1 PKG_CONFIG_PATH="$pc_dir" >"$work/static.log" 2>&1 \
    || { tail -n 20 "$work/static.log"; exit 1; }
fi
# The .pc must name the prefix it was installed into, whatever CMAKE_INSTALL_PREFIX was.
PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags nanopu | grep -q -- "-I$prefix/include\|-I$pc_dir/../../include" \
  || { echo "nanopu.pc does not point into $prefix"; exit 1; }
PKG_CONFIG_PATH="$pc_dir" pkg-config --static --libs nanopu | grep -q -- "-labsl_" \
  || { echo "pkg-config --static --libs nanopu lacks absl's libraries"; exit 1; }

cpus=$(nproc)
server_lcore=$([ "$cpus" -gt 1 ] && echo 1 || echo 0)
# One server process per load, stopped with SIGTERM after its client has
# gone: it must outlive the disconnect (DPDK's memif teardown is fenced,
# nic/link/burst_fence.h) and exit 0.
run_against() {
  local bin=$1 name=$2 mode=${3:-register-file}
  for size in 64 3000; do
    sock=$(mktemp -u /tmp/nanopu-example-XXXX.sock)
    local log=$work/$name-$size-server.log
    "$bin" "net_memif0,role=server,socket=$sock" "$server_lcore" $([ "$mode" = traditional ] && echo traditional) >"$log" 2>&1 &
    server_pid=$!
    for _ in $(seq 300); do grep -q "serving context 1" "$log" 2>/dev/null && break; sleep 0.1; done
    grep -q "serving context 1" "$log" || { cat "$log"; echo "$name: the service did not start"; exit 1; }
    echo "== $name: 1000 requests of $size bytes through nanopu-loadgen"
    "$loadgen" --lcores=0 --vdev="net_memif0,role=client,socket=$sock" --server_context=1 \
      --size=$size --count=1000 --outstanding=4 --expect=echo --drain_timeout=5 --calibrate=false --app_mode="$mode" \
      --json="$work/$name-$size.json" >"$work/$name-$size.log" 2>&1 \
      || { cat "$work/$name-$size.log" "$log"; echo "$name: replies missing or wrong"; exit 1; }
    grep -q '"received":1000,' "$work/$name-$size.json" \
      || { cat "$work/$name-$size.json"; echo "$name: not every reply arrived"; exit 1; }
    kill -TERM "$server_pid" 2>/dev/null || true
    local rc=0
    wait "$server_pid" || rc=$?
    if [ "$rc" -ne 0 ]; then
      cat "$log"; echo "$name: the service did not exit cleanly (status $rc)"; exit 1
    fi
    server_pid=""
    rm -f "$sock"
  done
}
run_against "$work/cmake-build/echo-service" cmake
run_against "$work/cmake-build/echo-service" cmake-traditional traditional
if [ -z "$flags" ]; then
  run_against "$work/make-src/echo-service" make
  run_against "$work/static-src/echo-service" static
fi
echo "install + out-of-tree example: every build answered every request"
