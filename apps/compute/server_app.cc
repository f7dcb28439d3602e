// nanopu-server's compute services (setint, hdsearch, nbody, classifier,
// int; each also as NAME-traditional): compute_apps.h builds one service
// object per thread.
#include <vector>

#include "apps/server/service_flags.h"
#include "absl/flags/flag.h"
#include "apps/compute/compute_apps.h"
#include "apps/server/server_app.h"

ABSL_FLAG(bool, jbsq, false,
          "compute services: every thread binds --context, and the NIC spreads requests over "
          "the workers by JBSQ (at most one thread per worker core). Default: thread i binds "
          "--context + i.");

namespace nanopu::apps {
namespace {

class ComputeServerApp final : public ServerApp {
 public:
  std::string configure(const ServerSetup& s) override {
    jbsq_ = absl::GetFlag(FLAGS_jbsq);
    if (jbsq_ && s.threads > s.workers)
      return "--jbsq: " + std::to_string(s.threads) + " threads share one context, but there are " +
             std::to_string(s.workers) + " worker cores";
    ComputeAppOptions co;
    co.corpus_dir = absl::GetFlag(FLAGS_setint_corpus);
    co.setint_documents = absl::GetFlag(FLAGS_setint_documents);
    co.setint_words = absl::GetFlag(FLAGS_setint_words);
    co.classifier_rules = absl::GetFlag(FLAGS_classifier_rules);
    co.int_heavy_threshold = absl::GetFlag(FLAGS_int_heavy_threshold);
    absl::StatusOr<ComputeApp> c = make_compute_app(s.app, s.threads, co);
    if (!c.ok()) return std::string(c.status().message());
    app_ = std::move(*c);
    if (s.path == MessagePath::kMemory) app_.path = MessagePath::kMemory;
    stats_.resize(s.threads);
    return "";
  }
  bool has_traditional_path() const override { return true; }
  uint16_t context_of(const ServerSetup& s, uint32_t i) const override {
    return static_cast<uint16_t>(jbsq_ ? s.first_context : s.first_context + i);
  }
  std::function<void(Thread&)> body(const ServerSetup& s, uint32_t i) override {
    const uint16_t ctx = context_of(s, i);
    const auto priority = s.priority_of(i);
    WordService* service = app_.threads[i].get();
    const MessagePath path = app_.path;
    ComputeStats* st = &stats_[i];
    return [=](Thread& t) { (void)serve_words(t, ctx, priority, *service, path, st); };
  }
  std::string what() const override { return app_.what; }
  void print_stats(FILE* out) const override {
    for (size_t i = 0; i < stats_.size(); ++i) {
      const ComputeStats& s = stats_[i];
      print_counters(out, "compute" + std::to_string(i),
                     {{"requests", s.requests}, {"configs", s.configs}, {"errors", s.errors},
                      {"dropped", s.dropped}});
    }
  }

 private:
  bool jbsq_ = false;
  ComputeApp app_;
  std::vector<ComputeStats> stats_;
};

}  // namespace

std::unique_ptr<ServerApp> make_compute_server_app(std::string_view name) {
  return is_compute_app(name) ? std::make_unique<ComputeServerApp>() : nullptr;
}

}  // namespace nanopu::apps
