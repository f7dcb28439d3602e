// Counted time's costs from a timing parameter set (docs/design.md §11):
// what each core's work costs (clock::WorkCosts) and the NIC's fast-path
// stages as latencies at a host's port (SimPort::set_nic_delays_ps). One
// place for nanopu-sim and the tests that drive hosts themselves.
#pragma once

#include <cstdint>

#include "lib/contract/clock.h"
#include "model/timing/timing_params.h"

namespace nanopu::model {

struct CountedCosts {
  clock::WorkCosts work;
  uint64_t nic_rx_ps = 0;  // ingress: MAC and serial I/O, parse, transport, core selection, into the FIFO
  uint64_t nic_tx_ps = 0;  // egress: out of the FIFO, packetizer, headers, MAC and serial I/O
  uint64_t pisa_stage_ps = 0;  // each table of a host's pipeline programs, on its side
};

// measured_ps_per_tsc: 0, or measured time besides (WorkCosts).
[[nodiscard]] inline CountedCosts counted_costs(const TimingParams& t, double measured_ps_per_tsc = 0) {
  const double cycle_ps = 1000.0 / t.clock_ghz;
  CountedCosts c;
  c.work = {cycle_ps, t.app_fixed_cycles, t.app_cycles_per_word, t.context_switch_cycles, measured_ps_per_tsc};
  // The NIC's stages (nanoPU OSDI'21 §5.2.1) are pipelined: latency at the
  // port, not the core's time.
  c.nic_rx_ps = static_cast<uint64_t>(t.mac_serial_io_ns * 1000 + (t.rx_pipeline_cycles + t.transport_cycles +
                                                                   t.core_select_cycles + t.rx_fifo_cycles) * cycle_ps);
  c.nic_tx_ps = static_cast<uint64_t>((t.tx_fifo_cycles + t.packetizer_cycles + t.tx_pipeline_cycles) * cycle_ps +
                                      t.mac_serial_io_ns * 1000);
  c.pisa_stage_ps = static_cast<uint64_t>(t.pisa_stage_cycles * cycle_ps);
  return c;
}

}  // namespace nanopu::model
