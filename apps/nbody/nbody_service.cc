#include "apps/nbody/nbody_service.h"

#include <bit>
#include <cmath>

#include "apps/compute/status_words.h"

namespace nanopu::apps {

double nbody_force(double x_com, double y_com, double x, double y) {
  const double dx = x_com - x, dy = y_com - y;
  return 1.0 / (dx * dx + dy * dy + kNbodySoftening * kNbodySoftening);
}

namespace {

Outcome nbody_error(uint64_t code, uint64_t ts, std::vector<uint64_t>* reply) {
  reply->assign({kNbodyError, code, ts << 32});
  return Outcome::kError;
}

}  // namespace

Outcome NbodyService::answer(std::span<const uint64_t> r, std::vector<uint64_t>* reply) {
  if (r.empty()) return Outcome::kDropped;
  const uint64_t ts = r.size() >= 2 ? r.back() & 0xffffffff : 0;
  if (r[0] == kNbodyConfig) {
    if (r.size() != 5) return nbody_error(kErrBadLength, ts, reply);
    const double x = std::bit_cast<double>(r[1]), y = std::bit_cast<double>(r[2]);
    if (!std::isfinite(x) || !std::isfinite(y)) return nbody_error(kErrBadValue, ts, reply);
    x_com_ = x;
    y_com_ = y;
    configured_ = true;
    return Outcome::kConfig;
  }
  if (r[0] != kNbodyRequest) return nbody_error(kErrUnknownType, ts, reply);
  if (r.size() != 4) return nbody_error(kErrBadLength, ts, reply);
  if (!configured_) return nbody_error(kErrNoConfig, ts, reply);
  const double x = std::bit_cast<double>(r[1]), y = std::bit_cast<double>(r[2]);
  if (!std::isfinite(x) || !std::isfinite(y)) return nbody_error(kErrBadValue, ts, reply);
  reply->assign({kNbodyReply, std::bit_cast<uint64_t>(nbody_force(x_com_, y_com_, x, y)), ts << 32});
  work_cycles_ = kNbodyCycles;
  return Outcome::kAnswered;
}

}  // namespace nanopu::apps
