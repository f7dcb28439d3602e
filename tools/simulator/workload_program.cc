// nanopu-sim's `workload` program (tools/simulator/workload_program.h), on the
// public load engine: a CallLoad whose every request has a size drawn from
// the workload and a peer drawn from --peers, and rpc::serve_calls beside it.
#include "tools/simulator/workload_program.h"

#include <array>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/marshalling.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "model/timing/timing_model.h"
#include "nanopu/address.h"
#include "nanopu/loadgen_main.h"
#include "nanopu/message_sizes.h"
#include "nanopu/rpc.h"
#include "tools/simulator/peer_ranges.h"

ABSL_FLAG(std::string, workload, "W3",
          "Message sizes: the Homa paper's W1 (Facebook key-value), W2 (Google search RPC), W3 (Google, "
          "all RPCs), W4 (Facebook Hadoop) or W5 (DCTCP web search), clipped at 65527 B.");
ABSL_FLAG(double, load, 0,
          "Offered load, a fraction of --host_gbps (0 < load <= 1): Poisson arrivals at the rate that "
          "takes it: each message and its 8-byte reply as frames on the wire (64 B a packet), the "
          "transport's own ACKs and grants not counted. 0: the load flags' --rate, or closed loop.");
ABSL_FLAG(double, host_gbps, 10, "This host's link rate, Gb/s, that --load is a fraction of.");
ABSL_FLAG(std::string, peers, "",
          "The hosts messages go to, each drawn uniformly: IPv4 addresses, comma-separated; a.b.c.d-N "
          "is a.b.c.d up to a.b.c.N. This host's own address is left out. Each serves on --server_context.");
ABSL_FLAG(std::vector<std::string>, fixed_bytes, {},
          "Message sizes in bytes (1..65527), taken in turn, instead of the workload's: e.g. 64 (every "
          "message 64 B) or 1,1024,65527 (a sweep, as nanopu-figures homa-slowdown measures the idle fabric).");

namespace nanopu::sim {
namespace {

constexpr uint32_t kMaxMessageBytes = rpc::kMaxCallBytes;

struct Spec {
  SizeWorkload workload = SizeWorkload::kW3;
  SizeStats stats;
  double load = 0, host_gbps = 10;
  std::vector<uint32_t> fixed_bytes;  // empty: the workload's sizes
  std::vector<uint32_t> peers;  // host order, without this host
  uint16_t serve_context = 1;   // where this host answers the others: --server_context, as theirs
};

// The frames a call of `payload` bytes puts on the wire: its 8 bytes
// beside the payload (nanopu/rpc.h) as the timing model frames a message.
double frame_bytes(uint32_t payload) { return static_cast<double>(model::TimingModel::frame_bytes(payload + 8)); }

// What every host of a run would work out alike from its workload: once
// a process (a 144-host fabric's hosts would each take 82 k draws).
struct WorkloadFacts {
  SizeStats stats;
  double mean_frame_bytes = 0;
};
const WorkloadFacts& facts_of(SizeWorkload w) {
  static const auto facts = [] {
    std::array<WorkloadFacts, std::size(kSizeWorkloads)> f;
    for (SizeWorkload x : kSizeWorkloads) {
      constexpr int kDraws = 1 << 14;
      double sum = 0;
      for (int i = 0; i < kDraws; ++i) sum += frame_bytes(draw_message_bytes(x, (i + 0.5) / kDraws, kMaxMessageBytes));
      f[static_cast<size_t>(x)] = {size_stats(x, kMaxMessageBytes), sum / kDraws};
    }
    return f;
  }();
  return facts[static_cast<size_t>(w)];
}

// The frames a message and its 8-byte reply put on the wire, on average.
// The transport's own control packets (ACKs, grants, pulls) are not
// counted: --load is the messages' share of the link, as the Homa paper
// offers it.
double wire_bytes_per_message(const Spec& s) {
  if (s.fixed_bytes.empty()) return facts_of(s.workload).mean_frame_bytes + frame_bytes(8);
  double sum = 0;
  for (uint32_t b : s.fixed_bytes) sum += frame_bytes(b);
  return sum / static_cast<double>(s.fixed_bytes.size()) + frame_bytes(8);
}

std::string configure(const Config& c, loadgen::Options* o, Spec* s) {
  absl::StatusOr<SizeWorkload> w = parse_size_workload(absl::GetFlag(FLAGS_workload));
  if (!w.ok()) return "--workload: " + std::string(w.status().message());
  s->workload = *w;
  s->stats = facts_of(s->workload).stats;
  s->load = absl::GetFlag(FLAGS_load);
  s->host_gbps = absl::GetFlag(FLAGS_host_gbps);
  if (!(s->load >= 0 && s->load <= 1)) return "--load must be 0..1 (a fraction of --host_gbps)";
  if (!(s->host_gbps > 0)) return "--host_gbps must be > 0";
  double mean = s->stats.mean_bytes;
  if (const std::vector<std::string> fixed = absl::GetFlag(FLAGS_fixed_bytes); !fixed.empty()) {
    double sum = 0;
    for (const std::string& f : fixed) {
      uint32_t b = 0;
      if (!absl::SimpleAtoi(f, &b) || b < 1 || b > kMaxMessageBytes)
        return "--fixed_bytes: '" + f + "' is not a size of 1..65527 bytes";
      s->fixed_bytes.push_back(b);
      sum += b;
    }
    mean = sum / static_cast<double>(fixed.size());
  }
  if (s->load > 0 && o->rate > 0) return "--load and --rate both set the arrival rate: give one";
  if (std::string bad = parse_peer_ranges(absl::GetFlag(FLAGS_peers), c.ip, &s->peers); !bad.empty()) return bad;
  if (s->load > 0) o->rate = s->load * s->host_gbps * 1e9 / (8 * wire_bytes_per_message(*s));
  o->msg_bytes = static_cast<uint32_t>(mean + 0.5);
  s->serve_context = o->server_context;
  return "";
}

class WorkloadLoad : public loadgen::CallLoad {
 public:
  WorkloadLoad(Thread& t, const loadgen::Options& o, loadgen::Result* r, const Spec& s)
      : CallLoad(t, o, r), s_(s), draw_(o.seed ^ 0x5eed) {}

 private:
  uint32_t request(uint64_t seq, std::vector<uint64_t>* words) override {
    const uint32_t bytes =
        !s_.fixed_bytes.empty()
            ? s_.fixed_bytes[seq % s_.fixed_bytes.size()]
            : draw_message_bytes(s_.workload, draw_.unit(), kMaxMessageBytes);
    words->assign((bytes + 7) / 8, seq);
    const uint32_t peer = s_.peers[draw_.below(s_.peers.size())];
    pending_[seq] = {bytes, peer};
    return bytes;
  }
  rpc::Peer destination(uint64_t seq) override { return {pending_[seq].peer, opts_.server_context}; }
  // The reply is the length the server read.
  bool check(uint64_t seq, std::span<const uint64_t> reply, uint32_t reply_bytes) override {
    const auto it = pending_.find(seq);
    const bool ok = it != pending_.end() && reply_bytes == 8 && reply.size() == 1 && reply[0] == it->second.bytes;
    if (it != pending_.end()) pending_.erase(it);
    return ok;
  }
  void failed(uint64_t seq, uint64_t, rpc::CallStatus) override { pending_.erase(seq); }

  struct Pending {
    uint32_t bytes = 0, peer = 0;
  };
  const Spec& s_;
  SeededDraw draw_;
  std::unordered_map<uint64_t, Pending> pending_;
};

// Every other host's messages: the reply is the length read.
void serve(Thread& t, uint16_t context) {
  (void)rpc::serve_calls(t, context, 0, [](rpc::ServerCall& c) {
    if (c.reply(8) == ApiError::kOk) (void)c.write(c.request_bytes());
  });
}

}  // namespace

ProgramSpec workload_program() {
  ProgramSpec spec = loadgen::client_program(
      "workload",
      "the Homa paper's workloads all to all: W1..W5 message sizes, open loop at --load, to --peers; "
      "answers theirs",
      [](const ProgramArgs&) -> absl::StatusOr<loadgen::ClientProgram> {
        auto s = std::make_shared<Spec>();  // this host's own
        loadgen::ClientProgram p;
        p.name = "workload";
        p.what = "workload messages";
        p.configure = [s](const Config& c, loadgen::Options* o) { return configure(c, o, s.get()); };
        p.make_load = [s](Thread& t, const loadgen::Options& o, loadgen::Result* r) {
          return std::make_unique<WorkloadLoad>(t, o, r, *s);
        };
        p.beside = [s](Thread& t) { serve(t, s->serve_context); };
        p.summary = [s] {
          if (!s->fixed_bytes.empty())
            return absl::StrFormat("  workload: %zu fixed size(s), taken in turn, to %zu peers", s->fixed_bytes.size(),
                                   s->peers.size());
          return absl::StrFormat(
              "  workload %s (%s): mean %.0f B, %.2f%% of messages clipped at %u B; offered %.2f of %.0f Gb/s "
              "to %zu peers",
              size_workload_name(s->workload), size_workload_description(s->workload),
              s->stats.mean_bytes, 100 * s->stats.clipped_fraction,
              kMaxMessageBytes, s->load, s->host_gbps, s->peers.size());
        };
        p.json_members = [s] {
          return absl::StrFormat(",\"workload\":\"%s\",\"load\":%g,\"host_gbps\":%g,\"peers\":%zu",
                                 size_workload_name(s->workload), s->load, s->host_gbps, s->peers.size());
        };
        return p;
      });
  spec.flags = {"workload", "load", "host_gbps", "peers", "fixed_bytes"};
  return spec;
}

}  // namespace nanopu::sim
