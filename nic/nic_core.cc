#include "nic/nic_core.h"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_prefetch.h>

#include "lib/ring/message.h"
#include "nic/transport/ndp/ndp_transport.h"

namespace nanopu {

NicCore::NicCore(const NicParams& params, rte_mempool* pool, const ContextTable* contexts)
    : params_(params),
      neighbors_(params.gateway_mac),
      pipeline_(params.host_ip, contexts, &neighbors_, &counters_),
      packetizer_(params.host_ip, params.host_mac, &neighbors_, pool),
      transport_(std::make_unique<NdpTransport>(params.rtt_packets, &counters_)) {}

NicCore::~NicCore() {
  for (unsigned i = 0; i < control_.n; ++i) rte_pktmbuf_free(control_.pkts[i]);
  for (unsigned i = 0; i < data_.n; ++i) rte_pktmbuf_free(data_.pkts[i]);
}

unsigned NicCore::poll() {
  ++counters_.nic_polls;
  const uint64_t now = rte_rdtsc();
  unsigned work = 0;

  rte_mbuf* rx[kBurst];
  const uint16_t n = rte_eth_rx_burst(params_.port_id, 0, rx, kBurst);
  for (uint16_t i = 0; i < n; ++i) {
    if (i + 1 < n) rte_prefetch0(rte_pktmbuf_mtod(rx[i + 1], void*));
    wire::FrameHeader h;
    size_t payload = 0;
    const PipelineResult r = pipeline_.classify(rx[i], &h, &payload);
    switch (r.kind) {
      case PipelineResult::Kind::kData:
        transport_->on_data(rx[i], h, payload, r.dst, now, *this);
        break;
      case PipelineResult::Kind::kControl:
        transport_->on_control(rx[i], h, now, *this);
        break;
      case PipelineResult::Kind::kDrop:
        rte_pktmbuf_free(rx[i]);
        break;
    }
  }
  work += n;

  // Gather complete messages from every thread's TX FIFO.
  for (ThreadFifos* t : threads_) {
    rte_mbuf* msgs[kBurst];
    const unsigned k = t->tx.pop_burst(msgs, kBurst);
    for (unsigned i = 0; i < k; ++i) {
      ++counters_.tx_msgs;
      transport_->on_message(msgs[i], now, *this);
    }
    work += k;
  }
  transport_->on_tick(now, *this);

  flush(control_);
  flush(data_);
  if (work == 0) ++counters_.nic_idle_polls;
  return work;
}

bool NicCore::deliver(rte_mbuf* msg, ThreadFifos* dst) {
  if (!dst->rx.push(msg)) {
    ++counters_.rx_drop_fifo_full;
    rte_pktmbuf_free(msg);
    return false;
  }
  ++counters_.rx_msgs_delivered;
  return true;
}

void NicCore::send_data(rte_mbuf* m, uint32_t dst_ip, const wire::NdpHeader& h,
                        size_t payload_bytes) {
  packetizer_.frame_data(m, dst_ip, h, payload_bytes);
  ++counters_.tx_data_packets;
  enqueue(data_, m);
}

void NicCore::send_control(uint32_t dst_ip, const wire::NdpHeader& h) {
  rte_mbuf* m = packetizer_.make_control(dst_ip, h);
  if (m == nullptr) {
    ++counters_.tx_drop_no_mbuf;
    return;
  }
  ++counters_.tx_control_packets;
  enqueue(control_, m);
}

void NicCore::enqueue(TxBatch& b, rte_mbuf* m) {
  if (b.n == std::size(b.pkts)) flush(b);
  if (b.n == std::size(b.pkts)) {  // the port still refuses: drop, counted
    ++counters_.tx_drop_port_full;
    rte_pktmbuf_free(m);
    return;
  }
  b.pkts[b.n++] = m;
}

void NicCore::flush(TxBatch& b) {
  if (b.n == 0) return;
  const uint16_t sent = rte_eth_tx_burst(params_.port_id, 0, b.pkts, static_cast<uint16_t>(b.n));
  // Keep what the port did not take for the next iteration (back-pressure);
  // enqueue() drops only when a whole batch is still stuck.
  for (unsigned i = sent; i < b.n; ++i) b.pkts[i - sent] = b.pkts[i];
  b.n -= sent;
}

}  // namespace nanopu
