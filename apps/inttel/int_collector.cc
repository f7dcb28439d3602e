#include "apps/inttel/int_collector.h"

#include "apps/compute/status_words.h"
#include "apps/inttel/int_record.h"

namespace nanopu::apps {

Outcome IntCollector::answer(std::span<const uint64_t> r, std::vector<uint64_t>* reply) {
  if (r.size() < 2 + kIntHeaderWords) return error_reply(r, kErrBadLength, reply);
  const uint64_t flow0 = r[2], flow1 = r[3], shim = r[4], md = r[5];
  if ((flow1 & 0x0000'0000'ffff'ff00ull) != 0 || shim >> 32 != 0 || (shim >> 24 & 0xff) != kIntShimTypeMd ||
      md >> 60 != kIntVersion || (md >> 40 & 0x1f) != kIntHopMl || (md >> 16 & 0xffff) != kIntInstructions)
    return error_reply(r, kErrBadValue, reply);
  const uint64_t length = shim >> 8 & 0xff;  // 4-byte words: shim 1 + metadata header 3 + hop_ml per hop
  if (length < 4 + kIntHopMl || (length - 4) % kIntHopMl != 0) return error_reply(r, kErrBadValue, reply);
  const uint64_t hops = (length - 4) / kIntHopMl;
  if (hops > kIntMaxHops) return error_reply(r, kErrBadCount, reply);
  if (r.size() != 2 + kIntHeaderWords + 2 * hops) return error_reply(r, kErrBadLength, reply);
  uint64_t path = 0, worst = 0, bottleneck = 0, deepest = 0;
  for (uint64_t i = 0; i < hops; ++i) {
    const uint64_t w0 = r[6 + 2 * i], w1 = r[7 + 2 * i];
    const uint64_t latency = w1 >> 32;
    path += latency;
    if (i == 0 || latency > worst) worst = latency, bottleneck = w0 >> 32;
    if ((w1 & 0xffffff) > deepest) deepest = w1 & 0xffffff;
  }
  uint64_t reports = 0;
  const FlowKey key{flow0, flow1};
  if (auto it = flows_.find(key); it != flows_.end()) {
    reports = ++it->second;
  } else if (flows_.size() < kIntMaxFlows) {
    reports = flows_[key] = 1;
  } else {
    ++untracked_;
  }
  reply->assign({r[0], r[1], path, bottleneck, deepest, reports, reports >= heavy_ ? 1u : 0u});
  work_cycles_ = kIntCyclesPerReport + kIntCyclesPerHop * static_cast<double>(hops);
  return Outcome::kAnswered;
}

}  // namespace nanopu::apps
