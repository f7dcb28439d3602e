// Which run (sender incarnation, docs/wire.md) of each peer this host last
// heard from, so that a message can name the run it is meant for: a reply
// still being retransmitted to a process that has since restarted on the
// same address and context is then refused by its successor instead of
// being taken for an answer to the successor's own request.
//
// Learnt from DATA packets only (a control packet echoes *our* incarnation).
// Direct-mapped, kPeers entries keyed by IPv4 address, like RttEstimator:
// two peers that collide make lookup() answer 0 (unknown), which any
// receiver accepts.
#pragma once

#include <array>
#include <cstdint>

namespace nanopu {

class PeerRuns {
 public:
  static constexpr uint32_t kPeers = 256;

  // True when this is another run than the one last heard from this peer:
  // it restarted (the NIC core tells the threads: TransportSink::peer_restarted).
  bool heard(uint32_t peer_ip, uint16_t incarnation) {
    if (incarnation == 0) return false;  // a peer that sends none (the prototype)
    Entry& e = table_[slot(peer_ip)];
    if (e.ip != peer_ip) e = Entry{peer_ip, 0, 0};  // a new peer, or a colliding one
    const bool restarted = e.last != 0 && e.last != incarnation;
    e.incarnation = incarnation;
    e.last = incarnation;
    return restarted;
  }
  // The peer says it is another run than `refused`, the one we named (a
  // GONE echoes it): name none until its next DATA packet. True the first
  // time (the restart is news; the next DATA, from the new run, is then
  // not reported again). A GONE for a run we no longer name — a late reply
  // to a request of the peer's previous run, refused by the run we have
  // since heard (MsgMeta::run) — is no news: the peer's current run stays
  // named. refused 0: a peer that echoes none (any run we named).
  bool forget(uint32_t peer_ip, uint16_t refused = 0) {
    Entry& e = table_[slot(peer_ip)];
    if (e.ip != peer_ip || e.incarnation == 0) return false;
    if (refused != 0 && refused != e.incarnation) return false;
    e.incarnation = 0;
    e.last = 0;
    return true;
  }
  // The peer's last run, or 0 if unknown.
  [[nodiscard]] uint16_t lookup(uint32_t peer_ip) const {
    const Entry& e = table_[slot(peer_ip)];
    return e.ip == peer_ip ? e.incarnation : 0;
  }

 private:
  struct Entry {
    uint32_t ip = 0;
    uint16_t incarnation = 0;  // the run messages to it name (0: any)
    uint16_t last = 0;         // the run last heard, kept across forget()
  };
  [[nodiscard]] static uint32_t slot(uint32_t ip) { return (ip * 0x9e3779b1u) >> 24; }

  std::array<Entry, kPeers> table_{};
};

}  // namespace nanopu
