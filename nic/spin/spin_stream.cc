// Streaming (spin_stream.h): a multi-packet message's handlers run as the
// transport keeps its packets (PacketTap), each step a task that runs on
// the NIC core or goes, in order, through its context's home HPU's ring.
#include <memory>

#include "lib/wire/frame.h"
#include "nic/spin/spin_engine.h"

namespace nanopu {

void SpinEngine::on_stored(InboundMessage& m, uint8_t pkt_offset) {
  if (pkt_offset == 0) return open(m);
  if (m.spin_stream == 0) return;  // not streamed, or packet 0 not yet in (open() runs it then)
  SpinStream* st = streams_[m.spin_stream - 1].get();
  submit(SpinTask{.step = SpinStep::kPacket, .msg = m.pkts[pkt_offset], .stream = st, .index = pkt_offset,
                  .dst = m.dst, .slot = st->slot});
}

void SpinEngine::open(InboundMessage& m) {
  Slot* s = match(m.pkts[0], m.dst_context);
  // No context, a disabled one, or no stream free: the message runs whole
  // (or goes on) when the transport hands it over, as before streaming.
  if (s == nullptr || s->nic_disabled || free_streams_.empty()) return;
  SpinStream* st = free_streams_.back();
  free_streams_.pop_back();
  st->slot = s;
  st->head = m.pkts[0];
  st->in_flight = 0;
  st->ended = false;
  st->info = spin::MessageInfo{};
  st->info.src_ip = m.src_ip;
  st->info.src_context = m.src_context;
  st->info.dst_context = s->ctx.match.context;
  st->info.src_run = m.incarnation;  // the sender's run, as MsgMeta::run has it
  st->info.size_bytes = m.msg_len;
  st->info.packets = m.npkts;
  if (st->scratch_bytes < s->ctx.scratch_bytes) {
    // Once per stream and size: the NIC core allocates no more after.
    st->scratch = std::make_unique<uint8_t[]>(s->ctx.scratch_bytes);
    st->scratch_bytes = s->ctx.scratch_bytes;
  }
  m.spin_stream = static_cast<uint16_t>(st->id + 1);
  streaming_.emplace(st->head, st);
  ++counters_->spin_msgs_streamed;
  submit(SpinTask{.step = SpinStep::kOpen, .msg = m.pkts[0], .stream = st, .dst = m.dst, .slot = s});
  // The packets that overtook packet 0, in message order.
  for (uint8_t k = 1; k < m.npkts; ++k)
    if ((m.received >> k & 1) != 0)
      submit(SpinTask{.step = SpinStep::kPacket, .msg = m.pkts[k], .stream = st, .index = k, .dst = m.dst, .slot = s});
}

void SpinEngine::on_abandoned(InboundMessage& m) {
  SpinStream* st = streams_[m.spin_stream - 1].get();
  m.spin_stream = 0;
  streaming_.erase(st->head);
  st->ended = true;
  ++static_cast<Slot*>(st->slot)->nic_abandoned;
  ++counters_->spin_msgs_abandoned;
  if (st->in_flight == 0) free_streams_.push_back(st);
}

void SpinEngine::settle(SpinStream* st) {
  --st->in_flight;
  if (st->in_flight == 0 && st->ended) free_streams_.push_back(st);
}

void SpinEngine::execute_step(Slot& s, SpinTask& t, rte_mempool* pool, uint64_t now) {
  SpinStream& st = *t.stream;
  SpinRun& run = st.run;
  switch (t.step) {
    case SpinStep::kOpen:
      st.info.seq = s.begun++;
      run.begin(st.info, s.memory.get(), s.ctx.memory_bytes, st.scratch.get(), s.ctx.scratch_bytes);
      [[fallthrough]];
    case SpinStep::kPacket:
      if (s.disabled) return;  // by this message or another: its completion lets it through
      HandlerRunner::packet(s.ctx, run,
                            spin::Packet{{rte_pktmbuf_mtod(t.msg, const uint8_t*), t.msg->data_len},
                                         static_cast<uint32_t>(t.index * wire::kSegmentBytes), t.index},
                            s.tally, s.report);
      (void)note_fault(s, t, run);
      return;
    case SpinStep::kClose:
      // Disabled by another message: through untouched. Its own fault: the
      // message counts (no completion runs), as a whole one's does.
      if (s.disabled && run.fault() == spin::Fault::kNone) return bypass(s, t);
      HandlerRunner::complete(s.ctx, run, s.tally, s.report);
      ++s.report.streamed;
      if (note_fault(s, t, run)) return bypass(s, t);
      return carry_out(s, t, run, pool, now);
    case SpinStep::kWhole:
      return;  // execute()'s own
  }
}

}  // namespace nanopu
