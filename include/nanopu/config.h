// Runtime configuration: one emulated nanoPU host. Built in code, or from
// command-line flags with Config::from_flags() (every flag documented in
// --help). validate() rejects impossible settings with one line saying what
// to change.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace nanopu {

enum class HugePages : uint8_t { kAuto, kOn, kOff };

inline constexpr size_t kMaxWorkerCores = 64;  // per host (nic/pipeline/context_table.h)

struct Config {
  // --- EAL and port ---
  // EAL lcores. The first is the NIC core; each further one is a worker core.
  // A single lcore runs the NIC loop and one worker on the same core.
  std::vector<unsigned> lcores = {0};
  // Single-lcore mode only: how many worker cores to emulate on that lcore,
  // taking turns (tests and small machines).
  uint32_t shared_workers = 1;
  // Optional EAL --lcores map (e.g. "0@0,1@1,2@1") used instead of -l, so
  // more lcores than CPUs can exist (tests).
  std::string eal_lcore_map;
  // DPDK virtual devices, e.g. "net_memif0,role=server,socket=/tmp/m.sock".
  std::vector<std::string> vdevs;
  uint16_t port_index = 0;  // which DPDK port (in probe order) this host uses
  int32_t port_id = -1;     // code only: use this DPDK port id instead (tests' ring pairs)
  HugePages huge = HugePages::kAuto;
  std::string file_prefix;  // empty: "nanopu-<pid>", unique per process
  std::string extra_eal_args;
  double link_wait_s = 10;  // run() waits this long for the port's link (memif connects)
  uint32_t eal_log_level = 4;  // RTE_LOG_WARNING: only problems

  // --- Host identity (WIRE.md) ---
  uint32_t ip = 0x0a000001;  // 10.0.0.1
  std::string gateway_mac = "ff:ff:ff:ff:ff:ff";  // next hop for unlearned peers

  // --- Buffers ---
  uint32_t mbufs = 16383;
  uint16_t rx_descriptors = 1024;
  uint16_t tx_descriptors = 1024;
  uint32_t fifo_messages = 256;  // per-thread RX and TX FIFO depth, in messages
  uint32_t max_message_bytes = 65535;  // up to the 16-bit msg_len (64 packets)

  // --- Threads and transport ---
  uint32_t max_threads_per_core = 4;  // as the nanoPU prototype
  uint16_t rtt_packets = 2;           // NDP: packets a sender may send before a PULL
  uint32_t outbound_slots = 256;      // NDP: messages in flight (packetization buffer)
  uint32_t reassembly_slots = 256;    // NDP: messages being received (reassembly buffer)
  double rto_us = 50;                 // NDP retransmit timeout (backs off to 64x)
  uint32_t max_retransmits = 200;     // timeouts before a message is given up
  double link_gbps = 200;             // PULL pacing: one MTU serialization time at this rate
  double reassembly_expiry_ms = 100;  // free a partial message whose sender went silent
  // Buffer shares (nic/reassembly/buffer_partition.h); 0 = default.
  uint32_t reserved_priority0_slots = 0;  // default: a quarter of the reassembly slots
  uint32_t context_slots = 0;             // default: half of the reassembly slots
  uint32_t context_packets = 0;           // default: a quarter of the mbufs
  std::string faults;                 // fault-injecting wire on this port's RX (nic/fault)

  // --- Core selection (nanoPU §2.3, §3.2) ---
  std::string core_select = "jbsq";   // jbsq | rss | static
  uint32_t jbsq_n = 2;                // JBSQ(n) bound per (core, context)
  uint32_t global_queue_messages = 4096;  // per-context global RX queue depth

  // --- Thread scheduler (nanoPU §2.2, 002 §2.4) ---
  std::string scheduler = "hts";      // hts | tis (timer-interrupt baseline, §5.2.2)
  bool bounded_processing = true;     // demote priority 0 after t0
  double t0_ns = 1000;                // bounded message-processing time
  double idle_timeout_ns = 1000;      // rotate when all threads idle this long
  double tis_period_ns = 5000;        // TIS tick
  double shared_nic_poll_ns = 2000;   // single-lcore: safe points poll the NIC this often
  double async_preempt_us = 20;       // signal a worker that missed a safe point this long
  double watchdog_ms = 100;           // report a thread on one message this long (0: off)

  // Worker cores: lcores after the first, or the NIC core itself when alone.
  [[nodiscard]] size_t worker_count() const {
    return lcores.size() > 1 ? lcores.size() - 1 : shared_workers;
  }
  [[nodiscard]] bool shared_core() const { return lcores.size() == 1; }

  [[nodiscard]] absl::Status validate() const;

  // Reads the flags defined in lib/config.cc (after absl::ParseCommandLine).
  [[nodiscard]] static absl::StatusOr<Config> from_flags();
};

// Parses "aa:bb:cc:dd:ee:ff".
[[nodiscard]] bool parse_mac(const std::string& text, uint8_t out[6]);

// Installs nanopu's --help behaviour: list every flag of this program (not
// Abseil's internal ones) under the given one-line usage message.
void init_flags_usage(const char* usage);

}  // namespace nanopu
