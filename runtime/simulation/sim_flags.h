// The flags of a simulation (nanopu-sim, a binary's `sim` command) and of a
// fault campaign (its `dst` command), read into the public options
// (nanopu/sim.h). Defined here once, for every binary that links nanopu::sim.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "nanopu/sim.h"

namespace nanopu::sim {

// --sim_seed, --charge, --timing_params, the wires, --cut, --crash,
// --history (a file), ...; an error names the bad flag.
[[nodiscard]] absl::StatusOr<Options> options_from_flags();
// --first_seed, --seeds, --replay_every, --verbose, --history (a
// directory), and the fault flags (--fault_*).
[[nodiscard]] absl::StatusOr<Campaign> campaign_from_flags();
// --check: the model a run's history is checked against ("": none).
[[nodiscard]] std::string check_model_flag();
// Their names, quoted, as --help and errors list them ("none" for none).
[[nodiscard]] std::string invariant_names(const std::vector<NamedInvariant>& all);
// The binary's invariants --invariants names (all when it names none);
// InvalidArgument for a name it does not have, listing those it has.
[[nodiscard]] absl::StatusOr<std::vector<NamedInvariant>> chosen_invariants(const std::vector<NamedInvariant>& all);
[[nodiscard]] absl::Status check_model_known(const std::string& model);

}  // namespace nanopu::sim
