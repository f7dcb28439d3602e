#include "nic/tx/tx_batches.h"

namespace nanopu {

TxBatches::~TxBatches() {
  for (Batch* b : {&control_, &data_, &deferred_})
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

void TxBatches::flush(Batch& b) {
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

}  // namespace nanopu
