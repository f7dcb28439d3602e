#!/usr/bin/env bash
# Configures and builds one build directory.
# Usage: bash deploy/build.sh <dir> [cmake options...] [-- targets...]
# Without options after <dir>, the normal build: RelWithDebInfo at -O2 with
# line tables only (-g1: backtraces and sanitizer reports keep file:line,
# a fifth faster to build than -g), and without the benchmarks no test runs
# (NANOPU_BENCH_IN_ALL=OFF, ~45 s of compiling; `ninja -C <dir>
# nanopu-benches-rest` builds them). deploy/demo.sh and deploy/test.sh both
# build `build/` this way, so the tests after the demo compile nothing.
# A unity build (CMake joins each library's sources, eight to a translation
# unit): a whole build takes 40 % less CPU (392 s against 643 s for the
# release build, 2026-11-26), most of it headers parsed once instead of
# eight times. -DCMAKE_UNITY_BUILD=OFF after it for edit-compile loops that
# rebuild one file. Tests are never joined (tests/CMakeLists.txt).
# ccache (Debian's; deploy/setup.sh installs it) when it is on PATH: its
# base directory is the checkout, so another clone of the same sources on
# this machine (CI's clean clone, a second worktree) compiles only what
# differs. NANOPU_CCACHE=0 turns it off.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: bash deploy/build.sh <dir> [cmake options...] [-- targets...]}
shift
opts=() targets=()
while [ "$#" -gt 0 ]; do
  if [ "$1" = -- ]; then shift; targets=("$@"); break; fi
  opts+=("$1"); shift
done
set -- "${opts[@]}"
if [ "$#" -eq 0 ]; then
  set -- -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
    -DNANOPU_BENCH_IN_ALL=OFF
fi
launcher=()
if [ "${NANOPU_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
  # Paths under the checkout hashed relative to it, and the build
  # directory not hashed: an object compiled in another clone is taken as
  # it is, its line tables naming that clone's files (ccache's documented
  # price for sharing between directories; the relative part is right).
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
  export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache -DNANOPU_CCACHE=ON)
fi
cmake -S . -B "$dir" -G Ninja -DCMAKE_UNITY_BUILD=ON "${launcher[@]}" "$@" >/dev/null
ninja -C "$dir" "${targets[@]}"
