// nanopu-server's loopback services: echo, increment, service,
// service-tester and loopback-throughput (either path), and
// lnic-increment (nanoPU Listing 1 written with lnic.h).
#include "apps/loopback/loopback.h"
#include "apps/server/server_app.h"

namespace nanopu::apps {
namespace {

class LoopbackApp final : public ServerApp {
 public:
  LoopbackApp(LoopbackMode mode, bool lnic) : mode_(mode), lnic_(lnic) {}
  std::string configure(const ServerSetup&) override { return ""; }
  bool has_traditional_path() const override { return !lnic_; }
  std::function<void(Thread&)> body(const ServerSetup& s, uint32_t i) override {
    const uint16_t ctx = context_of(s, i);
    const LoopbackMode mode = mode_;
    const MessagePath path = s.path;
    const auto priority = s.priority_of(i);
    if (lnic_) return [ctx](Thread&) { nanopu_lnic_loopback_plus1(ctx); };
    return [=](Thread& t) { (void)serve_loopback(t, ctx, priority, mode, path); };
  }

 private:
  LoopbackMode mode_;
  bool lnic_;
};

}  // namespace

std::unique_ptr<ServerApp> make_loopback_server_app(std::string_view name) {
  if (name == "echo") return std::make_unique<LoopbackApp>(LoopbackMode::kEcho, false);
  if (name == "increment") return std::make_unique<LoopbackApp>(LoopbackMode::kIncrement, false);
  if (name == "service") return std::make_unique<LoopbackApp>(LoopbackMode::kService, false);
  if (name == "service-tester") return std::make_unique<LoopbackApp>(LoopbackMode::kServiceTester, false);
  if (name == "loopback-throughput") return std::make_unique<LoopbackApp>(LoopbackMode::kThroughput, false);
  if (name == "lnic-increment") return std::make_unique<LoopbackApp>(LoopbackMode::kIncrement, true);
  return nullptr;
}

}  // namespace nanopu::apps
