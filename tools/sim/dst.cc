#include "tools/sim/dst.h"

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/base/seeded_draw.h"
#include "runtime/sim/faults.h"
#include "runtime/sim/output_capture.h"
#include "tools/sim/builtin_programs.h"

namespace nanopu::sim {
namespace {

using Draw = SeededDraw;

std::string ip_of(size_t i) { return absl::StrCat("10.0.0.", i == 0 ? 1 : i + 2); }  // the client is .2

}  // namespace

const char* dst_service_name(DstService s) {
  switch (s) {
    case DstService::kRaft: return "raft";
    case DstService::kChain: return "chain";
    case DstService::kKv: return "kv";
  }
  return "?";
}

DstCase make_dst_case(DstService service, uint64_t seed, const std::string& state_dir) {
  Draw d(seed * 3 + static_cast<uint64_t>(service));
  DstCase c;
  c.service = service;
  c.seed = seed;
  const size_t servers = service == DstService::kKv ? 1 : 3;
  const std::string transport = d.below(2) ? "--transport=homa" : "--transport=ndp";
  std::string members;
  for (size_t i = 0; i < servers; ++i) absl::StrAppend(&members, i ? "," : "", ip_of(i), ":5");
  // Raft's timers short (elections in 10-20 ms, heartbeats every 2 ms), so
  // that a cut of a few tens of ms elects another leader.
  const std::string server_app = service == DstService::kRaft
                                     ? "--app=raft --raft_election_ms=20 --raft_heartbeat_ms=2 --raft_cluster=" + members
                                 : service == DstService::kChain ? "--app=chain"
                                                                 : "--app=kv";
  const std::string client =
      service == DstService::kRaft
          ? "--service=raft --raft_cluster=" + members + " --raft_keys=64 --raft_retry_ms=5"
      : service == DstService::kChain
          ? "--service=chain --context=7 --chain=" + members + " --chain_keys=64"
          : "--service=kv --server_context=5 --kv_keys=64";
  c.topology = "switch sw\n";
  std::vector<std::string> names;
  for (size_t i = 0; i < servers; ++i) names.push_back(absl::StrCat("s", i));
  names.push_back("client");
  for (size_t i = 0; i <= servers; ++i) {
    const bool is_client = i == servers;
    const std::string faults = draw_wire_faults(d, seed * 31 + i);
    if (!faults.empty()) absl::StrAppend(&c.faults, names[i], " ", faults.substr(9), "; ");
    std::string state;
    if (service == DstService::kRaft && !is_client) {
      c.state_files.push_back(absl::StrCat(state_dir, "/dst-", seed, "-", names[i], ".raft"));
      state = " --raft_state=" + c.state_files.back();
    }
    absl::StrAppend(&c.topology, "host ", names[i], " ", is_client ? "10.0.0.2" : ip_of(i), " 02:00:00:00:00:",
                    absl::Hex(i + 16, absl::kZeroPad2), is_client ? " loadgen " : " server ",
                    is_client ? client : server_app + " --context=5" + state, " ", transport, " ", faults,
                    // Open loop for 30-60 ms of modelled time, through the cuts.
                    is_client ? absl::StrFormat(" --rate=10000 --count=%d --outstanding=%d --progress=false --drain_timeout=10",
                                                300 + d.below(300), 1 + d.below(4))
                              : "",
                    "\n");
  }
  for (const std::string& n : names) absl::StrAppend(&c.topology, "link ", n, " sw\n");
  // Partitions that heal: up to two hosts (servers, mostly) cut off for a
  // while, during the load. Raft's first leader is elected by about 20 ms,
  // and its load starts then.
  const uint64_t cuts = d.below(3);
  for (uint64_t k = 0; k < cuts; ++k) {
    const size_t victim = d.below(names.size() + 1) % names.size();
    const double from_ms = service == DstService::kRaft ? d.between(20, 60) : d.between(0, 40);
    const double for_ms = d.between(0.05, service == DstService::kRaft ? 60 : 20);
    const auto from = static_cast<uint64_t>(from_ms * 1e9);
    c.cuts.push_back({names[victim], from, from + static_cast<uint64_t>(for_ms * 1e9)});
    absl::StrAppend(&c.faults, absl::StrFormat("%s cut at %.3f ms for %.3f ms; ", names[victim], from_ms, for_ms));
  }
  // Raft: a server killed and started again from its state file, half the
  // time (the kv store and the chain's replicas keep nothing on disk: a
  // restarted one has lost its data by design).
  if (service == DstService::kRaft && d.below(2) == 0) {
    const size_t victim = d.below(servers);
    const double at_ms = d.between(20, 60), down_ms = d.between(0.5, 40);
    const auto at = static_cast<uint64_t>(at_ms * 1e9);
    c.crashes.push_back({names[victim], at, at + static_cast<uint64_t>(down_ms * 1e9)});
    absl::StrAppend(&c.faults, absl::StrFormat("%s crashed at %.3f ms, restarted %.3f ms later; ", names[victim],
                                               at_ms, down_ms));
  }
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

DstOutcome run_dst_case(const DstCase& c, const model::TimingParams& timing) {
  DstOutcome o;
  absl::StatusOr<Topology> t = parse_topology(absl::StrCat("<", dst_service_name(c.service), " seed ", c.seed, ">"), c.topology);
  if (!t.ok()) {
    o.why = std::string(t.status().message());
    return o;
  }
  SimParams p;
  p.programs = &builtin_programs();
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
  if (!r.stalled.empty()) o.why = "the run " + r.stalled;
  else if (!r.ended) o.why = "the client had not finished after 20 modelled seconds";
  else if (r.clients.size() != 1) o.why = "no client result";
  else {
    const loadgen::Result& res = r.clients.front().result;
    if (res.bad_replies != 0) o.why = absl::StrCat(res.bad_replies, " replies broke the reference (wrong value or version)");
    else if (res.duplicates != 0) o.why = absl::StrCat(res.duplicates, " requests answered twice");
    else if (!res.clean())
      o.why = absl::StrCat("not every request answered: ", res.received, " of ", res.sent, ", lost ", res.lost,
                           ", given up ", res.given_up);
  }
  if (o.why.empty() && c.service == DstService::kRaft) o.why = check_one_leader_per_term(o.log, &o.leader_terms);
  o.passed = o.why.empty();
  return o;
}

}  // namespace nanopu::sim
