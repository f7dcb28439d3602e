// nanopu-loadgen --service=dot: the dot-product client (tools/loadgen/dot_load.h).
#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "tools/loadgen/cli/service_cli.h"
#include "tools/loadgen/dot_load.h"
#include "tools/loadgen/modelled_latency.h"

ABSL_FLAG(std::string, dot_layout, "tester",
          "dot (nanopu-server --app=dot|dot-naive): 'tester' ({1, n, idx[n], timestamp}, the "
          "prototype's packet tester) or 'pairs' ({3, n, (idx, value) x n}, Listing 2).");
ABSL_FLAG(uint32_t, dot_words, 16, "dot: indices per request (n), 1..4000.");
ABSL_FLAG(std::string, dot_variant, "optimal",
          "dot: the server's variant, 'optimal' (--app=dot) or 'naive' (--app=dot-naive); only "
          "the modelled column uses it (the naive variant's declared copy work).");

namespace nanopu::apps {
namespace {

class DotCli : public ServiceCli {
 public:
  std::string configure(const Config& c, LoadGenOptions*) override {
    const std::string layout = absl::GetFlag(FLAGS_dot_layout);
    if (layout != "tester" && layout != "pairs") return "--dot_layout: use tester or pairs";
    d_.pairs = layout == "pairs";
    d_.words = absl::GetFlag(FLAGS_dot_words);
    const std::string variant = absl::GetFlag(FLAGS_dot_variant);
    if (variant != "optimal" && variant != "naive") return "--dot_variant: use optimal or naive";
    naive_ = variant == "naive";
    if (d_.words == 0 || d_.words > 4000) return "--dot_words must be 1..4000";
    if (dot_request_bytes(d_) > c.max_message_bytes)
      return absl::StrFormat("--dot_words=%u: a request of %u bytes is above --max_message_bytes", d_.words,
                             dot_request_bytes(d_));
    return "";
  }
  void run(Thread& t, const LoadGenOptions& o, LoadGenResult* r) override { run_dot_client(t, o, d_, r, &dr_); }
  ModelledLatency model(LoadGenOptions* o, uint64_t samples, const model::TimingParams& p) const override {
    o->msg_bytes = dot_request_bytes(d_);
    return model_dot_latency(*o, d_.words, d_.pairs, naive_, samples, p);
  }
  std::optional<MeasuredService> measured_service(const LoadGenOptions&) const override {
    return MeasuredService{1, false,
                           absl::StrFormat("dot %s, %u indices", naive_ ? "naive" : "optimal", d_.words)};
  }
  std::string summary() const override {
    return absl::StrFormat("  dot: %u replies checked against the sum computed here (%s layout, %u indices)",
                           dr_.checked, d_.pairs ? "Listing 2" : "tester", d_.words);
  }
  std::string json() const override {
    return service_json("dot", {{"checked", dr_.checked}, {"words", d_.words}, {"pairs", d_.pairs ? 1u : 0u}});
  }

 private:
  DotLoadOptions d_;
  DotLoadResult dr_;
  bool naive_ = false;
};

}  // namespace

std::unique_ptr<ServiceCli> make_dot_cli() { return std::make_unique<DotCli>(); }

}  // namespace nanopu::apps
