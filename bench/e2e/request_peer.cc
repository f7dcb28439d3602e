#include "bench/e2e/request_peer.h"

#include <cstring>

namespace nanopu::bench {

RequestPeer::RequestPeer(const PeerParams& p) : p_(p), in_flight_(1u << 16, 0) {
  acks_owed_.reserve(4 * p.window);
}

uint32_t RequestPeer::wanted() const {
  const uint64_t in_flight = sent_ - completed();
  const uint64_t room = in_flight < p_.window ? p_.window - in_flight : 0;
  return static_cast<uint32_t>(acks_owed_.size() + room);
}

void RequestPeer::write_frame(rte_mbuf* m, const wire::FrameHeader& h, size_t payload_bytes) {
  const size_t len = wire::kFrameHeaderBytes + payload_bytes;
  rte_pktmbuf_reset(m);
  auto* p = static_cast<uint8_t*>(static_cast<void*>(rte_pktmbuf_append(m, static_cast<uint16_t>(len))));
  wire::encode_frame_header(h, payload_bytes, p);
  std::memset(p + wire::kFrameHeaderBytes, 0, payload_bytes);
}

uint16_t RequestPeer::fill(rte_mbuf** pkts, uint16_t n) {
  uint16_t used = 0;
  wire::FrameHeader h;
  h.src_mac = p_.peer_mac;
  h.dst_mac = p_.server_mac;
  h.src_ip = p_.peer_ip;
  h.dst_ip = p_.server_ip;
  // ACKs first: they free the server's buffers (docs/wire.md: control before data).
  size_t a = 0;
  for (; a < acks_owed_.size() && used < n; ++a) {
    h.ndp = acks_owed_[a];
    write_frame(pkts[used++], h, wire::kControlPayloadBytes);
  }
  acks_owed_.erase(acks_owed_.begin(), acks_owed_.begin() + static_cast<ptrdiff_t>(a));
  h.ndp = wire::NdpHeader{};
  h.ndp.flags = wire::kFlagData;
  h.ndp.src_context = p_.peer_context;
  h.ndp.dst_context = p_.server_context;
  h.ndp.msg_len = p_.payload_bytes;
  h.ndp.incarnation = p_.incarnation;
  h.ndp.buf_size_class = static_cast<uint8_t>(p_.incarnation);
  while (used < n && sent_ - completed() < p_.window) {
    // (buf_ptr, tx_msg_id) is the receiver's key for a message: 2^32 ids
    // before one repeats, far beyond its completion memory.
    h.ndp.tx_msg_id = static_cast<uint16_t>(sent_);
    h.ndp.buf_ptr = static_cast<uint16_t>(sent_ >> 16);
    rte_mbuf* m = pkts[used++];
    write_frame(m, h, p_.payload_bytes);
    const uint64_t seq = sent_++;
    std::memcpy(rte_pktmbuf_mtod_offset(m, uint8_t*, wire::kFrameHeaderBytes), &seq, sizeof seq);
    in_flight_[seq & 0xffff] = 1;
  }
  return used;
}

void RequestPeer::absorb(rte_mbuf* const* pkts, uint16_t n) {
  uint64_t done = 0;
  for (uint16_t i = 0; i < n; ++i) {
    wire::FrameHeader h;
    size_t payload = 0;
    const auto* frame = rte_pktmbuf_mtod(pkts[i], const uint8_t*);
    if (wire::decode_frame_header(frame, rte_pktmbuf_data_len(pkts[i]), &h, &payload) !=
        wire::ParseError::kOk) {
      ++foreign_;
      continue;
    }
    if (!(h.ndp.flags & wire::kFlagData)) continue;  // the server's ACK of a request
    if ((h.src_ip != p_.peer_ip && h.src_ip != p_.server_ip) || payload < sizeof(uint64_t)) {
      ++foreign_;
      continue;
    }
    uint64_t seq = 0;
    std::memcpy(&seq, frame + wire::kFrameHeaderBytes, sizeof seq);
    uint8_t& flight = in_flight_[seq & 0xffff];
    done += flight;  // 0 for a retransmitted reply
    flight = 0;
    if (h.src_ip == p_.peer_ip) continue;  // our own request, forwarded back as it was
    // A reply: ACK it as the NDP receiver would (contexts swapped, ids echoed).
    wire::NdpHeader ack = h.ndp;
    ack.flags = wire::kFlagAck;
    ack.src_context = h.ndp.dst_context;
    ack.dst_context = h.ndp.src_context;
    ack.pull_offset = static_cast<uint16_t>(wire::packets_for(h.ndp.msg_len));
    acks_owed_.push_back(ack);
  }
  if (done != 0) completed_.store(completed() + done, std::memory_order_relaxed);
}

}  // namespace nanopu::bench
