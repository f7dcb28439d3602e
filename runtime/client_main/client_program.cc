// nanopu/loadgen_main.h: a client on the load engine as a program
// (nanopu/program.h): the load flags and the client's own read when it is
// made, the load on one thread, the result, the modelled column, JSON and
// the exit status at its report. client_main() runs one live.
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "lib/contract/clock.h"
#include "model/timing/timing_model.h"
#include "nanopu/flags.h"
#include "nanopu/loadgen_main.h"
#include "nanopu/program_flags.h"
#include "runtime/client_main/load_flags.h"
#include "runtime/client_main/measured_model.h"
#include "runtime/client_main/modelled_service.h"

namespace nanopu::loadgen {
namespace {

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

class ClientRunner final : public Program {
 public:
  explicit ClientRunner(ClientProgram p) : p_(std::move(p)) {}

  // The flags into this program: an InvalidArgument error names the bad one.
  absl::Status configure(const ProgramArgs& a) {
    if (!p_.make_load) return absl::InvalidArgumentError("ClientProgram.make_load is not set");
    absl::StatusOr<Options> o = options_from_flags(a.config);
    if (!o.ok()) return o.status();
    o_ = *o;
    o_.seed = a.seed == 0 ? 1 : a.seed;
    o_.history = a.history;
    if (p_.configure)
      if (const std::string bad = p_.configure(a.config, &o_); !bad.empty()) return absl::InvalidArgumentError(bad);
    absl::StatusOr<model::TimingParams> timing = timing_from_flags();
    if (!timing.ok()) return timing.status();
    timing_ = *timing;
    json_path_ = json_path_flag();
    calibrate_ = calibrate_flag();
    stats_ = stats_flag();
    return absl::OkStatus();
  }

  absl::Status spawn(Runtime& rt) override {
    // On the modelled clock the round trips are modelled already: nothing
    // of this host to calibrate.
    modelled_clock_ = clock::is_virtual();
    if (!modelled_clock_) cal_ = calibrate_if(calibrate_, timing_, p_.name);
    if (p_.beside)
      if (absl::StatusOr<Thread*> t = rt.spawn([this](Thread& th) { p_.beside(th); }); !t.ok()) return t.status();
    return rt.spawn([this](Thread& th) {
                run(th);
                finished_ = true;
              })
        .status();
  }
  bool finished() const override { return finished_; }
  const Result* load_result() const override { return finished_ ? &result_ : nullptr; }

  int report(Runtime& rt, FILE* out) override {
    if (!result_.error.empty()) {
      std::fprintf(stderr, "%s: %s\n", p_.name.c_str(), result_.error.c_str());
      return 1;
    }
    if (!modelled_clock_) attach_model(p_, o_, cal_, timing_, &result_);
    result_.host_noise = rt.host_noise();
    print(out, o_, result_, p_.what.empty() ? "load" : p_.what);
    if (p_.summary)
      if (const std::string line = p_.summary(); !line.empty()) std::fprintf(out, "%s\n", line.c_str());
    if (stats_) rt.print_stats(stderr);
    if (!json_path_.empty() &&
        !write_json(json_path_, json(o_, result_), p_.json_members ? p_.json_members() : "", cal_.json)) {
      std::fprintf(stderr, "%s: cannot write --json file %s\n", p_.name.c_str(), json_path_.c_str());
      return 1;
    }
    return result_.clean() ? 0 : 3;
  }

 private:
  void run(Thread& th) {
    if (absl::Status s = th.bind(o_.context); !s.ok()) {
      result_.error = std::string(s.message());
      return;
    }
    std::unique_ptr<Load> load = p_.make_load(th, o_, &result_);
    if (load == nullptr) {
      result_.error = "make_load returned no load";
      return;
    }
    load->run();
  }

  ClientProgram p_;
  Options o_;
  model::TimingParams timing_;
  Calibration cal_;
  Result result_;
  std::string json_path_;
  bool calibrate_ = true, stats_ = false, finished_ = false, modelled_clock_ = false;
};

ProgramSpec spec_of(std::string name, std::string help,
                    std::function<absl::StatusOr<ClientProgram>(const ProgramArgs&)> make_client) {
  ProgramSpec s;
  s.name = std::move(name);
  s.help = std::move(help);
  s.client = true;
  s.defaults = set_client_defaults;
  s.make = [make_client = std::move(make_client)](const ProgramArgs& a) -> absl::StatusOr<std::unique_ptr<Program>> {
    absl::StatusOr<ClientProgram> p = make_client(a);
    if (!p.ok()) return p.status();
    auto runner = std::make_unique<ClientRunner>(std::move(*p));
    if (absl::Status s = runner->configure(a); !s.ok()) return s;
    return runner;
  };
  return s;
}

}  // namespace

ProgramSpec client_program(ClientProgram p) {
  std::string name = p.name, help = p.usage;
  return spec_of(std::move(name), std::move(help),
                 [p = std::move(p)](const ProgramArgs&) -> absl::StatusOr<ClientProgram> { return p; });
}

ProgramSpec client_program(std::string name, std::string help,
                           std::function<absl::StatusOr<ClientProgram>(const ProgramArgs&)> make_client) {
  return spec_of(std::move(name), std::move(help), std::move(make_client));
}

}  // namespace nanopu::loadgen
