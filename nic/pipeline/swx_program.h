// A pipeline program (nic/pipeline/swx_spec.h, DPDK's SWX engine) frames
// run through: one input port and `outputs` output ports, each an rte_ring,
// so a burst goes in, the pipeline runs, and each frame leaves by the port
// its program chose (tx m.port_out; SWX's `drop`, meant for the last port,
// leaves the frame stuck inside DPDK 22.11's engine here: programs send
// to the drop port with `tx`, and a stuck frame is counted). A program
// must name a port it has: DPDK does not check, and a larger one reads past
// its port table. Its
// tables are managed while it runs through DPDK's control API (rte_swx_ctl),
// an entry written as rte_swx_ctl_pipeline_table_entry_read reads it
// ("match 0x99 action fast_path"). One thread drives it.
//
// A program that declares the header `nanopu_meta` reads its hop's own
// values (in-band telemetry: nanoPU (OSDI'21) §2, the pipeline "can be
// programmed to do ... telemetry data"): SWX has no clock or queue to read,
// so each frame enters with 16 bytes before it, HopValues big-endian as a
// header's fields are (programs/int_source.spec). Its struct must be exactly
//   struct nanopu_meta_h { bit<64> time_ns  bit<32> queue_depth  bit<32> reserved }
// and the program must take it off every frame (checked at load): its
// apply block begins `rx ...`, then, after moves into the metadata alone,
// `extract h.nanopu_meta`, and nothing emits it.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

struct rte_ring;
struct rte_swx_pipeline;
struct rte_swx_ctl_pipeline;

namespace nanopu {

// What a hop knows of a frame that a program cannot (above).
struct HopValues {
  uint64_t time_ns = 0;      // the host's clock (modelled under nanopu-sim), ns
  uint32_t queue_depth = 0;  // frames queued with it: the burst in, or the port's queue out
};

class SwxProgram {
 public:
  static constexpr uint16_t kMaxBurst = 64;
  static constexpr uint32_t kHopValueBytes = 16;  // the nanopu_meta header
  // The program in `text` (from `file`, for errors); name: unique in the
  // process (its rings' names), at most 16 characters.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<SwxProgram>> load(const std::string& text,
                                                                        const std::string& file,
                                                                        uint32_t outputs,
                                                                        const std::string& name);
  ~SwxProgram();
  SwxProgram(const SwxProgram&) = delete;
  SwxProgram& operator=(const SwxProgram&) = delete;

  struct RunResult {
    uint16_t stuck = 0;    // did not leave: a program in a loop (they stay in the engine)
    uint16_t dropped = 0;  // freed here: not taken in (the engine full of stuck ones), without
                           // the headroom for the hop's values (reads_hop), or left with
                           // lengths past their buffer (below)
  };
  // Runs n (<= kMaxBurst) frames through; (*out)[i] gets those that left by
  // port i. DPDK's extract does not check a frame's length: a program that
  // takes more headers off a runt frame than it has leaves its length
  // wrapped, so a frame that leaves with its data past its buffer is freed
  // here, never handed on.
  // A program that reads nanopu_meta gets `hop` before each frame; a frame
  // without 16 bytes of headroom for it is dropped, counted.
  RunResult run(rte_mbuf** frames, uint16_t n, std::vector<std::vector<rte_mbuf*>>* out,
                const HopValues& hop = {});
  // Whether run() puts the hop's values before each frame (the caller
  // reads its clock only then).
  [[nodiscard]] bool reads_hop() const { return reads_hop_; }
  // The bytes of every header the program declares: the most it can put
  // before a frame's data (room it needs there; DPDK writes it unchecked).
  [[nodiscard]] uint32_t header_bytes() const { return header_bytes_; }
  // Adds `entry` to `table` and commits; the error names both. From any
  // thread while another runs frames: DPDK's commit swaps in the table's
  // next copy and frees the old one 100 us later, trusting no lookup lasts
  // that long, which a preempted NIC core on a shared CPU can outlast; so a
  // burst and a commit exclude each other (the NIC core waits out a commit,
  // ~100 us, once an entry).
  [[nodiscard]] absl::Status add_entry(const std::string& table, const std::string& entry);
  // Per table, frames that hit and missed, and per action how many it ran
  // on: one line a table ("transport: hit 10 miss 2; fast_path 10 to_os 2");
  // then one line a register array, its first (up to 8) registers
  // ("regarray int_hops: 12 3456 3 250"), read while frames may run.
  [[nodiscard]] std::vector<std::string> table_counts() const;
  [[nodiscard]] uint32_t outputs() const { return static_cast<uint32_t>(out_.size()); }

 private:
  SwxProgram() = default;
  absl::Status build(const std::string& text, const std::string& file, uint32_t outputs,
                     const std::string& name);
  // Puts `hop` before each frame; returns the frames kept (in order).
  uint16_t put_hop_values(rte_mbuf** frames, uint16_t n, const HopValues& hop, RunResult* r);

  rte_swx_pipeline* p_ = nullptr;
  rte_swx_ctl_pipeline* ctl_ = nullptr;
  std::mutex mu_;  // a burst through the engine, or a commit
  uint32_t header_bytes_ = 0;
  bool reads_hop_ = false;
  rte_ring* in_ = nullptr;
  std::vector<rte_ring*> out_;
};

}  // namespace nanopu
