// A pipeline program (nic/pipeline/swx_spec.h, DPDK's SWX engine) frames
// run through: one input port and `outputs` output ports, each an rte_ring,
// so a burst goes in, the pipeline runs, and each frame leaves by the port
// its program chose (tx m.port_out; DPDK 22.11's SWX has no drop: a program
// drops by a port its caller frees). Its
// tables are managed while it runs through DPDK's control API (rte_swx_ctl),
// an entry written as rte_swx_ctl_pipeline_table_entry_read reads it
// ("match 0x99 action fast_path"). One thread drives it.
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

class SwxProgram {
 public:
  static constexpr uint16_t kMaxBurst = 64;
  // The program in `text` (from `file`, for errors); name: unique in the
  // process (its rings' names), at most 16 characters.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<SwxProgram>> load(const std::string& text,
                                                                        const std::string& file,
                                                                        uint32_t outputs,
                                                                        const std::string& name);
  ~SwxProgram();
  SwxProgram(const SwxProgram&) = delete;
  SwxProgram& operator=(const SwxProgram&) = delete;

  // Runs n (<= kMaxBurst) frames through; (*out)[i] gets those that left by
  // port i. Returns how many did not leave: a program stuck in a loop (they
  // stay in the engine).
  uint16_t run(rte_mbuf** frames, uint16_t n, std::vector<std::vector<rte_mbuf*>>* out);
  // Adds `entry` to `table` and commits; the error names both. From any one
  // thread while another runs frames (DPDK's control API commits a table's
  // next copy, as examples/pipeline's CLI does beside its data plane).
  [[nodiscard]] absl::Status add_entry(const std::string& table, const std::string& entry);
  // Per table, frames that hit and missed, and per action how many it ran
  // on: one line a table ("transport: hit 10 miss 2; fast_path 10 to_os 2").
  [[nodiscard]] std::vector<std::string> table_counts() const;
  [[nodiscard]] uint32_t outputs() const { return static_cast<uint32_t>(out_.size()); }

 private:
  SwxProgram() = default;
  absl::Status build(const std::string& text, const std::string& file, uint32_t outputs,
                     const std::string& name);

  rte_swx_pipeline* p_ = nullptr;
  rte_swx_ctl_pipeline* ctl_ = nullptr;
  std::mutex ctl_mu_;  // one control thread at a time
  rte_ring* in_ = nullptr;
  std::vector<rte_ring*> out_;
};

}  // namespace nanopu
