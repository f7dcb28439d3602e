#include "nic/fault/fault_injector.h"

#include <cstring>

#include "lib/wire/frame.h"

namespace nanopu {

FaultInjector::FaultInjector(const FaultSpec& spec, rte_mempool* pool, uint64_t tsc_hz)
    : spec_(spec),
      pool_(pool),
      delay_tsc_(static_cast<uint64_t>(spec.delay_us * 1e-6 * static_cast<double>(tsc_hz))),
      ack_delay_tsc_(static_cast<uint64_t>(spec.ack_delay_us * 1e-6 * static_cast<double>(tsc_hz))),
      rng_(spec.seed) {}

FaultInjector::~FaultInjector() {
  for (const Held& h : held_) rte_pktmbuf_free(h.pkt);
}

void FaultInjector::flip_bit(rte_mbuf* m, uint32_t from, uint32_t to, uint64_t r) {
  const uint32_t len = rte_pktmbuf_data_len(m);
  if (to > len) to = len;
  if (from >= to) return;
  uint8_t* p = rte_pktmbuf_mtod(m, uint8_t*);
  p[from + r % (to - from)] ^= static_cast<uint8_t>(1u << ((r >> 32) % 8));
}

bool FaultInjector::first_time(const rte_mbuf* m, absl::flat_hash_set<uint64_t>& seen) {
  wire::FrameGlance g;
  if (!wire::glance_frame(rte_pktmbuf_mtod(m, const uint8_t*), rte_pktmbuf_data_len(m), &g) || !g.is_data())
    return false;
  return seen.insert(g.packet_id).second;
}

void FaultInjector::trim_frame(rte_mbuf* m) {
  wire::mark_trimmed(rte_pktmbuf_mtod(m, uint8_t*));
  rte_pktmbuf_trim(m, static_cast<uint16_t>(m->pkt_len - wire::kTrimmedFrameBytes));
}

rte_mbuf* FaultInjector::writable(rte_mbuf* m) {
  // A zero-copy PMD (net_ring) hands over the sender's own buffer (a clone of
  // the packet it keeps for retransmission): damage a private copy, as a real
  // wire would, never the sender's data.
  if (!RTE_MBUF_CLONED(m) && rte_mbuf_refcnt_read(m) == 1) return m;
  rte_mbuf* copy = rte_pktmbuf_copy(m, pool_, 0, UINT32_MAX);
  rte_pktmbuf_free(m);
  return copy;
}

uint16_t FaultInjector::apply(rte_mbuf** pkts, uint16_t n, uint16_t max, uint64_t now) {
  rte_mbuf* in[512];
  if (n > 512) n = 512;
  std::memcpy(in, pkts, n * sizeof(rte_mbuf*));
  uint16_t out = 0;
  auto emit_or_hold = [&](rte_mbuf* m, uint64_t release) {
    if (release <= now && out < max) {
      pkts[out++] = m;
    } else {
      held_.push_back({m, release});
    }
  };
  // Held frames whose time has come go first (they were on the wire earlier).
  for (size_t k = held_.size(); k > 0 && out < max; --k) {
    Held h = held_.front();
    held_.pop_front();
    if (h.release_tsc <= now) pkts[out++] = h.pkt;
    else held_.push_back(h);
  }
  for (uint16_t i = 0; i < n; ++i) {
    rte_mbuf* m = in[i];
    wire::FrameGlance g;
    const bool is_data =
        wire::glance_frame(rte_pktmbuf_mtod(m, const uint8_t*), rte_pktmbuf_data_len(m), &g) && g.is_data();
    if (chance(spec_.drop) || (spec_.drop_once && first_time(m, dropped_once_))) {
      ++counters_.dropped;
      rte_pktmbuf_free(m);
      continue;
    }
    if (chance(spec_.corrupt)) {  // the MAC's FCS check throws it away
      ++counters_.corrupted;
      rte_pktmbuf_free(m);
      continue;
    }
    if (chance(spec_.mangle)) {
      if ((m = writable(m)) == nullptr) continue;
      flip_bit(m, wire::kEthHeaderBytes, wire::kEthHeaderBytes + wire::kIpv4HeaderBytes, rng_.next());
      ++counters_.mangled;
    }
    if (is_data && rte_pktmbuf_data_len(m) > 72 && m->nb_segs == 1 &&
        (chance(spec_.trim) || (spec_.trim_once && first_time(m, trimmed_once_)))) {
      if ((m = writable(m)) == nullptr) continue;
      trim_frame(m);
      ++counters_.trimmed;
    }
    if (spec_.no_echo && !is_data && g.protocol == wire::kIpProtoNdp && rte_pktmbuf_data_len(m) >= wire::kFrameHeaderBytes) {
      if ((m = writable(m)) == nullptr) continue;
      wire::clear_echoed_stamp(rte_pktmbuf_mtod(m, uint8_t*));
    }
    const uint64_t delay = delay_tsc_ + (is_data ? 0 : ack_delay_tsc_);
    if (chance(spec_.dup)) {
      if (rte_mbuf* copy = rte_pktmbuf_copy(m, pool_, 0, UINT32_MAX)) {
        ++counters_.duplicated;
        emit_or_hold(copy, now + delay);
      }
    }
    uint64_t release = now + delay;
    if (chance(spec_.reorder)) {
      ++counters_.reordered;
      release = now + delay + 1;  // behind everything that follows in this burst
    } else if (delay > 0) {
      ++counters_.delayed;
    }
    emit_or_hold(m, release);
  }
  return out;
}

}  // namespace nanopu
