#include "model/sim/sim_link.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "lib/contract/clock.h"

namespace nanopu::model {

SimPort::~SimPort() {
  for (const Arriving& a : arriving_) rte_pktmbuf_free(a.frame);
}

uint16_t SimPort::tx_burst(rte_mbuf** pkts, uint16_t n) {
  const uint64_t now = clock::ticks();
  for (uint16_t i = 0; i < n; ++i) {
    if (link_->is_cut(now)) {
      rte_pktmbuf_free(pkts[i]);
      ++link_->cut_dropped_;
      continue;
    }
    // The wire sends one frame after the other: a frame waits for the one
    // before it, then takes its own serialization time.
    const auto bytes = static_cast<double>(pkts[i]->pkt_len);
    const auto serialize = static_cast<uint64_t>(std::llround(bytes * link_->ticks_per_byte_));
    wire_free_at_ = std::max(now + tx_delay_, wire_free_at_) + serialize;
    peer_->arriving_.push_back({wire_free_at_ + link_->latency_ticks_ + peer_->rx_delay_, pkts[i]});
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
      ++link_->cut_dropped_;
      continue;
    }
    link_->fold(arriving_.front().at, arriving_.front().frame);
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
      ticks_per_byte_(8.0 * static_cast<double>(clock::hz()) / (params.gbps * 1e9)) {
  a_.link_ = this;
  b_.link_ = this;
  a_.peer_ = &b_;
  b_.peer_ = &a_;
}

void SimLink::discard_in_flight() {
  for (SimPort* p : {&a_, &b_}) {
    for (const SimPort::Arriving& a : p->arriving_) rte_pktmbuf_free(a.frame);
    p->arriving_.clear();
  }
}

uint64_t SimLink::next_arrival() const { return std::min(a_.next_arrival(), b_.next_arrival()); }

void SimLink::fold(uint64_t at, const rte_mbuf* frame) {
  constexpr uint64_t kPrime = 1099511628211ull;  // FNV-1a
  auto mix = [&](uint8_t byte) { hash_ = (hash_ ^ byte) * kPrime; };
  for (int i = 0; i < 8; ++i) mix(static_cast<uint8_t>(at >> (8 * i)));
  for (int i = 0; i < 4; ++i) mix(static_cast<uint8_t>(frame->pkt_len >> (8 * i)));
  for (const rte_mbuf* seg = frame; seg != nullptr; seg = seg->next) {
    const auto* bytes = rte_pktmbuf_mtod(seg, const uint8_t*);
    for (uint16_t i = 0; i < seg->data_len; ++i) mix(bytes[i]);
  }
}

}  // namespace nanopu::model
