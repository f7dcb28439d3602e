#!/usr/bin/env bash
# Configures and builds one build directory.
# Usage: bash deploy/build.sh <dir> [cmake options...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1
shift
cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
ninja -C "$dir"
