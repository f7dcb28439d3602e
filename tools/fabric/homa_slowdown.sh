#!/bin/bash
# The Homa paper's Figure 12 at its size (SIGCOMM'18 §5.2): 144 hosts in 9
# racks under 4 spines, W1..W5 at 80 % load, Homa and NDP, every host
# running nanopu's own code on nanopu-sim's clock (nanopu-figures
# homa-slowdown; the test command runs a reduced one). Minutes of wall time,
# on as many simulation threads as CPUs (THREADS=N: the same figure on any).
#   tools/fabric/homa_slowdown.sh [BUILD_DIR] [OUT_DIR] [more nanopu-figures flags]
set -euo pipefail
build=${1:-build}
out=${2:-homa-slowdown}
shift $(( $# > 2 ? 2 : $# ))
fig="$build/bench/nanopu-figures"
[ -x "$fig" ] || { echo "homa_slowdown.sh: no $fig: build first (README.md)" >&2; exit 2; }
mkdir -p "$out"
exec "$fig" --out="$out" --fabric_racks=9 --fabric_rack_hosts=16 --fabric_spines=4 \
  --workload_messages="${MESSAGES:-200}" --sim_threads="${THREADS:-$(nproc)}" "$@" homa-slowdown
