// The parameters of the nanoPU timing model (model/timing/timing_model.h): a
// clock, per-stage costs in cycles of that clock, and the link. The .params
// files mark each value published, derived, fitted or nanopu's choice. Two sets
// ship built in, one per paper revision: "osdi21" (17 ns loopback, 69 ns
// wire-to-wire; nanoPU (OSDI'21) §5.2.1) and "tail" (13 ns / 65 ns; nanoPU tail-latency version §3). The same
// values, each with its source, are in model/timing/nanopu-osdi21.params and
// nanopu-tail.params, which load_timing_params() reads (key = value # note).
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace nanopu::model {

struct TimingParams {
  std::string name = "osdi21";
  double clock_ghz = 3.2;           // core and NIC clock
  double link_gbps = 200;           // serialization rate of the NIC's port
  double link_latency_ns = 43.75;   // one wire between a host and the switch
  double mac_serial_io_ns = 26;     // Ethernet MAC + serial I/O, each direction
  // Per-stage cycles of the fast path (ingress to egress).
  double rx_pipeline_cycles = 8;      // P4 ingress: parse, match the context
  double transport_cycles = 4;        // NDP receive: reassembly bookkeeping, ACK
  double core_select_cycles = 2;      // JBSQ pick
  double rx_fifo_cycles = 3;          // into the thread's netRX register FIFO
  double app_fixed_cycles = 5;        // loopback on the latency path: header read + write, msg_done
  double app_cycles_per_word = 1;     // one word read and written (one instruction, Listing 1)
  double app_loop_cycles = 26.1;      // a loopback loop's per-message overhead (throughput, Fig. 4)
  double tx_fifo_cycles = 3;          // netTX FIFO to the NIC
  double packetizer_cycles = 4;       // packetization buffer, NDP send
  double tx_pipeline_cycles = 6;      // P4 egress: headers
  // One match-action stage a pipeline program adds: each table of a host's
  // --pipeline and --egress_pipeline program (the fixed ingress's context
  // match is in rx_pipeline_cycles).
  double pisa_stage_cycles = 4;
  double context_switch_cycles = 160; // HTS interrupt to first instruction (nanoPU tail-latency version §2.4)
  // The traditional NIC's DMA path (nanoPU (OSDI'21) Fig. 3 baseline).
  double dma_fixed_ns = 42.4;         // descriptors, DMA, completion polling, MAC swap
  double dma_bytes_per_ns = 16;       // memory copy/DMA rate of message bytes, each way
};

// The built-in set of that name ("osdi21" or "tail").
[[nodiscard]] absl::StatusOr<TimingParams> builtin_timing_params(const std::string& name);

// A built-in set's name, or else a parameter file's path (what
// --timing_params and nanopu-figures' --params take).
[[nodiscard]] absl::StatusOr<TimingParams> named_timing_params(const std::string& name_or_path);

// Reads a parameter file: `key = value` lines, '#' starts a comment; keys
// are TimingParams' field names; unknown keys and bad numbers are errors
// naming the line. Starts from the "osdi21" set.
[[nodiscard]] absl::StatusOr<TimingParams> load_timing_params(const std::string& path);
[[nodiscard]] absl::StatusOr<TimingParams> parse_timing_params(const std::string& text,
                                                               const std::string& source);

}  // namespace nanopu::model
