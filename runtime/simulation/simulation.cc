#include "runtime/simulation/simulation.h"

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/base/sim_actor.h"
#include "model/network/counted_costs.h"
#include "nanopu/durable_file.h"
#include "nanopu/seeded_draw.h"
#include "runtime/host/pipeline_programs.h"
#include "runtime/simulation/streams.h"
#include "model/network/sim_loop.h"
#include "runtime/simulation/switch_fabric.h"

namespace nanopu::sim {
namespace {

// "--name=value" / "--name" / "--noname" of a switch line.
struct SwitchFlag {
  std::string name, value;
  bool has_value;
};
SwitchFlag split_flag(const std::string& f) {
  std::string body = f.substr(absl::StartsWith(f, "--") ? 2 : absl::StartsWith(f, "-") ? 1 : 0);
  const size_t eq = body.find('=');
  if (eq == std::string::npos) return {body, "", false};
  return {body.substr(0, eq), body.substr(eq + 1), true};
}

// Frees what arrived for a crashed host: its NIC is gone.
bool drop_arrivals(PacketIo& io) {
  rte_mbuf* frames[32];
  bool any = false;
  for (uint16_t n; (n = io.rx_burst(frames, 32)) > 0;) {
    rte_pktmbuf_free_bulk(frames, n);
    any = true;
  }
  return any;
}

}  // namespace

absl::StatusOr<model::SimSwitchParams> Simulation::switch_params(const Topology& t, const TopologySwitch& w,
                                                                 const SimParams& p) {
  model::SimSwitchParams s;
  s.gbps = 200;
  s.link_latency_ns = p.wire_latency_ns;
  s.latency_ns = p.switch_latency_ns;
  auto bad = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(t.path, ":", w.line, ": switch ", w.name, ": ", what));
  };
  for (const std::string& f : w.flags) {
    const SwitchFlag sf = split_flag(f);
    if (sf.name == "switch_gbps") {
      if (!absl::SimpleAtod(sf.value, &s.gbps) || !(s.gbps > 0)) return bad("--switch_gbps must be > 0");
    } else if (sf.name == "queue_bytes") {
      if (!absl::SimpleAtoi(sf.value, &s.data_queue_bytes)) return bad("--queue_bytes: a byte count");
    } else if (sf.name == "trimming" || sf.name == "notrimming") {
      if (sf.name == "notrimming") s.trimming = false;
      else if (sf.has_value && !absl::SimpleAtob(sf.value, &s.trimming)) return bad("--trimming: true or false");
    } else if (sf.name == "poll" || sf.name == "poll_spin_us" || sf.name == "stall_drop_ms") {
      // How the real switch waits for frames: nothing to model.
    } else if (sf.name == "routes" || sf.name == "vdev" || sf.name == "lcores") {
      return bad("--" + sf.name + " is set by the runner, not the topology");
    } else if (sf.name == "priorities" || sf.name == "nopriorities") {
      s.priorities = sf.name == "priorities";
      if (sf.has_value && !absl::SimpleAtob(sf.value, &s.priorities)) return bad("--priorities: true or false");
    } else if (sf.name == "spray" || sf.name == "nospray") {
      s.spray = sf.name == "spray";
      if (sf.has_value && !absl::SimpleAtob(sf.value, &s.spray)) return bad("--spray: true or false");
    } else {
      return bad("--" + sf.name + ": nanopu-sim models --switch_gbps, --queue_bytes, --trimming, --priorities and "
                 "--spray");
    }
  }
  return s;
}

Simulation::Simulation(const Topology& t, const SimParams& p) : t_(t), p_(p) {}

Simulation::~Simulation() {
  teardown();
  if (!own_state_root_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(own_state_root_, ignored);
  }
}

absl::Status Simulation::build() {
  if (p_.programs == nullptr) return absl::InternalError("a simulation needs the binary's programs (SimParams::programs)");
  ctx_.programs = p_.programs;
  simulate_durable_files(true);  // sync() marks bytes kept; a power loss (SimCrash) takes the rest
  ctx_.history = p_.history;
  ctx_.state_root = p_.state_root;
  if (ctx_.state_root.empty()) {
    char dir[] = "/tmp/nanopu-sim-state-XXXXXX";
    if (mkdtemp(dir) == nullptr) return absl::InternalError("cannot make a state directory in /tmp");
    ctx_.state_root = own_state_root_ = dir;
  }
  absl::StatusOr<std::vector<SimHost>> hosts = make_sim_hosts(t_, ctx_, p_.seed);
  if (!hosts.ok()) return hosts.status();
  hosts_ = std::move(*hosts);
  if (absl::Status s = make_switches(); !s.ok()) return s;
  set_work_costs();
  if (absl::Status s = start_hosts(); !s.ok()) return s;
  set_nic_delays();
  if (absl::Status s = check_crashes(); !s.ok()) return s;
  const size_t nodes = hosts_.size() + switches_.size();
  if (p_.threads < 1 || static_cast<size_t>(p_.threads) > nodes)
    return absl::InvalidArgumentError(absl::StrCat(t_.path, ": --sim_threads=", p_.threads, ": the topology has ",
                                                   nodes, " hosts and switches to share among threads"));
  if (p_.peers != nullptr && p_.threads > 1)
    return absl::InvalidArgumentError("--sim_threads: one thread a rank under mpirun (run more ranks instead)");
  if (p_.peers != nullptr && static_cast<size_t>(p_.peers->ranks()) > nodes)
    return absl::InvalidArgumentError(absl::StrCat(t_.path, ": ", p_.peers->ranks(), " MPI ranks: the topology has ",
                                                   nodes, " hosts and switches to share among ranks"));
  return set_cuts();
}

absl::Status Simulation::make_switches() {
  absl::StatusOr<std::vector<std::unique_ptr<model::SimSwitch>>> sws = make_fabric(t_, p_);
  if (!sws.ok()) return sws.status();
  switches_ = std::move(*sws);
  return absl::OkStatus();
}

absl::Status Simulation::check_crashes() const {
  for (const SimCrash& c : p_.crashes) {
    const TopologyHost* h = t_.host(c.host);
    if (h == nullptr) return absl::InvalidArgumentError(absl::StrCat(t_.path, ": --crash: no host ", c.host));
    if (c.after_send && p_.peers != nullptr)
      return absl::InvalidArgumentError(absl::StrCat(t_.path, ": crash ", c.host, " after a send: aimed crashes need "
                                                     "one process (run on --sim_threads, not MPI ranks)"));
    const ProgramSpec* spec = p_.programs->find(h->program);
    if (spec != nullptr && spec->client && c.restart_ps != 0)
      return absl::InvalidArgumentError(absl::StrCat(t_.path, ": --crash: ", c.host, " runs a client (program ",
                                                     h->program, "): crash it for good (HOST@AT_MS), or it would "
                                                     "start its work again"));
  }
  return absl::OkStatus();
}

SimHost* Simulation::host_named(const std::string& name) {
  for (SimHost& x : hosts_)
    if (x.topo->name == name) return &x;
  return nullptr;
}

const SimHost* Simulation::host_named(const std::string& name) const {
  return const_cast<Simulation*>(this)->host_named(name);
}

bool Simulation::sent_since_armed(size_t i) const {
  const SimHost* h = host_named(p_.crashes[i].host);
  return !h->down && h->runtime->nic_counters().tx_msgs > armed_msgs_[i];
}

// Between windows (every node stopped). An aimed crash whose host has sent
// falls now: at the end of the window just run (SimLoop::window_end).
uint64_t Simulation::next_crash_event() const {
  uint64_t next = UINT64_MAX;
  for (size_t i = 0; i < p_.crashes.size(); ++i) {
    const SimCrash& c = p_.crashes[i];
    if (!crash_done_[i] && (!c.after_send || !armed_[i])) next = std::min(next, c.at_ps);
    else if (!crash_done_[i] && sent_since_armed(i)) next = std::min(next, std::max(c.at_ps, loop_->window_end()));
    else if (crash_done_[i] && !restart_done_[i] && c.restart_ps != 0)
      next = std::min(next, crashed_at_ps_[i] + (c.restart_ps - c.at_ps));
  }
  return next;
}

bool Simulation::apply_crashes(SimReport* r) {
  bool any = false;
  const uint64_t now = clock_.now_ps();
  for (size_t i = 0; i < p_.crashes.size(); ++i) {
    const SimCrash& c = p_.crashes[i];
    SimHost* h = host_named(c.host);
    if (!crash_done_[i] && c.after_send && !armed_[i] && now >= c.at_ps) {
      // A host down now falls at its first send once restarted (its new
      // run counts from 0): a crash during a restart's catch-up.
      armed_[i] = 1;
      armed_msgs_[i] = h->down ? 0 : h->runtime->nic_counters().tx_msgs;
      continue;
    }
    if (!crash_done_[i] && now >= c.at_ps && (!c.after_send || sent_since_armed(i))) {
      crash_done_[i] = 1;
      crashed_at_ps_[i] = now;
      if (!h->down) crash(*h, i), ++r->crashes, any = true;
    }
    if (crash_done_[i] && !restart_done_[i] && c.restart_ps != 0 && now >= crashed_at_ps_[i] + (c.restart_ps - c.at_ps)) {
      restart_done_[i] = 1;
      if (h->down) restart(*h), ++r->restarts, any = true;
    }
  }
  return any;
}

// The process is gone: nothing of it runs again, nothing it held is freed
// (its pool's mbufs may be on the wire or in a peer's hands).
void Simulation::crash(SimHost& h, size_t index) {
  h.down = true;
  if (p_.crashes[index].power_loss) lose_unsynced_writes(h.index + 1, stream_seed(p_.seed, kPowerLossStream + index));
  h.crashed_nic += h.runtime->nic_counters();  // its counts outlive it: the run's report sums every run
  dead_runtimes_.push_back(std::move(h.runtime));
  dead_programs_.push_back(std::move(h.program));
}

// A new process on the same port: its program made from its flags again
// (another seed: a restarted Raft server draws new timeouts), a new
// incarnation, booting now.
void Simulation::restart(SimHost& h) {
  set_sim_actor(h.index + 1);  // its program made and spawned: its own draws
  absl::StatusOr<SimHost> fresh = make_sim_host(t_, ctx_, h.index, stream_seed(p_.seed, kRestartStream + dead_runtimes_.size() + 1));
  absl::StatusOr<std::unique_ptr<Runtime>> rt =
      fresh.ok() ? Runtime::create(fresh->config, h.io) : absl::StatusOr<std::unique_ptr<Runtime>>(fresh.status());
  absl::Status s = rt.ok() ? fresh->program->spawn(**rt) : rt.status();
  if (!s.ok()) {  // it started once with these flags: say so and leave it down
    std::fprintf(stderr, "nanopu-sim: host %s could not restart: %s\n", h.topo->name.c_str(),
                 std::string(s.message()).c_str());
    return;
  }
  h.runtime = std::move(*rt);
  h.program = std::move(fresh->program);
  h.start_at_ticks = clock_.now_ps();
  h.down = false;
  if (loop_ != nullptr) loop_->stir(h.loop_node);  // its threads run now
}

std::pair<int, uint32_t> Simulation::switch_port_of(const std::string& host) const {
  for (size_t k = 0; k < t_.switches.size(); ++k) {
    const std::vector<std::string>& ports = t_.switches[k].ports;
    for (uint32_t i = 0; i < ports.size(); ++i)
      if (ports[i] == host) return {static_cast<int>(k), i};
  }
  return {-1, 0};
}

model::SimLink* Simulation::link_of(const std::string& host) {
  const TopologyHost* h = t_.host(host);
  if (h == nullptr) return nullptr;
  if (const auto [w, port] = switch_port_of(host); w >= 0) return &switches_[w]->link(port);
  for (size_t i = 0; i < direct_.size(); ++i)
    if (direct_ends_[i] == host || direct_ends_[i] == h->peer) return direct_[i].get();
  return nullptr;
}

absl::Status Simulation::set_cuts() {
  for (const SimCut& c : p_.cuts) {
    model::SimLink* l = link_of(c.host);
    if (l == nullptr) return absl::InvalidArgumentError(absl::StrCat(t_.path, ": --cut: no host ", c.host));
    l->cut(c.from_ps, c.until_ps);
  }
  return absl::OkStatus();
}

model::CountedCosts Simulation::costs() const {
  return model::counted_costs(p_.timing, p_.measured ? 1e12 / static_cast<double>(rte_get_tsc_hz()) : 0);
}

void Simulation::set_work_costs() {
  if (p_.counted) clock_.set_work_costs(costs().work);
}

void Simulation::set_nic_delays() {
  if (!p_.counted) return;
  const model::CountedCosts c = costs();
  const uint64_t rx = c.nic_rx_ps, tx = c.nic_tx_ps;
  for (auto& l : direct_)
    for (model::SimPort* end : {&l->a(), &l->b()}) end->set_nic_delays_ps(rx, tx);
  for (const TopologyHost& h : t_.hosts)
    if (const auto [w, port] = switch_port_of(h.name); w >= 0) switches_[w]->host_port(port).set_nic_delays_ps(rx, tx);
  // A host's pipeline programs: a match-action stage a table, each on its side.
  for (const SimHost& h : hosts_) {
    const uint64_t in = pipeline_tables(h.config, PipelineSide::kIngress);
    const uint64_t out = pipeline_tables(h.config, PipelineSide::kEgress);
    if (h.io != nullptr && in + out != 0) h.io->set_nic_delays_ps(rx + in * c.pisa_stage_ps, tx + out * c.pisa_stage_ps);
  }
}

model::SimPort* Simulation::port_of(const SimHost& h) {
  if (const auto [w, port] = switch_port_of(h.topo->name); w >= 0) return &switches_[w]->host_port(port);
  // A link between two hosts: its first host in the file takes end a, the
  // other end b, whichever is made first.
  for (size_t i = 0; i < direct_.size(); ++i)
    if (direct_ends_[i] == h.topo->peer) return &direct_[i]->b();
  const TopologyLinkParams& lp = h.topo->link;
  direct_.push_back(std::make_unique<model::SimLink>(model::SimLinkParams{
      lp.gbps > 0 ? lp.gbps : p_.wire_gbps, lp.latency_ns > 0 ? lp.latency_ns : p_.wire_latency_ns}));
  direct_ends_.push_back(h.topo->name);
  return &direct_.back()->a();
}

// Each host's runtime on its end of its link, its program's threads spawned.
absl::Status Simulation::start_hosts() {
  crash_done_.assign(p_.crashes.size(), 0);
  restart_done_.assign(p_.crashes.size(), 0);
  armed_.assign(p_.crashes.size(), 0);
  armed_msgs_.assign(p_.crashes.size(), 0);
  crashed_at_ps_.assign(p_.crashes.size(), 0);
  for (SimHost& h : hosts_) {
    set_sim_actor(h.index + 1);
    model::SimPort* io = port_of(h);
    h.io = io;
    absl::StatusOr<std::unique_ptr<Runtime>> rt = Runtime::create(h.config, io);
    if (rt.ok()) h.runtime = std::move(*rt);
    absl::Status s = rt.ok() ? h.program->spawn(*h.runtime) : rt.status();
    if (!s.ok()) return absl::InternalError(absl::StrCat(t_.path, ":", h.topo->line, ": host ", h.topo->name, ": ", s.message()));
  }
  return absl::OkStatus();
}

uint64_t Simulation::frames() const {
  auto of = [](const model::SimLink& l) { return l.frames_received(); };
  uint64_t n = 0;
  for (const auto& l : direct_) n += of(*l);
  for_each_switch_link([&](const model::SimLink& l) { n += of(l); });
  return n;
}

// One host's cores in the loop: its NIC core and each worker core, in one
// node, and its wakeups.
void Simulation::add_to_loop(model::SimLoop& loop, SimHost* host) {
  // A host's cores run once it has booted, each on a clock of its own:
  // the loop keeps a core from running while it is busy with work charged
  // before (counted time). The NIC core is the nanoPU's hardware: its
  // stages are latencies at the port, and it charges nothing.
  //
  // A worker core computing in slices (Thread::compute) is resumed early
  // when its NIC core has done anything since the core last ran: an
  // arrival may preempt the work (nanoPU OSDI'21 §3.3).
  //
  // The host is polled when something is due for it: a frame arriving, its
  // boot, its own next event; a crashed host only to drop what arrives.
  // The node's own time is clock::instant_ticks() (the loop's threads each
  // run nodes at instants of their own).
  const size_t node = loop.add_node(
      [host] {
        if (host->down) return host->io->next_arrival();
        if (clock::instant_ticks() < host->start_at_ticks) return host->start_at_ticks;
        return std::min(host->io->next_arrival(), host->runtime->next_event_ticks());
      },
      p_.poll_every_host);
  host->loop_node = node;
  auto nic_busy_polls = std::make_shared<uint64_t>(0);
  // Each core says whose it is (lib/base/sim_actor.h: buggify()'s draws and
  // durable files are kept per host, whichever thread runs the node).
  const uint64_t actor = host->index + 1;
  loop.add_core(node, [this, host, nic_busy_polls, actor] {
    if (host->down) return drop_arrivals(*host->io);  // a crashed host's NIC takes nothing
    set_sim_actor(actor);
    const bool did = clock::instant_ticks() >= host->start_at_ticks && host->runtime->poll_nic_once();
    *nic_busy_polls += did ? 1 : 0;
    return did;
  });
  for (size_t w = 0; w < host->runtime->worker_count(); ++w) {
    auto seen = std::make_shared<uint64_t>(0);  // nic_busy_polls when this core last ran
    loop.add_core(
        node,
        [host, w, nic_busy_polls, seen, actor] {
          *seen = *nic_busy_polls;
          set_sim_actor(actor);
          return !host->down && clock::instant_ticks() >= host->start_at_ticks && host->runtime->poll_worker_once(w);
        },
        [host, w, nic_busy_polls, seen] {
          if (host->down || *seen == *nic_busy_polls) return UINT64_MAX;
          return host->runtime->worker_slice_from_ticks(w);
        });
  }
  loop.add_wakeup(node, [host] {
    if (host->down) return UINT64_MAX;
    if (host->start_at_ticks > clock::instant_ticks()) return host->start_at_ticks;
    // A reply whose work ends later; a thread's wait_for() deadline.
    return std::min(host->runtime->next_nic_ready_ticks(), host->runtime->next_thread_wake_ticks());
  });
}

// Every host and switch a node of the loop, every link between two of them.
void Simulation::fill_loop(model::SimLoop& loop, SimReport* r) {
  loop.set_peers(p_.peers);
  if (!p_.crashes.empty())
    loop.set_events([this] { return next_crash_event(); }, [this, r] { (void)apply_crashes(r); });
  // Nodes in the order the loop's threads split them (runs of consecutive
  // ids): each switch after the hosts on its ports, so a rack and its leaf
  // tend to share a thread. (The run is the same in any order.)
  std::vector<size_t> switch_node(switches_.size());
  for (size_t k = 0; k < switches_.size(); ++k) {
    for (const std::string& port : t_.switches[k].ports)
      for (SimHost& h : hosts_)
        if (h.topo->name == port && h.loop_node == SIZE_MAX) add_to_loop(loop, &h);
    model::SimSwitch* sw = switches_[k].get();
    // Polled when a frame arrives or a queued one may leave (a fabric's
    // switches are many; --poll_every_host: every instant, the same run).
    switch_node[k] = loop.add_node([sw] { return sw->next_due(); }, p_.poll_every_host);
    loop.add_core(switch_node[k], [sw] { return sw->poll(); });
    loop.add_wakeup(switch_node[k], [sw] { return sw->next_event(); });
  }
  for (SimHost& h : hosts_)
    if (h.loop_node == SIZE_MAX) add_to_loop(loop, &h);
  for (size_t i = 0; i < direct_.size(); ++i) {
    const SimHost* a = nullptr;
    const SimHost* b = nullptr;
    for (const SimHost& h : hosts_) {
      if (h.io == &direct_[i]->a()) a = &h;
      if (h.io == &direct_[i]->b()) b = &h;
    }
    loop.add_link(direct_[i].get(), a->loop_node, b->loop_node);
  }
  // A switch's port: end a the host's (or, for a switch-to-switch link, the
  // joined switch's), end b the owner's.
  for (size_t k = 0; k < switches_.size(); ++k)
    for (uint32_t i = 0; i < switches_[k]->ports(); ++i) {
      if (!switches_[k]->owns_link(i)) continue;
      model::SimLink& l = switches_[k]->link(i);
      size_t a_node = SIZE_MAX;
      for (const SimHost& h : hosts_)
        if (h.io == &l.a()) a_node = h.loop_node;
      for (size_t j = 0; j < switches_.size() && a_node == SIZE_MAX; ++j)
        if (switches_[j]->has_end(&l.a())) a_node = switch_node[j];
      if (a_node == SIZE_MAX) a_node = switch_node[k];  // nothing on its far end: nothing sent there
      loop.add_link(&l, a_node, switch_node[k]);
    }
}

SimReport Simulation::run(FILE* out) {
  SimReport r;
  model::SimLoop loop(clock_, static_cast<uint64_t>(p_.idle_step_ns * 1000));
  loop_ = &loop;
  fill_loop(loop, &r);
  if (const long cpus = sysconf(_SC_NPROCESSORS_ONLN); p_.threads > 1 && p_.threads > cpus)
    std::fprintf(stderr, "nanopu-sim: --sim_threads=%d on %ld CPUs: the threads will wait for each other at every "
                 "window (the run is the same, only slower)\n", p_.threads, cpus);
  const auto wall0 = std::chrono::steady_clock::now();
  auto next_progress = wall0 + std::chrono::seconds(5);
  const auto done = [&] {
    if (p_.progress && (p_.peers == nullptr || p_.peers->rank() == 0) &&
        std::chrono::steady_clock::now() >= next_progress) {  // output only: not the run
      next_progress += std::chrono::seconds(5);
      std::fprintf(stderr, "nanopu-sim: modelled %.3f ms, %llu frames\n", static_cast<double>(clock_.now_ps()) / 1e9,
                   static_cast<unsigned long long>(frames()));
    }
    for (const SimHost& h : hosts_)  // this rank's (the loop asks every rank)
      if (h.client && !h.down && loop.runs_here(h.loop_node) && !h.program->finished()) return false;
    return true;
  };
  r.ended = loop.run(done, static_cast<uint64_t>(p_.modelled_limit_s * 1e12), p_.threads);
  if (!loop.rank_error().empty()) r.stalled = "stopped between two windows: " + loop.rank_error();
  if (loop.crawled())
    r.stalled = absl::StrFormat(
        "stopped at modelled %.6f ms: some core was still working after %d rounds at each of %llu instants in a "
        "row, the clock moving 1 ps at a time. A thread loops without waiting for a time ahead (Thread::idle() "
        "or a wait for a time already past, in a loop) and holds the modelled clock",
        static_cast<double>(loop.crawled_at_ps()) / 1e9, model::SimLoop::kMaxRoundsPerInstant,
        static_cast<unsigned long long>(model::SimLoop::kMaxCrawlInstants));
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  r.modelled_ps = clock_.now_ps();
  count(loop, &r);
  for (SimHost& h : hosts_) {
    if (h.down || !loop.runs_here(h.loop_node)) continue;  // another rank's: it never ran here
    h.runtime->stop();
    (void)h.runtime->poll_once();
  }
  if (p_.history != nullptr)  // what a crashed client or the run's end left open: outcome unknown
    p_.history->end(static_cast<uint64_t>(static_cast<double>(clock_.now_ps()) / 1000));
  report_hosts(loop, out, &r);
  loop_ = nullptr;
  return r;
}

void Simulation::teardown() {
  for (auto& l : direct_) l->discard_in_flight();
  for (auto& w : switches_) w->discard_in_flight();
  // Every runtime's buffers back to their pools while every pool still
  // exists (a host may hold a crashed one's frames, and the reverse).
  for (SimHost& h : hosts_)
    if (h.runtime) h.runtime->release_buffers();
  for (auto& rt : dead_runtimes_) rt->release_buffers();
  hosts_.clear();
  dead_programs_.clear();
  dead_runtimes_.clear();
  direct_.clear();
  switches_.clear();
  simulate_durable_files(false);
}

}  // namespace nanopu::sim
