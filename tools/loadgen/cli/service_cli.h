// One --service of nanopu-loadgen: its own flags (defined beside it), its
// client on the load generator's thread, the modelled column, its summary
// line and its JSON member. main.cc picks one by name and knows nothing of
// the services' options.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/loadgen/loadgen.h"
#include "runtime/client_main/measured_model.h"
#include "model/timing/timing_params.h"
#include "nanopu/config.h"

namespace nanopu::apps {

using loadgen::MeasuredService;
using loadgen::model_measured;

class ServiceCli {
 public:
  virtual ~ServiceCli() = default;
  // Reads this service's flags into itself and `o`; returns an error that
  // names the flag, or "".
  [[nodiscard]] virtual std::string configure(const Config& c, LoadGenOptions* o) = 0;
  virtual void run(Thread& t, const LoadGenOptions& o, LoadGenResult* r) = 0;
  // The modelled column for `samples` replies; sets o->msg_bytes to the
  // request size the printed result names.
  [[nodiscard]] virtual ModelledLatency model(LoadGenOptions* o, uint64_t samples,
                                              const model::TimingParams& p) const = 0;
  // The server as the modelled column's replay sees it, for a service whose
  // replies come from the core that worked on the request (one round trip):
  // then the column is built from the run's own replies
  // (runtime/client_main/measured_model.h). nullopt: from the declared work only.
  [[nodiscard]] virtual std::optional<MeasuredService> measured_service(const LoadGenOptions&) const {
    return std::nullopt;
  }
  // One "  name: ..." line after the result, or "".
  [[nodiscard]] virtual std::string summary() const { return ""; }
  // Members added to the result's JSON object (",\"service\":...,..."), or "".
  [[nodiscard]] virtual std::string json() const { return ""; }
};

// "echo", "kv", "chain", "rdma", "raft", "dot", "setint", "hdsearch", "nbody",
// "classifier", "int", "othello", "tester-throughput" or "tester-service"; nullptr
// for another name.
[[nodiscard]] std::unique_ptr<ServiceCli> make_service_cli(std::string_view name);

// ",\"service\":\"<name>\",\"<name>\":{\"a\":1,...}" for ServiceCli::json().
[[nodiscard]] inline std::string service_json(std::string_view name,
                                              const std::vector<std::pair<const char*, uint64_t>>& counts) {
  std::string j = ",\"service\":\"" + std::string(name) + "\",\"" + std::string(name) + "\":{";
  for (size_t i = 0; i < counts.size(); ++i)
    j += (i ? ",\"" : "\"") + std::string(counts[i].first) + "\":" + std::to_string(counts[i].second);
  return j + "}";
}

}  // namespace nanopu::apps
