// Start-up calibration: what this host's emulator pays for the steps the
// nanoPU does in hardware, measured here and now (*measured*), beside what
// the timing model says the hardware takes (*modelled*). The ratio is the
// emulator's slowdown; application service time needs no scale: requests
// declare it in cycles of the modelled 3.2 GHz core (docs/apps.md service_time).
#pragma once

#include <string>

#include "lib/timing/timing_model.h"

namespace nanopu::timing {

struct HostCosts {
  double fiber_switch_ns = 0;   // a thread switch (HTS context switch)
  double fifo_hop_ns = 0;       // message FIFO push + pop (netRX/netTX hand-off)
  double frame_codec_ns = 0;    // header encode + decode (RX and TX pipeline parse)
  double tsc_ghz = 0;
};

// Measures HostCosts (about 10 ms; needs the EAL for the FIFO's rte_ring).
[[nodiscard]] HostCosts calibrate_host();
// One of them alone: ns per nanopu fiber switch over `rounds` resume+suspend pairs.
[[nodiscard]] double measure_fiber_switch_ns(int rounds);

// One line: each host cost beside the modelled hardware cost and the ratio.
[[nodiscard]] std::string describe_calibration(const HostCosts& h, const TimingModel& m);
[[nodiscard]] std::string calibration_json(const HostCosts& h, const TimingModel& m);

}  // namespace nanopu::timing
