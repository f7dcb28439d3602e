#include "model/network/sim_switch.h"

#include <algorithm>
#include <cmath>

#include "nanopu/seeded_draw.h"
#include "lib/contract/clock.h"
#include "lib/wire/frame.h"

namespace nanopu::model {

SimSwitch::SimSwitch(const SimSwitchParams& p, uint32_t ports)
    : SimSwitch(p, std::vector<SimLinkParams>(ports, SimLinkParams{p.gbps, p.link_latency_ns})) {}

SimSwitch::SimSwitch(const SimSwitchParams& p, const std::vector<SimLinkParams>& port_links)
    : p_(p),
      latency_ticks_(static_cast<uint64_t>(std::llround(p.latency_ns * 1e-9 * static_cast<double>(clock::hz())))),
      out_(port_links.size(),
           Output(OutputQueueParams{p.data_queue_bytes, p.control_queue_bytes, p.trimming, p.priorities})) {
  for (const SimLinkParams& l : port_links) {
    links_.push_back(std::make_unique<SimLink>(l));
    ends_.push_back(&links_.back()->b());
  }
}

void SimSwitch::join(uint32_t port, SimSwitch& other, uint32_t other_port) {
  links_[port].reset();
  ends_[port] = &other.links_[other_port]->a();
}

int SimSwitch::route(const wire::FrameGlance& g, uint32_t in) const {
  const auto r = routes_.find(g.dst_ip);
  if (r == routes_.end()) return -1;
  const std::vector<uint32_t>& ports = r->second;
  uint32_t out = ports[0];
  if (ports.size() > 1) {
    // Mixed, so every run picks the same and the choices spread evenly.
    out = ports[mix64(p_.spray ? g.packet_id : (uint64_t{g.src_ip} << 32 | g.dst_ip)) % ports.size()];
  }
  return out == in ? -1 : static_cast<int>(out);
}

SimSwitch::~SimSwitch() { discard_in_flight(); }

void SimSwitch::discard_in_flight() {
  for (Output& o : out_) {
    (void)o.q.clear([](const Queued& f) { rte_pktmbuf_free(f.frame); });
    o.queued = 0;
  }
  queued_ = 0;
  busy_outputs_.clear();
  for (auto& l : links_)
    if (l) l->discard_in_flight();
}

void SimSwitch::enqueue(uint32_t port, rte_mbuf* m, bool whole_data, uint8_t tos, uint64_t eligible_at) {
  using Q = OutputQueue<Queued>;
  Q& q = out_[port].q;
  auto drop = [](const Queued& f) { rte_pktmbuf_free(f.frame); };
  // Trim to the header, never damaging a buffer a sender still holds for
  // retransmission (the frame may be its clone).
  auto trim = [](Queued& f, uint32_t* bytes) {
    rte_mbuf* m = f.frame;
    if (RTE_MBUF_CLONED(m) || rte_mbuf_refcnt_read(m) > 1) {
      rte_mbuf* copy = rte_pktmbuf_copy(m, m->pool, 0, wire::kTrimmedFrameBytes);
      rte_pktmbuf_free(m);
      if (copy == nullptr) return false;
      m = copy;
    }
    wire::mark_trimmed(rte_pktmbuf_mtod(m, uint8_t*));
    if (m->pkt_len > wire::kTrimmedFrameBytes)
      rte_pktmbuf_trim(m, static_cast<uint16_t>(m->pkt_len - wire::kTrimmedFrameBytes));
    f.frame = m;
    *bytes = m->pkt_len;
    return true;
  };
  const Queued f{eligible_at, m};
  const Q::Outcome o = whole_data ? q.offer_data(f, m->pkt_len, tos, trim, drop) : q.offer_control(f, m->pkt_len, drop);
  counters_.trimmed += Q::trimmed(o);
  counters_.tail_dropped += o == Q::Outcome::kTailDropped;
  counters_.control_dropped += Q::control_dropped(o);
  if (o == Q::Outcome::kQueued || o == Q::Outcome::kTrimmed) count_queued(port);
}

void SimSwitch::count_queued(uint32_t port) {
  ++queued_;
  if (out_[port].queued++ == 0) busy_outputs_.push_back(port);
}

// Hands output `port`'s next eligible frame (control first, then the
// highest data queue) to its link if the link is free; true if it did.
bool SimSwitch::serve(uint32_t port, uint64_t now) {
  Output& o = out_[port];
  SimPort& wire = *ends_[port];
  if (wire.wire_free_at() > now) return false;
  const auto head = o.q.next([now](const Queued& f) { return f.eligible_at <= now; });
  if (head.entry == nullptr) return false;
  rte_mbuf* m = o.q.pop(head).frame;
  --queued_;
  --o.queued;
  (void)wire.tx_burst(&m, 1);  // a SimPort takes every frame
  ++counters_.forwarded;
  return true;
}

bool SimSwitch::poll() {
  const uint64_t now = clock::ticks();
  bool moved = false;
  for (uint32_t in = 0; in < ends_.size(); ++in) {
    rte_mbuf* pkts[32];
    for (uint16_t n; (n = ends_[in]->rx_burst(pkts, 32)) != 0;) {
      moved = true;
      for (uint16_t i = 0; i < n; ++i) {
        wire::FrameGlance g;
        const bool ip = wire::glance_frame(rte_pktmbuf_mtod(pkts[i], const uint8_t*),
                                           rte_pktmbuf_data_len(pkts[i]), &g);
        const int out = ip ? route(g, in) : -1;
        if (out < 0) {
          ++counters_.no_route;
          rte_pktmbuf_free(pkts[i]);
          continue;
        }
        enqueue(static_cast<uint32_t>(out), pkts[i], g.is_whole_data(), g.tos, now + latency_ticks_);
      }
    }
  }
  if (queued_ != 0) {
    for (const uint32_t o : busy_outputs_) moved |= serve(o, now);  // each its own wire: any order
    std::erase_if(busy_outputs_, [this](uint32_t o) { return out_[o].queued == 0; });
  }
  return moved;
}

uint64_t SimSwitch::next_due() const {
  uint64_t next = next_event();
  for (const SimPort* end : ends_) next = std::min(next, end->next_arrival());
  return next;
}

uint64_t SimSwitch::next_event() const {
  uint64_t next = std::numeric_limits<uint64_t>::max();
  if (queued_ == 0) return next;
  for (const uint32_t o : busy_outputs_) {
    const uint64_t head = out_[o].q.least_head([](const Queued& f) { return f.eligible_at; },
                                               std::numeric_limits<uint64_t>::max());
    if (head == std::numeric_limits<uint64_t>::max()) continue;
    next = std::min(next, std::max(head, ends_[o]->wire_free_at()));
  }
  return next;
}

}  // namespace nanopu::model
