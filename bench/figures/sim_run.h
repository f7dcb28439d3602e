// A figure's run of whole hosts — the real runtime running nanopu-server's
// and nanopu-loadgen's programs — on nanopu-sim's modelled clock
// (tools/simulator, docs/design.md §11): the multi-host services' figures and
// the real-thread versions of the queueing figures use it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/figures/figures.h"
#include "nanopu/loadgen.h"

namespace nanopu::figures {

// The paper's network (nanoPU OSDI'21 §5: 200 Gb/s links of 43 ns; the
// switch's port-to-port latency per figure).
struct Net {
  double switch_latency_ns = 0;
  double link_latency_ns = 43.75;
};

struct SimRun {
  bool ok = false;
  std::string error;
  loadgen::Result result;  // the first load generator's; modelled ns
  std::vector<loadgen::Result> clients;  // every load generator's, in topology order
  uint64_t trace_hash = 0;
  double wall_s = 0;
};

enum class Charge { kWiresOnly, kCounted, kMeasured };

// One run of `text` (a topology file's) with o.seed and
// o.params: the wires' and the switch's time only, counted time, or counted
// time and each thread's own code as long as it took on this machine (not
// replayable). Not ok when a reply was lost or wrong, or the run did not end.
// A run whose modelled time passes `modelled_limit_s` fails.
[[nodiscard]] SimRun simulate(const FigureOptions& o, const std::string& name, const std::string& text,
                              const Net& net, Charge charge, double modelled_limit_s = 60);

}  // namespace nanopu::figures
