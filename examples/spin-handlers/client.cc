// spin-client: sends each use case's workload (use_cases.h) to spin-server
// and checks what its host received against the reference this client
// computes itself: every host message's length and FNV-1a for the five
// streaming cases, and every reply's value for kvstore (from the NIC's cache
// or from the host's store). Exit status 3 if any differs.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_split.h"
#include "nanopu/address.h"
#include "programs.h"
#include "use_cases.h"

ABSL_DECLARE_FLAG(uint64_t, data_seed);
ABSL_FLAG(std::string, server, "10.0.0.1", "spin-server's IPv4 address.");
ABSL_FLAG(std::string, use_cases, "all",
          "The use cases to run, comma-separated: reduce, aggregate, filtering, kvstore, strided_ddt, histogram "
          "(or all).");
ABSL_FLAG(double, result_timeout_s, 30, "How long a use case may wait for its host's results, in seconds.");

namespace {

using spin_demo::Bytes;
using spin_demo::UseCase;
constexpr uint16_t kClientContext = 2;
using Result = std::pair<uint64_t, uint64_t>;  // a host message's length and FNV-1a

void send(nanopu::Thread& t, uint32_t server, uint16_t context, const Bytes& b) {
  (void)t.write(nanopu::AppHeader{server, context, static_cast<uint16_t>(b.size())}.word());
  for (size_t i = 0; i < b.size(); i += 8) {
    uint8_t w[8] = {};
    std::copy(b.begin() + static_cast<ptrdiff_t>(i), b.begin() + static_cast<ptrdiff_t>(std::min(i + 8, b.size())), w);
    (void)t.write(nanopu::spin::load_be<uint64_t>(w));
  }
}

// A message to this client: its words after the header.
std::vector<uint64_t> take(nanopu::Thread& t) {
  const nanopu::AppHeader h = nanopu::AppHeader::from_word(t.read());
  std::vector<uint64_t> w(h.payload_words());
  for (uint64_t& x : w) x = t.read();
  t.msg_done();
  return w;
}

class SpinClient final : public nanopu::Program {
 public:
  SpinClient(uint32_t server, std::vector<UseCase> cases, uint64_t seed, double timeout_s)
      : server_(server), cases_(std::move(cases)), seed_(seed), timeout_(std::chrono::duration<double>(timeout_s)) {}

  absl::Status spawn(nanopu::Runtime& rt) override {
    auto t = rt.spawn([this](nanopu::Thread& th) {
      if (!th.bind(kClientContext).ok()) {
        lines_.push_back("spin-client: context 2 is taken");
        ok_ = false;
      } else {
        for (UseCase u : cases_) run(th, u);
      }
      done_.store(true);
    });
    return t.ok() ? absl::OkStatus() : t.status();
  }
  bool finished() const override { return done_.load(); }
  int report(nanopu::Runtime&, FILE* out) override {
    for (const std::string& l : lines_) std::fprintf(out, "%s\n", l.c_str());
    return ok_ ? 0 : 3;
  }

 private:
  void run(nanopu::Thread& t, UseCase u) {
    const spin_demo::Workload w = spin_demo::make_workload(u, seed_);
    if (u == UseCase::kKvstore) return run_kvstore(t, w);
    std::vector<Result> want, got;
    for (const Bytes& h : w.host) want.emplace_back(h.size(), spin_demo::fnv1a(h));
    const uint16_t ctx = spin_demo::context_of(u);
    auto take_result = [&] {
      const std::vector<uint64_t> r = take(t);
      if (r.size() == 3 && r[0] == ctx) got.emplace_back(r[1], r[2]);
    };
    for (const Bytes& m : w.messages) {
      send(t, server_, ctx, m);
      while (t.msgs_ready()) take_result();  // results of earlier messages, read as they come
    }
    const auto end = std::chrono::steady_clock::now() + timeout_;
    while (got.size() < want.size()) {
      const auto left = end - std::chrono::steady_clock::now();
      if (left <= left.zero() || !t.wait_for(std::chrono::duration_cast<std::chrono::nanoseconds>(left))) break;
      take_result();
    }
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    const bool same = got == want;
    ok_ = ok_ && same;
    lines_.push_back(std::string(spin_demo::name_of(u)) + ": " + std::to_string(w.messages.size()) + " messages sent, " +
                     std::to_string(got.size()) + " of " + std::to_string(want.size()) + " host results, " +
                     (same ? "equal to the host reference" : "NOT equal to the host reference"));
  }

  void run_kvstore(nanopu::Thread& t, const spin_demo::Workload& w) {
    uint64_t right = 0, from_nic = 0, answered = 0;
    const uint16_t ctx = spin_demo::context_of(UseCase::kKvstore);
    for (size_t i = 0; i < w.messages.size(); ++i) {
      send(t, server_, ctx, w.messages[i]);
      if (!t.wait_for(std::chrono::duration_cast<std::chrono::nanoseconds>(timeout_))) break;
      const std::vector<uint64_t> r = take(t);
      ++answered;
      if (r.size() != 3 || (r[0] & spin_demo::kIdMask) != i) continue;
      right += r[2] == w.replies[i];
      from_nic += static_cast<spin_demo::KvFrom>(r[0] >> 56) == spin_demo::KvFrom::kNic;
    }
    const bool same = right == w.messages.size();
    ok_ = ok_ && same;
    lines_.push_back("kvstore: " + std::to_string(w.messages.size()) + " requests, " + std::to_string(answered) +
                     " answered (" + std::to_string(from_nic) + " by the NIC's cache), " + std::to_string(right) +
                     (same ? " right: equal to the host reference" : " right: NOT equal to the host reference"));
  }

  uint32_t server_;
  std::vector<UseCase> cases_;
  uint64_t seed_;
  std::chrono::duration<double> timeout_;
  std::atomic<bool> done_{false};
  bool ok_ = true;
  std::vector<std::string> lines_;
};

absl::StatusOr<std::vector<UseCase>> parse_cases(const std::string& text) {
  if (text == "all") return std::vector<UseCase>(std::begin(spin_demo::kUseCases), std::end(spin_demo::kUseCases));
  std::vector<UseCase> out;
  for (absl::string_view name : absl::StrSplit(text, ',')) {
    const auto* it = std::find_if(std::begin(spin_demo::kUseCases), std::end(spin_demo::kUseCases),
                                  [&](UseCase u) { return name == spin_demo::name_of(u); });
    if (it == std::end(spin_demo::kUseCases))
      return absl::InvalidArgumentError("--use_cases: '" + std::string(name) +
                                        "' is none of reduce, aggregate, filtering, kvstore, strided_ddt, histogram");
    out.push_back(*it);
  }
  return out;
}

}  // namespace

nanopu::ProgramSpec spin_client_program() {
  nanopu::ProgramSpec s;
  s.name = "spin-client";
  s.help = "each use case's workload sent to spin-server, what its host got checked against a host reference";
  s.client = true;
  s.flags = {"data_seed", "server", "use_cases", "result_timeout_s"};
  s.make = [](const nanopu::ProgramArgs&) -> absl::StatusOr<std::unique_ptr<nanopu::Program>> {
    const std::optional<uint32_t> server = nanopu::parse_ipv4(absl::GetFlag(FLAGS_server));
    if (!server) return absl::InvalidArgumentError("--server: an IPv4 address, e.g. 10.0.0.1");
    absl::StatusOr<std::vector<UseCase>> cases = parse_cases(absl::GetFlag(FLAGS_use_cases));
    if (!cases.ok()) return cases.status();
    const double timeout = absl::GetFlag(FLAGS_result_timeout_s);
    if (!(timeout > 0)) return absl::InvalidArgumentError("--result_timeout_s: more than 0");
    return std::make_unique<SpinClient>(*server, std::move(*cases), absl::GetFlag(FLAGS_data_seed), timeout);
  };
  return s;
}
