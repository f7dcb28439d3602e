// nanopu/loadgen_main.h: a client program's main, from flags to exit status.
#include <cstdio>
#include <memory>
#include <string>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "model/timing/timing_model.h"
#include "nanopu/flags.h"
#include "nanopu/loadgen_main.h"
#include "nanopu/runtime.h"
#include "runtime/loadgen/load_flags.h"
#include "runtime/loadgen/measured_model.h"
#include "runtime/loadgen/modelled_service.h"


namespace nanopu::loadgen {
namespace {

int fail(const ClientProgram& p, const std::string& why, int code) {
  std::fprintf(stderr, "%s: %s\n", p.name.c_str(), why.c_str());
  return code;
}

// The declared kinds as the model's: each kind's sizes and work.
ModelledLatency model_declared(const ClientProgram& p, const Options& o, uint64_t samples,
                               const model::TimingParams& t) {
  const std::vector<DeclaredKind> kinds = p.declared ? p.declared() : std::vector<DeclaredKind>{};
  if (kinds.empty()) return {};
  const model::TimingModel m(t);
  ModelledService s;
  for (const DeclaredKind& k : kinds)
    s.kinds.push_back(rpc_kind(m, k.share, k.request_bytes, k.reply_bytes, k.work_ns * t.clock_ghz));
  s.cores = p.server_cores;
  s.jbsq = p.server_jbsq;
  s.how = absl::StrFormat("%s, declared work of %zu kind(s)", p.what.empty() ? "requests" : p.what,
                          kinds.size());
  return model_service(s, o, samples, t);
}

// From this run's replies when they carry the server's core time and the
// host was calibrated; else from the declared kinds; else none.
void attach_model(const ClientProgram& p, const Options& o, const Calibration& cal,
                  const model::TimingParams& t, Result* r) {
  std::string why_not = "--calibrate=false";
  if (cal.costs) {
    const MeasuredService ms{p.server_cores, p.server_jbsq, p.what.empty() ? "requests" : p.what};
    r->modelled = model_measured(o, *r, ms, *cal.costs, t, &why_not);
  }
  if (!r->modelled.how.empty()) return;
  r->modelled = model_declared(p, o, r->received, t);
  if (!r->modelled.how.empty()) r->modelled.how += "; not per message: " + why_not;
}

}  // namespace

int client_main(int argc, char** argv, const ClientProgram& p) {
  set_client_defaults();
  const std::string usage =
      (p.usage.empty() ? "drive a nanopu service with load" : p.usage) +
      "\nLoad: closed loop (--outstanding) or open loop (--rate, Poisson), --count or --duration; "
      "--json for tools/plot_latency.py.\n"
      "Exit status: 0 every request answered and right, 3 some lost, given up or wrong, 1/2 errors.";
  init_flags_usage(usage.c_str());
  absl::ParseCommandLine(argc, argv);
  if (!p.make_load) return fail(p, "ClientProgram.make_load is not set", 1);
  absl::StatusOr<Config> config = Config::from_flags();
  if (!config.ok()) return fail(p, std::string(config.status().message()), 2);
  absl::StatusOr<Options> o = options_from_flags(*config);
  if (!o.ok()) return fail(p, std::string(o.status().message()), 2);
  if (p.configure)
    if (const std::string bad = p.configure(*config, &*o); !bad.empty()) return fail(p, bad, 2);
  absl::StatusOr<model::TimingParams> timing = timing_from_flags();
  if (!timing.ok()) return fail(p, std::string(timing.status().message()), 2);
  if (check_flags_flag()) return 0;  // every flag checked; nothing started
  absl::StatusOr<std::unique_ptr<Runtime>> rt = Runtime::create(*config);
  if (!rt.ok()) return fail(p, std::string(rt.status().message()), 1);
  const Calibration cal = calibrate_if_asked(*timing, p.name);
  Result result;
  absl::StatusOr<Thread*> t = (*rt)->spawn([&](Thread& th) {
    if (absl::Status s = th.bind(o->context); !s.ok()) {
      result.error = std::string(s.message());
      return;
    }
    std::unique_ptr<Load> load = p.make_load(th, *o, &result);
    if (load == nullptr) {
      result.error = "make_load returned no load";
      return;
    }
    load->run();
  });
  if (!t.ok()) return fail(p, std::string(t.status().message()), 1);
  Runtime::install_signal_handlers();
  if (absl::Status s = (*rt)->run(); !s.ok()) return fail(p, std::string(s.message()), 1);
  if (!result.error.empty()) return fail(p, result.error, 1);
  attach_model(p, *o, cal, *timing, &result);
  print(stdout, *o, result, p.what.empty() ? "load" : p.what);
  if (p.summary)
    if (const std::string line = p.summary(); !line.empty()) std::printf("%s\n", line.c_str());
  if (stats_flag()) (*rt)->print_stats(stderr);
  if (const std::string path = json_path_flag(); !path.empty() &&
      !write_json(path, json(*o, result), p.json_members ? p.json_members() : "", cal.json))
    return fail(p, "cannot write --json file " + path, 1);
  return result.clean() ? 0 : 3;
}

}  // namespace nanopu::loadgen
