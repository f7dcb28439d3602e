// nanopu-loadgen --service=othello: the Othello client (tools/loadgen/othello_load.h).
#include "apps/server/service_flags.h"
#include <algorithm>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "tools/loadgen/cli/service_cli.h"
#include "tools/loadgen/modelled_latency.h"
#include "tools/loadgen/othello_load.h"
#include "apps/othello/othello_protocol.h"

ABSL_FLAG(uint32_t, othello_depth, 3,
          "othello (nanopu-server --app=othello): plies each MAP asks to search (its max_depth), 1..8.");

namespace nanopu::apps {
namespace {

class OthelloCli : public ServiceCli {
 public:
  std::string configure(const Config& c, LoadGenOptions*) override {
    ol_.client_ip = c.ip;
    ol_.depth = absl::GetFlag(FLAGS_othello_depth);
    // How many workers the root fans out to: a count, or the root's own list.
    const std::string w = absl::GetFlag(FLAGS_othello_workers);
    if (w.find(':') == std::string::npos) {
      if (!w.empty() && !absl::SimpleAtoi(w, &workers_))
        return "--othello_workers='" + w + "': a count, or the root's IP:CONTEXT,... list";
    } else {
      workers_ = static_cast<uint32_t>(std::count(w.begin(), w.end(), ',') + 1);
    }
    if (ol_.depth == 0 || ol_.depth > kOthelloMaxDepth) return "--othello_depth must be 1..8";
    return "";
  }
  void run(Thread& t, const LoadGenOptions& o, LoadGenResult* r) override { run_othello_client(t, o, ol_, r, &or_); }
  ModelledLatency model(LoadGenOptions* o, uint64_t samples, const model::TimingParams& p) const override {
    o->msg_bytes = kOthelloMapBytes;
    return model_othello_latency(*o, ol_.depth, workers_, samples, p);
  }
  std::string summary() const override {
    return absl::StrFormat("  othello: %u REDUCEs equal to a plain recursive search (%u plies)", or_.checked,
                           ol_.depth);
  }
  std::string json() const override {
    return service_json("othello", {{"checked", or_.checked}, {"depth", ol_.depth}});
  }

 private:
  OthelloLoadOptions ol_;
  OthelloLoadResult or_;
  uint32_t workers_ = 0;
};

}  // namespace

std::unique_ptr<ServiceCli> make_othello_cli() { return std::make_unique<OthelloCli>(); }

}  // namespace nanopu::apps
