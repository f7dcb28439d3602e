// nanopu/sim.h: fault schedules from a seed, and campaigns of them.
#include "runtime/simulation/faults.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nanopu/lincheck.h"
#include "runtime/simulation/output_capture.h"
#include "runtime/simulation/shrink.h"
#include "runtime/simulation/sim_run.h"
#include "runtime/simulation/streams.h"

namespace nanopu::sim {

std::string draw_wire_faults(SeededDraw& d, uint64_t seed) {
  if (d.below(3) == 0) return "";
  // Six decimals: the drawn probabilities themselves (to three, two seeds'
  // draws coincided by rounding alone, one in a few hundred).
  return absl::StrFormat("--faults=drop=%.6f,dup=%.6f,reorder=%.6f,trim=%.6f,seed=%d", d.between(0, 0.05),
                         d.between(0, 0.02), d.between(0, 0.05), d.between(0, 0.02), seed);
}

namespace {

bool line_sets(const TopologyHost& h, const std::string& flag) {
  for (const std::string& f : h.flags)
    if (absl::StartsWith(f, absl::StrCat("--", flag, "=")) || f == absl::StrCat("--", flag)) return true;
  return false;
}

// Half the seeds, each server's clock fast or slow within the bound, from
// streams of their own (the schedule's other draws do not move).
void draw_clock_drifts(const Topology& t, const std::vector<std::string>& servers, uint64_t seed,
                       const FaultOptions& o, FaultSchedule* f) {
  if (!(o.clock_ppm > 0) || SeededDraw(stream_seed(seed, kClockStream)).below(2) != 0) return;
  for (size_t i = 0; i < t.hosts.size(); ++i) {
    const TopologyHost& h = t.hosts[i];
    if (std::find(servers.begin(), servers.end(), h.name) == servers.end() || line_sets(h, "clock_drift_ppm")) continue;
    const double ppm = SeededDraw(stream_seed(seed, kClockStream + 1 + i)).between(-o.clock_ppm, o.clock_ppm);
    f->host_flags.emplace_back(h.name, absl::StrFormat("--clock_drift_ppm=%.1f", ppm));
    absl::StrAppend(&f->description, absl::StrFormat("%s clock %+.1f ppm; ", h.name, ppm));
  }
}

}  // namespace

absl::StatusOr<FaultSchedule> draw_faults(const std::string& topology_path, const Programs& programs, uint64_t seed,
                                          const FaultOptions& o) {
  absl::StatusOr<Topology> t = read_topology(topology_path);
  if (!t.ok()) return t.status();
  FaultSchedule f;
  f.seed = seed;
  SeededDraw d(stream_seed(seed, kScheduleStream));
  std::vector<std::string> servers, clients;
  for (const TopologyHost& h : t->hosts) {
    const ProgramSpec* spec = programs.find(h.program);
    if (spec == nullptr)
      return absl::InvalidArgumentError(absl::StrCat(t->path, ":", h.line, ": host ", h.name, ": no program '",
                                                     h.program, "' in this binary (it has ", programs.names(), ")"));
    (spec->client ? clients : servers).push_back(h.name);
  }
  const std::string transport = d.below(2) ? "homa" : "ndp";
  // Swarm testing (FaultOptions::swarm): which kinds this seed draws at all.
  const bool swarm_wire = !o.swarm || d.below(2) == 0, swarm_cuts = !o.swarm || d.below(2) == 0,
             swarm_crashes = !o.swarm || d.below(2) == 0;
  for (size_t i = 0; i < t->hosts.size(); ++i) {
    const TopologyHost& h = t->hosts[i];
    if (o.transports && !line_sets(h, "transport")) f.host_flags.emplace_back(h.name, "--transport=" + transport);
    const std::string wire = draw_wire_faults(d, stream_seed(seed, kWireStream + i));
    if (o.wire && swarm_wire && !wire.empty() && !line_sets(h, "faults")) {
      f.host_flags.emplace_back(h.name, wire);
      absl::StrAppend(&f.description, h.name, " ", wire.substr(9), "; ");
    }
  }
  draw_clock_drifts(*t, servers, seed, o, &f);
  const uint64_t cuts = swarm_cuts ? d.below(o.max_cuts + 1) : 0;
  for (uint64_t k = 0; k < cuts; ++k) {
    const std::string& victim = t->hosts[d.below(t->hosts.size())].name;
    const double from = d.between(0, o.window_ms), len = d.between(0.05, o.window_ms / 2);
    f.cuts.push_back({victim, from, len});
    absl::StrAppend(&f.description, absl::StrFormat("%s cut at %.3f ms for %.3f ms; ", victim, from, len));
  }
  if (o.crash_servers && swarm_crashes && !servers.empty() && d.below(2) == 0) {
    const std::string& victim = servers[d.below(servers.size())];
    const double at = d.between(o.window_ms / 4, o.window_ms), down = d.between(0.5, o.window_ms / 2);
    // Half of them aimed (Crash::after_send): a crash drawn blind seldom
    // falls between a server's reply and its next step.
    const bool aimed = o.aimed_crashes && d.below(2) == 0;
    // Half of them lose power too (Crash::power_loss): what the server did
    // not sync is gone.
    const bool power = o.power_loss && d.below(2) == 0;
    f.crashes.push_back({victim, at, down, aimed, power});
    absl::StrAppend(&f.description, absl::StrFormat("%s %s %s %.3f ms, restarted %.3f ms later; ", victim,
                                                    power ? "lost power" : "crashed",
                                                    aimed ? "at its first send after" : "at", at, down));
    // A quarter of them crash again at their first send once restarted:
    // during the catch-up (a stream of its own: the draws above keep).
    if (o.aimed_crashes) {
      SeededDraw again(stream_seed(seed, kCatchUpStream));
      if (again.below(4) == 0) {
        const double down2 = again.between(0.5, o.window_ms / 2);
        f.crashes.push_back({victim, at + down, down2, true, false});
        absl::StrAppend(&f.description, absl::StrFormat("%s crashed again at its first send once restarted, "
                                                        "restarted %.3f ms later; ", victim, down2));
      }
    }
  }
  if (o.crash_clients && swarm_crashes && !clients.empty() && d.below(4) == 0) {
    const std::string& victim = clients[d.below(clients.size())];
    const double at = d.between(o.window_ms / 4, o.window_ms);
    f.crashes.push_back({victim, at, 0});
    absl::StrAppend(&f.description, absl::StrFormat("client %s crashed for good at %.3f ms; ", victim, at));
  }
  absl::StrAppend(&f.description, o.transports ? transport : "transports as the topology says");
  return f;
}

Topology with_faults(const Topology& t, const FaultSchedule& f) {
  Topology out = t;
  for (const auto& [host, flag] : f.host_flags)
    for (TopologyHost& h : out.hosts)
      if (h.name == host) h.flags.push_back(flag);
  return out;
}

std::string builtin_invariants(const Report& r) {
  if (!r.stalled.empty()) return "the run " + r.stalled;
  if (!r.ended) return "the clients had not finished within the modelled limit";
  for (const HostReport& h : r.hosts) {
    if (h.result == nullptr) continue;
    if (h.result->bad_replies != 0)
      return absl::StrCat(h.name, ": ", h.result->bad_replies, " replies its checks found wrong");
    if (h.result->duplicates != 0) return absl::StrCat(h.name, ": ", h.result->duplicates, " requests answered twice");
    if (!h.result->error.empty()) return absl::StrCat(h.name, ": ", h.result->error);
  }
  return "";
}

std::string liveness(const Report& r, const std::vector<Cut>& cuts, const std::vector<Crash>& crashes,
                     const FaultOptions& o) {
  if (o.live_calls == 0) return "";
  // The last fault's end: a cut healed, a crashed host back (one crashed
  // for good is down, and not judged).
  double healed_ms = 0;
  for (const Cut& c : cuts) healed_ms = std::max(healed_ms, c.from_ms + c.for_ms);
  for (const Crash& c : crashes)
    if (c.down_ms > 0) healed_ms = std::max(healed_ms, c.at_ms + c.down_ms);
  const auto healed_ns = static_cast<uint64_t>(healed_ms * 1e6);
  const auto quiet_ns = static_cast<uint64_t>(o.quiet_ms * 1e6);
  for (const HostReport& h : r.hosts) {
    if (!h.client || h.down || h.result == nullptr || h.result->sent == 0) continue;
    const loadgen::Result& x = *h.result;
    if (x.received == 0)
      return absl::StrCat(h.name, ": none of its ", x.sent, " requests was answered (", x.lost, " lost, ", x.given_up,
                          " given up)");
    if (x.last_sent_ns < healed_ns + quiet_ns) continue;  // it stopped sending before it could be judged
    const uint64_t since = x.replies_since(healed_ns);
    if (since < o.live_calls)
      return absl::StrFormat(
          "%s: %d replies since the last fault healed at %.3f ms (at least %d wanted: it sent until %.3f ms; its last "
          "reply at %.3f ms)",
          h.name, since, healed_ms, o.live_calls, static_cast<double>(x.last_sent_ns) / 1e6,
          static_cast<double>(x.last_reply_ns()) / 1e6);
  }
  return "";
}

Invariant linearizable(std::string model, double seconds) {
  return [model = std::move(model), seconds](const Report& r) -> std::string {
    lincheck::Limits limits;
    limits.seconds = seconds;
    absl::StatusOr<lincheck::Result> v = lincheck::check(r.history, model, limits);
    if (!v.ok()) return absl::StrCat("the history is not one: ", v.status().message());
    if (v->verdict == lincheck::Verdict::kUnknown) {
      std::fprintf(stderr, "linearizability: %s\n", lincheck::describe(*v).c_str());
      return "";
    }
    return v->verdict == lincheck::Verdict::kLinearizable ? "" : lincheck::describe(*v);
  };
}

namespace {

struct SeedRun {
  SeedOutcome outcome;
  std::string client_output, log;
};

std::string replay_command(const Campaign& c, uint64_t seed, const std::string& schedule) {
  return absl::StrCat(c.replay_prefix, " --first_seed=", seed, " --seeds=1",
                      schedule.empty() ? "" : absl::StrCat(" --schedule='", schedule, "'"), " --verbose");
}

// The seed's schedule: `given`, else the campaign's explicit one, else drawn.
absl::StatusOr<FaultSchedule> schedule_of(const Topology& t, const Programs& programs, const Campaign& c, uint64_t seed,
                                          const FaultSchedule* given) {
  absl::StatusOr<FaultSchedule> f = given != nullptr           ? absl::StatusOr<FaultSchedule>(*given)
                                    : !c.schedule.empty() ? parse_schedule(c.schedule)
                                                          : draw_faults(t.path, programs, seed, c.faults);
  if (f.ok()) f->seed = seed;
  return f;
}

// One seed's run: its schedule, the invariants while its programs exist.
SeedRun run_seed(const Topology& t, const Programs& programs, const Options& base, const Campaign& c, uint64_t seed,
                 const FaultSchedule* given = nullptr) {
  SeedRun s;
  SeedOutcome& o = s.outcome;
  o.seed = seed;
  o.replay = replay_command(c, seed, c.schedule);
  absl::StatusOr<FaultSchedule> f = schedule_of(t, programs, c, seed, given);
  if (!f.ok()) {
    o.why = std::string(f.status().message());
    return s;
  }
  o.faults = *f;
  Options opt = base;
  opt.seed = seed;
  opt.buggify = c.buggify;
  opt.progress = false;
  opt.cuts.insert(opt.cuts.end(), f->cuts.begin(), f->cuts.end());
  opt.crashes.insert(opt.crashes.end(), f->crashes.begin(), f->crashes.end());
  if (!c.history_dir.empty()) opt.history_path = absl::StrCat(c.history_dir, "/seed-", seed, ".jsonl");
  std::string why;
  std::FILE* out = std::tmpfile();
  absl::StatusOr<Report> r;
  {
    OutputCapture err(STDERR_FILENO);
    r = run_topology(with_faults(t, *f), programs, opt, out != nullptr ? out : stdout, [&](const Report& run) {
      why = builtin_invariants(run);
      if (why.empty()) why = liveness(run, opt.cuts, opt.crashes, c.faults);
      std::vector<NamedInvariant> all = c.invariants;
      if (!c.check_model.empty())
        all.push_back({"linearizable (" + c.check_model + ")", linearizable(c.check_model)});
      for (const NamedInvariant& inv : all) {
        if (!why.empty()) break;
        if (const std::string broke = inv.check(run); !broke.empty()) why = absl::StrCat(inv.name, ": ", broke);
      }
    });
    s.log = err.take();
  }
  s.client_output = read_and_close(out);
  if (!r.ok()) {
    o.why = std::string(r.status().message());
    return s;
  }
  o.report = std::move(*r);
  o.why = why;
  o.passed = why.empty();
  return s;
}

// The check a failure broke: an invariant's name, or a built-in one's
// subject ("c1", "the run"): what a shrunk schedule must still break.
std::string check_of(const std::string& why) { return why.substr(0, why.find(':')); }

// Delta debugging over a failing seed's faults (runtime/simulation/shrink.h):
// the wires' --faults, the clocks' drifts, the cuts and the crashes (a
// --transport is not a fault). False, and nothing run, for a schedule with
// no fault to take out.
bool shrink_seed(const Topology& t, const Programs& programs, const Options& base, const Campaign& c,
                 SeedOutcome* o) {
  const FaultSchedule& all = o->faults;
  FaultSchedule fixed = all;  // what every trial keeps: the transports
  fixed.host_flags.clear();
  fixed.cuts.clear();
  fixed.crashes.clear();
  std::vector<std::function<void(FaultSchedule*)>> items;
  for (const auto& hf : all.host_flags) {
    if (absl::StartsWith(hf.second, "--faults=") || absl::StartsWith(hf.second, "--clock_drift_ppm="))
      items.push_back([hf](FaultSchedule* f) { f->host_flags.push_back(hf); });
    else fixed.host_flags.push_back(hf);
  }
  for (const Cut& k : all.cuts) items.push_back([k](FaultSchedule* f) { f->cuts.push_back(k); });
  for (const Crash& k : all.crashes) items.push_back([k](FaultSchedule* f) { f->crashes.push_back(k); });
  if (items.empty()) return false;
  auto compose = [&](const std::vector<size_t>& kept) {
    FaultSchedule f = fixed;
    for (size_t i : kept) items[i](&f);
    f.description = format_schedule(f);
    return f;
  };
  const std::string check = check_of(o->why);
  Campaign trial = c;
  trial.history_dir.clear();  // the seed's own history stays the drawn run's
  const Shrunk r = ddmin(
      items.size(),
      [&](const std::vector<size_t>& kept) {
        const FaultSchedule f = compose(kept);
        const SeedRun run = run_seed(t, programs, base, trial, o->seed, &f);
        return !run.outcome.passed && check_of(run.outcome.why) == check;
      },
      c.shrink_runs);
  o->shrunk = true;
  o->shrunk_faults = compose(r.kept);
  o->faults_before = items.size();
  o->faults_after = r.kept.size();
  o->shrink_runs = r.tests;
  o->shrink_exhausted = r.exhausted;
  o->shrunk_replay = replay_command(c, o->seed, o->shrunk_faults.description);
  return true;
}

struct Tally {
  uint64_t runs = 0, passed = 0, crashes = 0, restarts = 0, cut_dropped = 0, frames = 0, events = 0, replayed = 0;
  double modelled_s = 0;
  std::vector<std::string> failures;
  std::map<std::string, uint64_t> reached;  // each probe: the seeds it fired in (0: never)

  void count_probes(const Report& r) {
    for (const auto& [name, hits] : r.probes) reached[name] += hits != 0;
  }
  // Two lines: the programs' probes, then the runtime's rare paths
  // ("nic.*"), each with the seeds that reached it, and those never reached.
  void print_coverage(FILE* out) const {
    for (const bool runtime : {false, true}) {
      std::string fired, never;
      for (const auto& [name, seeds] : reached) {
        if (absl::StartsWith(name, "nic.") != runtime) continue;
        if (seeds == 0) absl::StrAppend(&never, never.empty() ? "" : ", ", name);
        else absl::StrAppend(&fired, fired.empty() ? "" : ", ", name, " ", seeds);
      }
      if (fired.empty() && never.empty()) continue;
      std::fprintf(out, "coverage, %s (seeds that reached each): %s%s%s\n",
                   runtime ? "the runtime's rare paths" : "your probes", fired.empty() ? "none" : fired.c_str(),
                   never.empty() ? "" : "; never: ", never.c_str());
    }
  }
};

}  // namespace

absl::StatusOr<std::vector<SeedOutcome>> run_campaign(const std::string& topology_path, const Programs& programs,
                                                       const Options& base, const Campaign& c, FILE* out) {
  absl::StatusOr<Topology> t = read_topology(topology_path);
  if (!t.ok()) return t.status();
  if (absl::Status s = init_sim_eal(t->hosts.size()); !s.ok()) return s;
  std::vector<SeedOutcome> outcomes;
  Tally n;
  const auto wall0 = std::chrono::steady_clock::now();
  auto next_progress = wall0 + std::chrono::seconds(10);
  for (uint64_t seed = c.first_seed; seed < c.first_seed + c.seeds; ++seed) {
    SeedRun s = run_seed(*t, programs, base, c, seed);
    const SeedOutcome& o = s.outcome;
    ++n.runs;
    n.passed += o.passed;
    n.crashes += o.report.crashes;
    n.restarts += o.report.restarts;
    n.cut_dropped += o.report.cut_dropped;
    n.frames += o.report.frames;
    n.events += o.report.history.size();
    n.modelled_s += o.report.modelled_s;
    n.count_probes(o.report);
    if (c.verbose || !o.passed)
      std::fprintf(out, "seed %llu: %s (%s); trace hash %016llx\n", static_cast<unsigned long long>(seed),
                   o.passed ? "passed" : ("FAILED: " + o.why).c_str(), o.faults.description.c_str(),
                   static_cast<unsigned long long>(o.report.trace_hash));
    if (!o.passed) {
      n.failures.push_back(absl::StrCat("seed ", seed, ": ", o.why, "\n  replay: ", o.replay));
      if (c.verbose) std::fprintf(out, "--- clients\n%s--- log\n%s---\n", s.client_output.c_str(), s.log.c_str());
      // A run that happened, broke a check, and had faults to take out.
      if (c.shrink_runs > 0 && o.report.trace_hash != 0 && shrink_seed(*t, programs, base, c, &s.outcome)) {
        const std::string line = absl::StrFormat("  shrunk to %d of its %d faults (%d runs%s): %s\n  replay shrunk: %s",
                                                 o.faults_after, o.faults_before, o.shrink_runs,
                                                 o.shrink_exhausted ? ", stopped at --shrink_runs" : "",
                                                 o.shrunk_faults.description, o.shrunk_replay);
        std::fprintf(out, "%s\n", line.c_str());
        absl::StrAppend(&n.failures.back(), "\n", line);
      }
    }
    if (c.replay_every != 0 && (seed - c.first_seed) % c.replay_every == 0 && o.report.trace_hash != 0) {
      const SeedRun again = run_seed(*t, programs, base, c, seed);
      ++n.replayed;
      if (again.outcome.report.trace_hash != o.report.trace_hash || again.outcome.passed != o.passed)
        n.failures.push_back(absl::StrFormat("seed %d did not replay: trace hash %016x, then %016x", seed,
                                             o.report.trace_hash, again.outcome.report.trace_hash));
    }
    outcomes.push_back(s.outcome);
    outcomes.back().report.history.clear();  // kept in the file (--history), not in memory for 10^4 seeds
    if (c.stop_at_failure && !n.failures.empty()) break;
    if (std::chrono::steady_clock::now() >= next_progress) {  // output only: not the runs
      next_progress += std::chrono::seconds(10);
      std::fprintf(stderr, "dst: %llu of %llu seeds, %zu failed\n", static_cast<unsigned long long>(n.runs),
                   static_cast<unsigned long long>(c.seeds), n.failures.size());
    }
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  std::fprintf(out,
               "dst: %llu seeds from %llu: %llu passed, %zu failed; %.3f modelled s in %.1f s of wall time (%.1f "
               "seeds/s), %llu frames, %llu lost on cut links, %llu crashes, %llu restarts, %llu history events; %llu "
               "replayed\n",
               static_cast<unsigned long long>(n.runs), static_cast<unsigned long long>(c.first_seed),
               static_cast<unsigned long long>(n.passed), n.failures.size(), n.modelled_s, wall_s,
               wall_s > 0 ? static_cast<double>(n.runs) / wall_s : 0.0,
               static_cast<unsigned long long>(n.frames), static_cast<unsigned long long>(n.cut_dropped),
               static_cast<unsigned long long>(n.crashes), static_cast<unsigned long long>(n.restarts),
               static_cast<unsigned long long>(n.events), static_cast<unsigned long long>(n.replayed));
  n.print_coverage(out);
  for (const std::string& f : n.failures) std::fprintf(out, "%s\n", f.c_str());
  return outcomes;
}

}  // namespace nanopu::sim
