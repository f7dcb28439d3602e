// Coverage probes (FoundationDB's CODE_PROBE, "testing the rare paths"):
// name a rare path of your service — a retry, a stale write ignored, a
// reply that came late — with nanopu::probe("pb.backup.stale_write"). A
// fault campaign (`dst`, nanopu/sim.h) then reports which probes fired in
// how many seeds, and which it never reached, beside the runtime's own
// rare paths (retransmissions, give-ups, refused runs, ...): what the
// faults exercised, and what they did not.
//
// Live (nothing records), a probe costs one relaxed load.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nanopu {

void probe(std::string_view name);
// A probe a campaign lists at 0 when it never fires (a probe is otherwise
// known from its first hit): call once, e.g. in main or a program's make().
void declare_probe(std::string_view name);

// For a harness (a campaign calls them around each seed's run): counting
// on or off (off by default), and the counts since the last take — every
// declared probe among them, at 0 if it never fired — by name.
void record_probes(bool on);
[[nodiscard]] std::vector<std::pair<std::string, uint64_t>> take_probe_hits();

}  // namespace nanopu
