// N-body traversal requests in the prototype tester's layout: one CONFIG
// (a centre of mass) first, then bodies at positions uniform in a
// [-10, 10)^2 box; the reference force is the inverse square law written
// out here. The reply carries the low half of the request's timestamp.
#include <bit>

#include "absl/strings/str_format.h"
#include "tools/loadgen/workloads/workload.h"
#include "apps/nbody/nbody_service.h"

namespace nanopu::apps {
namespace {

constexpr double kXCom = 1.25, kYCom = -3.5;

class NbodyWorkload : public Workload {
 public:
  std::vector<std::vector<uint64_t>> prologue() const override {
    return {{kNbodyConfig, std::bit_cast<uint64_t>(kXCom), std::bit_cast<uint64_t>(kYCom), 0, 0}};
  }
  void make(SeededDraw& rng, uint64_t sent_time, std::vector<uint64_t>* req, Expected* e) override {
    const double x = static_cast<double>(rng() >> 11) * 0x1p-53 * 20 - 10;
    const double y = static_cast<double>(rng() >> 11) * 0x1p-53 * 20 - 10;
    req->assign({kNbodyRequest, std::bit_cast<uint64_t>(x), std::bit_cast<uint64_t>(y), sent_time});
    const double r2 = (kXCom - x) * (kXCom - x) + (kYCom - y) * (kYCom - y) + 0.01 * 0.01;
    e->reply.assign({kNbodyReply, std::bit_cast<uint64_t>(1 / r2), tag_of(sent_time) << 32});
  }
  uint64_t tag_of(uint64_t sent_time) const override { return sent_time & 0xffffffff; }
  std::optional<uint64_t> reply_tag(std::span<const uint64_t> r) const override {
    return r.size() == 3 ? std::optional<uint64_t>(r[2] >> 32) : std::nullopt;
  }
  bool is_error_reply(std::span<const uint64_t> r) const override { return r.size() == 3 && r[0] == kNbodyError; }
  double declared_cycles(std::span<const uint64_t>) const override { return kNbodyCycles; }
  std::string describe() const override {
    return absl::StrFormat("bodies in [-10, 10)^2 against a node at (%.2f, %.2f)", kXCom, kYCom);
  }
};

}  // namespace

std::unique_ptr<Workload> make_nbody_workload() { return std::make_unique<NbodyWorkload>(); }

}  // namespace nanopu::apps
