#include "tools/simulator/dst.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nanopu/buggify.h"
#include "nanopu/history.h"
#include "nanopu/lincheck.h"
#include "nanopu/seeded_draw.h"
#include "runtime/simulation/faults.h"
#include "runtime/simulation/output_capture.h"
#include "runtime/simulation/streams.h"
#include "tools/simulator/builtin_programs.h"

namespace nanopu::sim {
namespace {

using Draw = SeededDraw;

std::string ip_of(size_t i) { return absl::StrCat("10.0.0.", i + 1); }           // server i
std::string client_ip_of(size_t j) { return absl::StrCat("10.0.0.", 101 + j); }  // client j

// Clients per cluster: writers and readers of shared keys, each with a few
// requests in flight, so reads race writes and a history says whether the
// service kept one order (chain replication's clients once kept to one,
// before its replicas took versions from the head).
constexpr size_t kClients = 3;

}  // namespace

const char* dst_service_name(DstService s) {
  switch (s) {
    case DstService::kRaft: return "raft";
    case DstService::kChain: return "chain";
    case DstService::kKv: return "kv";
  }
  return "?";
}

namespace {

// What a DST case's hosts run: each server's app, every client's load.
struct DstApps {
  size_t replicas = 0;
  size_t servers = 0;  // the replicas and chain replication's master
  std::string members;
  std::string client;
  DstService service{};
  [[nodiscard]] std::string server(size_t i) const {
    // Raft's timers short (elections in 10-20 ms, heartbeats every 2 ms),
    // so that a cut of a few tens of ms elects another leader; the chain's
    // master's defaults (a ping every 2 ms, 3 missed, a 4 ms lease) likewise.
    switch (service) {
      case DstService::kRaft:
        return "--app=raft --raft_election_ms=20 --raft_heartbeat_ms=2 --raft_cluster=" + members;
      case DstService::kChain:
        return i < replicas ? "--app=chain --chain_master=" + ip_of(replicas) + ":5"
                            : "--app=chain-master --chain=" + members;
      case DstService::kKv: break;
    }
    return "--app=kv";
  }
};

DstApps dst_apps(DstService service) {
  DstApps a;
  a.service = service;
  a.replicas = service == DstService::kKv ? 1 : 3;
  a.servers = a.replicas + (service == DstService::kChain ? 1 : 0);
  for (size_t i = 0; i < a.replicas; ++i) absl::StrAppend(&a.members, i ? "," : "", ip_of(i), ":5");
  // Few keys, shared: writes and reads of one key from every client race.
  // A chain's client gives a request up after 5 ms (its replica may be
  // gone) and starts at once: its first requests are refused until the
  // master has given the replicas their places.
  a.client = service == DstService::kRaft
                 ? "--service=raft --raft_cluster=" + a.members + " --raft_keys=16 --raft_retry_ms=5"
             : service == DstService::kChain
                 ? "--service=chain --context=7 --chain=" + a.members +
                       " --chain_keys=16 --chain_retry_ms=5 --chain_preload=false"
                 : "--service=kv --server_context=5 --kv_keys=16";
  return a;
}

// Every host's line, its wire's faults drawn; names: the servers', then the clients'.
void add_dst_hosts(Draw& d, const DstApps& a, const std::vector<std::string>& names, const std::string& transport,
                   const std::string& state_dir, DstCase* c) {
  for (size_t i = 0; i < names.size(); ++i) {
    const bool is_client = i >= a.servers;
    const std::string faults = draw_wire_faults(d, stream_seed(c->seed, sim::kWireStream + i));
    if (!faults.empty()) absl::StrAppend(&c->faults, names[i], " ", faults.substr(9), "; ");
    std::string state;
    if (a.service == DstService::kRaft && !is_client) {
      c->state_files.push_back(absl::StrCat(state_dir, "/dst-", c->seed, "-", names[i], ".raft"));
      state = " --raft_state=" + c->state_files.back() + (c->raft_sync ? "" : " --raft_sync=false");
    }
    // Open loop for 15-30 ms of modelled time, through the cuts, at most a
    // few requests in flight (a history is checkable when few overlap).
    const uint64_t in_flight = 1 + d.below(4);
    absl::StrAppend(&c->topology, "host ", names[i], " ", is_client ? client_ip_of(i - a.servers) : ip_of(i),
                    " 02:00:00:00:00:", absl::Hex(i + 16, absl::kZeroPad2), is_client ? " loadgen " : " server ",
                    is_client ? a.client : a.server(i) + " --context=5" + state, " ", transport, " ", faults,
                    is_client ? absl::StrFormat(" --shared_keys --writer_id=%d --rate=10000 --count=%d --outstanding=%d "
                                                "--max_in_flight=%d --progress=false --drain_timeout=10",
                                                i - a.servers + 1, 150 + d.below(150), in_flight, in_flight)
                              : "",
                    "\n");
  }
  for (const std::string& n : names) absl::StrAppend(&c->topology, "link ", n, " sw\n");
}

// Partitions that heal: up to two hosts cut off for a while, during the
// load. Raft's first leader is elected by about 20 ms, and its load starts
// then.
void draw_dst_cuts(Draw& d, const std::vector<std::string>& names, DstCase* c) {
  const uint64_t cuts = d.below(3);
  for (uint64_t k = 0; k < cuts; ++k) {
    const size_t victim = d.below(names.size());
    const double from_ms = c->service == DstService::kRaft ? d.between(20, 60) : d.between(0, 30);
    const double for_ms = d.between(0.05, c->service == DstService::kRaft ? 60 : 20);
    const auto from = static_cast<uint64_t>(from_ms * 1e9);
    c->cuts.push_back({names[victim], from, from + static_cast<uint64_t>(for_ms * 1e9)});
    absl::StrAppend(&c->faults, absl::StrFormat("%s cut at %.3f ms for %.3f ms; ", names[victim], from_ms, for_ms));
  }
}

// Raft: a server killed and started again from its state file, half the
// time (the kv store keeps nothing on disk: a restarted one has lost its
// data by design). Chain: a replica killed and started again empty, half
// the time: the master takes it out and brings it back in as a joiner.
// And a client killed for good mid-run, a seed in four: its requests in
// flight end as info in the history.
void draw_dst_crashes(Draw& d, const DstApps& a, const std::vector<std::string>& names, DstCase* c) {
  if (a.service != DstService::kKv && d.below(2) == 0) {
    const size_t victim = d.below(a.replicas);
    const bool raft = a.service == DstService::kRaft;
    const double at_ms = raft ? d.between(20, 60) : d.between(2, 20), down_ms = d.between(0.5, raft ? 40 : 15);
    const auto at = static_cast<uint64_t>(at_ms * 1e9);
    // Half of Raft's lose power: what a server did not sync is gone
    // (nanopu/durable_file.h; its --raft_sync keeps its promises anyway).
    const bool power = raft && d.below(2) == 0;
    c->crashes.push_back({names[victim], at, at + static_cast<uint64_t>(down_ms * 1e9), false, power});
    absl::StrAppend(&c->faults, absl::StrFormat("%s %s at %.3f ms, restarted %.3f ms later; ", names[victim],
                                                power ? "lost power" : "crashed", at_ms, down_ms));
  }
  if (d.below(4) == 0) {
    const size_t victim = a.servers + d.below(kClients);
    const double at_ms = a.service == DstService::kRaft ? d.between(22, 40) : d.between(2, 20);
    c->crashes.push_back({names[victim], static_cast<uint64_t>(at_ms * 1e9), 0});
    absl::StrAppend(&c->faults, absl::StrFormat("client %s crashed for good at %.3f ms; ", names[victim], at_ms));
  }
}

}  // namespace

DstCase make_dst_case(DstService service, uint64_t seed, const std::string& state_dir, bool raft_sync) {
  // The draws in this order, always: a seed's schedule is its replay.
  Draw d(stream_seed(seed, sim::kDstCaseStream + static_cast<uint64_t>(service)));
  DstCase c;
  c.service = service;
  c.seed = seed;
  c.raft_sync = raft_sync;
  const std::string transport = d.below(2) ? "--transport=homa" : "--transport=ndp";
  const DstApps a = dst_apps(service);
  c.topology = "switch sw\n";
  std::vector<std::string> names;
  for (size_t i = 0; i < a.servers; ++i) names.push_back(i < a.replicas ? absl::StrCat("s", i) : "master");
  for (size_t j = 0; j < kClients; ++j) {
    names.push_back(absl::StrCat("c", j));
    c.clients.push_back(names.back());
  }
  add_dst_hosts(d, a, names, transport, state_dir, &c);
  draw_dst_cuts(d, names, &c);
  draw_dst_crashes(d, a, names, &c);
  absl::StrAppend(&c.faults, transport.substr(12));
  return c;
}

std::string check_one_leader_per_term(const std::string& log, uint64_t* terms) {
  // The servers' lines "raft: server <id> is the leader of term <term>".
  constexpr std::string_view kHead = "raft: server ", kMid = " is the leader of term ";
  auto number = [&](size_t* at, uint64_t* v) {
    const auto [end, ec] = std::from_chars(log.data() + *at, log.data() + log.size(), *v);
    *at = static_cast<size_t>(end - log.data());
    return ec == std::errc();
  };
  std::map<uint64_t, std::set<uint64_t>> leaders;
  for (size_t at = log.find(kHead); at != std::string::npos; at = log.find(kHead, at)) {
    at += kHead.size();
    uint64_t id = 0, term = 0;
    if (!number(&at, &id) || log.compare(at, kMid.size(), kMid) != 0) continue;
    at += kMid.size();
    if (number(&at, &term)) leaders[term].insert(id);
  }
  if (terms != nullptr) *terms = leaders.size();
  for (const auto& [term, who] : leaders)
    if (who.size() > 1) return absl::StrCat("term ", term, " had ", who.size(), " leaders");
  return "";
}

uint64_t count_chain_reconfigurations(const std::string& log) {
  // The master's lines "chain-master: epoch <e>, ...": epochs start at 1.
  constexpr std::string_view kHead = "chain-master: epoch ";
  uint64_t last = 1;
  for (size_t at = log.find(kHead); at != std::string::npos; at = log.find(kHead, at)) {
    at += kHead.size();
    uint64_t epoch = 0;
    if (std::from_chars(log.data() + at, log.data() + log.size(), epoch).ec == std::errc()) last = std::max(last, epoch);
  }
  return last - 1;
}

namespace {

// The clients' invariants: each one still up answered every request
// exactly once, and right as far as it can tell alone.
std::string check_clients(const DstCase& c, const SimReport& r) {
  for (const std::string& name : c.clients) {
    const SimHostEnd* h = nullptr;
    for (const SimHostEnd& x : r.hosts)
      if (x.name == name) h = &x;
    if (h == nullptr) return "no host " + name;
    if (h->down) continue;  // crashed for good: its requests in flight are the history's info
    const SimClientResult* res = nullptr;
    for (const SimClientResult& x : r.clients)
      if (x.host == name) res = &x;
    if (res == nullptr) return name + ": no client result";
    const loadgen::Result& q = res->result;
    if (!q.error.empty()) return name + ": " + q.error;
    if (q.bad_replies != 0) return absl::StrCat(name, ": ", q.bad_replies, " replies broke its checks (a wrong value)");
    if (c.service == DstService::kChain) {
      // A chain's client gives a request up after --chain_retry_ms (lost:
      // info in the history) or on a refusal (given up: a fail); a reply
      // to one it gave up on comes late (a duplicate), never otherwise.
      if (q.duplicates > q.lost)
        return absl::StrCat(name, ": ", q.duplicates, " late replies to ", q.lost, " requests given up");
      if (q.received + q.lost + q.given_up < q.sent)
        return absl::StrCat(name, ": ", q.sent - q.received - q.lost - q.given_up, " requests never ended");
      continue;
    }
    if (q.duplicates != 0) return absl::StrCat(name, ": ", q.duplicates, " requests answered twice");
    if (!q.clean())
      return absl::StrCat(name, ": not every request answered: ", q.received, " of ", q.sent, ", lost ", q.lost,
                          ", given up ", q.given_up);
  }
  return "";
}

}  // namespace

DstOutcome run_dst_case(const DstCase& c, const model::TimingParams& timing) {
  DstOutcome o;
  absl::StatusOr<Topology> t = parse_topology(absl::StrCat("<", dst_service_name(c.service), " seed ", c.seed, ">"), c.topology);
  if (!t.ok()) {
    o.why = std::string(t.status().message());
    return o;
  }
  std::unique_ptr<History> history = std::make_unique<History>();
  if (!c.history_path.empty()) {
    absl::StatusOr<std::unique_ptr<History>> h = History::open(c.history_path);
    if (!h.ok()) {
      o.why = std::string(h.status().message());
      return o;
    }
    history = std::move(*h);
  }
  SimParams p;
  p.programs = &builtin_programs();
  p.history = history.get();
  p.seed = c.seed;
  p.progress = false;
  p.timing = timing;
  p.cuts = c.cuts;
  p.crashes = c.crashes;
  for (const std::string& f : c.state_files) unlink(f.c_str());  // a fresh cluster
  p.modelled_limit_s = 20;
  std::FILE* report = std::tmpfile();
  SimReport r;
  {
    OutputCapture err(STDERR_FILENO);
    if (!err.capturing()) {  // Raft's invariant reads the log: no log, no pass
      o.why = "cannot capture the hosts' log (tmpfile failed)";
      (void)read_and_close(report);
      return o;
    }
    // The NIC's own rare paths (a message refused as if its context were
    // full, a frame left for want of a buffer, a timer late) for this seed.
    set_buggify(c.buggify, stream_seed(c.seed, kBuggifyStream));
    struct Off {
      ~Off() { set_buggify(false); }
    } off;
    Simulation s(*t, p);
    if (absl::Status st = s.build(); !st.ok()) {
      o.why = std::string(st.message());
      o.log = err.take();
      (void)read_and_close(report);
      return o;
    }
    r = s.run(report != nullptr ? report : stderr);
    o.log = err.take();
  }
  o.client_report = read_and_close(report);
  for (const std::string& f : c.state_files) unlink(f.c_str());
  o.trace_hash = r.trace_hash;
  o.modelled_ps = r.modelled_ps;
  o.frames = r.frames;
  o.cut_dropped = r.cut_dropped;
  o.restarts = r.restarts;
  for (const SimHostEnd& h : r.hosts)  // clients killed for good (their hosts down at the end)
    if (h.down && std::find(c.clients.begin(), c.clients.end(), h.name) != c.clients.end()) ++o.client_crashes;
  if (absl::Status s = history->flush(); !s.ok()) o.why = std::string(s.message());
  else if (!r.stalled.empty()) o.why = "the run " + r.stalled;
  else if (!r.ended) o.why = "the clients had not finished after 20 modelled seconds";
  else o.why = check_clients(c, r);
  const std::vector<HistoryEvent> events = history->events();
  o.history_events = events.size();
  if (o.why.empty()) {
    absl::StatusOr<lincheck::Result> v = lincheck::check(events, "register");
    if (!v.ok()) o.why = absl::StrCat("the history is not one: ", v.status().message());
    else if (v->verdict == lincheck::Verdict::kNotLinearizable) o.why = lincheck::describe(*v);
    else if (v->verdict == lincheck::Verdict::kUnknown) o.why = "linearizability " + lincheck::describe(*v);
    if (v.ok()) o.check_s = v->seconds;
  }
  if (o.why.empty() && c.service == DstService::kRaft) o.why = check_one_leader_per_term(o.log, &o.leader_terms);
  if (c.service == DstService::kChain) o.chain_reconfigs = count_chain_reconfigurations(o.log);
  o.passed = o.why.empty();
  return o;
}

}  // namespace nanopu::sim
