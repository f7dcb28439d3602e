// The far end of the NIC-core message-rate benchmark: a raw DPDK client that
// keeps `window` single-packet requests in flight to a server and, like an
// NDP sender/receiver pair would, ACKs each reply so the server's transport
// can free its buffer. Hand-written because it is the *reference* load: no
// nanopu code runs on this side except the wire codec.
//
// Pointed at a raw io-forward loop instead, every request comes back as
// itself; it then counts as completed and is not ACKed (no transport there).
#pragma once

#include <rte_mbuf.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "lib/wire/frame.h"

namespace nanopu::bench {

struct PeerParams {
  uint32_t peer_ip = 0x0a000002;
  uint32_t server_ip = 0x0a000001;
  uint16_t peer_context = 2;
  uint16_t server_context = 1;
  uint16_t payload_bytes = 64;  // 8..wire::kSegmentBytes: one packet per request
  uint32_t window = 128;        // requests in flight (< 65536)
  // The run it announces (docs/wire.md, "Sender incarnation"): non-zero, as
  // every nanopu host, so the server keeps its delivered ids in the
  // per-sender window; 0 plays the prototype (the bounded hash map).
  uint16_t incarnation = 1;
  wire::MacAddr peer_mac{};
  wire::MacAddr server_mac = wire::kBroadcastMac;
};

class RequestPeer {
 public:
  explicit RequestPeer(const PeerParams& p);

  // Packets the peer wants to send now: owed ACKs plus room in the window.
  [[nodiscard]] uint32_t wanted() const;
  // Writes owed ACKs, then new requests, into pkts[0..n) (fresh direct mbufs);
  // returns how many it used. The caller sends them and frees the rest.
  [[nodiscard]] uint16_t fill(rte_mbuf** pkts, uint16_t n);
  // Reads frames that came back (does not free them).
  void absorb(rte_mbuf* const* pkts, uint16_t n);

  // Replies received (readable from any thread).
  [[nodiscard]] uint64_t completed() const { return completed_.load(std::memory_order_relaxed); }
  [[nodiscard]] uint64_t sent() const { return sent_; }
  [[nodiscard]] uint64_t foreign() const { return foreign_; }  // frames it could not place

 private:
  void write_frame(rte_mbuf* m, const wire::FrameHeader& h, size_t payload_bytes);

  PeerParams p_;
  uint64_t sent_ = 0;
  uint64_t foreign_ = 0;
  std::atomic<uint64_t> completed_{0};
  std::vector<wire::NdpHeader> acks_owed_;  // ACK headers for replies received
  size_t carried_ = 0;                      // of acks_owed_, carried by this fill's requests
  uint16_t server_incarnation_ = 0;         // the server's run, as last heard (0: not yet)
  // Requests in flight by sequence number (the first payload word; the
  // window is far below 2^16): a retransmitted reply is ACKed, not counted.
  std::vector<uint8_t> in_flight_;
};

}  // namespace nanopu::bench
