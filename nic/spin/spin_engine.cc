#include "nic/spin/spin_engine.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "lib/base/log.h"
#include "lib/contract/message.h"
#include "lib/contract/tx_message.h"
#include "lib/wire/frame.h"
#include "nanopu/app_header.h"
#include "nic/spin/spin_output.h"

namespace nanopu {
namespace {

uint64_t field_mask_of(const spin::Match& m) {
  const uint64_t width = m.field_bytes >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * m.field_bytes)) - 1;
  return m.field_mask & width;
}

// Whether one message could match both rules: unless both read the same
// bytes and their values differ where both masks look, it could.
bool may_overlap(const spin::Match& a, const spin::Match& b) {
  if (a.context != b.context) return false;
  if (a.field_bytes == 0 || b.field_bytes == 0) return true;
  if (a.field_offset != b.field_offset || a.field_bytes != b.field_bytes) return true;
  return ((a.field_value ^ b.field_value) & field_mask_of(a) & field_mask_of(b)) == 0;
}

}  // namespace

const char* spin::fault_name(Fault f) {
  switch (f) {
    case Fault::kNone: return "none";
    case Fault::kOutOfBounds: return "out-of-bounds access";
    case Fault::kThrew: return "threw";
    case Fault::kOverBudget: return "over budget";
    case Fault::kBadCommand: return "bad command";
  }
  return "?";
}

namespace {
std::string what_of(const spin::ExecutionContext& ctx) {
  return absl::StrCat("sPIN context '", ctx.name, "' (context ", ctx.match.context, ")");
}
}  // namespace

absl::Status SpinEngine::check(const spin::ExecutionContext& ctx) {
  const std::string what = what_of(ctx);
  if (!ctx.header && !ctx.payload && !ctx.completion)
    return absl::InvalidArgumentError(what + ": no handler (header, payload or completion)");
  if (ctx.memory_bytes > spin::kMaxMemoryBytes)
    return absl::InvalidArgumentError(absl::StrCat(what, ": handler memory of ", ctx.memory_bytes,
                                                   " bytes; at most ", spin::kMaxMemoryBytes));
  if (ctx.scratch_bytes > spin::kMaxScratchBytes)
    return absl::InvalidArgumentError(absl::StrCat(what, ": scratch of ", ctx.scratch_bytes,
                                                   " bytes; at most ", spin::kMaxScratchBytes));
  if (ctx.match.field_bytes > 8 || uint32_t{ctx.match.field_offset} + ctx.match.field_bytes > wire::kSegmentBytes)
    return absl::InvalidArgumentError(what + ": a match field is 1-8 bytes within the first 1024 of a message");
  if (ctx.budget_ns == 0) return absl::InvalidArgumentError(what + ": a budget of 0 ns");
  return absl::OkStatus();
}

absl::Status SpinEngine::run_init(const spin::ExecutionContext& ctx, uint8_t* memory) {
  if (!ctx.init) return absl::OkStatus();
  spin::Fault fault = spin::Fault::kNone;
  spin::Memory m(memory, ctx.memory_bytes, &fault);
  ctx.init(m);
  if (fault != spin::Fault::kNone)
    return absl::InvalidArgumentError(what_of(ctx) + ": its init wrote outside its handler memory");
  return absl::OkStatus();
}

absl::Status SpinEngine::install(spin::ExecutionContext ctx) {
  if (absl::Status st = check(ctx); !st.ok()) return st;
  const std::string what = what_of(ctx);
  for (const auto& s : slots_)
    if (may_overlap(s->ctx.match, ctx.match))
      return absl::AlreadyExistsError(absl::StrCat(what, ": its rule overlaps that of '", s->ctx.name,
                                                   "' (one message could match both)"));
  auto slot = std::make_unique<Slot>();
  slot->memory = std::make_unique<uint8_t[]>(std::max<uint32_t>(ctx.memory_bytes, 1));  // zeroed
  slot->scratch = std::make_unique<uint8_t[]>(std::max<uint32_t>(ctx.scratch_bytes, 1));
  slot->tally.budget_tsc = HandlerTally::budget_tsc_of(ctx.budget_ns);
  if (absl::Status st = run_init(ctx, slot->memory.get()); !st.ok()) return st;
  slot->report.name = ctx.name;
  slot->report.context = ctx.match.context;
  slot->ctx = std::move(ctx);
  slot->home = slots_.size();  // every n-th context on one HPU (start_hpus)
  if (streams_.empty()) {
    // Half a default reassembly buffer's slots (a context's default share),
    // each with its host message's room: 8 MiB, made once.
    constexpr uint16_t kStreams = 128;
    run_.reserve_host();
    for (uint16_t i = 0; i < kStreams; ++i) {
      streams_.push_back(std::make_unique<SpinStream>());
      streams_.back()->id = i;
      streams_.back()->run.reserve_host();
      free_streams_.push_back(streams_.back().get());
    }
  }
  by_context_[slot->ctx.match.context].push_back(slot.get());
  slots_.push_back(std::move(slot));
  return absl::OkStatus();
}

SpinEngine::Slot* SpinEngine::match(const rte_mbuf* msg, uint16_t context) {
  const auto it = by_context_.find(context);
  if (it == by_context_.end()) return nullptr;
  for (Slot* s : it->second) {
    const spin::Match& m = s->ctx.match;
    if (m.field_bytes == 0) return s;
    if (uint32_t{m.field_offset} + m.field_bytes > msg->data_len) continue;  // too short to have it
    uint64_t v = 0;
    std::memcpy(&v, rte_pktmbuf_mtod_offset(msg, const uint8_t*, m.field_offset), m.field_bytes);
    if ((v & field_mask_of(m)) == (m.field_value & field_mask_of(m))) return s;
  }
  return nullptr;
}

void SpinEngine::run_handlers(Slot& s, rte_mbuf* msg, SpinRun& run) {
  const MsgMeta* meta = msg_meta(msg);
  const AppHeader a = AppHeader::from_word(meta->app_header);
  spin::MessageInfo info;
  info.src_ip = a.ip;
  info.src_context = a.context;
  info.dst_context = s.ctx.match.context;
  info.src_run = meta->run;
  info.size_bytes = a.len;
  info.packets = msg->nb_segs;
  info.seq = s.begun++;
  run.begin(info, s.memory.get(), s.ctx.memory_bytes, s.scratch.get(), s.ctx.scratch_bytes);
  std::span<const uint8_t> packets[wire::kMaxPacketsPerMessage];
  size_t n = 0;
  for (rte_mbuf* seg = msg; seg != nullptr && n < wire::kMaxPacketsPerMessage; seg = seg->next)
    packets[n++] = {rte_pktmbuf_mtod(seg, const uint8_t*), seg->data_len};
  HandlerRunner::run(s.ctx, run, {packets, n}, s.tally, s.report);
}

void SpinEngine::execute(SpinTask& t, SpinRun& run, rte_mempool* pool, uint64_t now) {
  Slot& s = *static_cast<Slot*>(t.slot);
  t.bypass = false;
  t.new_fault = spin::Fault::kNone;
  t.lost = 0;
  t.host = nullptr;
  t.n_sends = 0;
  t.freed_segs = 0;
  if (t.step != SpinStep::kWhole) return execute_step(s, t, pool, now);
  if (s.disabled) return bypass(s, t);  // disabled by an earlier message this core ran
  run_handlers(s, t.msg, run);
  if (note_fault(s, t, run)) return bypass(s, t);
  carry_out(s, t, run, pool, now);
}

bool SpinEngine::note_fault(Slot& s, SpinTask& t, const SpinRun& run) {
  if (run.fault() == spin::Fault::kNone) return false;
  if (!s.disabled) {
    // Nothing it asked for is carried out; the message it failed on reaches
    // its thread as it came (never lost silently), and so do those after.
    s.disabled = true;
    s.report.fault = run.fault();
    s.report.fault_detail = s.tally.detail_of(run.fault());
    t.new_fault = run.fault();
  }
  return true;
}

void SpinEngine::bypass(Slot& s, SpinTask& t) {
  ++s.report.bypassed;
  t.bypass = true;
}

void SpinEngine::carry_out(Slot& s, SpinTask& t, SpinRun& run, rte_mempool* pool, uint64_t now) {
  if (!run.host_bytes().empty()) {
    t.host = make_host_message(pool, run, now);
    if (t.host != nullptr) ++s.report.host_messages; else ++t.lost;
  }
  for (const SpinSend& send : run.sends()) {
    rte_mbuf* m = make_send(pool, run, send, s.ctx.match.context, now);
    if (m == nullptr) {
      ++t.lost;
      continue;
    }
    t.sends[t.n_sends++] = m;
    ++s.report.sends;
  }
  s.report.lost += t.lost;
  if (run.forwarding()) {
    ++s.report.forwarded;
  } else {
    t.freed_segs = t.msg->nb_segs;
    rte_pktmbuf_free(t.msg);
    t.msg = nullptr;
  }
}

void SpinEngine::apply(SpinTask& t, SpinSink& sink) {
  Slot& s = *static_cast<Slot*>(t.slot);
  if (t.new_fault != spin::Fault::kNone) {
    s.nic_disabled = true;
    ++counters_->spin_disabled;
    NANOPU_LOG(kError,
               "sPIN context '%s' (context %u) disabled: %s (%s); its messages now reach its thread as they come",
               s.ctx.name.c_str(), s.ctx.match.context, spin::fault_name(t.new_fault), s.report.fault_detail.c_str());
  }
  if (t.on_packet()) {
    if (t.packet_ref) rte_pktmbuf_free_seg(t.msg);  // the HPU's reference; the transport keeps its own
    settle(t.stream);
    return;
  }
  if (t.step == SpinStep::kClose) settle(t.stream);
  if (t.bypass) {
    ++counters_->spin_msgs_bypassed;
    (void)sink.deliver_to_host(t.msg, t.dst);
    return;
  }
  if (t.lost != 0) {
    counters_->spin_no_mbuf += t.lost;
    NANOPU_LOG_EVERY(kWarning, 1.0, "sPIN context '%s': no buffer for a host message or a send (nic.spin_no_mbuf)",
                     s.ctx.name.c_str());
  }
  if (t.host != nullptr) {
    t.dst->packets += t.host->nb_segs;
    (void)sink.deliver_to_host(t.host, t.dst);
  }
  for (uint8_t i = 0; i < t.n_sends; ++i) {
    if (sends_.size() < kMaxWaitingSends) {
      sends_.push_back(t.sends[i]);
      continue;
    }
    // Its transport has been full for thousands of sends: a peer gone
    // silent. Lost, counted, as one with no buffer.
    rte_pktmbuf_free(t.sends[i]);
    ++counters_->spin_no_mbuf;
    NANOPU_LOG_EVERY(kWarning, 1.0, "sPIN context '%s': %zu sends wait for a packetization slot; more are dropped "
                     "(nic.spin_no_mbuf)", s.ctx.name.c_str(), sends_.size());
  }
  if (t.msg != nullptr) {
    (void)sink.deliver_to_host(t.msg, t.dst);  // forwarded
  } else {
    t.dst->packets -= t.freed_segs;  // freed where the handlers ran: out of the NIC's custody
  }
}

bool SpinEngine::take(rte_mbuf* msg, ContextEntry* dst) {
  if (!streaming_.empty()) {
    if (const auto it = streaming_.find(msg); it != streaming_.end()) {
      SpinStream* st = it->second;
      streaming_.erase(it);
      st->ended = true;
      if (!static_cast<Slot*>(st->slot)->nic_disabled) ++counters_->spin_msgs;  // else counted bypassed
      submit(SpinTask{.step = SpinStep::kClose, .msg = msg, .stream = st, .dst = dst, .slot = st->slot});
      return true;
    }
  }
  Slot* s = match(msg, dst->context);
  if (s == nullptr) return false;
  if (s->nic_disabled) {
    ++s->nic_bypassed;
    ++counters_->spin_msgs_bypassed;
    return false;
  }
  ++counters_->spin_msgs;
  submit(SpinTask{.msg = msg, .dst = dst, .slot = s});
  return true;
}

void SpinEngine::submit(const SpinTask& t) {
  if (t.stream != nullptr) ++t.stream->in_flight;
  if (hpus_.empty()) {
    inline_ = t;
    execute(inline_, run_, sink_->spin_pool(), sink_->spin_now());
    apply(inline_, *sink_);
    return;
  }
  SpinTask in = t;
  if (in.on_packet()) {
    // The HPU reads the packet while the transport holds it: a reference of
    // its own, so a message abandoned meanwhile frees nothing it reads.
    rte_mbuf_refcnt_update(in.msg, 1);
    in.packet_ref = true;
  }
  if (free_.empty() || !waiting_.empty()) {
    waiting_.push_back(in);
    return;
  }
  hand_over(in);
}

void SpinEngine::hand_over(const SpinTask& in) {
  SpinTask* t = free_.back();
  free_.pop_back();
  *t = in;
  ++in_flight_;
  // As many tasks as a ring holds: its home's ring has room.
  (void)hpus_[static_cast<const Slot*>(in.slot)->home % hpus_.size()]->submit(t);
}

absl::Status SpinEngine::start_hpus(uint32_t n, rte_mempool* pool, const std::string& name) {
  constexpr uint32_t kTasks = 1024;
  pool_ = pool;
  tasks_.assign(kTasks, SpinTask{});
  free_.clear();
  for (SpinTask& t : tasks_) free_.push_back(&t);
  for (uint32_t k = 0; k < n; ++k) {
    absl::StatusOr<std::unique_ptr<HpuCore>> h = HpuCore::create(this, pool, absl::StrCat(name, "h", k), kTasks);
    if (!h.ok()) {
      hpus_.clear();
      return h.status();
    }
    hpus_.push_back(std::move(*h));
  }
  return absl::OkStatus();
}

unsigned SpinEngine::collect_hpus(SpinSink& sink) {
  unsigned applied = 0;
  for (auto& h : hpus_) {
    SpinTask* done[32];
    const unsigned n = h->collect(done, 32);
    for (unsigned i = 0; i < n; ++i) {
      apply(*done[i], sink);
      free_.push_back(done[i]);
    }
    in_flight_ -= n;
    applied += n;
  }
  return applied;
}

unsigned SpinEngine::poll_hpus(SpinSink& sink) {
  const unsigned applied = collect_hpus(sink);
  while (!waiting_.empty() && !free_.empty()) {
    hand_over(waiting_.front());
    waiting_.pop_front();
  }
  return applied;
}

void SpinEngine::stop_hpus() {
  for (auto& h : hpus_) h->stop();
}

void SpinEngine::finish_hpus(SpinSink& sink) {
  // Their loops have returned: what they finished is applied; what never
  // reached one (no task was free) runs here.
  while (in_flight_ != 0) (void)collect_hpus(sink);
  hpus_.clear();
  while (!waiting_.empty()) {
    SpinTask t = waiting_.front();
    waiting_.pop_front();
    execute(t, run_, sink.spin_pool(), sink.spin_now());
    apply(t, sink);
  }
}

void SpinEngine::flush(SpinSink& sink) {
  // A transport with no slot refuses every later send of this flush too,
  // so each transport's sends keep their order; another's go on.
  size_t kept = 0;
  for (rte_mbuf* m : sends_)
    if (!sink.send_from_nic(m)) sends_[kept++] = m;
  if (kept != 0) ++counters_->spin_sends_waited;
  sends_.resize(kept);
}

SpinEngine::~SpinEngine() {
  if (sends_.empty()) return;
  counters_->spin_no_mbuf += sends_.size();
  NANOPU_LOG(kWarning, "sPIN: %zu handler sends still waited for a packetization slot at the end: not sent",
             sends_.size());
  for (rte_mbuf* m : sends_) rte_pktmbuf_free(m);
}

std::vector<spin::ContextReport> SpinEngine::reports() const {
  std::vector<spin::ContextReport> out;
  out.reserve(slots_.size());
  for (const auto& s : slots_) {
    out.push_back(s->report);
    out.back().bypassed += s->nic_bypassed;
    out.back().abandoned = s->nic_abandoned;
  }
  return out;
}

}  // namespace nanopu
