// nanopu-loadgen --service=tester-throughput: the prototype packet tester's
// throughput sequence against nanopu-server --app=loopback-throughput
// (apps/loadgen/tester_load.h); --count DATA messages of --size bytes.
#include "absl/strings/str_format.h"
#include "apps/loadgen/cli/service_cli.h"
#include "apps/loadgen/modelled_latency.h"
#include "apps/loadgen/tester_load.h"

namespace nanopu::apps {
namespace {

class TesterCli : public ServiceCli {
 public:
  std::string configure(const Config&, LoadGenOptions* o) override {
    if (o->count == 0) return "--service=tester-throughput needs --count (the CONFIG's num_msgs)";
    if (o->msg_bytes < 24) return "--service=tester-throughput needs --size >= 24 ({1, seq, timestamp})";
    o->msg_bytes -= o->msg_bytes % 8;
    return "";
  }
  void run(Thread& t, const LoadGenOptions& o, LoadGenResult* r) override { run_tester_client(t, o, r, &tr_); }
  ModelledLatency model(LoadGenOptions* o, uint64_t samples, const timing::TimingParams& p) const override {
    return model_latency(*o, samples, p);
  }
  std::string summary() const override {
    return absl::StrFormat("  tester-throughput: %u replies equal to their DATA; the last carried the CONFIG's "
                           "timestamp: %s",
                           tr_.checked, tr_.config_stamp_seen ? "yes" : "NO");
  }
  std::string json() const override {
    return service_json("tester_throughput",
                        {{"checked", tr_.checked}, {"config_stamp_seen", tr_.config_stamp_seen ? 1u : 0u}});
  }

 private:
  TesterLoadResult tr_;
};

}  // namespace

std::unique_ptr<ServiceCli> make_tester_cli() { return std::make_unique<TesterCli>(); }

}  // namespace nanopu::apps
