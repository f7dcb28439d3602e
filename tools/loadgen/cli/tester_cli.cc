// nanopu-loadgen --service=tester-throughput|tester-service: the prototype
// packet tester's throughput sequence (nanopu-server --app=loopback-throughput)
// and service-time sequence (--app=service-tester, --service_ns per DATA);
// tools/loadgen/tester_load.h; --count DATA messages of --size bytes.
#include "absl/strings/str_format.h"
#include "tools/loadgen/cli/service_cli.h"
#include "tools/loadgen/modelled_latency.h"
#include "tools/loadgen/tester_load.h"

namespace nanopu::apps {
namespace {

class TesterCli : public ServiceCli {
 public:
  explicit TesterCli(bool service) { to_.service = service; }
  std::string configure(const Config&, LoadGenOptions* o) override {
    const std::string name = to_.service ? "tester-service" : "tester-throughput";
    if (o->count == 0) return "--service=" + name + " needs --count (the CONFIG's num_msgs)";
    if (o->msg_bytes < (to_.service ? 32u : 24u))
      return "--service=" + name + " needs --size >= " + (to_.service ? "32" : "24") + " (its words: docs/apps.md)";
    o->msg_bytes -= o->msg_bytes % 8;
    return "";
  }
  void run(Thread& t, const LoadGenOptions& o, LoadGenResult* r) override { run_tester_client(t, o, to_, r, &tr_); }
  ModelledLatency model(LoadGenOptions* o, uint64_t samples, const model::TimingParams& p) const override {
    return model_latency(*o, samples, p);
  }
  std::optional<MeasuredService> measured_service(const LoadGenOptions& o) const override {
    return MeasuredService{1, false, absl::StrFormat("%u-byte tester DATA", o.msg_bytes)};
  }
  std::string summary() const override {
    if (to_.service) return absl::StrFormat("  tester-service: %u replies equal to their DATA", tr_.checked);
    return absl::StrFormat("  tester-throughput: %u replies equal to their DATA; the last carried the CONFIG's "
                           "timestamp: %s",
                           tr_.checked, tr_.config_stamp_seen ? "yes" : "NO");
  }
  std::string json() const override {
    if (to_.service) return service_json("tester_service", {{"checked", tr_.checked}});
    return service_json("tester_throughput",
                        {{"checked", tr_.checked}, {"config_stamp_seen", tr_.config_stamp_seen ? 1u : 0u}});
  }

 private:
  TesterLoadOptions to_;
  TesterLoadResult tr_;
};

}  // namespace

std::unique_ptr<ServiceCli> make_tester_cli(bool service) { return std::make_unique<TesterCli>(service); }

}  // namespace nanopu::apps
