// nanopu-loadgen: open- or closed-loop load against a nanopu (or nanoPU) server.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "tools/loadgen/cli/service_cli.h"
#include "tools/loadgen/loadgen.h"
#include "apps/loopback/loopback.h"
#include "model/timing/calibration.h"
#include "nanopu/address.h"
#include "nanopu/flags.h"
#include "nanopu/loadgen_main.h"
#include "nanopu/runtime.h"
#include "runtime/loadgen/load_flags.h"

ABSL_DECLARE_FLAG(std::string, ip);

ABSL_FLAG(uint32_t, size, 64,
          "Request payload bytes (16..max_message_bytes). Words: service_time, sent_time, "
          "sequence number, then fill words that replies are checked against.");
ABSL_FLAG(double, service_ns, 0,
          "Service time asked of a 'service' server, in ns (sent as 3.2 GHz cycles, at least 1).");
ABSL_FLAG(std::string, expect, "echo",
          "Reply check: 'echo' (words equal the request's), 'increment' (each word + 1), 'none'.");
ABSL_FLAG(bool, stop_server, false,
          "At the end, send service_time 0, which ends a 'service' server's thread.");
ABSL_FLAG(std::string, service, "echo",
          "What the server runs: 'echo' (echo/increment/service apps: --size, --expect) or 'kv' "
          "(nanopu-server --app=kv or kv-naive: GET/SET of 16-byte keys and 512-byte values, "
          "every reply checked against what this client wrote), or 'chain' (replicas running "
          "nanopu-server --app=chain, listed in --chain: WRITEs of 16-byte keys and 64-byte "
          "values to the head, READs at the tail, every reply checked), or 'rdma' (one-sided "
          "operations on nanopu-server --app=rdma: see --rdma_mode), or 'raft' (PUT/GET through "
          "the leader of --raft_cluster, every reply checked), or 'dot' (nanopu-server --app=dot "
          "or dot-naive: dot products of --dot_words indices, every result checked), or the compute "
          "services 'setint' (set intersection over --setint_corpus), 'hdsearch' (nearest "
          "neighbour), 'nbody' (Barnes-Hut node forces), 'classifier' (5-tuple rules) and 'int' "
          "(INT telemetry collector), each reply checked against a reference computed here, or "
          "'tester-throughput' (nanopu-server --app=loopback-throughput: the packet tester's "
          "CONFIG, then --count DATA of --size bytes, each echo checked), or 'tester-service' (the "
          "same against --app=service-tester, --service_ns per DATA), or 'othello' (nanopu-server "
          "--app=othello: MAPs searched --othello_depth plies, each minimax checked against a plain "
          "search here).");
ABSL_FLAG(std::string, app_mode, "register-file",
          "--service=echo: the client's own message path, 'register-file' (a word at a time "
          "through the FIFOs, the nanoPU's path) or 'traditional' (each request built in memory "
          "and handed over whole, each reply copied whole into memory; nanopu/memory_message.h). "
          "The server's path is its own --app_mode.");

namespace {

int fail(const std::string& msg, int code = 2) {
  std::fprintf(stderr, "nanopu-loadgen: %s\n", msg.c_str());
  return code;
}

// The load flags (nanopu/loadgen_main.h) and nanopu-loadgen's own into *o;
// an error line, or "".
std::string read_load_flags(const nanopu::Config& config, nanopu::apps::LoadGenOptions* o) {
  absl::StatusOr<nanopu::loadgen::Options> common = nanopu::loadgen::options_from_flags(config);
  if (!common.ok()) return std::string(common.status().message());
  static_cast<nanopu::loadgen::Options&>(*o) = *common;
  o->msg_bytes = absl::GetFlag(FLAGS_size);
  if (o->msg_bytes < 16 || o->msg_bytes > config.max_message_bytes)
    return "--size must be 16.." + std::to_string(config.max_message_bytes) +
           " (the payload carries service_time and sent_time)";
  const double service_ns = absl::GetFlag(FLAGS_service_ns);
  if (service_ns < 0) return "--service_ns must be >= 0";
  o->service_cycles = std::max<uint64_t>(1, static_cast<uint64_t>(service_ns * nanopu::apps::kServiceCyclesPerNs));
  o->stop_server = absl::GetFlag(FLAGS_stop_server);
  return "";
}

// --expect and --app_mode (after the service's own flags); an error line, or "".
std::string read_checks(const std::string& service, nanopu::apps::LoadGenOptions* o) {
  const std::string expect = absl::GetFlag(FLAGS_expect);
  if (expect == "echo") o->expect = nanopu::apps::Expect::kEcho;
  else if (expect == "increment") o->expect = nanopu::apps::Expect::kIncrement;
  else if (expect == "none") o->expect = nanopu::apps::Expect::kNone;
  else return "--expect: use echo, increment or none";
  const std::optional<nanopu::apps::MessagePath> path = nanopu::apps::parse_app_mode(absl::GetFlag(FLAGS_app_mode));
  if (!path) return "--app_mode: use register-file or traditional";
  if (*path == nanopu::apps::MessagePath::kMemory && service != "echo")
    return "--app_mode=traditional: only --service=echo has a traditional client (for the compute services the "
           "server's path is what differs: nanopu-server --app_mode, and --compute_path=memory here for the "
           "modelled column)";
  o->path = *path;
  return "";
}

// The modelled column: from this run's replies where the service allows it
// and the start-up calibration ran; else from the declared work.
void attach_model(const nanopu::apps::ServiceCli& cli, const std::string& service,
                  const std::optional<nanopu::model::HostCosts>& costs, const nanopu::model::TimingParams& timing,
                  nanopu::apps::LoadGenOptions* o, nanopu::apps::LoadGenResult* result) {
  std::string why_not = "--calibrate=false";
  if (const std::optional<nanopu::apps::MeasuredService> ms = cli.measured_service(*o); ms && costs)
    result->modelled = nanopu::apps::model_measured(*o, *result, *ms, *costs, timing, &why_not);
  else if (!ms)
    why_not = "--service=" + service + " has no per-message model (its replies do not come from the core "
              "that served the request, or carry several hops)";
  if (result->modelled.how.empty()) {
    result->modelled = cli.model(o, result->received, timing);
    if (!result->modelled.how.empty()) result->modelled.how += "; not per message: " + why_not;
  }
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetFlag(&FLAGS_ip, "10.0.0.2");  // the client's own address by default
  nanopu::init_flags_usage(
      "send requests to a nanopu server and report throughput and latency.\n"
      "Example (client end of a net_memif pair, on lcore 0):\n"
      "  nanopu-loadgen --lcores=0 --vdev='net_memif0,role=client,socket=/tmp/nanopu.sock' \\\n"
      "      --rate=100000 --duration=10 --json=out.json\n"
      "Exit status: 0 all replies arrived and checked, 3 some lost, given up or wrong, 1/2 errors.");
  absl::ParseCommandLine(argc, argv);
  absl::StatusOr<nanopu::Config> config = nanopu::Config::from_flags();
  if (!config.ok()) return fail(std::string(config.status().message()));
  nanopu::apps::LoadGenOptions o;
  if (std::string bad = read_load_flags(*config, &o); !bad.empty()) return fail(bad);
  const std::string service = absl::GetFlag(FLAGS_service);
  std::unique_ptr<nanopu::apps::ServiceCli> cli = nanopu::apps::make_service_cli(service);
  if (!cli)
    return fail("--service: use echo, kv, chain, rdma, raft, dot, setint, hdsearch, nbody, classifier, int, "
                "othello, tester-throughput or tester-service");
  if (const std::string error = cli->configure(*config, &o); !error.empty()) return fail(error);
  if (std::string bad = read_checks(service, &o); !bad.empty()) return fail(bad);
  absl::StatusOr<nanopu::model::TimingParams> timing = nanopu::loadgen::timing_from_flags();
  if (!timing.ok()) return fail(std::string(timing.status().message()));
  if (nanopu::loadgen::check_flags_flag()) return 0;  // every flag checked; nothing started
  absl::StatusOr<std::unique_ptr<nanopu::Runtime>> rt = nanopu::Runtime::create(*config);
  if (!rt.ok()) return fail(std::string(rt.status().message()), 1);
  const nanopu::loadgen::Calibration cal = nanopu::loadgen::calibrate_if_asked(*timing, "nanopu-loadgen");
  nanopu::apps::LoadGenResult result;
  absl::StatusOr<nanopu::Thread*> t = (*rt)->spawn([&](nanopu::Thread& th) { cli->run(th, o, &result); });
  if (!t.ok()) return fail(std::string(t.status().message()), 1);
  nanopu::Runtime::install_signal_handlers();
  if (absl::Status s = (*rt)->run(); !s.ok()) return fail(std::string(s.message()), 1);
  if (!result.error.empty()) return fail(result.error, 1);
  attach_model(*cli, service, cal.costs, *timing, &o, &result);
  nanopu::apps::print_result(stdout, o, result);
  if (const std::string line = cli->summary(); !line.empty()) std::printf("%s\n", line.c_str());
  if (nanopu::loadgen::stats_flag()) (*rt)->print_stats(stderr);
  if (const std::string path = nanopu::loadgen::json_path_flag(); !path.empty() &&
      !nanopu::loadgen::write_json(path, nanopu::apps::result_json(o, result), cli->json(), cal.json))
    return fail("cannot write --json file " + path);
  return result.clean() ? 0 : 3;
}
