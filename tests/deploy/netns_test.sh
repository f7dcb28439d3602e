#!/usr/bin/env bash
# The multi-host deployment as a user runs it: topology files run as hosts
# in network namespaces (deploy/netns/run.sh), the Ansible playbook driving
# the same topology, tear-down on Ctrl-C and on a failed host, and bad
# topology files refused with nothing created.
# Usage: netns_test.sh echo3|chain4|teardown|bad_topology|ansible SRC_DIR BIN_DIR WORK_DIR
set -euo pipefail
mode=$1 src=$(cd "$2" && pwd) bin=$(cd "$3" && pwd) work=$4
rm -rf "$work"
mkdir -p "$work"
runner=(python3 "$src/deploy/netns/nanopu_netns.py")
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root for network namespaces"; exit 0; }
ours() { ip netns list | awk '{print $1}' | grep "^nanopu-" | sort || true; }
before=$(ours)
no_leftovers() {
  [ "$(ours)" = "$before" ] || fail "namespaces left behind: $(ours)"
  ! pgrep -f "file_prefix=nanopu-[0-9]+-" >/dev/null || fail "processes left behind: $(pgrep -af "file_prefix=nanopu-[0-9]+-")"
}
json() {  # json FILE PYTHON-EXPRESSION-ON-d
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}
# run_topo FILE: runs it, keeping its exit status in $status.
run_topo() {
  set +e
  "${runner[@]}" run "$1" --bin "$bin" --out "$work/out" >"$work/run.log" 2>&1
  status=$?
  set -e
  cat "$work/run.log"
}

# An example topology with its loads run for 1 s rather than 3 (what is
# checked needs traffic, not its length; the netns tests run one at a time).
# A load generator waits up to 10 s (not 1 s) for a reply before it counts
# the request lost: a host beside a CPU hog can go unscheduled past 1 s
# (two ansible runs in 14 saw a client starved so; docs/design.md §9,
# --pin).
example() {
  sed -e 's/--duration=3/--duration=1/' -e 's/^\(host .* loadgen .*\)$/\1 --drain_timeout=10/' \
    "$src/deploy/netns/examples/$1" >"$work/$1"
  echo "$work/$1"
}

case $mode in
echo3)
  run_topo "$(example echo-3hosts.topo)"
  [ "$status" -eq 0 ] || fail "exit $status"
  for c in cla clb; do
    sent=$(json "$work/out/summary.json" "d['hosts']['$c']['load']['sent']")
    got=$(json "$work/out/summary.json" "d['hosts']['$c']['load']['received']")
    [ "$sent" -gt 0 ] && [ "$sent" -eq "$got" ] || fail "$c: $got of $sent replies"
  done
  fwd=$(json "$work/out/summary.json" "d['hosts']['sw']['counters']['switch.forwarded']")
  del=$(json "$work/out/summary.json" "d['hosts']['srv']['counters']['nic.rx_msgs_delivered']")
  [ "$fwd" -gt "$del" ] || fail "switch forwarded $fwd frames for $del messages"
  for f in sw srv cla clb; do [ -s "$work/out/$f.log" ] && [ -s "$work/out/$f.cmd" ] || fail "no $f log"; done
  no_leftovers
  ;;
chain4)
  run_topo "$(example chain-4hosts.topo)"
  [ "$status" -eq 0 ] || fail "exit $status"
  got=$(json "$work/out/summary.json" "d['hosts']['client']['load']['received']")
  [ "$got" -gt 0 ] || fail "no chain reply"
  for r in head mid tail; do
    n=$(json "$work/out/summary.json" "d['hosts']['$r']['counters'].get('nic.rx_msgs_delivered', 0)")
    [ "$n" -gt 0 ] || fail "replica $r received nothing"
  done
  no_leftovers
  ;;
teardown)
  # Ctrl-C in the middle of the load: everything stops and goes.
  sed 's/--duration=3/--duration=60/' "$src/deploy/netns/examples/echo-3hosts.topo" >"$work/long.topo"
  "${runner[@]}" run "$work/long.topo" --bin "$bin" --out "$work/int" >"$work/int.log" 2>&1 &
  pid=$!
  for _ in $(seq 600); do grep -q "started clb" "$work/int.log" && break; sleep 0.1; done
  grep -q "started clb" "$work/int.log" || { cat "$work/int.log"; fail "the load never started"; }
  [ -n "$(ours)" ] || fail "no namespace while running"
  sleep 1
  kill -INT "$pid"
  set +e; wait "$pid"; status=$?; set -e
  cat "$work/int.log"
  [ "$status" -eq 130 ] || fail "exit $status after Ctrl-C (want 130)"
  no_leftovers
  # A host that cannot start (its flags pass the check; its mempool cannot be
  # made): the others are stopped, the namespaces go, the status names it.
  sed 's/--app=echo --context=1/--app=echo --context=1 --mbufs=4000000000/' \
    "$src/deploy/netns/examples/echo-3hosts.topo" >"$work/broken.topo"
  run_topo "$work/broken.topo"
  [ "$status" -eq 4 ] || fail "exit $status for a failed host (want 4)"
  grep -q "host srv " "$work/run.log" || fail "the failed host is not named"
  [ "$(json "$work/out/summary.json" "d['failed_host']")" = srv ] || fail "summary.json does not name srv"
  no_leftovers
  ;;
bad_topology)
  good=$src/deploy/netns/examples/echo-3hosts.topo
  check() {  # check NAME SED-EXPR EXPECTED-LINE EXPECTED-TEXT
    sed "$2" "$good" >"$work/$1.topo"
    set +e
    "${runner[@]}" run "$work/$1.topo" --bin "$bin" --out "$work/$1" >"$work/$1.log" 2>&1
    local s=$?
    set -e
    [ "$s" -eq 2 ] || fail "$1: exit $s (want 2): $(cat "$work/$1.log")"
    grep -q "$1.topo:$3: .*$4" "$work/$1.log" || fail "$1: message does not name line $3 and '$4': $(cat "$work/$1.log")"
    no_leftovers
    echo "$1: $(cat "$work/$1.log")"
  }
  check duplicate_address 's/10.0.0.3 /10.0.0.2 /' 7 "duplicate address 10.0.0.2"
  check duplicate_mac 's/02:00:00:00:00:03/02:00:00:00:00:01/' 7 "duplicate MAC"
  check unknown_service 's/--app=echo/--app=memcached/' 5 "host srv: .*--app='memcached'"
  check link_to_nowhere 's/^link   clb sw/link   clb sx/' 10 "link to sx"
  check unknown_role 's/ loadgen  --server_ip=10.0.0.1 --server_context=1 --size=3000/ client --size=3000/' 7 "unknown role"
  check bad_address 's/10.0.0.3 /10.0.0.300 /' 7 "not an IPv4 address"
  check no_link 's/^link   clb sw//' 7 "host clb has no link"
  check runner_flag 's/--app=echo/--app=echo --vdev=net_ring0/' 5 "--vdev is set by the runner"
  # What only nanopu-sim runs (fabrics, a link's own rate), with the line.
  check fabric 's/^switch sw .*/&\nswitch sx/' 5 "a second switch .*nanopu-sim only"
  check link_rate 's/^link   clb sw/link   clb sw gbps=40/' 10 "gbps= or latency_ns= runs in nanopu-sim only"
  ;;
ansible)
  command -v ansible-playbook >/dev/null || fail "ansible-playbook missing (deploy/setup.sh installs ansible-core)"
  # The example with the transport's defaults (a host starved of CPU by
  # ansible-playbook and a CPU hog is slow, not dead: messages are given up
  # only after 2 s of its silence, --peer_dead_ms); its load generators
  # drain for 10 s (example) and print their counters for the log.
  topo=$work/ansible.topo
  mkdir -p "$work"
  sed "s/\(loadgen .*\)$/\1 --stats/" "$(example echo-3hosts.topo)" >"$topo"
  run=a$$
  trap '"${runner[@]}" down --run "$run" >/dev/null' EXIT
  "${runner[@]}" up "$topo" --run "$run"
  "${runner[@]}" inventory "$topo" --run "$run" >"$work/inventory.yml"
  # Four processes: on fewer CPUs they float (--pin=off), or one pinned
  # behind a busy neighbour can wait seconds (docs/design.md §9).
  [ "$(nproc)" -ge 4 ] || grep -q "nanopu_pin: 'off'" "$work/inventory.yml" \
    || fail "more processes than CPUs, yet the inventory pins them"
  ANSIBLE_NOCOLOR=1 ANSIBLE_LOCAL_TEMP=$work/ansible-tmp ansible-playbook -i "$work/inventory.yml" \
    "$src/deploy/cluster/playbook.yml" -e nanopu_bin="$bin" -e nanopu_results="$work/results" \
    -e nanopu_work="$work/hosts" \
    -e nanopu_hugepages="$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)" \
    >"$work/ansible.log" 2>&1 || { cat "$work/ansible.log"; fail "the playbook failed"; }
  tail -n 8 "$work/ansible.log"
  grep -A6 "Reserve and mount 2 MiB hugepages" "$work/ansible.log" | grep -q "changed: \[srv\]" \
    || fail "the hugepage task did not run (same count as now: nothing changes)"
  for c in cla clb; do
    sent=$(json "$work/results/$c.json" "d['sent']")
    got=$(json "$work/results/$c.json" "d['received']")
    [ "$sent" -gt 0 ] && [ "$sent" -eq "$got" ] || fail "$c: $got of $sent replies"
  done
  grep -q "switch.forwarded" "$work/results/sw.log" || fail "the switch printed no counters (not stopped by SIGINT?)"
  grep -q "nic.rx_msgs_delivered" "$work/results/srv.log" || fail "the server printed no counters"
  # Real machines: the same topology with a machines file gives an inventory
  # that binds the NIC and reaches each machine over SSH.
  printf 'sw 192.0.2.10 pci=0000:03:00.0\nsrv 192.0.2.11 pci=0000:03:00.0 lcores=2\ncla 192.0.2.12 iface=eth1\nclb 192.0.2.13 iface=eth1\n' >"$work/machines"
  "${runner[@]}" inventory "$topo" --machines "$work/machines" >"$work/cluster.yml"
  grep -q "nanopu_pci: '0000:03:00.0'" "$work/cluster.yml" || fail "no PCI binding in the cluster inventory"
  ansible-inventory -i "$work/cluster.yml" --list >"$work/cluster.json" 2>"$work/cluster.err" || { cat "$work/cluster.err"; fail "Ansible cannot read the cluster inventory"; }
  ansible-playbook --syntax-check -i "$work/cluster.yml" "$src/deploy/cluster/playbook.yml" >/dev/null
  trap - EXIT
  "${runner[@]}" down --run "$run" >/dev/null
  no_leftovers
  ;;
*) fail "unknown mode $mode" ;;
esac
echo "PASS: $mode"
