#!/usr/bin/env bash
# Installs what nanopu needs on Debian 12 and reserves 2 MiB hugepages when
# the machine allows it. Safe to run again: it only does what is missing.
# Usage: bash deploy/setup.sh        (as root, or with sudo available)
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: run as root (apt-get and hugepages need it)" >&2; exit 1; }
  SUDO="sudo"
fi

PACKAGES=(
  build-essential cmake ninja-build pkg-config git ccache
  dpdk-dev libdpdk-dev            # EAL, mbufs, rings, PMDs (net_ring, net_memif, net_null, af_packet)
  libsystemd-dev                  # pkg-config --static libdpdk names -lsystemd (static services)
  libboost-context-dev            # fibers for the thread scheduler
  liburing-dev                    # kernel-socket backend
  libabsl-dev                     # flags, Status, containers, strings
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev        # libFuzzer targets and sanitizer runtimes
  lld                             # the linker (GNU ld took 20x as long on a sanitizer build's programs)
  python3 python3-matplotlib      # figures
  valgrind                        # nanopu-bench-rpc counts instructions with callgrind (no PMU on a VM)
  iproute2                        # hosts in network namespaces (deploy/netns, tests)
  iputils-ping iputils-arping ethtool  # the OS path's test: the kernel's own ping and arping (--os_port)
  tshark                          # captures read through tools/wireshark/nanopu.lua (tests)
  ansible-core                    # deploy/cluster/playbook.yml (tested against netns hosts)
  libopenmpi-dev openmpi-bin      # nanopu-sim's ranks over MPI (mpirun -np N nanopu-sim ...)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Hugepages: 512 x 2 MiB = 1 GiB, mounted at /dev/hugepages. Where the kernel
# or a container refuses, the runtime falls back to --no-huge by itself.
WANT_PAGES=${NANOPU_HUGEPAGES:-512}
HP=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
have=$(cat "$HP" 2>/dev/null || echo 0)
if [ "$have" -lt "$WANT_PAGES" ]; then
  echo "$WANT_PAGES" | $SUDO tee "$HP" >/dev/null 2>&1 || true
  have=$(cat "$HP" 2>/dev/null || echo 0)
fi
if ! grep -q "^hugetlbfs /dev/hugepages " /proc/mounts 2>/dev/null && ! awk '$3=="hugetlbfs"{f=1} END{exit !f}' /proc/mounts; then
  $SUDO mkdir -p /dev/hugepages 2>/dev/null || true
  $SUDO mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages 2>/dev/null || true
fi
if [ "$have" -gt 0 ] && awk '$3=="hugetlbfs"{f=1} END{exit !f}' /proc/mounts; then
  echo "setup: $have x 2 MiB hugepages reserved and mounted: nanopu uses them"
else
  echo "setup: no hugepages here; nanopu runs with --no-huge (slower start, same behaviour)"
fi
