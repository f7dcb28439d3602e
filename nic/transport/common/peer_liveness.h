// Which peers answer, and how a sender treats one that does not (docs/wire.md,
// "Slow and silent peers"). A slow peer is not a dead one: a message is
// given up when its peer has said nothing at all — no packet of any message —
// for peer_dead, not after a count of timeouts; and while a peer is silent,
// one message per timeout window probes it (one packet) instead of every
// message retransmitting everything on its own timer, the storm a peer
// waking from a long stall would otherwise meet (Homa's RESEND/BUSY and TCP's
// persist timer make the same choice: one probe per peer, not per byte).
//
// A direct-mapped table of kPeers entries keyed by IPv4 address, as
// RttEstimator and PeerRuns: two colliding peers share an entry (one may
// then look alive for the other, which only delays a give-up). Pure: time
// comes in as ticks of the caller's clock.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

namespace nanopu {

class PeerLiveness {
 public:
  static constexpr uint32_t kPeers = 256;

  // What a message whose timer expired does now.
  enum class Retry : uint8_t {
    kResend,  // the peer answered since this message last sent: resend what is missing
    kProbe,   // the peer is silent: this message is the window's probe (one packet)
    kWait,    // the peer is silent and another message probed it this window
  };

  // Any packet from ip: it is alive. True if it had been probed unanswered
  // (its senders' messages should resume at once).
  bool heard(uint32_t ip, uint64_t now) {
    Entry& e = entry(ip);
    const bool woke = e.probed_at != 0;
    e.last_heard = now;
    e.probed_at = 0;
    return woke;
  }
  // When ip was last heard (0: never), or since the clock was restarted.
  [[nodiscard]] uint64_t last_heard(uint32_t ip) const {
    const Entry& e = table_[slot(ip)];
    return std::max(e.ip == ip ? e.last_heard : 0, floor_);
  }
  // A message to ip timed out at `now`; it last sent a packet at `last_tx`;
  // `window` is the peer's current timeout.
  [[nodiscard]] Retry retry(uint32_t ip, uint64_t now, uint64_t last_tx, uint64_t window) {
    Entry& e = entry(ip);
    if (std::max(e.last_heard, floor_) >= last_tx) return Retry::kResend;
    if (e.probed_at != 0 && now - e.probed_at < window) return Retry::kWait;
    e.probed_at = now;
    return Retry::kProbe;
  }
  // The link was down and is back (the NIC held its messages): silence
  // while it was down says nothing of the peers; every peer counts as heard now.
  void restart_clock(uint64_t now) { floor_ = now; }
  [[nodiscard]] uint64_t clock_floor() const { return floor_; }

 private:
  struct Entry {
    uint32_t ip = 0;
    uint64_t last_heard = 0;
    uint64_t probed_at = 0;  // when this window's probe left; 0: not probing
  };
  [[nodiscard]] static uint32_t slot(uint32_t ip) { return (ip * 0x9e3779b1u) >> 24; }
  Entry& entry(uint32_t ip) {
    Entry& e = table_[slot(ip)];
    if (e.ip != ip) e = Entry{ip, 0, 0};
    return e;
  }

  std::array<Entry, kPeers> table_{};
  uint64_t floor_ = 0;
};

// A message whose peer answers (others) but not it backs off at most this
// far (64x its timeout): its packets were lost, the peer is not slow, and a
// retry a second later could reach a receiver that has long forgotten it
// (16384 newer ids, docs/wire.md). Backoff past it is for silent peers.
inline constexpr uint32_t kAlivePeerBackoffShift = 6;

// A live peer that never answers one message (it goes to a context nobody
// serves, whose packets the receiver drops) is given up after this many
// times peer_dead without progress.
inline constexpr uint64_t kIgnoredMessageDeadFactor = 4;

// Whether a message to ip is given up at `now`: its peer silent — no packet
// of any message — for `dead`, or alive but this message without progress
// for kIgnoredMessageDeadFactor × dead. last_progress: when the message was
// sent or last answered.
// When a message to ip is given up if nothing changes (give_up_now() is
// then true): a sender's timer fires no later, so a dead peer's messages
// are given up promptly at peer_dead, not up to a backed-off timeout later.
[[nodiscard]] inline uint64_t give_up_at(const PeerLiveness& live, uint32_t ip, uint64_t last_progress,
                                         uint64_t dead) {
  const uint64_t progress = std::max(last_progress, live.clock_floor());
  const uint64_t heard = std::max(live.last_heard(ip), progress);
  return std::min(heard + dead, progress + kIgnoredMessageDeadFactor * dead);
}
[[nodiscard]] inline bool give_up_now(const PeerLiveness& live, uint32_t ip, uint64_t now,
                                      uint64_t last_progress, uint64_t dead) {
  return now >= give_up_at(live, ip, last_progress, dead);
}

}  // namespace nanopu
