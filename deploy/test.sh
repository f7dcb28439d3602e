#!/usr/bin/env bash
# Builds and runs every test, each configuration in its own build directory:
#   1. the normal build (gcc, RelWithDebInfo) and the whole suite;
#   2. one clang build with AddressSanitizer + UndefinedBehaviorSanitizer and
#      libFuzzer's coverage: the suite again but for the tests labelled
#      tooling (scripts, the playbook, the install tree: nothing compiled),
#      then every fuzz target for its smoke time (deploy/fuzz.sh) from the
#      same objects;
#   3. a ThreadSanitizer build of only what it runs: the rings, the scheduler,
#      the loopback and isolation paths, the burst fence (memif's unmap).
# The normal build is deploy/build.sh's (the demo's too), without the
# benchmarks no test runs (`ninja -C build nanopu-benches-rest` builds them;
# each is run before a stop).
# The sanitizer builds start early, beside the test run before them, in
# the kernel's idle class (SCHED_IDLE: a CPU goes to them only when no test
# wants it, and a waking test process takes it back at once): a test run
# leaves much of the CPUs idle (processes waiting on each other, timers).
# The phase after a test run is the rest of its build, back at the normal
# class. (A failed build prints its log's tail.)
# A table of phase times is printed at the end, pass or fail.
#
# Usage: bash deploy/test.sh            everything (set-up included; CI runs this)
#        bash deploy/test.sh --quick    the normal build and every test that
#                                       starts no second process (the inner loop)
# Environment: NANOPU_TEST_JOBS (ctest -j, default: the CPU count + 1),
#              NANOPU_FUZZ_SECONDS (per fuzz target, default 5: a smoke run;
#              deploy/fuzz.sh 3600 fuzzes at depth).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
case "${1:-}" in
  --quick) quick=1 ;;
  "") ;;
  -h|--help) sed -n '2,/^[^#]/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "test.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
esac

# One more test than CPUs: much of the suite waits (on its other processes,
# timers, restarts), so -j of the CPU count leaves them idle (measured on
# 2 CPUs, warm: 145 % CPU and 227 s at -j2, 176 % and 195 s at -j3). Every
# test must pass on a busy machine anyway (a CPU hog beside the whole run).
jobs=${NANOPU_TEST_JOBS:-$(( $(nproc) + 1 ))}
fuzz_seconds=${NANOPU_FUZZ_SECONDS:-5}
phases=()
t_all=$(date +%s)
t_phase=$t_all
current=""
phase() {  # phase NAME: ends the running phase and starts NAME
  local now; now=$(date +%s)
  [ -n "$current" ] && phases+=("$current|$((now - t_phase))")
  current=$1 t_phase=$now
  echo "== $1 =="
}
report() {  # report EXIT_STATUS
  local rc=$1 now; now=$(date +%s)
  [ -n "$current" ] && phases+=("$current|$((now - t_phase))")
  echo
  echo "== phase times =="
  printf '%-44s %8s\n' phase seconds
  for p in "${phases[@]}"; do printf '%-44s %8s\n' "${p%%|*}" "${p##*|}"; done
  printf '%-44s %8s\n' "total" "$((now - t_all))"
  [ "$rc" -eq 0 ] && echo "test.sh: all passed" || echo "test.sh: FAILED in phase '$current' (exit $rc)"
}

# A build in the background, in the idle class, in a process group of its
# own (job control: so that an early exit stops its compilers too) but in
# this session: a new session (setsid) is a new autogroup, which the
# kernel gives an equal share of the CPUs whatever its class (measured:
# the install tests took twice as long beside it).
bg_pid="" bg_log=""
bg_start() {  # bg_start LOG COMMAND...
  bg_log=$1
  shift
  set -m
  chrt --idle 0 "$@" >"$bg_log" 2>&1 &
  bg_pid=$!
  set +m
}
bg_wait() {  # waits for the background build; on failure prints its log's tail
  local rc=0 p
  # Its rest at the normal class: beside a CPU hog, the idle class would
  # get one CPU at most (measured: the ASan build's rest 340 s against 272
  # for the whole build at the normal class). Compilers it starts from now
  # on inherit ninja's class.
  for p in $(pgrep -g "$bg_pid"); do chrt --other -p 0 "$p" 2>/dev/null || true; done
  wait "$bg_pid" || rc=$?
  bg_pid=""
  if [ "$rc" -ne 0 ]; then
    tail -n 80 "$bg_log"
    echo "test.sh: the build failed (its whole log: $bg_log)" >&2
    return "$rc"
  fi
  tail -n 1 "$bg_log"
}
stop_bg() { [ -z "$bg_pid" ] || kill -TERM -- "-$bg_pid" 2>/dev/null || true; }
trap 'rc=$?; stop_bg; report "$rc"' EXIT

phase "set-up"
bash deploy/setup.sh

# The normal build's flags are deploy/build.sh's, the demo's too: after
# the demo this build compiles nothing.
phase "build (gcc, RelWithDebInfo)"
bash deploy/build.sh build

if [ "$quick" -eq 1 ]; then
  phase "tests without a second process"
  (cd build && ctest -j"$jobs" --output-on-failure -LE processes)
  exit 0
fi

asan_build() {
  CC=clang CXX=clang++ bash deploy/build.sh build-asan -DCMAKE_BUILD_TYPE=Debug \
    "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" "-DCMAKE_C_FLAGS_DEBUG=-O1 -g1" \
    -DNANOPU_SANITIZE=ON -DNANOPU_BUILD_FUZZ=ON -DNANOPU_BUILD_BENCH=OFF
}
# Only the targets the TSan run needs; the regex below names their tests.
tsan_build() {
  local targets=(scheduler_unit_tests nic_unit_tests scheduler_thread_test scheduler_memory_path_test
                 scheduler_bulk_words_test scheduler_worker_test scheduler_async_preempt_test
                 scheduler_misuse_test e2e_isolation_test e2e_loopback_ring_test lib_contract_contract_test
                 model_network_sim_loop_test)
  bash deploy/build.sh build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
    -DNANOPU_TSAN=ON -DNANOPU_BUILD_BENCH=OFF -- "${targets[@]}"
}
export -f asan_build tsan_build  # for the background builds' bash -c

# -O1: ASan's own guidance for usable speed; Debug keeps asserts on.
phase "tests (the ASan+UBSan build beside, idle class)"
bg_start build-asan.log bash -c 'set -euo pipefail; asan_build'
(cd build && ctest -j"$jobs" --output-on-failure)

phase "build (clang, ASan+UBSan, fuzz coverage): the rest"
bg_wait

# Not the tests labelled tooling (tests/CMakeLists.txt): their subject is
# a script, a playbook, the install tree or the layering, which a sanitizer
# does not see.
phase "tests under ASan+UBSan (the TSan build beside, idle class)"
bg_start build-tsan.log bash -c 'set -euo pipefail; tsan_build'
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
   LSAN_OPTIONS="suppressions=$PWD/../lsan.supp" \
   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest -j"$jobs" --output-on-failure -LE tooling)

phase "build (ThreadSanitizer, rings and scheduler): the rest"
bg_wait

phase "fuzz smoke run (${fuzz_seconds} s per target)"
bash deploy/fuzz.sh "$fuzz_seconds" build-asan

phase "tests under ThreadSanitizer"
(cd build-tsan && TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/../tsan.supp" \
   ctest -j"$jobs" --output-on-failure -R 'scheduler_|e2e_isolation|e2e_loopback_ring|FiberTest|HtsPolicyTest|CoreSelectorTest|BurstFenceTest|^ContextTableTest|^SeveralNicCoresTest|model_network_sim_loop')
