#include "apps/loadgen/workloads/workload.h"

namespace nanopu::apps {

absl::StatusOr<std::unique_ptr<Workload>> make_workload(const std::string& service, const WorkloadOptions& o) {
  if (service == "setint") return make_setint_workload(o);
  if (service == "hdsearch") return make_hd_workload();
  if (service == "nbody") return make_nbody_workload();
  if (service == "classifier") return make_classifier_workload(o);
  if (service == "int") return make_int_workload(o);
  return absl::InvalidArgumentError("no compute workload named '" + service + "'");
}

}  // namespace nanopu::apps
