// The pipelines as programs (nanoPU (OSDI'21) §2's ingress and egress PISA
// pipelines; the NIC core's side is nic/pipeline/swx_program.h): each read
// from its file (Config::pipeline_program, Config::egress_program), one
// instance per NIC core, each given its entries file's lines ("TABLE
// ENTRY", as rte_swx_ctl reads an entry). Errors name the file and line.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nanopu/config.h"
#include "nic/pipeline/swx_program.h"

namespace nanopu {

enum class PipelineSide { kIngress, kEgress };

// Output ports of a host's ingress program: 0 the fast path, 1 the OS, 2
// dropped; of its egress program: 0 the wire, 1 and 2 dropped (the same
// three, so a program written for ingress, its drop port 2, does not send
// past DPDK's port table on egress).
inline constexpr uint32_t kPipelinePorts = 3;
inline constexpr uint32_t kEgressPorts = 3;

// Config::validate's part: each program file reads as a spec (DPDK's own
// checks come when the host opens), and entries come with a program.
[[nodiscard]] absl::Status check_pipeline_files(const Config& c);

// One side's programs, one a NIC core, with its entries file's entries; c
// passed check_pipeline_files. None when that side has no program.
[[nodiscard]] absl::StatusOr<std::vector<std::unique_ptr<SwxProgram>>> load_pipeline_programs(
    const Config& c, PipelineSide side, uint32_t nic_cores, uint32_t instance);

// The tables of one side's program (0: none, or a file that does not read
// — the host refuses it at start): each a match-action stage the timing
// model charges (TimingParams::pisa_stage_cycles).
[[nodiscard]] uint32_t pipeline_tables(const Config& c, PipelineSide side);

// "TABLE ENTRY" (an entries file's line, the telemetry command's
// parameter): the first word and the rest; false when there is no rest.
[[nodiscard]] bool split_entry_line(absl::string_view line, std::string* table, std::string* entry);

}  // namespace nanopu
