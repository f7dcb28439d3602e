// nanopu/program_main.h: a service binary's main: one program live, a
// topology on the modelled clock (`sim`), or a fault campaign (`dst`).
#include "nanopu/program_main.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "nanopu/flags.h"
#include "runtime/program/run_live.h"
#include "runtime/simulation/mpi_peers.h"
#include "runtime/simulation/sim_flags.h"
#include "runtime/simulation/sim_run.h"
#include "runtime/simulation/topology.h"

namespace nanopu {
namespace sim {
namespace {

int fail(const char* who, const std::string& why, int code) {
  std::fprintf(stderr, "%s: %s\n", who, why.c_str());
  return code;
}

// The last path component: "nanopu-sim", or "my-service sim".
std::string basename_of(const std::string& argv0) {
  const size_t slash = argv0.rfind('/');
  return slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
}

int status_code(const absl::Status& s) { return s.code() == absl::StatusCode::kInvalidArgument ? 2 : 1; }

// The arguments as a shell line, leaving out the campaign's seed flags: the
// start of a failing seed's replay command.
std::string replay_prefix(int argc, char** argv) {
  std::string out = argv[0];
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (absl::StartsWith(a, "--first_seed") || absl::StartsWith(a, "--seeds") || absl::StartsWith(a, "--verbose"))
      continue;
    absl::StrAppend(&out, " ", a.find_first_of(" '\"$;&|") == std::string::npos ? a : "'" + a + "'");
  }
  return out;
}

}  // namespace

int sim_main(int argc, char** argv, const Programs& programs) {
  const std::string who_name = basename_of(argc > 0 ? argv[0] : "sim");
  const char* who = who_name.c_str();
  init_flags_usage(
      "run every host of a topology on one modelled clock.\n"
      "  sim TOPOLOGY [--sim_seed=N] [--cut=...] [--crash=...] [--history=FILE] [--sim_threads=N]\n"
      "  mpirun -np N ... sim TOPOLOGY ...   (the hosts split over N processes or machines)\n"
      "On any number of threads or ranks the run is the same, trace hash and all.\n"
      "The topology is deploy/netns/run.sh's (deploy/netns/topology.py has the format): each host\n"
      "line names its program and flags, and runs that program's real code. Prints each client's\n"
      "result (its times are modelled) and, last, the run's trace hash. Exit status: the worst\n"
      "client's (0 all answered, 3 some not), 1 a run that did not end, 2 a bad topology.",
      {"runtime/simulation/sim_flags.cc", "runtime/flags/program_flags.cc"});
  std::vector<char*> args = nanopu::parse_flags(argc, argv);
  // Under mpirun: this process is one rank, running its share of the hosts.
  absl::StatusOr<std::unique_ptr<MpiRanks>> mpi = MpiRanks::join();
  if (!mpi.ok()) return fail(who, std::string(mpi.status().message()), 2);
  model::SimPeers* peers = *mpi != nullptr ? (*mpi)->peers() : nullptr;
  const bool speaks = peers == nullptr || peers->rank() == 0;  // rank 0 prints the run
  if (args.size() != 2) return fail(who, "expected one topology file (--help)", 2);
  absl::StatusOr<Topology> topo = read_topology(args[1]);
  if (!topo.ok()) return fail(who, std::string(topo.status().message()), 2);
  absl::StatusOr<Options> o = options_from_flags();
  if (!o.ok()) return fail(who, std::string(o.status().message()), 2);
  const std::string model = check_model_flag();
  if (absl::Status s = check_model_known(model); !s.ok()) return fail(who, std::string(s.message()), 2);
  if (peers != nullptr && (!model.empty() || !o->history_path.empty()))
    return fail(who, "--history and --check: not across MPI ranks (each rank records only its own clients)", 2);
  absl::StatusOr<Report> r = run_topology(*topo, programs, *o, stdout, nullptr, peers);
  if (!r.ok()) return fail(who, std::string(r.status().message()), status_code(r.status()));
  if (!speaks) return !r->stalled.empty() || !r->ended ? 1 : r->exit_status;  // as rank 0's, below, in silence
  const std::string time_is =
      o->charge == Charge::kNone       ? "wires' time only (--charge=none)"
      : o->charge == Charge::kMeasured ? absl::StrCat("time counted (", o->timing_params, ") and measured (not replayable)")
                                       : absl::StrCat("time counted (", o->timing_params, ")");
  std::printf("%s: %zu hosts, seed %llu, %s: modelled %.6f s in %.2f s of wall time (%.1fx), %llu frames "
              "(%.0f/s of wall time), %llu instants, %llu windows on %d thread%s%s; trace hash %016llx\n",
              who, topo->hosts.size(), static_cast<unsigned long long>(o->seed), time_is.c_str(), r->modelled_s,
              r->wall_s, r->modelled_s > 0 ? r->wall_s / r->modelled_s : 0.0,
              static_cast<unsigned long long>(r->frames), r->wall_s > 0 ? static_cast<double>(r->frames) / r->wall_s : 0.0,
              static_cast<unsigned long long>(r->instants), static_cast<unsigned long long>(r->windows), r->threads,
              r->threads == 1 ? "" : "s", r->ranks > 1 ? absl::StrCat(" in each of ", r->ranks, " ranks").c_str() : "",
              static_cast<unsigned long long>(r->trace_hash));
  if (r->has_switch)
    std::printf("%s: switch forwarded %llu, trimmed %llu, tail-dropped %llu, control-dropped %llu, no route %llu\n",
                who, static_cast<unsigned long long>(r->switch_forwarded),
                static_cast<unsigned long long>(r->switch_trimmed),
                static_cast<unsigned long long>(r->switch_tail_dropped),
                static_cast<unsigned long long>(r->switch_control_dropped),
                static_cast<unsigned long long>(r->switch_no_route));
  if (r->forwarded_by_switch.size() > 1) {  // a fabric: where ECMP sent the frames
    std::printf("%s: forwarded by switch:", who);
    for (const auto& [name, n] : r->forwarded_by_switch)
      std::printf(" %s %llu", name.c_str(), static_cast<unsigned long long>(n));
    std::printf("\n");
  }
  if (!o->crashes.empty())
    std::printf("%s: %llu crashes, %llu restarts\n", who, static_cast<unsigned long long>(r->crashes),
                static_cast<unsigned long long>(r->restarts));
  if (!o->cuts.empty())
    std::printf("%s: %llu frames lost on cut links\n", who, static_cast<unsigned long long>(r->cut_dropped));
  if (!o->history_path.empty())
    std::printf("%s: history of %zu events in %s\n", who, r->history.size(), o->history_path.c_str());
  std::string broke;
  if (!model.empty()) {
    broke = linearizable(model)(*r);
    std::printf("%s: history of %zu events %s (model %s)\n", who, r->history.size(),
                broke.empty() ? "linearizable" : "NOT linearizable", model.c_str());
    if (!broke.empty()) std::printf("%s\n", broke.c_str());
  }
  std::printf("trace hash: %016llx\n", static_cast<unsigned long long>(r->trace_hash));
  if (!broke.empty()) return 1;
  if (!r->stalled.empty()) return fail(who, "the run " + r->stalled, 1);
  if (!r->ended)
    return fail(who, absl::StrCat("the clients had not finished after ", o->modelled_limit_s,
                                  " modelled s (--modelled_limit_s)"),
                1);
  return r->exit_status;
}

int dst_main(int argc, char** argv, const Programs& programs, const std::vector<NamedInvariant>& invariants) {
  const std::string who_name = basename_of(argc > 0 ? argv[0] : "dst");
  const char* who = who_name.c_str();
  const std::string usage = absl::StrCat(
      "deterministic simulation testing of a topology's programs under seeded faults.\n"
      "  dst TOPOLOGY [--seeds=100] [--first_seed=1] [--history=DIR] [--verbose] [--fault_*=...]\n"
      "Each seed draws a fault schedule — drops, duplicates, reordering and trimming on hosts'\n"
      "wires, partitions that heal, a server killed and restarted with its state directory, NDP or\n"
      "Homa, each kind on in half the seeds (swarm testing) — runs every host's real code on one\n"
      "modelled clock, and checks that the run ended, that no client saw a wrong or duplicated\n"
      "reply, that every client was answered again after the last fault healed (liveness), and the\n"
      "binary's own invariants. A failing seed's schedule is shrunk to the faults the failure needs\n"
      "(--shrink_runs) and printed with the command that replays it (--schedule). Exit status\n"
      "0: every seed passed; 1: a seed failed (its replay command is printed); 2: usage.\n"
      "This binary's invariants (--invariants): ", invariant_names(invariants), ".");
  init_flags_usage(usage.c_str(),
                   {"runtime/simulation/sim_flags.cc", "runtime/flags/program_flags.cc", "tools/simulator/dst_main.cc"});
  const std::string prefix = replay_prefix(argc, argv);
  std::vector<char*> args = nanopu::parse_flags(argc, argv);
  if (args.size() != 2) return fail(who, "expected one topology file (--help)", 2);
  absl::StatusOr<Options> o = options_from_flags();
  if (!o.ok()) return fail(who, std::string(o.status().message()), 2);
  o->history_path.clear();  // --history is the campaign's directory
  absl::StatusOr<Campaign> c = campaign_from_flags();
  if (!c.ok()) return fail(who, std::string(c.status().message()), 2);
  absl::StatusOr<std::vector<NamedInvariant>> chosen = chosen_invariants(invariants);
  if (!chosen.ok()) return fail(who, std::string(chosen.status().message()), 2);
  c->invariants = *std::move(chosen);
  c->replay_prefix = prefix;
  if (!c->history_dir.empty() && mkdir(c->history_dir.c_str(), 0755) != 0 && errno != EEXIST)
    return fail(who, absl::StrCat("--history: cannot make ", c->history_dir, ": ", std::strerror(errno)), 2);
  absl::StatusOr<std::vector<SeedOutcome>> r = run_campaign(args[1], programs, *o, *c, stdout);
  if (!r.ok()) return fail(who, std::string(r.status().message()), status_code(r.status()));
  for (const SeedOutcome& s : *r)
    if (!s.passed) return 1;
  return 0;
}

}  // namespace sim

namespace {

void print_help(const char* self, const Programs& programs) {
  std::printf("usage: %s PROGRAM [flags]        run one program on a live host\n"
              "       %s sim TOPOLOGY [flags]   every host of a topology on one modelled clock\n"
              "       %s dst TOPOLOGY [flags]   seeded fault campaign, invariants checked\n"
              "       %s PROGRAM --help | sim --help | dst --help\n"
              "programs:\n",
              self, self, self, self);
  for (const ProgramSpec& s : programs.all())
    std::printf("  %-16s %s%s\n", s.name.c_str(), s.help.c_str(), s.client ? " (a client)" : "");
}

}  // namespace

int program_main(int argc, char** argv, const Programs& programs, const std::vector<sim::NamedInvariant>& invariants) {
  const char* self = argc > 0 ? argv[0] : "program";
  if (argc < 2) {
    print_help(self, programs);
    return 2;
  }
  const std::string cmd = argv[1];
  if (cmd == "help" || cmd == "--help" || cmd == "-h") {
    print_help(self, programs);
    return 0;
  }
  // The command's own argv: argv[0] names both ("my-service sim").
  std::string name = absl::StrCat(self, " ", cmd);
  std::vector<char*> rest = {name.data()};
  for (int i = 2; i < argc; ++i) rest.push_back(argv[i]);
  const int n = static_cast<int>(rest.size());
  if (cmd == "sim") return sim::sim_main(n, rest.data(), programs);
  if (cmd == "dst") return sim::dst_main(n, rest.data(), programs, invariants);
  const ProgramSpec* spec = programs.find(cmd);
  if (spec == nullptr) {
    std::fprintf(stderr, "%s: no program '%s' (this binary has %s; or sim, dst, help)\n", self, cmd.c_str(),
                 programs.names().c_str());
    return 2;
  }
  if (spec->defaults) spec->defaults();
  const std::string usage = absl::StrCat(spec->help, "\n  ", self, " ", spec->name,
                                         " [nanopu's host flags: --vdev, --lcores, --backend, --ip, ...] [its own]");
  init_flags_usage(usage.c_str());
  nanopu::parse_flags(n, rest.data());
  return program::run_live(*spec);
}

}  // namespace nanopu
