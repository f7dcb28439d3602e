// nanopu-loadgen's program (nanopu/program.h): the load flags,
// one --service's client (cli/), its result, modelled column, summary and
// JSON at exit.
#include "tools/loadgen/loadgen_program.h"

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "absl/flags/flag.h"
#include "apps/loopback/loopback.h"
#include "lib/contract/clock.h"
#include "model/timing/calibration.h"
#include "nanopu/loadgen_main.h"
#include "nanopu/program_flags.h"
#include "runtime/client_main/load_flags.h"
#include "tools/loadgen/cli/service_cli.h"
#include "tools/loadgen/loadgen.h"

ABSL_FLAG(uint32_t, size, 64,
          "Request payload bytes (16..max_message_bytes). Words: service_time, sent_time, "
          "sequence number, then fill words that replies are checked against.");
ABSL_FLAG(double, service_ns, 0,
          "Service time asked of a 'service' server, in ns (sent as 3.2 GHz cycles, at least 1).");
ABSL_FLAG(double, service_long_ns, 0,
          "A bimodal service time: --service_long_fraction of the requests ask this many ns instead of "
          "--service_ns (the paper's JBSQ experiment, nanoPU OSDI'21 §5.2.3: 500 ns, and 0.5% of 5000 ns).");
ABSL_FLAG(double, service_long_fraction, 0, "The fraction of requests that ask --service_long_ns (0..1).");
ABSL_FLAG(std::string, expect, "echo",
          "Reply check: 'echo' (words equal the request's), 'increment' (each word + 1), 'none'.");
ABSL_FLAG(bool, shared_keys, false,
          "kv, chain, raft: other clients write these keys too. A read is then checked for being a whole "
          "value of its key, whoever wrote it; this client's versions carry --writer_id, so every value "
          "written is unique; and the order is the history's to hold (--history, checked by "
          "nanopu-lincheck or nanopu-dst).");
ABSL_FLAG(uint32_t, writer_id, 0,
          "With --shared_keys: this client's part of the versions it writes, 1..4095 (0: from its --ip).");
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

namespace nanopu::apps {
namespace {



// The load flags (nanopu/loadgen_main.h) and nanopu-loadgen's own into *o;
// an error line, or "".
std::string read_load_flags(const Config& config, LoadGenOptions* o) {
  absl::StatusOr<loadgen::Options> common = loadgen::options_from_flags(config);
  if (!common.ok()) return std::string(common.status().message());
  static_cast<loadgen::Options&>(*o) = *common;
  if (!o->more_servers.empty() || o->retry_rejected != 0)
    return "--more_servers and --retry_rejected are a client on calls' (nanopu/loadgen.h's CallLoad); "
           "nanopu-loadgen's services write their own messages to --server_ip";
  o->msg_bytes = absl::GetFlag(FLAGS_size);
  if (o->msg_bytes < 16 || o->msg_bytes > config.max_message_bytes)
    return "--size must be 16.." + std::to_string(config.max_message_bytes) +
           " (the payload carries service_time and sent_time)";
  const double service_ns = absl::GetFlag(FLAGS_service_ns);
  if (service_ns < 0) return "--service_ns must be >= 0";
  o->service_cycles = std::max<uint64_t>(1, static_cast<uint64_t>(service_ns * kServiceCyclesPerNs));
  const double long_ns = absl::GetFlag(FLAGS_service_long_ns), long_fraction = absl::GetFlag(FLAGS_service_long_fraction);
  if (long_ns < 0 || !(long_fraction >= 0 && long_fraction <= 1) || ((long_fraction > 0) != (long_ns > 0)))
    return "--service_long_ns (> 0) and --service_long_fraction (0..1) go together";
  o->service_long_cycles = std::max<uint64_t>(1, static_cast<uint64_t>(long_ns * kServiceCyclesPerNs));
  o->service_long_fraction = long_fraction;
  o->stop_server = absl::GetFlag(FLAGS_stop_server);
  o->shared_keys = absl::GetFlag(FLAGS_shared_keys);
  o->writer_id = absl::GetFlag(FLAGS_writer_id);
  if (o->writer_id == 0) o->writer_id = 1 + config.ip % 4095;
  if (o->writer_id > 4095) return "--writer_id: 1..4095 (12 bits of a version)";
  return "";
}

// --expect and --app_mode (after the service's own flags); an error line, or "".
std::string read_checks(const std::string& service, LoadGenOptions* o) {
  const std::string expect = absl::GetFlag(FLAGS_expect);
  if (expect == "echo") o->expect = Expect::kEcho;
  else if (expect == "increment") o->expect = Expect::kIncrement;
  else if (expect == "none") o->expect = Expect::kNone;
  else return "--expect: use echo, increment or none";
  const std::optional<MessagePath> path = parse_app_mode(absl::GetFlag(FLAGS_app_mode));
  if (!path) return "--app_mode: use register-file or traditional";
  if (*path == MessagePath::kMemory && service != "echo")
    return "--app_mode=traditional: only --service=echo has a traditional client (for the compute services the "
           "server's path is what differs: nanopu-server --app_mode, and --compute_path=memory here for the "
           "modelled column)";
  o->path = *path;
  return "";
}

// The modelled column: from this run's replies where the service allows it
// and the start-up calibration ran; else from the declared work.
void attach_model(const ServiceCli& cli, const std::string& service,
                  const std::optional<model::HostCosts>& costs, const model::TimingParams& timing,
                  LoadGenOptions* o, LoadGenResult* result) {
  std::string why_not = "--calibrate=false";
  if (const std::optional<MeasuredService> ms = cli.measured_service(*o); ms && costs)
    result->modelled = model_measured(*o, *result, *ms, *costs, timing, &why_not);
  else if (!ms)
    why_not = "--service=" + service + " has no per-message model (its replies do not come from the core "
              "that served the request, or carry several hops)";
  if (result->modelled.how.empty()) {
    result->modelled = cli.model(o, result->received, timing);
    if (!result->modelled.how.empty()) result->modelled.how += "; not per message: " + why_not;
  }
}


class LoadgenProgram final : public Program {
 public:
  LoadgenProgram(const Config& config, History* history) : config_(config), history_(history) {}

  // The flags into this program: "" or the line naming the bad one.
  std::string configure() {
    if (std::string bad = read_load_flags(config_, &o_); !bad.empty()) return bad;
    o_.history = history_;
    service_ = absl::GetFlag(FLAGS_service);
    cli_ = make_service_cli(service_);
    if (!cli_)
      return "--service: use echo, kv, chain, rdma, raft, dot, setint, hdsearch, nbody, classifier, int, "
             "othello, tester-throughput or tester-service";
    if (std::string error = cli_->configure(config_, &o_); !error.empty()) return error;
    if (std::string bad = read_checks(service_, &o_); !bad.empty()) return bad;
    absl::StatusOr<model::TimingParams> timing = loadgen::timing_from_flags();
    if (!timing.ok()) return std::string(timing.status().message());
    timing_ = *timing;
    json_path_ = loadgen::json_path_flag();
    calibrate_ = loadgen::calibrate_flag();
    stats_ = loadgen::stats_flag();
    return "";
  }

  absl::Status spawn(Runtime& rt) override {
    // Under a modelled clock (nanopu-sim) the round trips are modelled time
    // already: nothing of this host to calibrate.
    modelled_clock_ = clock::is_virtual();
    if (!modelled_clock_) cal_ = loadgen::calibrate_if(calibrate_, timing_, "nanopu-loadgen");
    return rt.spawn([this](Thread& th) {
                cli_->run(th, o_, &result_);
                finished_ = true;
              })
        .status();
  }
  bool finished() const override { return finished_; }
  const loadgen::Result* load_result() const override { return finished_ ? &result_ : nullptr; }
  int report(Runtime& rt, FILE* out) override {
    if (!result_.error.empty()) {
      std::fprintf(stderr, "nanopu-loadgen: %s\n", result_.error.c_str());
      return 1;
    }
    if (!modelled_clock_) attach_model(*cli_, service_, cal_.costs, timing_, &o_, &result_);
    result_.host_noise = rt.host_noise();
    print_result(out, o_, result_);
    if (const std::string line = cli_->summary(); !line.empty()) std::fprintf(out, "%s\n", line.c_str());
    if (stats_) rt.print_stats(stderr);
    if (!json_path_.empty() && !loadgen::write_json(json_path_, result_json(o_, result_), cli_->json(), cal_.json)) {
      std::fprintf(stderr, "nanopu-loadgen: cannot write --json file %s\n", json_path_.c_str());
      return 1;
    }
    return result_.clean() ? 0 : 3;
  }

 private:
  Config config_;
  History* history_;
  LoadGenOptions o_;
  std::string service_, json_path_;
  std::unique_ptr<ServiceCli> cli_;
  model::TimingParams timing_;
  loadgen::Calibration cal_;
  LoadGenResult result_;
  bool stats_ = false, calibrate_ = true, finished_ = false, modelled_clock_ = false;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Program>> make_loadgen_program(const Config& config, History* history) {
  auto p = std::make_unique<LoadgenProgram>(config, history);
  if (std::string bad = p->configure(); !bad.empty()) return absl::InvalidArgumentError(bad);
  return p;
}

}  // namespace nanopu::apps
