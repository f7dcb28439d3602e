#include "lib/base/sim_actor.h"
#include "runtime/simulation/sim_hosts.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "nanopu/seeded_draw.h"
#include "lib/contract/clock.h"
#include "nanopu/flags.h"
#include "nanopu/program_flags.h"
#include "runtime/program/host_flags.h"
#include "runtime/simulation/streams.h"

ABSL_DECLARE_FLAG(uint32_t, mbufs);
ABSL_DECLARE_FLAG(bool, progress);  // a client's (runtime/client_main)

namespace nanopu::sim {
namespace {

// A host's boot within the first microsecond, from the seed: hosts of a
// real cluster do not boot at one instant, and another seed is another run.
uint64_t start_offset_ticks(uint64_t seed, size_t index) {
  return stream_seed(seed, kBootStream + index) % (clock::hz() / 1'000'000 + 1);  // up to 1 us
}

// The host's state directory under the run's, made once (a restart keeps it).
absl::StatusOr<std::string> state_dir_of(const SimHostContext& ctx, const TopologyHost& h) {
  if (ctx.state_root.empty()) return std::string();
  const std::string dir = ctx.state_root + "/" + h.name;
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return absl::InternalError(absl::StrCat("cannot make the state directory ", dir, ": ", std::strerror(errno)));
  return dir;
}

absl::StatusOr<SimHost> make_host(const TopologyHost& h, const SimHostContext& ctx, uint64_t seed, size_t index) {
  const ProgramSpec* spec = ctx.programs->find(h.program);
  if (spec == nullptr)
    return absl::InvalidArgumentError(
        absl::StrCat("no program '", h.program, "' in this binary (it has ", ctx.programs->names(), ")"));
  program::FlagScope scope;
  // The program's defaults, then every host's in a simulation, then its
  // line: a host's counters only when asked for (--stats: the summary is
  // the clients'), a client's progress lines likewise (the simulation has
  // its own), small pools (many hosts share one process's memory), its
  // seed from the run's.
  if (spec->defaults) spec->defaults();
  absl::SetFlag(&FLAGS_stats, false);
  absl::SetFlag(&FLAGS_progress, false);
  absl::SetFlag(&FLAGS_mbufs, 4095);
  absl::SetFlag(&FLAGS_seed, stream_seed(seed, kHostStream + index));  // unless its line gives one
  for (const std::string& f : h.flags)
    if (absl::Status s = program::set_program_flag(*spec, f, /*simulated=*/true); !s.ok()) return s;
  absl::StatusOr<Config> config = Config::from_flags();
  if (!config.ok()) return config.status();
  config->ip = h.ip;
  if (config->lcores.size() != 1 || config->lcores.front() != 0)
    return absl::InvalidArgumentError("--lcores: one core per host in virtual time");
  config->telemetry = false;
  config->link_wait_s = 0;
  SimHost host;
  host.topo = &h;
  host.index = index;
  host.config = *config;
  absl::StatusOr<std::string> dir = state_dir_of(ctx, h);
  if (!dir.ok()) return dir.status();
  host.state_dir = *dir;
  ProgramArgs args;
  args.config = *config;
  args.host = h.name;
  args.seed = absl::GetFlag(FLAGS_seed);
  args.history = ctx.history;
  args.state_dir = host.state_dir;
  args.simulated = true;
  absl::StatusOr<std::unique_ptr<Program>> p = spec->make(args);
  if (!p.ok()) return absl::Status(p.status().code(), absl::StrCat("program ", spec->name, ": ", p.status().message()));
  if (*p == nullptr) return absl::InternalError("program " + spec->name + ": its factory made nothing");
  host.program = std::move(*p);
  host.client = spec->client;
  host.start_at_ticks = start_offset_ticks(seed, index);
  return host;
}

}  // namespace

absl::StatusOr<SimHost> make_sim_host(const Topology& t, const SimHostContext& ctx, size_t index, uint64_t seed) {
  const TopologyHost& h = t.hosts[index];
  set_sim_actor(index + 1);  // its program is made as this host (what it opens is its own)
  absl::StatusOr<SimHost> host = make_host(h, ctx, seed, index);
  if (!host.ok())
    return absl::Status(host.status().code(),
                        absl::StrCat(t.path, ":", h.line, ": host ", h.name, ": ", host.status().message()));
  return host;
}

absl::StatusOr<std::vector<SimHost>> make_sim_hosts(const Topology& t, const SimHostContext& ctx, uint64_t seed) {
  std::vector<SimHost> hosts;
  for (size_t i = 0; i < t.hosts.size(); ++i) {
    absl::StatusOr<SimHost> host = make_sim_host(t, ctx, i, seed);
    if (!host.ok()) return host.status();
    hosts.push_back(std::move(*host));
  }
  return hosts;
}

}  // namespace nanopu::sim
