// One program of a host — nanopu-server's service or nanopu-loadgen's
// client — read from the command-line flags as they stand, then run on a
// Runtime. A program's main parses its flags and runs one; nanopu-sim
// (tools/sim) sets each host's flags of a topology in turn, makes its
// program, and runs them all on one modelled clock. Everything a program
// reads from flags it reads when it is made, so the flags may change after.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nanopu/config.h"
#include "nanopu/loadgen.h"
#include "nanopu/runtime.h"

namespace nanopu::apps {

class HostProgram {
 public:
  virtual ~HostProgram() = default;
  // Its threads on `rt` (before rt runs).
  [[nodiscard]] virtual absl::Status spawn(Runtime& rt) = 0;
  // The line a program prints once started ("...; Ctrl-C stops"), without it.
  [[nodiscard]] virtual std::string banner() const = 0;
  // Whether it has done what it was started for: a client's load ran; a
  // server serves until stopped, so never.
  [[nodiscard]] virtual bool finished() const = 0;
  // After `rt` stopped: prints what the program prints at exit (a client's
  // result on `out`, counters on stderr); its exit status (0, 1 error,
  // 3 a client whose requests were not all answered right).
  [[nodiscard]] virtual int report(Runtime& rt, FILE* out) = 0;
  // A client's result (its round trips, counts) once finished; a server has
  // none. nanopu-sim hands it to whoever ran the simulation (nanopu-figures).
  [[nodiscard]] virtual const loadgen::Result* load_result() const { return nullptr; }
};

// The flags' error (one line naming the bad flag, as the program prints it
// before exiting 2) comes back as InvalidArgument.

// nanopu-server's program: --app and its flags, --context, --threads, ...
[[nodiscard]] absl::StatusOr<std::unique_ptr<HostProgram>> make_server_program(const Config& config);

}  // namespace nanopu::apps
