#!/usr/bin/env bash
# What a user debugging a host reaches for, exercised on real processes over
# net_memif: a capture (--pcap) read back by tshark through the project's
# dissector, counters read live over DPDK telemetry, and a capture replayed
# into a host through DPDK's net_pcap PMD; and the latency plots made from
# the load generator's JSON.
# Usage: observability_test.sh capture|telemetry|replay|plot BIN_DIR WORK_DIR LUA_SCRIPT
set -euo pipefail
mode=$1 bin=$2 work=$3 lua=$4
rm -rf "$work"
mkdir -p "$work"
sock=$work/memif.sock
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill -TERM "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -f "$sock"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The server in the background; returns once it is ready.
start_server() {
  "$bin/nanopu-server" --lcores=0 --poll=adaptive --app=echo --context=1 \
    --vdev="net_memif0,role=server,socket=$sock" "$@" >"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 600); do grep -q "Ctrl-C stops" "$work/server.log" 2>/dev/null && return 0; sleep 0.1; done
  cat "$work/server.log"; fail "server did not start"
}
stop_server() {
  kill -INT "$server_pid"
  wait "$server_pid" || fail "server exited $? on SIGINT: $(cat "$work/server.log")"
  server_pid=""
}
# loadgen ARGS...: a closed-loop echo load, every reply checked word for word.
# It drains for 10 s, not 1 s: server and client share CPU 0, and a process
# beside a hog can go unscheduled past 1 s (docs/design.md §9,
# --pin). ARGS may override it.
loadgen() {
  "$bin/nanopu-loadgen" --lcores=0 --poll=adaptive --vdev="net_memif0,role=client,socket=$sock" \
    --server_context=1 --progress=false --drain_timeout=10 --json="$work/load.json" "$@" >"$work/load.log" 2>&1 \
    || { local rc=$?; cat "$work/load.log"; fail "nanopu-loadgen exited $rc"; }
}
counter() {  # counter LOG NAME: the value a host printed at exit (0 if absent)
  awk -v n="$2" '$1 == n { v = $2 } END { print v + 0 }' "$1"
}
tshark_fields() {  # tshark_fields FILE FIELDS... (one line per frame, tab-separated)
  local args=()
  for f in "${@:2}"; do args+=(-e "$f"); done
  tshark -X "lua_script:$lua" -r "$1" -T fields "${args[@]}" 2>"$work/tshark.err" \
    || { cat "$work/tshark.err"; fail "tshark could not read $1"; }
}

case $mode in
capture)
  # 200 echoes of 1500 bytes: two DATA packets each way per echo.
  start_server --pcap="$work/server.pcapng"
  loadgen --count=200 --size=1500 --outstanding=1
  stop_server
  written=$(counter "$work/server.log" capture.written)
  [ "$(counter "$work/server.log" capture.lost)" -eq 0 ] || fail "capture lost frames"
  rx=$(counter "$work/server.log" nic.rx_packets)
  tx=$(( $(counter "$work/server.log" nic.tx_data_packets) + $(counter "$work/server.log" nic.tx_control_packets) ))
  [ "$rx" -ge 400 ] && [ "$tx" -ge 400 ] || fail "the NIC counted $rx frames received and $tx sent"
  [ "$written" -ge $((rx + tx - 10)) ] || fail "captured $written frames of $rx received and $tx sent"
  tshark_fields "$work/server.pcapng" frame.number ip.src nanopu_ndp.flags nanopu_ndp.msg_len \
    nanopu_ndp.pkt_offset nanopu_ndp.tx_msg_id nanopu_ndp.src_context nanopu_ndp.dst_context \
    nanopu.word >"$work/fields.tsv"
  [ "$(wc -l <"$work/fields.tsv")" -eq "$written" ] || fail "tshark read $(wc -l <"$work/fields.tsv") of $written frames"
  # Every frame is nanopu NDP; requests are DATA from the client to context 1.
  awk -F'\t' '$3 == "" { bad++ } END { exit bad > 0 }' "$work/fields.tsv" || fail "a frame not dissected as NDP"
  requests=$(awk -F'\t' '$2 == "10.0.0.2" && $3 == "0x01" && $4 == 1500 && $8 == 1' "$work/fields.tsv" | wc -l)
  replies=$(awk -F'\t' '$2 == "10.0.0.1" && $3 == "0x01" && $4 == 1500 && $7 == 1' "$work/fields.tsv" | wc -l)
  [ "$requests" -ge 400 ] || fail "$requests request packets (want >= 400: 200 echoes x 2 packets)"
  [ "$replies" -ge 400 ] || fail "$replies reply packets"
  # A 1500-byte message: packet 0 carries 128 words, packet 1 the other 476 bytes (59 words + 4).
  awk -F'\t' '$3 == "0x01" && $5 == 0 { n = split($9, w, ","); if (n != 128) bad++ }
              END { exit bad > 0 }' "$work/fields.tsv" || fail "packet 0 not shown as 128 words"
  # The echo: every request's words come back in a reply.
  awk -F'\t' '$3 == "0x01" && $2 == "10.0.0.2" { print $5, $9 }' "$work/fields.tsv" | sort -u >"$work/req.words"
  awk -F'\t' '$3 == "0x01" && $2 == "10.0.0.1" { print $5, $9 }' "$work/fields.tsv" | sort -u >"$work/rep.words"
  cmp -s "$work/req.words" "$work/rep.words" || fail "the replies' words differ from the requests'"
  # Every message is acknowledged: by an ACK|PULL control packet (decoded
  # with its flags), or by an ACK a DATA packet carries (options 0x02,
  # docs/wire.md "Acknowledgements that ride on data"): 400 messages.
  acks=$(tshark_fields "$work/server.pcapng" nanopu_ndp.flags.ack nanopu_ndp.flags.pull | grep -c "^1	1$" || true)
  carried=0
  while IFS=$'\t' read -r flags opts; do
    [ -n "$opts" ] && (( (flags & 0x01) && (opts & 0x02) )) && carried=$((carried + 1))
  done < <(tshark_fields "$work/server.pcapng" nanopu_ndp.flags nanopu_ndp.options)
  echo "acknowledged: $acks by ACK|PULL frames, $carried by carried ACKs"
  [ "$acks" -ge 1 ] || fail "no ACK|PULL frame decoded"
  [ "$carried" -ge 1 ] || fail "no DATA frame decoded as carrying an ACK"
  [ $((acks + carried)) -ge 398 ] || fail "$acks ACK|PULL frames and $carried carried ACKs for 400 messages"
  # Frames no nanopu host sends yet: a Homa GRANT, and an NDP header cut short.
  python3 - "$work/made.pcap" <<'PY'
import struct, sys
def frame(proto, transport):
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(transport), 0, 0, 64, proto, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    return b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01" + b"\x08\x00" + ip + transport
homa = struct.pack("!BHHHBHBHHB", 0x08, 1, 2, 3000, 0, 2048, 5, 77, 9, 3) + bytes(14) + bytes(64)
cut = struct.pack("!BHH", 0x01, 1, 2)
# An ACK|PULL listing two more messages (options 0x10, docs/wire.md "Lists").
listed = struct.pack("!BHHHBHHHBHHIBHHH", 0x0A, 7, 3, 100, 0, 1, 4, 39, 9, 9, 5, 0, 0x10, 0, 0, 0) + \
    (struct.pack("!BBHHHH", 2, 0, 5, 40, 6, 41) + bytes(64))[:64]
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    for pkt in (frame(0x9A, homa), frame(0x99, cut), frame(0x99, listed)):
        f.write(struct.pack("<IIII", 0, 0, len(pkt), len(pkt)) + pkt)
PY
  tshark_fields "$work/made.pcap" nanopu_homa.flags.grant nanopu_homa.grant_offset nanopu_homa.grant_prio \
    nanopu_homa.tx_msg_id nanopu_homa.msg_len _ws.expert.message >"$work/made.tsv"
  [ "$(sed -n 1p "$work/made.tsv")" = "$(printf '1\t2048\t5\t77\t3000\t')" ] || fail "Homa GRANT: $(sed -n 1p "$work/made.tsv")"
  sed -n 2p "$work/made.tsv" | grep -q "Truncated nanopu NDP transport header" || fail "a cut NDP header: $(sed -n 2p "$work/made.tsv")"
  list=$(tshark_fields "$work/made.pcap" nanopu_ndp.tx_msg_id nanopu_ndp.list.count nanopu_ndp.list.msg_id \
    nanopu_ndp.list.buf_ptr | sed -n 3p)
  [ "$list" = "$(printf '4\t2\t5,6\t40,41')" ] || fail "an ACK list: $list"
  head -n 3 "$work/fields.tsv" | cut -c1-160
  echo "capture: $written frames, $requests request and $replies reply DATA packets, echoes match"
  ;;
telemetry)
  # With nanopu's pipeline program, whose tables the socket reads and changes.
  programs="$(cd "$(dirname "$lua")/../.." && pwd)/nic/pipeline/programs"
  start_server --file_prefix="nanopu-test-$$" --pipeline="$programs/nanopu.spec" \
    --pipeline_entries="$programs/nanopu.entries"
  grep -q "dpdk-telemetry.py -f nanopu-test-$$" "$work/server.log" || fail "the server does not say how to read its counters"
  ask() { echo "$1" | dpdk-telemetry.py -f "nanopu-test-$$" 2>&1; }
  ask /nanopu/info >"$work/info.json"
  grep -q '"ip": "10.0.0.1"' "$work/info.json" || fail "/nanopu/info: $(cat "$work/info.json")"
  before=$(ask /nanopu/nic | python3 -c 'import json,sys; print(json.load(sys.stdin)["/nanopu/nic"]["rx_msgs_delivered"])')
  loadgen --count=300 --size=64 --outstanding=2
  ask /nanopu/nic >"$work/nic.json"
  after=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["/nanopu/nic"]["rx_msgs_delivered"])' "$work/nic.json")
  [ "$after" -ge $((before + 300)) ] || fail "rx_msgs_delivered $before -> $after after 300 requests"
  ask /nanopu/core,0 | grep -q '"switches"' || fail "/nanopu/core,0"
  ask /nanopu/thread,0 | grep -q '"rx_msgs": [1-9]' || fail "/nanopu/thread,0: $(ask /nanopu/thread,0)"
  ask /nanopu/thread,99 | grep -q '"/nanopu/thread": null' || fail "an unknown thread must answer null"
  ask /nanopu/pipeline | grep -q '"transport": "hit [1-9][0-9]* miss' || fail "/nanopu/pipeline: $(ask /nanopu/pipeline)"
  ask "/nanopu/pipeline_add,transport match 0x11 action fast_path" | grep -q '"added"' \
    || fail "/nanopu/pipeline_add: $(ask '/nanopu/pipeline_add,transport match 0x11 action fast_path')"
  ask "/nanopu/pipeline_add,transport match 0x12 action teleport" | grep -q '"error": "table transport: entry' \
    || fail "/nanopu/pipeline_add of a wrong entry: $(ask '/nanopu/pipeline_add,transport match 0x12 action teleport')"
  stop_server
  [ "$after" -le "$(counter "$work/server.log" nic.rx_msgs_delivered)" ] || fail "live counter ahead of the final one"
  echo "telemetry: rx_msgs_delivered $before -> $after while the host ran"
  ;;
replay)
  # Capture a short run on the server, then feed the capture into a fresh
  # server through net_pcap and capture what it sends back.
  start_server --pcap="$work/run.pcapng"
  loadgen --count=50 --size=100 --outstanding=1
  stop_server
  frames=$(tshark -r "$work/run.pcapng" 2>/dev/null | wc -l)
  "$bin/nanopu-server" --lcores=0 --poll=adaptive --app=echo --context=1 --link_wait=0 \
    --file_prefix="nanopu-replay-$$" \
    --vdev="net_pcap0,rx_pcap=$work/run.pcapng,tx_pcap=$work/replayed-out.pcap" >"$work/replay.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 600); do grep -q "Ctrl-C stops" "$work/replay.log" 2>/dev/null && break; sleep 0.1; done
  # Until its live counters say it has taken every frame (60 s at most), not
  # a fixed sleep: beside a hog the server may not run for seconds.
  for _ in $(seq 120); do
    taken=$(echo /nanopu/nic | dpdk-telemetry.py -f "nanopu-replay-$$" 2>/dev/null \
      | python3 -c 'import json,sys; print(json.load(sys.stdin)["/nanopu/nic"]["rx_packets"])' 2>/dev/null) || taken=0
    [ "${taken:-0}" -ge "$frames" ] && break
    sleep 0.5
  done
  kill -INT "$server_pid"; wait "$server_pid" || fail "replay server exited $?: $(cat "$work/replay.log")"
  server_pid=""
  rx=$(counter "$work/replay.log" nic.rx_packets)
  [ "$rx" -eq "$frames" ] || fail "replayed host took $rx frames of the capture's $frames: $(cat "$work/replay.log")"
  # The first request named no receiver run: it is served again. Later ones
  # named the original server's run and are refused (GONE), as after a restart.
  [ "$(counter "$work/replay.log" nic.rx_msgs_delivered)" -ge 1 ] || fail "nothing delivered: $(cat "$work/replay.log")"
  [ "$(counter "$work/replay.log" nic.rx_drop_not_for_host)" -gt 0 ] || fail "the original server's own frames were not dropped as not for this host"
  replies=$(tshark_fields "$work/replayed-out.pcap" ip.src nanopu_ndp.flags | awk -F'\t' '$1 == "10.0.0.1" && $2 == "0x01"' | wc -l)
  [ "$replies" -ge 1 ] || fail "the replayed host sent no reply"
  echo "replay: $frames frames in, $(counter "$work/replay.log" nic.rx_msgs_delivered) requests served again, $replies reply packets out"
  ;;
plot)
  # The demo's last step: two runs' JSON turned into a CDF and a p99-vs-load plot.
  start_server
  loadgen --count=2000 --size=64 --outstanding=1
  mv "$work/load.json" "$work/closed.json"
  # An open-loop run gentle enough for a machine whose CPUs are all busy
  # (both processes share lcore 0): the plot needs a second point, not load.
  loadgen --duration=1 --size=64 --rate=2000 --drain_timeout=30
  mv "$work/load.json" "$work/open.json"
  stop_server
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["latency_ns"]; c=d["cdf"]; \
    assert len(c) > 100 and c[49][1] == d["p50"] and c[98][1] == d["p99"] and c[-1] == [1, d["max"]], c' \
    "$work/closed.json" || fail "the JSON's CDF does not match its percentiles"
  /usr/bin/python3 "$(dirname "$lua")/../plot_latency.py" "$work/closed.json" "$work/open.json" --out "$work/demo"
  for f in demo-cdf.png demo-p99.png; do
    [ "$(head -c 4 "$work/$f" | tail -c 3)" = PNG ] || fail "$f is not a PNG"
  done
  echo '{"not": "a result"}' >"$work/bad.json"
  if /usr/bin/python3 "$(dirname "$lua")/../plot_latency.py" "$work/bad.json" --out "$work/bad" 2>"$work/bad.err"; then
    fail "a file that is not a result was plotted"
  fi
  grep -q "not a nanopu-loadgen --json result" "$work/bad.err" || fail "unclear error: $(cat "$work/bad.err")"
  echo "plot: $work/demo-cdf.png $work/demo-p99.png"
  ;;
*) fail "unknown mode $mode" ;;
esac
