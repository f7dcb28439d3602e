// Start-up calibration: what this host's emulator pays for the steps the
// nanoPU does in hardware, measured here and now (*measured*), beside what
// the timing model says the hardware takes (*modelled*). The ratio is the
// emulator's slowdown. A message's measured on-core time becomes modelled
// core time by taking out what the emulator's register-file API cost
// (api_ns: message_io_ns + words × word_io_ns) and putting in the model's
// (app_fixed_cycles + words × app_cycles_per_word); the rest, the
// application's own work, is kept as measured: one host TSC cycle is
// 3.2 / tsc_ghz nanoPU cycles, i.e. equal wall time (docs/design.md §10).
#pragma once

#include <string>

#include "model/timing/timing_model.h"

namespace nanopu::model {

struct HostCosts {
  double fiber_switch_ns = 0;   // a thread switch (HTS context switch)
  double fifo_hop_ns = 0;       // message FIFO push + pop (netRX/netTX hand-off)
  double frame_codec_ns = 0;    // header encode + decode (RX and TX pipeline parse)
  // The register-file API on a real Thread (model/timing/api_cost.h).
  double message_io_ns = 0;     // per message: taking it, the reply's buffer, msg_done, safe points
  double word_io_ns = 0;        // per word read or written
  double tsc_ghz = 0;

  // The emulator's register-file cost of a message that reads and writes
  // `words` words in all: what a measured on-core time loses to become the
  // application's own work.
  [[nodiscard]] double api_ns(double words) const { return message_io_ns + words * word_io_ns; }
};

// Measures HostCosts (about 10 ms; needs the EAL for the FIFO's rte_ring).
[[nodiscard]] HostCosts calibrate_host();
// One of them alone: ns per nanopu fiber switch over `rounds` resume+suspend pairs.
[[nodiscard]] double measure_fiber_switch_ns(int rounds);

// One line: each host cost beside the modelled hardware cost and the ratio.
[[nodiscard]] std::string describe_calibration(const HostCosts& h, const TimingModel& m);
[[nodiscard]] std::string calibration_json(const HostCosts& h, const TimingModel& m);

}  // namespace nanopu::model
