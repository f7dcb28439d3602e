// A modelled link between two real hosts of a simulation (docs/design.md
// §11): each end is the host's port (a PacketIo, the seam the io_uring port
// uses too), and a frame sent at modelled time t is received by the other
// end at t + its wait for the wire + its serialization at the link rate +
// the link's latency. Time is the one clock (lib/contract/clock.h), which
// must be a VirtualClock; nothing here reads the wall clock, so a run is
// the same every time. Every frame received is folded into its end's trace
// hash (its arrival time, length and bytes, word by word: SimPort::fold):
// two runs that differ anywhere differ there.
//
// A frame sent waits in its end's outbox until the loop delivers it
// (deliver(), between two windows of model::SimLoop): it cannot arrive
// sooner than the link's lookahead after it was sent, and the two ends may
// be run by two threads. Its arrival time is fixed when it is sent.
//
// Frames travel as the mbufs the sender handed over (as DPDK's net_ring
// does): the hosts share one EAL, and the NIC core already hands a port its
// own copy or clone of what it keeps for retransmission.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <deque>
#include <limits>
#include <vector>

#include "nic/link/packet_io.h"

namespace nanopu::model {

struct SimLinkParams {
  double gbps = 200;         // nanoPU OSDI'21 §5: 200 Gb/s links
  double latency_ns = 43.75;  // and 43.75 ns of wire and serdes per hop
};

class SimLink;

// Where every trace hash starts, and what each step multiplies by
// (FNV-1a's offset basis and prime).
inline constexpr uint64_t kTraceHashBasis = 14695981039346656037ull;
inline constexpr uint64_t kTraceHashPrime = 1099511628211ull;

// One end of a SimLink: what its host sends goes to the other end.
class SimPort final : public PacketIo {
 public:
  uint16_t rx_burst(rte_mbuf** pkts, uint16_t n) override;
  uint16_t tx_burst(rte_mbuf** pkts, uint16_t n) override;
  // When the next frame arrives here (modelled ticks); max() if none is on its way.
  [[nodiscard]] uint64_t next_arrival() const {
    return arriving_.empty() ? std::numeric_limits<uint64_t>::max() : arriving_.front().at;
  }
  [[nodiscard]] uint64_t frames_received() const { return received_; }
  // The NIC's own latency at this end (counted time, docs/design.md §11):
  // a frame handed over starts on the wire `tx_ps` later (egress stages,
  // MAC and serial I/O), and one arriving is seen `rx_ps` after its last
  // bit (the same, ingress). 0 by default: the wire alone.
  void set_nic_delays_ps(uint64_t rx_ps, uint64_t tx_ps) {
    rx_delay_ = rx_ps;
    tx_delay_ = tx_ps;
  }
  // When this end's wire will have sent everything handed to it.
  [[nodiscard]] uint64_t wire_free_at() const { return wire_free_at_; }
  // The frames this end sent since the last call go to the other end;
  // returns the first one's arrival time (max(): none).
  uint64_t deliver();
  [[nodiscard]] bool has_outbox() const { return !outbox_.empty(); }
  // The frames this end sent since the last call, each to f(arrival time,
  // frame), and gone from here (for another process: SimPeers).
  template <typename F>
  void drain_outbox(const F& f) {
    for (const Arriving& a : outbox_) f(a.at, a.frame);
    outbox_.clear();
  }
  // A frame arriving here at `at`, sent by the far end in another process
  // (in the order it sent them).
  void arrive(uint64_t at, rte_mbuf* frame) { arriving_.push_back({at, frame}); }
  // Where this end notes itself when its outbox stops being empty (the
  // loop's list for the thread that runs its node: it delivers only those).
  void set_sent_list(std::vector<SimPort*>* list) { sent_list_ = list; }
  [[nodiscard]] SimPort& peer() const { return *peer_; }
  // What arrived here, folded (fold()), and what a cut lost here.
  [[nodiscard]] uint64_t trace_hash() const { return hash_; }
  [[nodiscard]] uint64_t cut_dropped() const { return cut_dropped_; }

 private:
  friend class SimLink;
  struct Arriving {
    uint64_t at;
    rte_mbuf* frame;
  };
  SimPort() = default;
  ~SimPort() override;

  SimLink* link_ = nullptr;
  SimPort* peer_ = nullptr;
  uint64_t wire_free_at_ = 0;     // when this end's wire has sent what it took
  uint64_t rx_delay_ = 0, tx_delay_ = 0;
  void fold(uint64_t at, const rte_mbuf* frame);
  std::deque<Arriving> arriving_;  // in arrival order (one wire, FIFO)
  std::vector<Arriving> outbox_;   // sent by this end, not yet delivered
  std::vector<SimPort*>* sent_list_ = nullptr;
  uint64_t received_ = 0;
  uint64_t hash_ = kTraceHashBasis;
  uint64_t cut_dropped_ = 0;
};

class SimLink {
 public:
  explicit SimLink(const SimLinkParams& params);
  SimLink(const SimLink&) = delete;
  SimLink& operator=(const SimLink&) = delete;

  [[nodiscard]] SimPort& a() { return a_; }
  [[nodiscard]] SimPort& b() { return b_; }
  [[nodiscard]] const SimPort& a() const { return a_; }
  [[nodiscard]] const SimPort& b() const { return b_; }
  // The earliest frame still on its way, either direction; max() if none.
  [[nodiscard]] uint64_t next_arrival() const;
  // Both ends' hashes, a's then b's, folded.
  [[nodiscard]] uint64_t trace_hash() const { return combine(a_.trace_hash(), b_.trace_hash()); }
  // `value`'s 8 bytes folded into `hash` (FNV-1a): a link's two ends, a run's links.
  [[nodiscard]] static uint64_t combine(uint64_t hash, uint64_t value);
  // The least time from a frame's send to its arrival: its latency and a
  // minimal frame's serialization (SimLoop's lookahead).
  [[nodiscard]] uint64_t lookahead_ticks() const { return latency_ticks_ + min_frame_ticks_; }
  // The shortest frame timed: a shorter one (none is, with an Ethernet
  // header) is timed as this long, so the lookahead holds.
  static constexpr uint32_t kMinFrameBytes = 60;
  // Frames received at either end so far.
  [[nodiscard]] uint64_t frames_received() const { return a_.frames_received() + b_.frames_received(); }
  // Frees the frames still on their way: call before the hosts whose pools
  // they come from are destroyed.
  void discard_in_flight();
  // Cuts the link over [from, until) (modelled ticks): a frame sent, or
  // due to arrive, in that time is lost, either way (a partition that heals
  // at `until`). Several cuts may be set.
  void cut(uint64_t from_ticks, uint64_t until_ticks) { cuts_.push_back({from_ticks, until_ticks}); }
  [[nodiscard]] uint64_t cut_dropped() const { return a_.cut_dropped() + b_.cut_dropped(); }

 private:
  friend class SimPort;
  [[nodiscard]] bool is_cut(uint64_t at) const {
    for (const Cut& c : cuts_)
      if (at >= c.from && at < c.until) return true;
    return false;
  }
  struct Cut {
    uint64_t from, until;
  };

  SimLinkParams p_;
  uint64_t latency_ticks_;
  double ticks_per_byte_;
  uint64_t min_frame_ticks_;
  SimPort a_, b_;
  std::vector<Cut> cuts_;
};

}  // namespace nanopu::model
