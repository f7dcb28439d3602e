// nanopu-loadgen: open- or closed-loop load against a nanopu (or nanoPU) server.
#include <cstdio>
#include <fstream>
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
#include "nanopu/runtime.h"

ABSL_DECLARE_FLAG(std::string, ip);

ABSL_FLAG(bool, check_flags, false,
          "Check every flag, then exit: 0 if they are all good, 2 with one line naming the bad "
          "one (deployment scripts validate a topology this way; nothing is started).");
ABSL_FLAG(std::string, server_ip, "10.0.0.1", "Server's IPv4 address.");
ABSL_FLAG(uint32_t, server_context, 1, "Server's context (L4 port).");
ABSL_FLAG(uint32_t, context, 2, "This client's context: replies arrive here.");
ABSL_FLAG(uint32_t, size, 64,
          "Request payload bytes (16..max_message_bytes). Words: service_time, sent_time, "
          "sequence number, then fill words that replies are checked against.");
ABSL_FLAG(double, rate, 0,
          "Open loop: Poisson arrivals at this many requests/s. 0 = closed loop.");
ABSL_FLAG(uint32_t, outstanding, 1, "Closed loop: requests kept in flight.");
ABSL_FLAG(uint64_t, count, 0, "Requests to send; 0 = run for --duration.");
ABSL_FLAG(double, duration, 5, "Seconds to send for (when --count is 0).");
ABSL_FLAG(double, service_ns, 0,
          "Service time asked of a 'service' server, in ns (sent as 3.2 GHz cycles, at least 1).");
ABSL_FLAG(std::string, expect, "echo",
          "Reply check: 'echo' (words equal the request's), 'increment' (each word + 1), 'none'.");
ABSL_FLAG(double, drain_timeout, 1,
          "Seconds without any reply after which in-flight requests count as lost (and, "
          "at the end, how long to wait for the last replies).");
ABSL_FLAG(std::string, json, "", "Also write the result as JSON to this file ('-' = stdout).");
ABSL_FLAG(bool, progress, true, "Print one progress line per second on runs longer than 2 s.");
ABSL_FLAG(bool, stop_server, false,
          "At the end, send service_time 0, which ends a 'service' server's thread.");
ABSL_FLAG(uint64_t, seed, 1, "Seed of the Poisson arrival process.");
ABSL_FLAG(bool, stats, false, "Print the client host's NIC and thread counters on exit.");
ABSL_FLAG(std::string, timing_params, "osdi21",
          "Parameter set of the modelled nanoPU latencies printed beside the measured ones "
          "(model): osdi21 (17/69 ns fast path, nanoPU OSDI'21) or tail (13/65 ns, the tail-latency version).");
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
ABSL_FLAG(bool, calibrate, true,
          "At start-up, measure this host's thread switch, FIFO hand-off, header and register-file "
          "API costs and print them beside the modelled hardware's (about 15 ms). The modelled "
          "column is built from this run's replies only with it (the API cost is taken out of "
          "each reply's measured server time); without it, from the service's declared work.");

namespace {

int fail(const std::string& msg, int code = 2) {
  std::fprintf(stderr, "nanopu-loadgen: %s\n", msg.c_str());
  return code;
}

// The load's common flags into *o; an error line, or "".
std::string read_load_flags(const nanopu::Config& config, nanopu::apps::LoadGenOptions* o) {
  const std::optional<uint32_t> server_ip = nanopu::parse_ipv4(absl::GetFlag(FLAGS_server_ip));
  if (!server_ip) return "--server_ip: expected a.b.c.d";
  o->server_ip = *server_ip;
  if (absl::GetFlag(FLAGS_server_context) > 0xffff || absl::GetFlag(FLAGS_context) > 0xffff)
    return "--server_context and --context must be < 65536";
  o->server_context = static_cast<uint16_t>(absl::GetFlag(FLAGS_server_context));
  o->context = static_cast<uint16_t>(absl::GetFlag(FLAGS_context));
  o->msg_bytes = absl::GetFlag(FLAGS_size);
  if (o->msg_bytes < 16 || o->msg_bytes > config.max_message_bytes)
    return "--size must be 16.." + std::to_string(config.max_message_bytes) +
           " (the payload carries service_time and sent_time)";
  o->rate = absl::GetFlag(FLAGS_rate);
  if (o->rate < 0) return "--rate must be >= 0";
  o->outstanding = absl::GetFlag(FLAGS_outstanding);
  if (o->outstanding == 0 || o->outstanding >= config.fifo_messages)
    return "--outstanding must be 1.." + std::to_string(config.fifo_messages - 1) + " (below --fifo_messages)";
  o->count = absl::GetFlag(FLAGS_count);
  o->duration_s = absl::GetFlag(FLAGS_duration);
  if (o->count == 0 && o->duration_s <= 0) return "give --count or a positive --duration";
  const double service_ns = absl::GetFlag(FLAGS_service_ns);
  if (service_ns < 0) return "--service_ns must be >= 0";
  o->service_cycles = std::max<uint64_t>(1, static_cast<uint64_t>(service_ns * nanopu::apps::kServiceCyclesPerNs));
  o->drain_timeout_s = absl::GetFlag(FLAGS_drain_timeout);
  o->progress = absl::GetFlag(FLAGS_progress);
  o->stop_server = absl::GetFlag(FLAGS_stop_server);
  o->seed = absl::GetFlag(FLAGS_seed);
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

// --json: the result, the service's members and the calibration; false if it cannot be written.
bool write_json(const std::string& path, const std::string& result_json, const std::string& service_json,
                const std::string& calibration_json) {
  std::string js = result_json;
  js.insert(js.size() - 1, service_json);
  if (!calibration_json.empty()) js.insert(js.size() - 1, ",\"calibration\":" + calibration_json);
  js += "\n";
  if (path == "-") {
    std::fputs(js.c_str(), stdout);
    return true;
  }
  std::ofstream f(path);
  f << js;
  return static_cast<bool>(f);
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
  absl::StatusOr<nanopu::model::TimingParams> timing =
      nanopu::model::builtin_timing_params(absl::GetFlag(FLAGS_timing_params));
  if (!timing.ok()) return fail("--timing_params: " + std::string(timing.status().message()));
  if (absl::GetFlag(FLAGS_check_flags)) return 0;  // every flag checked; nothing started
  absl::StatusOr<std::unique_ptr<nanopu::Runtime>> rt = nanopu::Runtime::create(*config);
  if (!rt.ok()) return fail(std::string(rt.status().message()), 1);
  std::string calibration_json;
  std::optional<nanopu::model::HostCosts> costs;
  if (absl::GetFlag(FLAGS_calibrate)) {
    const nanopu::model::TimingModel model(*timing);
    costs = nanopu::model::calibrate_host();
    std::fprintf(stderr, "nanopu-loadgen: %s\n", nanopu::model::describe_calibration(*costs, model).c_str());
    calibration_json = nanopu::model::calibration_json(*costs, model);
  }
  nanopu::apps::LoadGenResult result;
  absl::StatusOr<nanopu::Thread*> t = (*rt)->spawn([&](nanopu::Thread& th) { cli->run(th, o, &result); });
  if (!t.ok()) return fail(std::string(t.status().message()), 1);
  nanopu::Runtime::install_signal_handlers();
  if (absl::Status s = (*rt)->run(); !s.ok()) return fail(std::string(s.message()), 1);
  if (!result.error.empty()) return fail(result.error, 1);
  attach_model(*cli, service, costs, *timing, &o, &result);
  nanopu::apps::print_result(stdout, o, result);
  if (const std::string line = cli->summary(); !line.empty()) std::printf("%s\n", line.c_str());
  if (absl::GetFlag(FLAGS_stats)) (*rt)->print_stats(stderr);
  if (const std::string path = absl::GetFlag(FLAGS_json); !path.empty() &&
      !write_json(path, nanopu::apps::result_json(o, result), cli->json(), calibration_json))
    return fail("cannot write --json file " + path);
  const bool clean = result.lost == 0 && result.given_up == 0 && result.bad_replies == 0 &&
                     result.duplicates == 0 && result.received > 0;
  return clean ? 0 : 3;
}
