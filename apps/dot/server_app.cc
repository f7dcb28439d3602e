// nanopu-server's dot product: dot (words multiplied as they are read from
// the FIFO) and dot-naive (the message copied to memory first).
#include <vector>

#include "apps/dot/dot_service.h"
#include "apps/server/server_app.h"

namespace nanopu::apps {
namespace {

class DotApp final : public ServerApp {
 public:
  explicit DotApp(DotVariant variant) : variant_(variant) {}
  std::string configure(const ServerSetup& s) override {
    stats_.resize(s.threads);
    return "";
  }
  std::function<void(Thread&)> body(const ServerSetup& s, uint32_t i) override {
    const uint16_t ctx = context_of(s, i);
    const auto priority = s.priority_of(i);
    const DotVariant variant = variant_;
    DotStats* st = &stats_[i];
    return [=](Thread& t) { (void)serve_dot(t, ctx, priority, variant, st); };
  }
  void print_stats(FILE* out) const override {
    for (size_t i = 0; i < stats_.size(); ++i) {
      const DotStats& s = stats_[i];
      print_counters(out, "dot" + std::to_string(i),
                     {{"requests", s.requests}, {"configs", s.configs}, {"errors", s.errors},
                      {"dropped", s.dropped}});
    }
  }

 private:
  DotVariant variant_;
  std::vector<DotStats> stats_;
};

}  // namespace

std::unique_ptr<ServerApp> make_dot_server_app(std::string_view name) {
  if (name == "dot") return std::make_unique<DotApp>(DotVariant::kOptimal);
  if (name == "dot-naive") return std::make_unique<DotApp>(DotVariant::kNaive);
  return nullptr;
}

}  // namespace nanopu::apps
