#include "nic/spin/spin_engine.h"

#include <algorithm>
#include <cstring>
#include <exception>

#include "absl/strings/str_cat.h"
#include "lib/base/log.h"
#include "lib/contract/message.h"
#include "lib/contract/tx_message.h"
#include "lib/wire/frame.h"
#include "nanopu/app_header.h"

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

absl::Status SpinEngine::install(spin::ExecutionContext ctx) {
  const std::string what = absl::StrCat("sPIN context '", ctx.name, "' (context ", ctx.match.context, ")");
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
  for (const auto& s : slots_)
    if (may_overlap(s->ctx.match, ctx.match))
      return absl::AlreadyExistsError(absl::StrCat(what, ": its rule overlaps that of '", s->ctx.name,
                                                   "' (one message could match both)"));
  auto slot = std::make_unique<Slot>();
  slot->memory = std::make_unique<uint8_t[]>(std::max<uint32_t>(ctx.memory_bytes, 1));  // zeroed
  slot->scratch = std::make_unique<uint8_t[]>(std::max<uint32_t>(ctx.scratch_bytes, 1));
  slot->tally.budget_tsc = static_cast<uint64_t>(static_cast<double>(ctx.budget_ns) * handler_tsc_hz() / 1e9);
  if (ctx.init) {
    spin::Fault fault = spin::Fault::kNone;
    spin::Memory memory(slot->memory.get(), ctx.memory_bytes, &fault);
    ctx.init(memory);
    if (fault != spin::Fault::kNone)
      return absl::InvalidArgumentError(what + ": its init wrote outside its handler memory");
  }
  slot->report.name = ctx.name;
  slot->report.context = ctx.match.context;
  slot->ctx = std::move(ctx);
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

void SpinEngine::run_handlers(Slot& s, rte_mbuf* msg) {
  const MsgMeta* meta = msg_meta(msg);
  const AppHeader a = AppHeader::from_word(meta->app_header);
  spin::MessageInfo info;
  info.src_ip = a.ip;
  info.src_context = a.context;
  info.dst_context = s.ctx.match.context;
  info.src_run = meta->run;
  info.size_bytes = a.len;
  info.packets = msg->nb_segs;
  info.seq = s.report.messages;
  run_.begin(info, s.memory.get(), s.ctx.memory_bytes, s.scratch.get(), s.ctx.scratch_bytes);
  std::span<const uint8_t> packets[wire::kMaxPacketsPerMessage];
  size_t n = 0;
  for (rte_mbuf* seg = msg; seg != nullptr && n < wire::kMaxPacketsPerMessage; seg = seg->next)
    packets[n++] = {rte_pktmbuf_mtod(seg, const uint8_t*), seg->data_len};
  HandlerRunner::run(s.ctx, run_, {packets, n}, s.tally, s.report);
}

void SpinEngine::disable(Slot& s, spin::Fault f) {
  s.report.fault = f;
  s.report.fault_detail = s.tally.fault_detail.empty() ? std::string(spin::fault_name(f)) : s.tally.fault_detail;
  ++counters_->spin_disabled;
  NANOPU_LOG(kError, "sPIN context '%s' (context %u) disabled: %s (%s); its messages now reach its thread as they come",
             s.ctx.name.c_str(), s.ctx.match.context, spin::fault_name(f), s.report.fault_detail.c_str());
}

bool SpinEngine::take(rte_mbuf* msg, ContextEntry* dst, SpinSink& sink) {
  Slot* s = match(msg, dst->context);
  if (s == nullptr) return false;
  if (s->report.fault != spin::Fault::kNone) {
    ++s->report.bypassed;
    ++counters_->spin_msgs_bypassed;
    return false;
  }
  ++counters_->spin_msgs;
  run_handlers(*s, msg);
  if (run_.fault() != spin::Fault::kNone) {
    // Nothing it asked for is carried out; the message it failed on reaches
    // its thread as it came (never lost silently).
    disable(*s, run_.fault());
    ++s->report.bypassed;
    ++counters_->spin_msgs_bypassed;
    return false;
  }
  if (!run_.host_bytes().empty()) deliver_host_message(*s, dst, sink);
  stage_sends(*s, sink);
  if (run_.forwarding()) {
    ++s->report.forwarded;
    (void)sink.deliver_to_host(msg, dst);
  } else {
    dst->packets -= msg->nb_segs;  // out of the NIC's custody
    rte_pktmbuf_free(msg);
  }
  return true;
}

void SpinEngine::deliver_host_message(Slot& s, ContextEntry* dst, SpinSink& sink) {
  const std::span<const uint8_t> bytes = run_.host_bytes();
  const auto n = static_cast<unsigned>((bytes.size() + wire::kSegmentBytes - 1) / wire::kSegmentBytes);
  rte_mbuf* segs[wire::kMaxPacketsPerMessage];
  if (rte_pktmbuf_alloc_bulk(sink.spin_pool(), segs, n) != 0) {
    ++s.report.lost;
    ++counters_->spin_no_mbuf;
    NANOPU_LOG_EVERY(kWarning, 1.0, "sPIN context '%s': no buffer for a host message (nic.spin_no_mbuf)",
                     s.ctx.name.c_str());
    return;
  }
  size_t at = 0;
  for (unsigned i = 0; i < n; ++i) {
    const auto len = static_cast<uint16_t>(std::min<size_t>(wire::kSegmentBytes, bytes.size() - at));
    std::memcpy(rte_pktmbuf_append(segs[i], len), bytes.data() + at, len);
    at += len;
    if (i > 0) (void)rte_pktmbuf_chain(segs[0], segs[i]);
  }
  const spin::MessageInfo& m = run_.message();
  MsgMeta* meta = msg_meta(segs[0]);
  *meta = MsgMeta{};
  meta->app_header = AppHeader{m.src_ip, m.src_context, static_cast<uint16_t>(bytes.size())}.word();
  meta->nic_tsc = sink.spin_now();
  meta->run = m.src_run;
  dst->packets += n;
  ++s.report.host_messages;
  (void)sink.deliver_to_host(segs[0], dst);
}

void SpinEngine::stage_sends(Slot& s, SpinSink& sink) {
  for (const SpinSend& send : run_.sends()) {
    rte_mbuf* m = rte_pktmbuf_alloc(sink.spin_pool());
    if (m == nullptr) {
      ++s.report.lost;
      ++counters_->spin_no_mbuf;
      NANOPU_LOG_EVERY(kWarning, 1.0, "sPIN context '%s': no buffer for a send (nic.spin_no_mbuf)",
                       s.ctx.name.c_str());
      continue;
    }
    (void)rte_pktmbuf_append(m, static_cast<uint16_t>(wire::kFrameHeaderBytes + send.len));
    std::memcpy(tx_segment_payload(m), run_.send_bytes(send), send.len);
    MsgMeta* meta = msg_meta(m);
    *meta = MsgMeta{};
    meta->app_header = AppHeader{send.ip, send.context, send.len}.word();
    meta->src_context = s.ctx.match.context;
    meta->sender = UINT16_MAX;  // no thread: a give-up is logged and counted only
    meta->run = send.run;
    meta->ready_tsc = sink.spin_now();
    ++s.report.sends;
    sends_.push_back(m);
  }
}

void SpinEngine::flush(SpinSink& sink) {
  for (rte_mbuf* m : sends_) sink.send_from_nic(m);
  sends_.clear();
}

std::vector<spin::ContextReport> SpinEngine::reports() const {
  std::vector<spin::ContextReport> out;
  out.reserve(slots_.size());
  for (const auto& s : slots_) out.push_back(s->report);
  return out;
}

}  // namespace nanopu
