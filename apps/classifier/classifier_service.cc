#include "apps/classifier/classifier_service.h"

#include "apps/compute/status_words.h"

namespace nanopu::apps {

bool parse_header(uint64_t w0, uint64_t w1, Header* h) {
  if ((w1 & 0x0000'0000'ffff'ff00ull) != 0) return false;
  h->src_ip = static_cast<uint32_t>(w0 >> 32);
  h->dst_ip = static_cast<uint32_t>(w0);
  h->src_port = static_cast<uint16_t>(w1 >> 48);
  h->dst_port = static_cast<uint16_t>(w1 >> 32);
  h->proto = static_cast<uint8_t>(w1);
  return true;
}

Outcome ClassifierService::answer(std::span<const uint64_t> r, std::vector<uint64_t>* reply) {
  if (r.size() != 4) return error_reply(r, kErrBadLength, reply);
  Header h;
  if (!parse_header(r[2], r[3], &h)) return error_reply(r, kErrBadValue, reply);
  uint32_t probes = 0;
  const uint32_t id = rules_->classify(h, &probes);
  work_cycles_ = kClassifierCyclesPerProbe * probes;
  reply->assign({r[0], r[1], id == kNoRule ? kNoMatch : id});
  return Outcome::kAnswered;
}

}  // namespace nanopu::apps
