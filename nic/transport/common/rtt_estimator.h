// Per-peer round-trip estimates for the retransmit timeout (docs/design.md
// §9): a fixed timeout tuned for busy-polling peers fires over and over when
// a peer shares its CPU or sleeps between packets (adaptive polling), and
// every spurious timeout resends data. As TCP (RFC 6298) and Homa do, the
// sender keeps a smoothed RTT and its variation per peer and waits
// srtt + 4·rttvar, never less than the configured floor nor more than the
// ceiling. Samples come only from packets sent once (Karn's rule), and a
// timeout doubles the peer's timeout for the messages that follow until a
// packet sent once is acknowledged (RFC 6298 §5.5–5.7): without that, a peer
// whose round trip exceeds the floor would time out every packet, no packet
// would ever be sent once, and the estimate would never leave the floor. (A
// loss on a fast link times out too; the next packet acknowledged in time
// takes the backoff back, so losses do not slow later messages.)
//
// A direct-mapped table of kPeers entries keyed by IPv4 address: O(1) with
// no allocation on the NIC core; two peers that collide share the entry of
// whichever sampled last (the timeout is then merely less tuned). Pure: time
// comes in as ticks of the caller's clock.
#pragma once

#include <array>
#include <cstdint>

namespace nanopu {

class RttEstimator {
 public:
  static constexpr uint32_t kPeers = 256;

  // floor: the configured timeout (also the first guess); ceiling: the most
  // a timeout may grow, from estimates or backoff (seconds, not a multiple of
  // the floor: a peer's round trip may be anything).
  RttEstimator(uint64_t floor_ticks, uint64_t ceiling_ticks)
      : floor_(floor_ticks), ceiling_(ceiling_ticks < floor_ticks ? floor_ticks : ceiling_ticks) {}

  static constexpr uint8_t kMaxBackoff = 20;  // the ceiling binds long before

  void sample(uint32_t peer_ip, uint64_t rtt_ticks) {
    Entry& e = table_[slot(peer_ip)];
    e.backoff = 0;
    if (e.ip != peer_ip || e.srtt == 0) {  // first sample of this peer
      e.ip = peer_ip;
      e.srtt = rtt_ticks == 0 ? 1 : rtt_ticks;
      e.rttvar = rtt_ticks / 2;
      return;
    }
    // RFC 6298 §2.3 with alpha = 1/8, beta = 1/4, in integers.
    const uint64_t err = e.srtt > rtt_ticks ? e.srtt - rtt_ticks : rtt_ticks - e.srtt;
    e.rttvar = (3 * e.rttvar + err) / 4;
    e.srtt = (7 * e.srtt + rtt_ticks) / 8;
    if (e.srtt == 0) e.srtt = 1;
  }

  // A packet to peer_ip timed out: back off until the next sample.
  void timed_out(uint32_t peer_ip) {
    Entry& e = table_[slot(peer_ip)];
    if (e.ip != peer_ip) e = Entry{peer_ip, 0, 0, 0, 0};
    if (e.backoff < kMaxBackoff) ++e.backoff;
  }
  // A message to peer_ip timed out at `now` (whether the peer is silent or
  // answers others): the peer's timeout backs off, once per timeout period
  // however many of its messages time out together — TCP's one timer per
  // connection — and stays backed off until a sample (RFC 6298 §5.5, §5.7).
  // A peer whose ACKs all come later than the timeout (a slow packet tester)
  // thus soon waits long enough for a packet sent once to give a sample,
  // instead of every message being resent to it over and over.
  void timed_out_at(uint32_t peer_ip, uint64_t now) {
    Entry& e = table_[slot(peer_ip)];
    if (e.ip == peer_ip && e.backed_off_at != 0 && now < e.backed_off_at + rto(peer_ip) / 2) return;
    timed_out(peer_ip);
    e.backed_off_at = now == 0 ? 1 : now;
  }

  // A packet sent once was acknowledged: the timeout was long enough.
  void acked_in_time(uint32_t peer_ip) {
    Entry& e = table_[slot(peer_ip)];
    if (e.ip == peer_ip) e.backoff = 0;
  }

  // The timeout for a new packet to peer_ip (before its own backoff).
  [[nodiscard]] uint64_t rto(uint32_t peer_ip) const {
    const Entry& e = table_[slot(peer_ip)];
    if (e.ip != peer_ip) return floor_;
    const uint64_t t = estimate(e);
    return e.backoff >= 64 || t > (ceiling_ >> e.backoff) ? ceiling_ : t << e.backoff;
  }
  // The estimate alone, srtt + 4 rttvar within the floor and the ceiling,
  // before the peer's backoff: what a message's own backoff doubles
  // (send_front.h, retransmit_due).
  [[nodiscard]] uint64_t estimated_rto(uint32_t peer_ip) const {
    const Entry& e = table_[slot(peer_ip)];
    return e.ip != peer_ip ? floor_ : estimate(e);
  }
  [[nodiscard]] uint64_t floor() const { return floor_; }
  [[nodiscard]] uint64_t ceiling() const { return ceiling_; }

 private:
  struct Entry {
    uint32_t ip = 0;
    uint64_t srtt = 0;    // 0: no sample yet
    uint64_t rttvar = 0;
    uint8_t backoff = 0;  // timeouts since the last sample (shifts the timeout)
    uint64_t backed_off_at = 0;  // when timed_out_at() last backed off (0: never)
  };
  [[nodiscard]] uint64_t estimate(const Entry& e) const {
    const uint64_t t = e.srtt == 0 ? floor_ : e.srtt + 4 * e.rttvar;
    return t < floor_ ? floor_ : (t > ceiling_ ? ceiling_ : t);
  }
  [[nodiscard]] static uint32_t slot(uint32_t ip) {
    return (ip * 0x9e3779b1u) >> 24;  // Fibonacci hash: hosts 10.0.0.x spread out
  }

  uint64_t floor_, ceiling_;
  std::array<Entry, kPeers> table_{};
};

}  // namespace nanopu
