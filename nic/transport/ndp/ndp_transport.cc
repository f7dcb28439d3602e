#include "nic/transport/ndp/ndp_transport.h"

#include "lib/ring/message.h"
#include "nanopu/app_header.h"

namespace nanopu {

void NdpTransport::on_data(rte_mbuf* pkt, const wire::FrameHeader& h, size_t payload_bytes,
                           ContextEntry* dst, uint64_t now_tsc, TransportSink& sink) {
  const wire::NdpHeader& n = h.ndp;
  if (wire::packets_for(n.msg_len) != 1 || (n.flags & wire::kFlagChop)) {
    ++counters_->rx_drop_multi_packet;
    rte_pktmbuf_free(pkt);
    return;
  }
  // Strip the frame header and any Ethernet padding: the thread sees payload only.
  rte_pktmbuf_adj(pkt, wire::kFrameHeaderBytes);
  if (pkt->pkt_len > payload_bytes) rte_pktmbuf_trim(pkt, static_cast<uint16_t>(pkt->pkt_len - payload_bytes));
  MsgMeta* meta = msg_meta(pkt);
  meta->app_header = AppHeader{h.src_ip, n.src_context, n.msg_len}.word();
  meta->nic_tsc = now_tsc;
  if (!sink.deliver(pkt, dst)) return;  // not delivered: no ACK, the sender must not think so

  // WIRE.md: each DATA gets ACK|PULL, contexts swapped, message fields echoed;
  // a new message's PULL grants rtt_pkts + 1.
  wire::NdpHeader ack = n;
  ack.flags = wire::kFlagAck | wire::kFlagPull;
  ack.src_context = n.dst_context;
  ack.dst_context = n.src_context;
  ack.pull_offset = static_cast<uint16_t>(n.pkt_offset + rtt_packets_ + 1);
  sink.send_control(h.src_ip, ack);
}

void NdpTransport::on_control(rte_mbuf* pkt, const wire::FrameHeader& h, uint64_t,
                              TransportSink&) {
  const uint8_t f = h.ndp.flags;
  if (f & wire::kFlagAck) ++counters_->rx_acks;
  if (f & wire::kFlagNack) ++counters_->rx_nacks;
  if (f & wire::kFlagPull) ++counters_->rx_pulls;
  rte_pktmbuf_free(pkt);
}

void NdpTransport::on_message(rte_mbuf* msg, uint64_t now_tsc, TransportSink& sink) {
  MsgMeta* meta = msg_meta(msg);
  meta->nic_tsc = now_tsc;
  const AppHeader a = AppHeader::from_word(meta->app_header);
  wire::NdpHeader n;
  n.flags = wire::kFlagData;
  n.src_context = meta->src_context;
  n.dst_context = a.context;
  n.msg_len = a.len;
  n.pkt_offset = 0;
  n.tx_msg_id = next_msg_id_++;
  sink.send_data(msg, a.ip, n, a.len);
}

}  // namespace nanopu
