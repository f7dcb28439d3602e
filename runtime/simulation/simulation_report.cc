// The end of a simulation's run: its counts and trace hash, and each host's
// report. Under MPI each rank knows only what its own hosts and switches
// did (another rank's never ran here: their counts are 0), so the counts
// are summed over the ranks, each link end's hash taken from the rank that
// received on it, and the reports printed by rank 0 in topology order.
#include <stdio.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "lib/base/raw_bytes.h"
#include "runtime/simulation/simulation.h"

namespace nanopu::sim {
namespace {

// The worst status first: an error (1, 2) over replies not all right (3) over 0.
int severity(int status) { return status == 0 ? 0 : status == 3 ? 1 : 2; }

}  // namespace

uint64_t Simulation::trace_hash(const model::SimLoop& loop) const {
  std::vector<const model::SimLink*> links;
  for (const auto& l : direct_) links.push_back(l.get());
  for_each_switch_link([&](const model::SimLink& l) { links.push_back(&l); });
  std::vector<uint64_t> ends;  // a's then b's hash of each link: the rank that ran its node's
  for (const model::SimLink* l : links)
    for (const model::SimPort* e : {&l->a(), &l->b()})
      ends.push_back(p_.peers == nullptr || loop.end_runs_here(e) ? e->trace_hash() : 0);
  if (p_.peers != nullptr) p_.peers->reduce(ends, model::SimPeers::Reduce::kXor);
  uint64_t h = model::kTraceHashBasis;
  for (size_t i = 0; i < links.size(); ++i)
    h = model::SimLink::combine(h, model::SimLink::combine(ends[2 * i], ends[2 * i + 1]));
  return h;
}

void Simulation::count(const model::SimLoop& loop, SimReport* r) {
  std::vector<uint64_t> n{frames(), 0, loop.instants(), loop.polls()};
  for (const auto& l : direct_) n[1] += l->cut_dropped();
  for_each_switch_link([&](const model::SimLink& l) { n[1] += l.cut_dropped(); });
  for (const auto& w : switches_) {
    const model::SimSwitchCounters& c = w->counters();
    n.insert(n.end(), {c.forwarded, c.trimmed, c.tail_dropped, c.control_dropped, c.no_route});
  }
  if (p_.peers != nullptr) p_.peers->reduce(n, model::SimPeers::Reduce::kSum);
  r->frames = n[0];
  r->cut_dropped = n[1];
  r->instants = n[2];
  r->polls = n[3];
  r->windows = loop.windows();
  r->threads = p_.threads;
  r->ranks = p_.peers != nullptr ? p_.peers->ranks() : 1;
  r->trace_hash = trace_hash(loop);
  for (size_t k = 0; k < switches_.size(); ++k) {
    const uint64_t* c = &n[4 + 5 * k];
    r->has_switch = true;
    r->switch_counters.forwarded += c[0];
    r->switch_counters.trimmed += c[1];
    r->switch_counters.tail_dropped += c[2];
    r->switch_counters.control_dropped += c[3];
    r->switch_counters.no_route += c[4];
    r->forwarded_by_switch.emplace_back(t_.switches[k].name, c[0]);
  }
}

void Simulation::report_hosts(const model::SimLoop& loop, FILE* out, SimReport* r) {
  // Each host's text and status where it ran; rank 0 gathers them.
  std::string mine;
  std::vector<std::string> text(hosts_.size());
  std::vector<int> status(hosts_.size(), 0);
  for (size_t i = 0; i < hosts_.size(); ++i) {
    SimHost& h = hosts_[i];
    if (h.down || !loop.runs_here(h.loop_node)) continue;
    char* buf = nullptr;
    size_t len = 0;
    FILE* f = open_memstream(&buf, &len);
    if (h.client)
      std::fprintf(f, "== %s (%s, %s)\n", h.topo->name.c_str(), h.topo->ip_text.c_str(),
                   h.topo->program.c_str());
    // A server its counters (--stats); a client its result.
    status[i] = h.program->report(*h.runtime, f);
    std::fclose(f);
    text[i].assign(buf, len);
    free(buf);
    append_raw(&mine, static_cast<uint32_t>(i));
    append_raw(&mine, static_cast<int32_t>(status[i]));
    append_raw(&mine, static_cast<uint32_t>(len));
    mine += text[i];
  }
  if (p_.peers != nullptr) {
    std::vector<std::string> to(static_cast<size_t>(p_.peers->ranks()));
    to[0] = mine;
    const std::vector<std::string> from = p_.peers->exchange(std::move(to));
    for (std::string_view in : from)
      while (!in.empty()) {
        uint32_t i = 0, len = 0;
        int32_t st = 0;
        if (!take_raw(&in, &i) || !take_raw(&in, &st) || !take_raw(&in, &len) ||
            i >= hosts_.size() || len > in.size())
          break;
        status[i] = st;
        text[i].assign(in.substr(0, len));
        in.remove_prefix(len);
      }
  }
  int worst = 0;
  for (size_t i = 0; i < hosts_.size(); ++i) {
    SimHost& h = hosts_[i];
    SimHostEnd end;
    end.name = h.topo->name;
    end.program = h.topo->program;
    end.client = h.client;
    end.down = h.down;
    end.nic = h.crashed_nic;
    end.exit_status = status[i];
    if (!h.down && loop.runs_here(h.loop_node)) {
      end.program_object = h.program.get();
      end.result = h.program->load_result();
      end.nic += h.runtime->nic_counters();
      if (h.client && end.result != nullptr) r->clients.push_back({h.topo->name, *end.result});
    }
    if (p_.peers == nullptr || p_.peers->rank() == 0) std::fputs(text[i].c_str(), out);
    if (h.client && !h.down && severity(status[i]) > severity(worst)) worst = status[i];
    r->hosts.push_back(std::move(end));
  }
  // Every rank ends with the worst status of any: mpirun's own follows it.
  std::vector<uint64_t> w{static_cast<uint64_t>(severity(worst)) << 32 |
                          static_cast<uint32_t>(worst)};
  if (p_.peers != nullptr) p_.peers->reduce(w, model::SimPeers::Reduce::kMax);
  r->exit_status = static_cast<int>(static_cast<uint32_t>(w[0]));
}

}  // namespace nanopu::sim
