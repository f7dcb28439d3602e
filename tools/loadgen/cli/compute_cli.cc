// nanopu-loadgen --service=setint|hdsearch|nbody|classifier|int: the
// compute services' client (tools/loadgen/word_load.h), one class for all,
// each service's requests and reference answers in workloads/.
#include <bit>
#include <random>

#include "apps/server/service_flags.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "tools/loadgen/cli/service_cli.h"
#include "tools/loadgen/modelled_latency.h"
#include "tools/loadgen/word_load.h"
#include "apps/setint/corpus.h"

ABSL_FLAG(double, setint_zipf, 0.99, "setint: Zipf exponent of the query words (ranked by document frequency).");
ABSL_FLAG(uint32_t, int_flows, 1000, "int: distinct flows the reports come from (flow i with weight 1/(i+1)).");
ABSL_FLAG(std::string, compute_path, "registers",
          "setint, hdsearch, nbody, classifier, int: the server's message path, 'registers' (--app=NAME) or "
          "'memory' (--app=NAME-traditional); only the modelled column uses it.");
ABSL_FLAG(uint32_t, compute_cores, 1,
          "compute services: the server's --threads, for the modelled column (requests spread by JBSQ "
          "if --compute_jbsq, else all to --server_context's one core).");
ABSL_FLAG(bool, compute_jbsq, false, "compute services: the server runs --jbsq (modelled column).");

namespace nanopu::apps {
namespace {

class ComputeCli : public ServiceCli {
 public:
  explicit ComputeCli(std::string name) : name_(std::move(name)) {}

  std::string configure(const Config&, LoadGenOptions*) override {
    WorkloadOptions w;
    w.corpus_dir = absl::GetFlag(FLAGS_setint_corpus);
    w.setint_documents = absl::GetFlag(FLAGS_setint_documents);
    w.setint_words = absl::GetFlag(FLAGS_setint_words);
    w.zipf_s = absl::GetFlag(FLAGS_setint_zipf);
    w.classifier_rules = absl::GetFlag(FLAGS_classifier_rules);
    w.int_flows = absl::GetFlag(FLAGS_int_flows);
    w.int_heavy_threshold = absl::GetFlag(FLAGS_int_heavy_threshold);
    if (!(w.zipf_s >= 0 && w.zipf_s <= 5)) return "--setint_zipf must be 0..5";
    if (w.classifier_rules == 0 || w.classifier_rules > 1'000'000) return "--classifier_rules must be 1..1000000";
    if (w.int_flows == 0) return "--int_flows must be >= 1";
    const std::string path = absl::GetFlag(FLAGS_compute_path);
    if (path != "registers" && path != "memory") return "--compute_path: use registers or memory";
    memory_ = path == "memory";
    cores_ = absl::GetFlag(FLAGS_compute_cores);
    if (cores_ == 0 || cores_ > 64) return "--compute_cores must be 1..64";
    jbsq_ = absl::GetFlag(FLAGS_compute_jbsq);
    absl::StatusOr<std::unique_ptr<Workload>> wl = make_workload(name_, w);
    if (!wl.ok()) return std::string(wl.status().message());
    w_ = std::move(*wl);
    return "";
  }
  void run(Thread& t, const LoadGenOptions& o, LoadGenResult* r) override { run_word_client(t, o, *w_, r, &wr_); }
  ModelledLatency model(LoadGenOptions* o, uint64_t samples, const model::TimingParams& p) const override {
    // Requests drawn as the client draws them, each its own kind.
    const std::vector<ComputeSample> kinds = compute_samples(*w_, o->seed ^ 0x6d6f64656cull);
    double bytes = 0;
    for (const ComputeSample& k : kinds) bytes += static_cast<double>(k.in_bytes) / static_cast<double>(kinds.size());
    o->msg_bytes = static_cast<uint32_t>(bytes);
    return model_compute_latency(*o, kinds, memory_, cores_, jbsq_, name_ + ", " + w_->describe(), samples, p);
  }
  std::string summary() const override {
    return absl::StrFormat("  %s: %u replies equal to the reference answer (%s)%s", name_, wr_.checked,
                           w_->describe(),
                           wr_.error_replies ? absl::StrFormat("; %u error replies", wr_.error_replies) : "");
  }
  std::string json() const override {
    return service_json(name_, {{"checked", wr_.checked}, {"error_replies", wr_.error_replies}});
  }

 private:
  std::string name_;
  std::unique_ptr<Workload> w_;
  WordLoadResult wr_;
  bool memory_ = false, jbsq_ = false;
  uint32_t cores_ = 1;
};

}  // namespace

std::unique_ptr<ServiceCli> make_compute_cli(std::string_view name) {
  return std::make_unique<ComputeCli>(std::string(name));
}

}  // namespace nanopu::apps
