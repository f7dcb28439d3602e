// nanopu-loadgen --service=echo (the default): the echo, increment and
// service apps (tools/loadgen/loadgen.h), configured by the general flags.
#include "absl/strings/str_format.h"
#include "tools/loadgen/cli/service_cli.h"
#include "apps/loopback/loopback.h"
#include "tools/loadgen/modelled_latency.h"

namespace nanopu::apps {

namespace {

class EchoCli : public ServiceCli {
 public:
  std::string configure(const Config&, LoadGenOptions*) override { return ""; }
  void run(Thread& t, const LoadGenOptions& o, LoadGenResult* r) override { run_loadgen(t, o, r); }
  ModelledLatency model(LoadGenOptions* o, uint64_t samples, const model::TimingParams& p) const override {
    return model_latency(*o, samples, p);
  }
  std::optional<MeasuredService> measured_service(const LoadGenOptions& o) const override {
    if (o.service_long_fraction > 0)
      return MeasuredService{1, false,
                             absl::StrFormat("%u-byte requests, %.0f ns declared service, %.2f%% of them %.0f ns",
                                             o.msg_bytes, static_cast<double>(o.service_cycles) / kServiceCyclesPerNs,
                                             100 * o.service_long_fraction,
                                             static_cast<double>(o.service_long_cycles) / kServiceCyclesPerNs)};
    if (o.service_cycles > 1)
      return MeasuredService{1, false,
                             absl::StrFormat("%u-byte requests, %.0f ns declared service", o.msg_bytes,
                                             static_cast<double>(o.service_cycles) / kServiceCyclesPerNs)};
    return MeasuredService{1, false, absl::StrFormat("%u-byte echo", o.msg_bytes)};
  }
};

}  // namespace

std::unique_ptr<ServiceCli> make_echo_cli() { return std::make_unique<EchoCli>(); }

}  // namespace nanopu::apps
