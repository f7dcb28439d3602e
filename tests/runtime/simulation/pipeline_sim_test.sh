#!/usr/bin/env bash
# The PISA pipelines' stages on the modelled clock (nanopu-sim;
# TimingParams::pisa_stage_cycles, docs/design.md §5): a server whose
# --pipeline and --egress_pipeline programs have a table each adds two
# match-action stages to every round trip its client measures — one where
# the request comes in, one where the reply leaves. At the default 4 cycles
# (1.25 ns) the loadgen's 10 ns resolution does not show them, so a set
# with 3200 cycles a stage (1 us) makes the two stages 2 us of the p50; the
# server runs the programs themselves either way (an entry a table: the
# fast path's, and no tunnel, so every frame leaves as framed).
# Usage: pipeline_sim_test.sh NANOPU_SIM SOURCE_DIR WORK_DIR
set -euo pipefail
sim=$1 src=$2 work=$3
mkdir -p "$work"
die() { echo "FAIL: $*"; exit 1; }
programs=$src/nic/pipeline/programs
sed 's/^pisa_stage_cycles = .*/pisa_stage_cycles = 3200/' "$src/model/timing/nanopu-osdi21.params" >"$work/slow_stages.params"
grep -q '^pisa_stage_cycles = 3200' "$work/slow_stages.params" || die "no pisa_stage_cycles in nanopu-osdi21.params"
run() {  # run NAME TIMING_PARAMS [SERVER FLAGS...]
  local name=$1 params=$2
  shift 2
  { printf 'switch sw --switch_gbps=100\n'
    printf 'host srv 10.0.0.1 02:00:00:00:00:01 server --app=echo --stats %s\n' "$*"
    printf 'host cla 10.0.0.2 02:00:00:00:00:02 loadgen --server_ip=10.0.0.1 --outstanding=1 --count=200 --drain_timeout=1\n'
    printf 'link srv sw\nlink cla sw\n'; } >"$work/$name.topo"
  "$sim" "$work/$name.topo" --sim_progress=false --timing_params="$params" >"$work/$name.out" 2>&1 ||
    { cat "$work/$name.out"; die "nanopu-sim, $name"; }
}
both="--pipeline=$programs/nanopu.spec --pipeline_entries=$programs/nanopu.entries --egress_pipeline=$programs/vxlan_encap.spec"
run plain "$work/slow_stages.params"
run programs "$work/slow_stages.params" $both
run programs_default osdi21 $both
run plain_default osdi21
p50() { grep -A2 "latency (modelled round trip, us)" "$1" | tail -n 1 | awk '{print $3}'; }
sent() { grep -o "received [0-9]*" "$1" | grep -o "[0-9]*"; }
for r in plain programs plain_default programs_default; do
  echo "$r: p50 $(p50 "$work/$r.out") us, $(sent "$work/$r.out") answered"
  [ "$(sent "$work/$r.out")" = 200 ] || die "$r: not every request answered"
done
grep -q "pipeline transport: hit [1-9]" "$work/programs.out" || { cat "$work/programs.out"; die "the ingress program did not run"; }
grep -q "pipeline egress tunnel: hit 0 miss [1-9]" "$work/programs.out" || { cat "$work/programs.out"; die "the egress program did not run"; }
awk -v a="$(p50 "$work/plain.out")" -v b="$(p50 "$work/programs.out")" 'BEGIN { d = b - a; exit !(d > 1.95 && d < 2.05) }' \
  || die "two 1 us stages: p50 $(p50 "$work/plain.out") -> $(p50 "$work/programs.out") us, not +2"
awk -v a="$(p50 "$work/plain_default.out")" -v b="$(p50 "$work/programs_default.out")" 'BEGIN { d = b - a; exit !(d >= 0 && d <= 0.01) }' \
  || die "default stages: p50 $(p50 "$work/plain_default.out") -> $(p50 "$work/programs_default.out") us, more than 10 ns apart"
echo "pipeline_sim_test: passed"
