// NDP as the nanoPU prototype terminates it in the NIC (WIRE.md "Behaviour of
// the prototype's NDP"). This version carries single-packet messages
// (≤ 1024 B): every DATA is delivered whole and answered with ACK|PULL; the
// sender counts ACKs. Multi-packet reassembly, PULL-clocked sending, NACK
// and retransmission belong to the reliable transport (issue #3), which
// replaces this class behind the same Transport interface.
#pragma once

#include <cstdint>

#include "nanopu/stats.h"
#include "nic/transport/transport.h"

namespace nanopu {

class NdpTransport final : public Transport {
 public:
  NdpTransport(uint16_t rtt_packets, NicCounters* counters)
      : rtt_packets_(rtt_packets), counters_(counters) {}

  void on_data(rte_mbuf* pkt, const wire::FrameHeader& h, size_t payload_bytes, ContextEntry* dst,
               uint64_t now_tsc, TransportSink& sink) override;
  void on_control(rte_mbuf* pkt, const wire::FrameHeader& h, uint64_t now_tsc,
                  TransportSink& sink) override;
  void on_message(rte_mbuf* msg, uint64_t now_tsc, TransportSink& sink) override;
  void on_tick(uint64_t, TransportSink&) override {}

 private:
  uint16_t rtt_packets_;
  uint16_t next_msg_id_ = 0;  // wraps at 2^16 (WIRE.md tx_msg_id)
  NicCounters* counters_;
};

}  // namespace nanopu
