#include "nic/pipeline/pipeline.h"

namespace nanopu {

// Trusts that a PMD which offers the offload writes each received mbuf's
// RX checksum flags afresh (DPDK's contract for an enabled offload), so no
// flag is left over from a buffer's earlier life.
wire::PortChecksum Pipeline::port_verdict(const rte_mbuf* m) {
  switch (m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) {
    case RTE_MBUF_F_RX_IP_CKSUM_GOOD:
      ++counters_->rx_checksum_by_port;
      return wire::PortChecksum::kGood;
    case RTE_MBUF_F_RX_IP_CKSUM_BAD:
      ++counters_->rx_checksum_by_port;
      return wire::PortChecksum::kBad;
    default:  // unknown (not IPv4, a frame too short to check) or none
      return wire::PortChecksum::kUnchecked;
  }
}

PipelineResult Pipeline::classify(const rte_mbuf* m, wire::FrameHeader* h, size_t* payload_bytes) {
  PipelineResult r;
  ++counters_->rx_packets;
  counters_->rx_bytes += m->pkt_len;
  if (os_path_ && wire::foreign_frame(rte_pktmbuf_mtod(m, const uint8_t*), m->data_len)) [[unlikely]] {
    r.kind = PipelineResult::Kind::kOs;  // the OS's: ARP, ICMP, TCP, ...
    return r;
  }
  if (m->data_len < wire::kFrameHeaderBytes && m->pkt_len >= wire::kFrameHeaderBytes) {
    ++counters_->rx_drop_segmented_mbuf;  // PMDs here deliver headers contiguously
    return r;
  }
  // The decoder reads only the 64 header bytes (contiguous, checked above);
  // lengths are checked against the whole frame.
  const wire::ParseError e =
      wire::decode_frame_header(rte_pktmbuf_mtod(m, const uint8_t*), m->pkt_len, h, payload_bytes,
                                port_checksum_ ? port_verdict(m) : wire::PortChecksum::kUnchecked);
  if (e != wire::ParseError::kOk) {
    ++counters_->rx_parse_errors[static_cast<size_t>(e)];
    return r;
  }
  if (h->dst_ip != host_ip_) {
    ++counters_->rx_drop_not_for_host;
    return r;
  }
  neighbors_->learn(h->src_ip, h->src_mac);
  if (h->is_homa()) ++counters_->rx_homa_packets;
  if (h->is_data()) {
    ++counters_->rx_data_packets;
    r.dst = contexts_->lookup(h->dst_context(), nic_core_);  // never-bound contexts have no entry
    if (r.dst == nullptr) {
      ++counters_->rx_drop_unknown_context;
      return r;
    }
    r.kind = PipelineResult::Kind::kData;
    return r;
  }
  ++counters_->rx_control_packets;
  r.kind = PipelineResult::Kind::kControl;
  return r;
}

}  // namespace nanopu
