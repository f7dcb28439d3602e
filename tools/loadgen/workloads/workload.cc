#include "tools/loadgen/workloads/workload.h"

namespace nanopu::apps {

std::vector<ComputeSample> compute_samples(Workload& w, uint64_t seed, int n) {
  SeededDraw rng(seed);
  std::vector<ComputeSample> kinds;
  std::vector<uint64_t> req;
  for (int i = 0; i < n; ++i) {
    Expected e;
    w.make(rng, 1 + i, &req, &e);
    kinds.push_back({8 * req.size(), 8 * e.reply.size(), w.declared_cycles(req)});
  }
  return kinds;
}

absl::StatusOr<std::unique_ptr<Workload>> make_workload(const std::string& service, const WorkloadOptions& o) {
  if (service == "setint") return make_setint_workload(o);
  if (service == "hdsearch") return make_hd_workload();
  if (service == "nbody") return make_nbody_workload();
  if (service == "classifier") return make_classifier_workload(o);
  if (service == "int") return make_int_workload(o);
  return absl::InvalidArgumentError("no compute workload named '" + service + "'");
}

}  // namespace nanopu::apps
