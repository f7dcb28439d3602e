#include "model/timing/timing_model.h"

#include <algorithm>

#include "lib/wire/frame.h"

namespace nanopu::model {

size_t TimingModel::frame_bytes(size_t msg_bytes) {
  const size_t packets = msg_bytes == 0 ? 1 : (msg_bytes + wire::kSegmentBytes - 1) / wire::kSegmentBytes;
  return msg_bytes + packets * wire::kFrameHeaderBytes;
}

double TimingModel::serialization_ns(size_t msg_bytes) const {
  return static_cast<double>(frame_bytes(msg_bytes)) * 8 / p_.link_gbps;
}

std::vector<Stage> TimingModel::loopback_stages(size_t msg_bytes) const {
  const double words = static_cast<double>((msg_bytes + 7) / 8);
  // Store and forward: reassembly delivers whole messages, the packetizer
  // sends whole packets, so the message streams in and out in full.
  return {
      {"serial in", serialization_ns(msg_bytes)},
      {"RX pipeline", cycles_ns(p_.rx_pipeline_cycles)},
      {"transport + reassembly", cycles_ns(p_.transport_cycles)},
      {"core selection", cycles_ns(p_.core_select_cycles)},
      {"RX FIFO to register file", cycles_ns(p_.rx_fifo_cycles)},
      {"application (loopback)", cycles_ns(p_.app_fixed_cycles + words * p_.app_cycles_per_word)},
      {"TX FIFO to NIC", cycles_ns(p_.tx_fifo_cycles)},
      {"packetizer", cycles_ns(p_.packetizer_cycles)},
      {"TX pipeline", cycles_ns(p_.tx_pipeline_cycles)},
      {"serial out", serialization_ns(msg_bytes)},
  };
}

double TimingModel::loopback_ns(size_t msg_bytes) const {
  double sum = 0;
  for (const Stage& s : loopback_stages(msg_bytes)) sum += s.ns;
  return sum;
}

double TimingModel::wire_to_wire_ns(size_t msg_bytes) const {
  return loopback_ns(msg_bytes) + 2 * p_.mac_serial_io_ns;
}

double TimingModel::traditional_loopback_ns(size_t msg_bytes) const {
  const double words = static_cast<double>((msg_bytes + 7) / 8);
  return 2 * serialization_ns(msg_bytes) + cycles_ns(p_.app_fixed_cycles + words * p_.app_cycles_per_word) +
         p_.dma_fixed_ns + 2 * static_cast<double>(msg_bytes) / p_.dma_bytes_per_ns;
}

double TimingModel::loopback_core_rps(size_t msg_bytes) const {
  const double words = static_cast<double>((msg_bytes + 7) / 8);
  return 1e9 / cycles_ns(p_.app_loop_cycles + words * p_.app_cycles_per_word);
}

double TimingModel::response_bound_ns(double t0_ns, unsigned k) const {
  const double t_n = 2 * p_.link_latency_ns + loopback_ns(8);
  return t_n + k * t0_ns + (k == 0 ? 0 : (k - 1) * context_switch_ns());
}

double TimingModel::rpc_round_trip_ns(size_t request_bytes, size_t reply_bytes,
                                      double service_ns) const {
  // Client egress, link, server (wire to wire, minus its own loopback app
  // part, plus the service), link, client ingress.
  const double client_tx = cycles_ns(p_.tx_fifo_cycles + p_.packetizer_cycles + p_.tx_pipeline_cycles) +
                           serialization_ns(request_bytes) + p_.mac_serial_io_ns;
  const double client_rx = p_.mac_serial_io_ns + serialization_ns(reply_bytes) +
                           cycles_ns(p_.rx_pipeline_cycles + p_.transport_cycles +
                                     p_.core_select_cycles + p_.rx_fifo_cycles);
  return client_tx + 2 * p_.link_latency_ns + wire_to_wire_ns(request_bytes) + service_ns + client_rx;
}

double TimingModel::relay_ns(size_t in_bytes, size_t out_bytes) const {
  const double words = static_cast<double>((std::max(in_bytes, out_bytes) + 7) / 8);
  return 2 * p_.mac_serial_io_ns + serialization_ns(in_bytes) + serialization_ns(out_bytes) +
         cycles_ns(p_.rx_pipeline_cycles + p_.transport_cycles + p_.core_select_cycles +
                   p_.rx_fifo_cycles + p_.app_fixed_cycles + words * p_.app_cycles_per_word +
                   p_.tx_fifo_cycles + p_.packetizer_cycles + p_.tx_pipeline_cycles);
}

double TimingModel::path_round_trip_ns(const std::vector<size_t>& hop_bytes,
                                       const std::vector<double>& server_ns) const {
  if (hop_bytes.size() != server_ns.size() + 1) return 0;
  const size_t n = server_ns.size();
  double t = cycles_ns(p_.tx_fifo_cycles + p_.packetizer_cycles + p_.tx_pipeline_cycles) +
             serialization_ns(hop_bytes[0]) + p_.mac_serial_io_ns;
  for (size_t i = 0; i < n; ++i)
    t += p_.link_latency_ns + relay_ns(hop_bytes[i], hop_bytes[i + 1]) + server_ns[i];
  return t + p_.link_latency_ns + p_.mac_serial_io_ns + serialization_ns(hop_bytes[n]) +
         cycles_ns(p_.rx_pipeline_cycles + p_.transport_cycles + p_.core_select_cycles + p_.rx_fifo_cycles);
}

}  // namespace nanopu::model
