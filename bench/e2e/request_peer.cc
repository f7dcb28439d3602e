#include "bench/e2e/request_peer.h"

#include <algorithm>
#include <cstring>

namespace nanopu::bench {

RequestPeer::RequestPeer(const PeerParams& p) : p_(p), in_flight_(1u << 16, 0) {
  acks_owed_.reserve(4 * p.window);
}

uint32_t RequestPeer::wanted() const {
  const uint64_t in_flight = sent_ - completed();
  const uint64_t room = in_flight < p_.window ? p_.window - in_flight : 0;
  // A nanopu peer's requests carry ACKs: it needs a frame per ACK only
  // beyond them.
  if (p_.incarnation != 0 && server_incarnation_ != 0)
    return static_cast<uint32_t>(std::max<uint64_t>(acks_owed_.size(), room));
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
  h.protocol = wire::kIpProtoNdp;
  h.src_mac = p_.peer_mac;
  h.dst_mac = p_.server_mac;
  h.src_ip = p_.peer_ip;
  h.dst_ip = p_.server_ip;
  h.ndp = wire::NdpHeader{};
  h.ndp.flags = wire::kFlagData;
  h.ndp.src_context = p_.peer_context;
  h.ndp.dst_context = p_.server_context;
  h.ndp.msg_len = p_.payload_bytes;
  h.ndp.incarnation = p_.incarnation;
  h.ndp.buf_size_class = static_cast<uint8_t>(p_.incarnation);
  // A nanopu host (incarnation non-zero) takes ACKs riding on DATA and
  // puts its own on its next request (docs/wire.md, "Acknowledgements that
  // ride on data"); the prototype (0) sends every ACK on its own.
  const bool carry = p_.incarnation != 0;
  if (carry) {
    h.ndp.options = wire::kOptTakesAcks;
    h.ndp.dst_incarnation = server_incarnation_;
  }
  while (used < n && sent_ - completed() < p_.window) {
    // (buf_ptr, tx_msg_id) is the receiver's key for a message: 2^32 ids
    // before one repeats, far beyond its completion memory.
    h.ndp.tx_msg_id = static_cast<uint16_t>(sent_);
    h.ndp.buf_ptr = static_cast<uint16_t>(sent_ >> 16);
    h.ndp.options &= static_cast<uint8_t>(~wire::kOptCarriesAck);
    if (carry && carried_ < acks_owed_.size() && server_incarnation_ != 0) {
      h.ndp.options |= wire::kOptCarriesAck;
      h.ndp.acked_msg_id = acks_owed_[carried_].tx_msg_id;
      h.ndp.acked_buf_ptr = acks_owed_[carried_].buf_ptr;
      ++carried_;
    }
    rte_mbuf* m = pkts[used++];
    write_frame(m, h, p_.payload_bytes);
    const uint64_t seq = sent_++;
    std::memcpy(rte_pktmbuf_mtod_offset(m, uint8_t*, wire::kFrameHeaderBytes), &seq, sizeof seq);
    in_flight_[seq & 0xffff] = 1;
  }
  // The ACKs no request carried go on their own: they free the server's
  // buffers (a nanopu host would send them when its hold ran out; this
  // peer has no clock, so it sends them in the same burst).
  size_t a = carried_;
  for (; a < acks_owed_.size() && used < n; ++a) {
    h.ndp = acks_owed_[a];
    write_frame(pkts[used++], h, wire::kControlPayloadBytes);
  }
  acks_owed_.erase(acks_owed_.begin(), acks_owed_.begin() + static_cast<ptrdiff_t>(a));
  carried_ = 0;
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
    if (h.ndp.incarnation != 0) server_incarnation_ = h.ndp.incarnation;
    // A reply: ACK it as the NDP receiver would (contexts swapped, ids echoed).
    wire::NdpHeader ack = h.ndp;
    ack.flags = wire::kFlagAck;
    ack.options = 0;
    ack.acked_msg_id = ack.acked_buf_ptr = 0;
    ack.src_context = h.ndp.dst_context;
    ack.dst_context = h.ndp.src_context;
    ack.pull_offset = static_cast<uint16_t>(wire::packets_for(h.ndp.msg_len));
    acks_owed_.push_back(ack);
  }
  if (done != 0) completed_.store(completed() + done, std::memory_order_relaxed);
}

}  // namespace nanopu::bench
