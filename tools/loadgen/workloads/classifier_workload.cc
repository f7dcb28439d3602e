// Packet-classifier requests: 80% of the headers are drawn inside a random
// rule (a point of its prefixes, port ranges and protocol, so lookups hit
// real matches, often of several overlapping rules), 20% uniformly; the
// reference answer is a linear scan of the rules in priority order.
#include "absl/strings/str_format.h"
#include "apps/classifier/classifier_service.h"
#include "tools/loadgen/workloads/workload.h"

namespace nanopu::apps {
namespace {

class ClassifierWorkload : public Workload {
 public:
  explicit ClassifierWorkload(uint32_t rules) : space_(generate_rules(rules)) {}

  void make(SeededDraw& rng, uint64_t sent_time, std::vector<uint64_t>* req, Expected* e) override {
    Header h;
    const auto r32 = [&] { return static_cast<uint32_t>(rng()); };
    if (rng() % 5 != 0) {
      const Rule& r = space_.rules()[rng() % space_.rules().size()];
      h.src_ip = r.src_ip | (r32() & ~prefix_mask(r.src_len));
      h.dst_ip = r.dst_ip | (r32() & ~prefix_mask(r.dst_len));
      h.src_port = static_cast<uint16_t>(r.src_lo + rng() % (uint32_t{r.src_hi} - r.src_lo + 1));
      h.dst_port = static_cast<uint16_t>(r.dst_lo + rng() % (uint32_t{r.dst_hi} - r.dst_lo + 1));
      h.proto = r.any_proto ? static_cast<uint8_t>(rng()) : r.proto;
    } else {
      h = {r32(), r32(), static_cast<uint16_t>(rng()), static_cast<uint16_t>(rng()), static_cast<uint8_t>(rng())};
    }
    req->assign({0, sent_time, header_word0(h), header_word1(h)});
    uint64_t want = kNoMatch;
    for (uint32_t id = 0; id < space_.rules().size(); ++id)
      if (matches(space_.rules()[id], h)) {
        want = id;
        break;
      }
    e->reply.assign({0, sent_time, want});
  }
  double declared_cycles(std::span<const uint64_t> req) const override {
    Header h;
    uint32_t probes = 0;
    if (req.size() == 4 && parse_header(req[2], req[3], &h)) (void)space_.classify(h, &probes);
    return kClassifierCyclesPerProbe * probes;
  }
  std::string describe() const override {
    return absl::StrFormat("5-tuples against %zu rules in %zu tuples", space_.rules().size(), space_.tuples());
  }

 private:
  TupleSpace space_;  // the rules, and the probe count for the declared work
};

}  // namespace

std::unique_ptr<Workload> make_classifier_workload(const WorkloadOptions& o) {
  return std::make_unique<ClassifierWorkload>(o.classifier_rules ? o.classifier_rules : kDefaultRules);
}

}  // namespace nanopu::apps
