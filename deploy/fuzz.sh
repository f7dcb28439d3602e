#!/usr/bin/env bash
# Runs every libFuzzer target for a while, as many at once as there are CPUs;
# fails if a fuzzer finds a crash. The targets come from a clang build with
# ASan+UBSan and libFuzzer's coverage in every library (-DNANOPU_SANITIZE=ON
# -DNANOPU_BUILD_FUZZ=ON): deploy/test.sh's sanitizer build, or build-fuzz,
# configured here when no build directory is given.
# Usage: bash deploy/fuzz.sh [seconds per target, default 10] [build dir]
# A longer run: bash deploy/fuzz.sh 3600   (the corpus grows in <build dir>/corpus-*;
#   copy new inputs worth keeping to fuzz/corpus/<target>/, where the
#   *_corpus_test replay them in the sanitizer build)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-10}
dir=${2:-build-fuzz}
if [ ! -f "$dir/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" "-DCMAKE_C_FLAGS_DEBUG=-O1 -g1" -DNANOPU_SANITIZE=ON \
    -DNANOPU_BUILD_FUZZ=ON -DNANOPU_BUILD_TESTS=OFF -DNANOPU_BUILD_BENCH=OFF >/dev/null
fi
ninja -C "$dir" fuzz_targets >/dev/null

# Every target the build made (fuzz/CMakeLists.txt lists them), so that a new
# one is fuzzed here without a second list to keep.
# The largest corpus first: a target replays what it is given before its
# time starts to count, and started last it would run alone while the
# other CPU idles.
mapfile -t targets < <(find "$dir/fuzz" -maxdepth 1 -name "*_fuzz" -type f -executable -printf "%f\n" |
  sed "s/_fuzz$//" | while read -r t; do echo "$(find "fuzz/corpus/$t" -type f 2>/dev/null | wc -l) $t"; done |
  sort -k1,1nr -k2 | cut -d' ' -f2)
[ "${#targets[@]}" -gt 0 ] || { echo "fuzz: no targets in $dir/fuzz" >&2; exit 1; }
# A short run (the test command's smoke) starts from a sample of each
# corpus, up to 64 inputs, not the whole: libFuzzer runs every input it is
# given before its time starts to count (thread_api's 716 took ~19 s under
# ASan, a third of the smoke), and the suite's fuzz_*_corpus_test already
# replays every input under the same sanitizers. A run of a minute or more
# starts from the whole corpus, as fuzzing at depth should.
seed_limit=64
[ "$SECONDS_PER_TARGET" -ge 60 ] && seed_limit=0
fuzz_one() {  # fuzz_one TARGET: runs it, prints its numbers; exit 1 on a crash
  local target=$1 corpus=$dir/corpus-$1 log=$dir/fuzz-$1.log
  # A short run starts afresh each time: a directory an earlier run filled
  # would be replayed whole.
  [ "$seed_limit" -eq 0 ] || rm -rf "$corpus"
  mkdir -p "$corpus"
  if [ "$seed_limit" -eq 0 ]; then
    cp -n fuzz/corpus/"$target"/* "$corpus"/ 2>/dev/null || true
  else  # the same sample each run: the smallest inputs, then by name
    # awk, not head: head leaves at its last line and sort, still writing,
    # dies of SIGPIPE, which pipefail made this target's failure (no log).
    find fuzz/corpus/"$target" -type f -printf '%s %p\n' 2>/dev/null | sort -k1,1n -k2 | awk -v n="$seed_limit" 'NR <= n' |
      cut -d' ' -f2- | while read -r f; do cp -n "$f" "$corpus"/; done
  fi
  if ! "$dir/fuzz/${target}_fuzz" -max_total_time="$SECONDS_PER_TARGET" \
      -print_final_stats=1 -artifact_prefix="$dir/$target-" "$corpus" >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "fuzz: $target found a crash (artifact $dir/$target-*)" >&2
    return 1
  fi
  echo "$target: $(grep -E 'stat::number_of_executed_units|stat::new_units_added' "$log" |
    awk '{print $1, $2}' | sed 's/stat:://' | tr '\n' ' ')"
}
width=${NANOPU_FUZZ_JOBS:-$(nproc)}
echo "fuzz: ${#targets[@]} targets, ${SECONDS_PER_TARGET} s each, $width at a time"
pids=() failed=0
for t in "${targets[@]}"; do
  fuzz_one "$t" &
  pids+=($!)
  if [ "${#pids[@]}" -ge "$width" ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || failed=1; done
exit "$failed"
