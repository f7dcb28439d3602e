// nanopu-server's MICA key-value store: kv (register-file variant) and
// kv-naive (values copied through memory first), one partition per thread.
#include <vector>

#include "apps/server/service_flags.h"
#include "absl/flags/flag.h"
#include "apps/mica/kv_service.h"
#include "apps/mica/mica_table.h"
#include "apps/server/server_app.h"

ABSL_FLAG(uint32_t, kv_log_mb, 16, "kv: each partition's circular log, MiB (items are 536 bytes).");

namespace nanopu::apps {
namespace {

class KvApp final : public ServerApp {
 public:
  explicit KvApp(KvVariant variant) : variant_(variant) {}
  std::string configure(const ServerSetup& s) override {
    jbsq_ = absl::GetFlag(FLAGS_kv_jbsq);
    const uint32_t log_mb = absl::GetFlag(FLAGS_kv_log_mb);
    if (log_mb == 0 || log_mb > 65536) return "--kv_log_mb must be 1..65536";
    if (jbsq_ && s.threads > s.workers)
      return "--kv_jbsq: " + std::to_string(s.threads) + " threads share one context, but there are " +
             std::to_string(s.workers) + " worker cores and threads on one core cannot share a context";
    stats_.resize(s.threads);
    for (uint32_t i = 0; i < s.threads; ++i) {
      MicaTableParams tp;
      tp.log_bytes = size_t{log_mb} << 20;
      tables_.push_back(std::make_unique<MicaTable>(tp));
    }
    return "";
  }
  uint16_t context_of(const ServerSetup& s, uint32_t i) const override {
    return static_cast<uint16_t>(jbsq_ ? s.first_context : s.first_context + i);
  }
  std::function<void(Thread&)> body(const ServerSetup& s, uint32_t i) override {
    const uint16_t ctx = context_of(s, i);
    const auto priority = s.priority_of(i);
    const KvVariant variant = variant_;
    MicaTable* table = tables_[i].get();
    KvServiceStats* st = &stats_[i];
    return [=](Thread& t) { (void)serve_kv(t, ctx, priority, variant, table, st); };
  }
  void print_stats(FILE* out) const override {
    for (size_t i = 0; i < stats_.size(); ++i) {
      const KvServiceStats& s = stats_[i];
      print_counters(out, "kv" + std::to_string(i),
                     {{"gets", s.gets}, {"get_hits", s.get_hits}, {"sets", s.sets},
                      {"bad_requests", s.bad_requests}, {"dropped", s.dropped},
                      {"evictions", tables_[i]->evictions()}, {"overwritten", tables_[i]->overwritten()}});
    }
  }

 private:
  KvVariant variant_;
  bool jbsq_ = false;
  std::vector<std::unique_ptr<MicaTable>> tables_;  // one partition per thread
  std::vector<KvServiceStats> stats_;
};

}  // namespace

std::unique_ptr<ServerApp> make_kv_server_app(std::string_view name) {
  if (name == "kv") return std::make_unique<KvApp>(KvVariant::kRegisterFile);
  if (name == "kv-naive") return std::make_unique<KvApp>(KvVariant::kNaive);
  return nullptr;
}

}  // namespace nanopu::apps
