#include "use_cases.h"

namespace spin_demo {

const char* name_of(UseCase u) {
  switch (u) {
    case UseCase::kReduce: return "reduce";
    case UseCase::kAggregate: return "aggregate";
    case UseCase::kFiltering: return "filtering";
    case UseCase::kKvstore: return "kvstore";
    case UseCase::kStridedDdt: return "strided_ddt";
    case UseCase::kHistogram: return "histogram";
  }
  return "?";
}

spin::ExecutionContext make_context(UseCase u, uint16_t context, uint64_t seed) {
  switch (u) {
    case UseCase::kReduce: return reduce_context(context);
    case UseCase::kAggregate: return aggregate_context(context);
    case UseCase::kFiltering: return filtering_context(context, seed);
    case UseCase::kKvstore: return kvstore_context(context);
    case UseCase::kStridedDdt: return strided_ddt_context(context);
    case UseCase::kHistogram: return histogram_context(context);
  }
  return {};
}

Workload make_workload(UseCase u, uint64_t seed) {
  switch (u) {
    case UseCase::kReduce: return reduce_workload(seed);
    case UseCase::kAggregate: return aggregate_workload(seed);
    case UseCase::kFiltering: return filtering_workload(seed);
    case UseCase::kKvstore: return kvstore_workload(seed);
    case UseCase::kStridedDdt: return strided_ddt_workload(seed);
    case UseCase::kHistogram: return histogram_workload(seed);
  }
  return {};
}

}  // namespace spin_demo
