// spin::LocalContext (nanopu/spin_local.h): the NIC engine's handler runner
// on bytes in memory.
#include "nanopu/spin_local.h"

#include <algorithm>

#include "nic/spin/handler_runner.h"
#include "nic/spin/spin_engine.h"
#include "nic/spin/spin_run.h"

namespace nanopu::spin {

struct LocalContext::State {
  ExecutionContext ctx;
  std::vector<uint8_t> memory;
  std::vector<uint8_t> scratch;
  HandlerTally tally;
  ContextReport report;
  SpinRun run;
};

LocalContext::LocalContext(std::unique_ptr<State> s) : s_(std::move(s)) {}
LocalContext::~LocalContext() = default;

absl::StatusOr<std::unique_ptr<LocalContext>> LocalContext::create(ExecutionContext ctx) {
  // The NIC's checks of a context alone (there are no others here).
  if (absl::Status st = SpinEngine::check(ctx); !st.ok()) return st;
  auto s = std::make_unique<State>();
  s->memory.assign(std::max<uint32_t>(ctx.memory_bytes, 1), 0);
  s->scratch.assign(std::max<uint32_t>(ctx.scratch_bytes, 1), 0);
  s->tally.budget_tsc = HandlerTally::budget_tsc_of(ctx.budget_ns);
  s->report.name = ctx.name;
  s->report.context = ctx.match.context;
  if (absl::Status st = SpinEngine::run_init(ctx, s->memory.data()); !st.ok()) return st;
  s->ctx = std::move(ctx);
  return std::unique_ptr<LocalContext>(new LocalContext(std::move(s)));
}

LocalOutcome LocalContext::run(std::span<const uint8_t> bytes, MessageInfo info, uint32_t packet_bytes) {
  LocalOutcome out;
  State& s = *s_;
  if (s.report.fault != Fault::kNone) {
    out.fault = s.report.fault;
    ++s.report.bypassed;
    return out;
  }
  packet_bytes = std::clamp<uint32_t>(packet_bytes, 1, 1024);
  std::vector<std::span<const uint8_t>> packets;
  for (size_t at = 0; at < bytes.size(); at += packet_bytes)
    packets.push_back(bytes.subspan(at, std::min<size_t>(packet_bytes, bytes.size() - at)));
  if (packets.empty()) packets.push_back({});
  info.dst_context = s.ctx.match.context;
  info.size_bytes = static_cast<uint32_t>(bytes.size());
  info.packets = static_cast<uint32_t>(packets.size());
  info.seq = s.report.messages;
  s.run.begin(info, s.memory.data(), s.ctx.memory_bytes, s.scratch.data(), s.ctx.scratch_bytes);
  HandlerRunner::run(s.ctx, s.run, packets, s.tally, s.report);
  out.fault = s.run.fault();
  out.cycles = s.run.cycles();
  if (out.fault != Fault::kNone) {
    s.report.fault = out.fault;
    s.report.fault_detail = s.tally.detail_of(out.fault);
    ++s.report.bypassed;
    return out;
  }
  const std::span<const uint8_t> host = s.run.host_bytes();
  out.host.assign(host.begin(), host.end());
  s.report.host_messages += !out.host.empty();
  for (const SpinSend& send : s.run.sends()) {
    const uint8_t* b = s.run.send_bytes(send);
    out.sends.push_back({send.ip, send.context, std::vector<uint8_t>(b, b + send.len)});
  }
  s.report.sends += out.sends.size();
  out.forwarded = s.run.forwarding();
  s.report.forwarded += out.forwarded;
  return out;
}

const ContextReport& LocalContext::report() const { return s_->report; }

Memory LocalContext::memory() { return Memory(s_->memory.data(), s_->ctx.memory_bytes, nullptr); }

}  // namespace nanopu::spin
