#include "runtime/host/host_memory.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "lib/contract/clock.h"

namespace nanopu {
namespace {

// A queue this close to full stands for a saturated one: its waits grow
// without bound; the charge stays finite so the run goes on (and shows it).
constexpr double kMaxUtilization = 0.999;

// "get=G,value=V": MICA's demand at that mix and value size.
absl::StatusOr<model::RpcMemoryDemand> parse_demand(absl::string_view text) {
  double get = -1, value = -1;
  for (absl::string_view kv : absl::StrSplit(text, ',')) {
    const std::pair<absl::string_view, absl::string_view> p = absl::StrSplit(kv, absl::MaxSplits('=', 1));
    double* into = p.first == "get" ? &get : p.first == "value" ? &value : nullptr;
    if (into == nullptr) return absl::InvalidArgumentError(absl::StrCat("no demand field '", p.first, "'"));
    if (*into != -1) return absl::InvalidArgumentError(absl::StrCat(p.first, "= given twice"));
    if (!absl::SimpleAtod(p.second, into)) return absl::InvalidArgumentError(absl::StrCat("'", kv, "' is not a number"));
  }
  if (get == -1 || value == -1) return absl::InvalidArgumentError("a demand needs both get= and value=");
  if (!(get >= 0 && get <= 1)) return absl::InvalidArgumentError("get= must be a share in 0..1");
  if (!(value >= 1 && value <= 65536)) return absl::InvalidArgumentError("value= must be 1..65536 bytes");
  return model::RpcMemoryDemand::mica(get, value);
}

}  // namespace

absl::StatusOr<HostMemory> HostMemory::parse(const std::string& spec, uint32_t host_cores) {
  const std::vector<std::string> f = absl::StrSplit(spec, ':');
  const auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("--memory_model='", spec, "': ", why, " (expected ", kSyntax, ")"));
  };
  if (f.size() != 2 && f.size() != 3) return bad("not two or three fields");
  model::MemorySystem m;
  if (f[0] == "nebula_server") m = model::MemorySystem::nebula_server();
  else if (f[0] == "nebula_simulation") m = model::MemorySystem::nebula_simulation();
  else return bad(absl::StrCat("no memory system '", f[0], "'"));
  // The buffers as the paper provisions them (model::paper_buffer_bytes).
  model::BufferProvisioning p;
  if (f[1] == "per_connection") {
    p = model::BufferProvisioning::kPerConnection;
  } else if (f[1] == "bounded") {
    p = model::BufferProvisioning::kSharedBounded;
  } else if (f[1] == "ideal") {
    p = model::BufferProvisioning::kIdealReuse;
  } else {
    return bad(absl::StrCat("no buffer provisioning '", f[1], "'"));
  }
  model::RpcMemoryDemand rpc;
  if (f.size() == 3) {
    absl::StatusOr<model::RpcMemoryDemand> d = parse_demand(f[2]);
    if (!d.ok()) return bad(d.status().message());
    rpc = *d;
  }
  if (const std::string why = m.invalid(); !why.empty()) return bad(why);
  if (host_cores == 0) return bad("the host has no worker core");
  return HostMemory(m, p, model::paper_buffer_bytes(m, p), rpc, host_cores);
}

HostMemory::HostMemory(const model::MemorySystem& m, model::BufferProvisioning p, double buffer_bytes,
                       const model::RpcMemoryDemand& rpc, uint32_t host_cores)
    : system_(m),
      buffers_(p),
      rpc_(rpc),
      traffic_(model::traffic_per_rpc(m, p, buffer_bytes, rpc_)),
      replicas_(static_cast<double>(m.cores) / host_cores) {}

uint64_t HostMemory::ps_at_start(uint64_t now_ticks) {
  if (messages_ == 0) first_tick_ = now_ticks;
  last_tick_ = now_ticks;
  const uint64_t oldest = starts_[messages_ % kWindow];
  starts_[messages_ % kWindow] = now_ticks;
  ++messages_;
  if (messages_ <= kWindow || now_ticks <= oldest) return 0;  // no rate yet
  const double seconds = static_cast<double>(now_ticks - oldest) * clock::ns_per_tick() * 1e-9;
  const double server_rps = static_cast<double>(kWindow) / seconds * replicas_;
  model::LoadedMemory l = model::at_load(system_, traffic_, rpc_, server_rps);
  if (l.saturated || l.utilization > kMaxUtilization)
    l = model::at_load(system_, traffic_, rpc_, kMaxUtilization * system_.usable_bytes_per_s() / traffic_.per_rpc());
  const double extra_ns = rpc_.stalls * l.wait_ns;
  wait_ns_sum_ += extra_ns;
  return static_cast<uint64_t>(extra_ns * 1e3 + 0.5);
}

std::string HostMemory::summary() const {
  const double seconds = static_cast<double>(last_tick_ - first_tick_) * clock::ns_per_tick() * 1e-9;
  const double server_gbs = seconds > 0 ? static_cast<double>(messages_) / seconds * replicas_ * traffic_.per_rpc() / 1e9 : 0;
  return absl::StrFormat(
      "memory (modelled, %s, buffers %s): %u messages, %.0f DRAM bytes each (LLC hit %.2f); the server's DRAM at "
      "%.1f GB/s, %.0f%% of its %.0f; %.1f ns of DRAM waits a message",
      system_.name, model::provisioning_name(buffers_), messages_, traffic_.per_rpc(), traffic_.buffer_hit, server_gbs,
      100 * server_gbs / (system_.dram_bytes_per_s / 1e9), system_.dram_bytes_per_s / 1e9,
      messages_ > 0 ? wait_ns_sum_ / static_cast<double>(messages_) : 0.0);
}

}  // namespace nanopu
