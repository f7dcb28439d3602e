#include "nic/tx/tx_batches.h"

#include <algorithm>

#include "lib/contract/clock.h"
#include "nic/packetizer/packetization_buffer.h"  // ours_alone

namespace nanopu {

TxBatches::~TxBatches() {
  for (Batch* b : {&control_, &data_, &deferred_, &egressed_})
    for (unsigned i = 0; i < b->n; ++i) rte_pktmbuf_free(b->pkts[i]);
}

void TxBatches::end_poll() {
  if (empty()) {  // an idle poll: nothing to order
    io_->flush();
    return;
  }
  if (control_after_data_) flush(data_);
  if (defer_control_) {
    if (control_after_data_) flush(deferred_);
    for (unsigned i = 0; i < control_.n; ++i) enqueue(deferred_, control_.pkts[i]);
    control_.n = 0;
  } else {
    flush(control_);
  }
  if (!control_after_data_) flush(data_);
  io_->flush();
}

void TxBatches::flush_through_egress(Batch& b) {
  send(egressed_);  // the previous poll's first: the wire's order
  through_egress(b);
  send(egressed_);
}

void TxBatches::send(Batch& b) {
  if (b.n == 0) return;
  if (!link_->port_started()) {  // restarting: the transport retransmits what is lost here
    counters_->tx_drop_link_down += b.n;
    for (unsigned i = 0; i < b.n; ++i) rte_pktmbuf_free(b.pkts[i]);
    b.n = 0;
    return;
  }
  const uint16_t sent = io_->tx_burst(b.pkts, static_cast<uint16_t>(b.n));
  // Keep what the port did not take for the next poll (back-pressure);
  // enqueue() drops only when a whole batch is still stuck.
  for (unsigned i = sent; i < b.n; ++i) b.pkts[i - sent] = b.pkts[i];
  b.n -= sent;
}

void TxBatches::through_egress(Batch& b) {
  const unsigned take = std::min<unsigned>({b.n, kBatch - egressed_.n, SwxProgram::kMaxBurst});
  if (take == 0) return;
  rte_mbuf* in[SwxProgram::kMaxBurst];
  uint16_t n = 0;
  for (unsigned i = 0; i < take; ++i)
    if (rte_mbuf* m = own_for_egress(b.pkts[i]); m != nullptr) in[n++] = m;
  for (unsigned i = take; i < b.n; ++i) b.pkts[i - take] = b.pkts[i];
  b.n -= take;
  if (n == 0) return;
  // In-band telemetry (a program that reads nanopu_meta): the hop's clock
  // and the frames queued for the port with these (the rest of the batch
  // and what the port has not taken yet).
  HopValues hop;
  if (egress_->reads_hop())
    hop = {clock::now_ns(), n + b.n + egressed_.n};
  const SwxProgram::RunResult r = egress_->run(in, n, &egress_out_, hop);
  counters_->tx_program_stuck += r.stuck;
  counters_->tx_program_dropped += r.dropped;
  for (size_t port = 0; port < egress_out_.size(); ++port)
    for (rte_mbuf* m : egress_out_[port]) {
      if (port == 0 && egressed_.n < kBatch) {
        egressed_.pkts[egressed_.n++] = m;
      } else {  // dropped by the program (ports 1 and 2), or more out than in (a mirror) past the room
        ++counters_->tx_program_dropped;
        rte_pktmbuf_free(m);
      }
    }
}

rte_mbuf* TxBatches::own_for_egress(rte_mbuf* m) {
  // The transport keeps a DATA frame to send again (a reference of its
  // own): a program that rewrote it in place would rewrite the copy a
  // retransmission sends, again.
  if (ours_alone(m) && RTE_MBUF_DIRECT(m) && rte_pktmbuf_headroom(m) >= headroom_) return m;
  rte_mbuf* copy = rte_pktmbuf_copy(m, copy_pool_, 0, UINT32_MAX);
  rte_pktmbuf_free(m);
  if (copy == nullptr) {
    ++counters_->tx_drop_no_mbuf;  // the transport retransmits a DATA frame
    return nullptr;
  }
  ++counters_->tx_program_copied;
  return copy;
}

}  // namespace nanopu
