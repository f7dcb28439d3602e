// An INT collector (int_record.h): per report, the path's latency (the sum
// of the hops' latencies), its bottleneck (the hop with the largest
// latency, the newest on ties) and deepest queue; per flow, a report count
// and whether the flow is a heavy hitter (at least `heavy_threshold`
// reports), as the collectors INT feeds count elephant flows.
//
//   request  {service_time, sent_time, flow 0, flow 1, shim, md, hop words}
//   reply    {service_time, sent_time, path_latency, bottleneck switch_id,
//             max queue_occupancy, flow reports, heavy (0 or 1)}
//   error    {service_time, sent_time, kStatusError, code}   (status_words.h)
//
// The flow table is exact and per server thread (one collector per core, as
// the rest of nanopu's state); it holds at most kIntMaxFlows flows, and a
// report of a flow beyond that is answered with 0 reports (counted as
// untracked), not miscounted.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "apps/compute/word_service.h"

namespace nanopu::apps {

inline constexpr uint32_t kIntMaxFlows = 1u << 20;
inline constexpr uint32_t kIntReplyWords = 7;
inline constexpr uint64_t kDefaultHeavyThreshold = 64;

// Declared work for the modelled column (nanopu's estimate at 3.2 GHz):
// per hop, unpack and compare two words, 6 cycles; per report, a flow-table
// probe and update, 40 cycles.
inline constexpr double kIntCyclesPerHop = 6;
inline constexpr double kIntCyclesPerReport = 40;

class IntCollector : public WordService {
 public:
  explicit IntCollector(uint64_t heavy_threshold = kDefaultHeavyThreshold) : heavy_(heavy_threshold) {}
  [[nodiscard]] Outcome answer(std::span<const uint64_t> request, std::vector<uint64_t>* reply) override;
  [[nodiscard]] uint32_t max_reply_words() const override { return kIntReplyWords; }
  [[nodiscard]] uint64_t untracked() const { return untracked_; }

 private:
  struct FlowKey {
    uint64_t w0, w1;
    bool operator==(const FlowKey&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const FlowKey& k) {
      return H::combine(std::move(h), k.w0, k.w1);
    }
  };
  uint64_t heavy_;
  uint64_t untracked_ = 0;
  absl::flat_hash_map<FlowKey, uint64_t> flows_;
};

}  // namespace nanopu::apps
