#!/usr/bin/env bash
# Runs a topology file as nanopu hosts in network namespaces on this machine
# (builds first if the programs are missing). Needs root.
# Usage: bash deploy/netns/run.sh deploy/netns/examples/echo-3hosts.topo [--out DIR]
#        bash deploy/netns/run.sh --help
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ] || [ $# -eq 0 ]; then
  exec python3 "$here/nanopu_netns.py" --help
fi
if [ ! -x "$root/build/nanopu-server" ]; then
  bash "$root/deploy/setup.sh"
  bash "$root/deploy/build.sh" "$root/build"  # the normal build: the tests' and the demo's
fi
exec python3 "$here/nanopu_netns.py" run "$@"
