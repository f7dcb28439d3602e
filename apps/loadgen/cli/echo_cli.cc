// nanopu-loadgen --service=echo (the default): the echo, increment and
// service apps (apps/loadgen/loadgen.h), configured by the general flags.
#include "apps/loadgen/cli/service_cli.h"
#include "apps/loadgen/modelled_latency.h"

namespace nanopu::apps {

namespace {

class EchoCli : public ServiceCli {
 public:
  std::string configure(const Config&, LoadGenOptions*) override { return ""; }
  void run(Thread& t, const LoadGenOptions& o, LoadGenResult* r) override { run_loadgen(t, o, r); }
  ModelledLatency model(LoadGenOptions* o, uint64_t samples, const timing::TimingParams& p) const override {
    return model_latency(*o, samples, p);
  }
};

}  // namespace

std::unique_ptr<ServiceCli> make_echo_cli() { return std::make_unique<EchoCli>(); }

}  // namespace nanopu::apps
