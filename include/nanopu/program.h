// A program: what one host of a service runs — a server, a client — as an
// object made from its flags, so that one binary can run it live on a real
// port (program_main: `my-service PROGRAM --vdev=...`) and every host of a
// topology on one modelled clock, seeded and replayable, under faults
// (`my-service sim TOPOLOGY`, `my-service dst TOPOLOGY`), the same code
// both ways (docs/services.md, "Your service on the modelled clock").
//
//   nanopu::Programs programs;
//   programs.add({.name = "kv-server", .help = "the key-value store",
//                 .make = [](const nanopu::ProgramArgs& a) -> absl::StatusOr<std::unique_ptr<nanopu::Program>> {
//                   return std::make_unique<KvServer>(a);   // reads its flags now
//                 }});
//   return nanopu::program_main(argc, argv, programs);     // nanopu/program_main.h
//
// A program reads its flags (absl flags, its own and nanopu's) when it is
// made, never later: a simulation sets each host's flags in turn, makes its
// program, and puts every flag back before the next host.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nanopu/config.h"
#include "nanopu/history.h"
#include "nanopu/loadgen.h"
#include "nanopu/runtime.h"

namespace nanopu {

// What a program is made with, besides its flags.
struct ProgramArgs {
  Config config;            // its host's settings (nanopu's flags), its address included
  std::string host;         // its host's name in the topology ("" live)
  uint64_t seed = 1;        // its own seed: from the run's seed in a simulation, --seed live
  // Where its calls are recorded (rpc::Client::record, loadgen::Options::history),
  // or nullptr: the run's one history in a simulation (--history), --history live.
  History* history = nullptr;
  // A directory that survives this host's crash and restart and no other
  // host's: where a program keeps what it persists (a simulation makes one
  // per host and run and removes it after; live, --state_dir).
  std::string state_dir;
  bool simulated = false;   // on the modelled clock (nanopu-sim, `sim`, `dst`)
};

class Program {
 public:
  virtual ~Program() = default;
  // Its threads on `rt`, before the host runs.
  [[nodiscard]] virtual absl::Status spawn(Runtime& rt) = 0;
  // A client (ProgramSpec::client) has done its work: a run of a topology
  // ends when every client has. A server runs until it is stopped.
  [[nodiscard]] virtual bool finished() const { return false; }
  // The line printed once it is started (live), or "".
  [[nodiscard]] virtual std::string banner() const { return ""; }
  // After its host stopped: what it prints at exit (a client's result on
  // `out`, counters on stderr), and its exit status: 0, 1 an error, 3 a
  // client whose requests were not all answered right.
  [[nodiscard]] virtual int report(Runtime& rt, FILE* out) {
    (void)rt, (void)out;
    return 0;
  }
  // A client's load result, once finished, if it ran the load engine.
  [[nodiscard]] virtual const loadgen::Result* load_result() const { return nullptr; }
};

using ProgramFactory = std::function<absl::StatusOr<std::unique_ptr<Program>>(const ProgramArgs&)>;

// One program a binary offers.
struct ProgramSpec {
  std::string name;  // a-z, 0-9, '-' and '_': how a topology's host line names it
  std::string help;  // one line
  ProgramFactory make;
  // A client runs until its work is done (Program::finished); a run of a
  // topology ends when every client's has. A server runs until stopped.
  bool client = false;
  // The flags it reads besides nanopu's host flags (nanopu/flags.h), by
  // name: a host line (or command line) that sets another is refused. Empty
  // and no `has_flag`: any flag of the binary.
  std::vector<std::string> flags;
  std::function<bool(std::string_view flag)> has_flag;  // instead of `flags`
  // Sets its defaults where they differ from the flags' (before its
  // host's flags are read), e.g. a client's --ip.
  std::function<void()> defaults;
};

// The programs of a binary, by name.
class Programs {
 public:
  // Adds one; an error for a bad or taken name, or no factory.
  absl::Status add(ProgramSpec spec) {
    if (spec.name.empty() || spec.name.size() > 32 ||
        spec.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_") != std::string::npos)
      return absl::InvalidArgumentError("program name '" + spec.name + "': 1-32 of a-z, 0-9, '-', '_'");
    if (spec.name == "sim" || spec.name == "dst" || spec.name == "help")
      return absl::InvalidArgumentError("program name '" + spec.name + "' is a command of program_main");
    if (find(spec.name) != nullptr) return absl::InvalidArgumentError("program '" + spec.name + "' added twice");
    if (!spec.make) return absl::InvalidArgumentError("program '" + spec.name + "' has no factory (make)");
    specs_.push_back(std::move(spec));
    return absl::OkStatus();
  }
  [[nodiscard]] const ProgramSpec* find(std::string_view name) const {
    for (const ProgramSpec& s : specs_)
      if (s.name == name) return &s;
    return nullptr;
  }
  [[nodiscard]] const std::vector<ProgramSpec>& all() const { return specs_; }
  // "a, b or c", for an error line.
  [[nodiscard]] std::string names() const {
    std::string out;
    for (size_t i = 0; i < specs_.size(); ++i)
      out += (i == 0 ? "" : i + 1 == specs_.size() ? " or " : ", ") + specs_[i].name;
    return out.empty() ? "(none)" : out;
  }

 private:
  std::vector<ProgramSpec> specs_;
};

}  // namespace nanopu
