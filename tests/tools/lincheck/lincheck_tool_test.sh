#!/usr/bin/env bash
# nanopu-lincheck as a user runs it: exit 0 for a linearizable history, 1
# (the operations that cannot be ordered printed) for one that is not, 2
# naming the file and line for input that is no history, 3 when its budget
# runs out.
# Usage: lincheck_tool_test.sh NANOPU_LINCHECK WORK_DIR
set -euo pipefail
bin=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
die() { echo "FAIL: $*"; exit 1; }
expect() {  # expect STATUS FILE ARGS...: the run's status, its output in $work/out
  local want=$1 file=$2 rc=0
  shift 2
  "$bin" "$work/$file" "$@" >"$work/out" 2>&1 || rc=$?
  [ "$rc" = "$want" ] || { cat "$work/out"; die "$file $*: exit $rc, wanted $want"; }
}
ev() { printf '{"index":%s,"time":%s,"process":%s,"type":"%s","f":"%s","key":1,"value":%s}\n' "$@"; }

# The read that goes back in time.
{ ev 0 0 0 invoke write 1; ev 1 1 0 ok write 1; ev 2 2 1 invoke write 2; ev 3 3 2 invoke read null
  ev 4 5 2 ok read 2; ev 5 6 3 invoke read null; ev 6 8 3 ok read 1; ev 7 12 1 ok write 2; } >"$work/back.jsonl"
expect 1 back.jsonl --model=register
grep -q "not linearizable" "$work/out" && grep -q "process 3 read(null) -> 1  6 .. 8" "$work/out" || { cat "$work/out"; die "window"; }
# The violation drawn: an SVG, well formed, the two unordered operations in red.
expect 1 back.jsonl --model=register --svg="$work/back.svg"
grep -q "drawn in $work/back.svg" "$work/out" || { cat "$work/out"; die "svg line"; }
python3 - "$work/back.svg" <<'PY' || die "the svg"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
rects = [e for e in root.iter() if e.tag.endswith("rect")]
red = [e for e in rects if "unordered" in e.get("class", "")]
assert len(rects) == 4 and len(red) >= 2, (len(rects), len(red))
PY
head -n 5 "$work/back.jsonl" >"$work/ok.jsonl"
expect 0 ok.jsonl
grep -q "linearizable (model register): 3 operations" "$work/out" || { cat "$work/out"; die "ok summary"; }

# Not a history: each refused with its line.
printf 'not json\n' >"$work/garbage.jsonl"
expect 2 garbage.jsonl
grep -q "garbage.jsonl:1: a line must be one JSON object" "$work/out" || { cat "$work/out"; die "garbage line"; }
{ ev 0 5 0 invoke read null; ev 1 4 0 ok read null; } >"$work/early.jsonl"
expect 2 early.jsonl
grep -q "early.jsonl:2: .*returns at 4 ns, before its invoke" "$work/out" || { cat "$work/out"; die "early line"; }
expect 2 ok.jsonl --model=queue
grep -q "unknown model 'queue'" "$work/out" || { cat "$work/out"; die "model"; }
expect 2 missing.jsonl

# Past the budget: unknown, said so.
{ for p in $(seq 0 39); do ev "$p" "$p" "$p" invoke write "$p"; done
  for p in $(seq 0 39); do ev $((40 + p)) $((100 + p)) "$p" ok write "$p"; done
  ev 80 200 50 invoke read null; ev 81 201 50 ok read 123456; } >"$work/wide.jsonl"
expect 3 wide.jsonl --max_states=1000
grep -q "unknown (model register).*the state budget ran out" "$work/out" || { cat "$work/out"; die "unknown"; }
echo "nanopu-lincheck: 0, 1, 2 and 3 as documented"
