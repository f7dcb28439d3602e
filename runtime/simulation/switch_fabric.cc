#include "runtime/simulation/switch_fabric.h"

#include <cstdint>
#include <deque>
#include <limits>

namespace nanopu::sim {
namespace {

constexpr uint32_t kUnreachable = std::numeric_limits<uint32_t>::max();

// The switch's place in the file, or -1: a host.
int index_of(const Topology& t, const std::string& name) {
  const TopologySwitch* w = t.switch_named(name);
  return w == nullptr ? -1 : static_cast<int>(w - t.switches.data());
}

// Hops between switches over switch-to-switch links: hops[a][b].
std::vector<std::vector<uint32_t>> switch_hops(const Topology& t) {
  const size_t n = t.switches.size();
  std::vector<std::vector<uint32_t>> hops(n, std::vector<uint32_t>(n, kUnreachable));
  for (size_t from = 0; from < n; ++from) {
    std::deque<size_t> q{from};
    hops[from][from] = 0;
    while (!q.empty()) {
      const size_t at = q.front();
      q.pop_front();
      for (const std::string& p : t.switches[at].ports)
        if (const int next = index_of(t, p); next >= 0 && hops[from][static_cast<size_t>(next)] == kUnreachable) {
          hops[from][static_cast<size_t>(next)] = hops[from][at] + 1;
          q.push_back(static_cast<size_t>(next));
        }
    }
  }
  return hops;
}

// Every switch's route to every host hanging off a switch: the host's own
// port there, elsewhere each port toward a switch one hop nearer to it.
void add_routes(const Topology& t, std::vector<std::unique_ptr<model::SimSwitch>>& sws) {
  const std::vector<std::vector<uint32_t>> hops = switch_hops(t);
  for (size_t home = 0; home < t.switches.size(); ++home) {
    const TopologySwitch& hw = t.switches[home];
    for (uint32_t hp = 0; hp < hw.ports.size(); ++hp) {
      const TopologyHost* h = t.host(hw.ports[hp]);
      if (h == nullptr) continue;
      sws[home]->add_route(h->ip, hp);
      for (size_t x = 0; x < t.switches.size(); ++x) {
        if (x == home || hops[x][home] == kUnreachable) continue;
        const std::vector<std::string>& ports = t.switches[x].ports;
        for (uint32_t q = 0; q < ports.size(); ++q)
          if (const int y = index_of(t, ports[q]); y >= 0 && hops[static_cast<size_t>(y)][home] + 1 == hops[x][home])
            sws[x]->add_route(h->ip, q);
      }
    }
  }
}

}  // namespace

absl::StatusOr<std::vector<std::unique_ptr<model::SimSwitch>>> make_fabric(const Topology& t, const SimParams& p) {
  std::vector<std::unique_ptr<model::SimSwitch>> sws;
  for (const TopologySwitch& w : t.switches) {
    absl::StatusOr<model::SimSwitchParams> sp = Simulation::switch_params(t, w, p);
    if (!sp.ok()) return sp.status();
    std::vector<model::SimLinkParams> links;
    for (const TopologyLinkParams& l : w.port_links)
      links.push_back({l.gbps > 0 ? l.gbps : sp->gbps, l.latency_ns > 0 ? l.latency_ns : sp->link_latency_ns});
    sws.push_back(std::make_unique<model::SimSwitch>(*sp, links));
  }
  // A switch-to-switch link: the switch first in the file owns it, the
  // other joins its far end (the same link line on both).
  for (size_t k = 0; k < t.switches.size(); ++k) {
    const TopologySwitch& w = t.switches[k];
    for (uint32_t i = 0; i < w.ports.size(); ++i) {
      const int j = index_of(t, w.ports[i]);
      if (j <= static_cast<int>(k)) continue;
      const TopologySwitch& other = t.switches[static_cast<size_t>(j)];
      for (uint32_t jj = 0; jj < other.ports.size(); ++jj)
        if (other.ports[jj] == w.name && other.port_lines[jj] == w.port_lines[i])
          sws[static_cast<size_t>(j)]->join(jj, *sws[k], i);
    }
  }
  add_routes(t, sws);
  return sws;
}

}  // namespace nanopu::sim
