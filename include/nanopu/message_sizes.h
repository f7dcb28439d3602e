// The message-size workloads of the Homa paper (Montazeri et al., "Homa: A
// Receiver-Driven Low-Latency Transport Protocol Using Network Priorities",
// SIGCOMM'18, §5.2 and Figure 1): W1..W5, each a CDF of message sizes
// measured in a production datacenter, written out here in nanopu's own form
// from the CDFs the paper's authors published with their simulator
// (PlatformLab/HomaSimulation, sizeDistributions/). A load draws a size per
// message from one; nanopu-sim's `workload` program and
// `nanopu-figures homa-slowdown` do (docs/running.md, "Fabrics").
//
//   W1  Facebook key-value (memcached)       most messages < 100 B
//   W2  Google search RPC                    most < 1 KB
//   W3  Google, all RPCs in a datacenter     most < 100 B, a long tail
//   W4  Facebook Hadoop                      half < 1 KB, 18 % > 64 KB
//   W5  DCTCP web search                     every message >= 1460 B, half > 64 KB
//
// nanopu's messages stop at 64 KB (rpc::kMaxCallBytes for a call): a draw
// larger than the bound a load passes is that bound. size_stats() says what
// share of a workload's messages (and of its bytes) that clips, which is
// most of W4's and W5's bytes.
#pragma once

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"

namespace nanopu {

enum class SizeWorkload : uint8_t { kW1, kW2, kW3, kW4, kW5 };
inline constexpr SizeWorkload kSizeWorkloads[] = {SizeWorkload::kW1, SizeWorkload::kW2, SizeWorkload::kW3,
                                                  SizeWorkload::kW4, SizeWorkload::kW5};

// "W1".."W5".
[[nodiscard]] std::string_view size_workload_name(SizeWorkload w);
// One line: where the CDF comes from ("Facebook key-value (memcached)").
[[nodiscard]] std::string_view size_workload_description(SizeWorkload w);
// "W1".."W5" (or "w1".."w5"); an error naming the choices otherwise.
[[nodiscard]] absl::StatusOr<SizeWorkload> parse_size_workload(std::string_view s);

// The size of a message whose draw is `u` (uniform in [0, 1)): the
// workload's quantile at u, at least 1 byte, at most `max_bytes`.
[[nodiscard]] uint32_t draw_message_bytes(SizeWorkload w, double u, uint32_t max_bytes);

struct SizeStats {
  double mean_bytes = 0;              // of the sizes as drawn (clipped at max_bytes)
  double clipped_fraction = 0;        // of messages larger than max_bytes
  double clipped_bytes_fraction = 0;  // of the workload's bytes, beyond max_bytes, that clipping drops
};
// Over the quantile function at 2^16 evenly spaced draws.
[[nodiscard]] SizeStats size_stats(SizeWorkload w, uint32_t max_bytes);

}  // namespace nanopu
