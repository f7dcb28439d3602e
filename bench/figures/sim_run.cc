#include "bench/figures/sim_run.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/simulation/simulation.h"
#include "runtime/simulation/topology.h"
#include "tools/simulator/builtin_programs.h"

namespace nanopu::figures {

std::string pair_topology(const std::string& server, const std::string& client) {
  return absl::StrCat("host srv 10.0.0.1 02:00:00:00:00:01 server ", server, "\n",
                      "host cli 10.0.0.2 02:00:00:00:00:02 loadgen ", client, "\n", "link srv cli\n");
}

std::string server_ip(size_t i) { return absl::StrCat("10.0.0.", i == 0 ? 1 : i + 2); }

std::string members(size_t n, int context) {
  std::string s;
  for (size_t i = 0; i < n; ++i) absl::StrAppend(&s, i ? "," : "", server_ip(i), ":", context);
  return s;
}

std::string closed_loop(uint64_t count) {
  return absl::StrCat(" --count=", count, " --outstanding=1 --progress=false");
}

ServiceTopology raft_topology(size_t servers, uint64_t count) {
  const std::string cluster = members(servers, 5);
  return {star_topology(servers, "--app=raft --context=5 --raft_cluster=" + cluster,
                        "--service=raft --raft_cluster=" + cluster + " --raft_keys=1000 --raft_put_fraction=1" +
                            closed_loop(count)),
          Net{300, 43.75}};
}

ServiceTopology chain_topology(uint64_t count) {
  const std::string chain = members(3, 5);
  return {star_topology(3, "--app=chain --context=5 --chain=" + chain,
                        "--service=chain --context=7 --chain=" + chain +
                            " --chain_keys=10000 --chain_write_fraction=1" + closed_loop(count)),
          Net{0, 43.75}};
}

ServiceTopology rdma_topology(const std::string& mode, uint64_t count) {
  return {star_topology(1, "--app=rdma", "--service=rdma --rdma_mode=" + mode + closed_loop(count)),
          Net{300 - 2 * 43.75, 43.75}};
}

std::string star_topology(size_t n, const std::string& server, const std::string& client) {
  std::string t = "switch sw\n";
  for (size_t i = 0; i < n; ++i)
    absl::StrAppend(&t, "host s", i, " ", server_ip(i), " 02:00:00:00:00:", absl::Hex(i + 16, absl::kZeroPad2),
                    " server ", server, "\n");
  absl::StrAppend(&t, "host client 10.0.0.2 02:00:00:00:00:02 loadgen ", client, "\n");
  for (size_t i = 0; i < n; ++i) absl::StrAppend(&t, "link s", i, " sw\n");
  return t + "link client sw\n";
}

SimRun simulate(const FigureOptions& o, const std::string& name, const std::string& text, const Net& net,
                Charge charge, double modelled_limit_s) {
  SimRun run;
  if (!model_eal()) {
    run.error = "DPDK's EAL did not start";
    return run;
  }
  absl::StatusOr<sim::Topology> t = sim::parse_topology("<" + name + ">", text);
  if (!t.ok()) {
    run.error = std::string(t.status().message());
    return run;
  }
  sim::SimParams p;
  p.programs = &sim::builtin_programs();
  p.seed = o.seed;
  p.wire_latency_ns = net.link_latency_ns;
  p.switch_latency_ns = net.switch_latency_ns;
  p.progress = false;
  p.counted = charge != Charge::kWiresOnly;
  p.measured = charge == Charge::kMeasured;
  p.timing = o.params;
  p.modelled_limit_s = modelled_limit_s;
  const size_t nodes = t->hosts.size() + t->switches.size();
  p.threads = static_cast<int>(std::min<size_t>(static_cast<size_t>(o.sim_threads), nodes));
  sim::Simulation s(*t, p);
  if (absl::Status st = s.build(); !st.ok()) {
    run.error = std::string(st.message());
    return run;
  }
  std::FILE* sink = std::fopen("/dev/null", "w");  // the clients' own result lines
  const sim::SimReport r = s.run(sink != nullptr ? sink : stderr);
  if (sink != nullptr) std::fclose(sink);
  run.trace_hash = r.trace_hash;
  run.wall_s = r.wall_s;
  if (!r.ended || r.exit_status != 0 || r.clients.empty()) {
    run.error = absl::StrFormat("%s: the run %s (exit status %d)", name,
                                r.ended ? "ended with replies lost or wrong" : "did not end", r.exit_status);
    return run;
  }
  run.result = r.clients.front().result;
  for (const sim::SimClientResult& c : r.clients) run.clients.push_back(c.result);
  run.ok = true;
  return run;
}

}  // namespace nanopu::figures
