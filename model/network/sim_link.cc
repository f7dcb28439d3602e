#include "model/network/sim_link.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

#include "nanopu/seeded_draw.h"
#include "lib/contract/clock.h"

namespace nanopu::model {

SimPort::~SimPort() {
  for (const Arriving& a : arriving_) rte_pktmbuf_free(a.frame);
  for (const Arriving& a : outbox_) rte_pktmbuf_free(a.frame);
}

uint64_t SimPort::deliver() {
  if (outbox_.empty()) return std::numeric_limits<uint64_t>::max();
  const uint64_t first = outbox_.front().at;
  peer_->arriving_.insert(peer_->arriving_.end(), outbox_.begin(), outbox_.end());
  outbox_.clear();
  return first;
}

uint16_t SimPort::tx_burst(rte_mbuf** pkts, uint16_t n) {
  const uint64_t now = clock::ticks();
  for (uint16_t i = 0; i < n; ++i) {
    if (link_->is_cut(now)) {
      rte_pktmbuf_free(pkts[i]);
      ++cut_dropped_;
      continue;
    }
    // The wire sends one frame after the other: a frame waits for the one
    // before it, then takes its own serialization time.
    const auto bytes = static_cast<double>(std::max(pkts[i]->pkt_len, SimLink::kMinFrameBytes));
    const auto serialize = static_cast<uint64_t>(std::llround(bytes * link_->ticks_per_byte_));
    wire_free_at_ = std::max(now + tx_delay_, wire_free_at_) + serialize;
    if (outbox_.empty() && sent_list_ != nullptr) sent_list_->push_back(this);
    outbox_.push_back({wire_free_at_ + link_->latency_ticks_ + peer_->rx_delay_, pkts[i]});
  }
  return n;  // the link takes everything: its queue is the wire's
}

uint16_t SimPort::rx_burst(rte_mbuf** pkts, uint16_t n) {
  const uint64_t now = clock::ticks();
  uint16_t k = 0;
  while (k < n && !arriving_.empty() && arriving_.front().at <= now) {
    if (link_->is_cut(arriving_.front().at)) {  // lost on the cut wire
      rte_pktmbuf_free(arriving_.front().frame);
      arriving_.pop_front();
      ++cut_dropped_;
      continue;
    }
    fold(arriving_.front().at, arriving_.front().frame);
    pkts[k++] = arriving_.front().frame;
    arriving_.pop_front();
  }
  received_ += k;
  return k;
}

SimLink::SimLink(const SimLinkParams& params)
    : p_((assert(clock::is_virtual() && "a SimLink times frames in modelled ticks: make the VirtualClock first"),
          params)),
      latency_ticks_(static_cast<uint64_t>(std::llround(params.latency_ns * 1e-9 * static_cast<double>(clock::hz())))),
      ticks_per_byte_(8.0 * static_cast<double>(clock::hz()) / (params.gbps * 1e9)),
      min_frame_ticks_(static_cast<uint64_t>(std::llround(kMinFrameBytes * ticks_per_byte_))) {
  a_.link_ = this;
  b_.link_ = this;
  a_.peer_ = &b_;
  b_.peer_ = &a_;
}

void SimLink::discard_in_flight() {
  for (SimPort* p : {&a_, &b_}) {
    for (const SimPort::Arriving& a : p->arriving_) rte_pktmbuf_free(a.frame);
    for (const SimPort::Arriving& a : p->outbox_) rte_pktmbuf_free(a.frame);
    p->arriving_.clear();
    p->outbox_.clear();
  }
}

uint64_t SimLink::next_arrival() const {
  uint64_t next = std::min(a_.next_arrival(), b_.next_arrival());
  for (const SimPort* p : {&a_, &b_})
    if (!p->outbox_.empty()) next = std::min(next, p->outbox_.front().at);
  return next;
}

uint64_t SimLink::combine(uint64_t hash, uint64_t value) {
  for (int i = 0; i < 8; ++i) hash = (hash ^ static_cast<uint8_t>(value >> (8 * i))) * kTraceHashPrime;
  return hash;
}

// The arrival time, the length, then the bytes as 8-byte words (the last
// padded with zeros), each into the hash by FNV-1a's step with the word
// through mix64 first: every byte counts, at a word's cost.
void SimPort::fold(uint64_t at, const rte_mbuf* frame) {
  auto mix = [&](uint64_t word) { hash_ = (hash_ ^ mix64(word)) * kTraceHashPrime; };
  mix(at);
  mix(frame->pkt_len);
  for (const rte_mbuf* seg = frame; seg != nullptr; seg = seg->next) {
    const auto* bytes = rte_pktmbuf_mtod(seg, const uint8_t*);
    uint16_t i = 0;
    for (uint64_t w; i + 8 <= seg->data_len; i += 8) {
      std::memcpy(&w, bytes + i, 8);
      mix(w);
    }
    if (i < seg->data_len) {
      uint64_t w = 0;
      std::memcpy(&w, bytes + i, seg->data_len - i);
      mix(w);
    }
  }
}

}  // namespace nanopu::model
