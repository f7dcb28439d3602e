// What the nanoPU hardware would take (modelled, never measured): the fast
// path of a message through the NIC and a core stage by stage (nanoPU (OSDI'21) Fig. 2),
// the traditional DMA NIC it is compared with (nanoPU (OSDI'21) Fig. 3), the context
// switch, and the bound on a well-behaved thread's response time (nanoPU (OSDI'21) §5.2.2).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/timing/timing_params.h"

namespace nanopu::model {

struct Stage {
  std::string name;
  double ns = 0;
};

class TimingModel {
 public:
  explicit TimingModel(const TimingParams& p) : p_(p) {}

  [[nodiscard]] double cycles_ns(double cycles) const { return cycles / p_.clock_ghz; }
  // Bytes on the wire of a message of msg_bytes: payload plus a 64-byte
  // header per 1024-byte packet (docs/wire.md).
  [[nodiscard]] static size_t frame_bytes(size_t msg_bytes);
  [[nodiscard]] double serialization_ns(size_t msg_bytes) const;

  // A message of msg_bytes from the first bit in to the last bit out through
  // a loopback thread (the fast path, MAC and serial I/O excluded).
  [[nodiscard]] std::vector<Stage> loopback_stages(size_t msg_bytes) const;
  [[nodiscard]] double loopback_ns(size_t msg_bytes) const;
  // The same with the Ethernet MAC and serial I/O both ways.
  [[nodiscard]] double wire_to_wire_ns(size_t msg_bytes) const;
  // The traditional NIC: DMA into memory, descriptor rings, software stack.
  [[nodiscard]] double traditional_loopback_ns(size_t msg_bytes) const;

  // One core running the loopback loop flat out (nanoPU (OSDI'21) Fig. 4):
  // messages/s the core sustains, app_loop_cycles + words × app_cycles_per_word
  // each (the link is not counted).
  [[nodiscard]] double loopback_core_rps(size_t msg_bytes) const;
  // One core reading (or writing) fixed-length messages with an unrolled
  // loop: a word each app_cycles_per_word, payload Gb/s (nanoPU tail-latency
  // version Table 1).
  [[nodiscard]] double stream_gbps() const { return 64 * p_.clock_ghz / p_.app_cycles_per_word; }

  [[nodiscard]] double context_switch_ns() const { return cycles_ns(p_.context_switch_cycles); }
  // nanoPU (OSDI'21) §5.2.2: a priority-0 thread with at most one message queued answers
  // within t_n + k·t0 + (k−1)·t_c, t_n = two links plus the 8-byte loopback.
  [[nodiscard]] double response_bound_ns(double t0_ns, unsigned k) const;
  // The same with a switch for each of the k messages, the measured one's
  // included: the worst case when the context loaded on the core is not
  // the first served (model/timing/response_bound.h finds it by simulation).
  [[nodiscard]] double strict_response_bound_ns(double t0_ns, unsigned k) const {
    return response_bound_ns(t0_ns, k) + (k < 2 ? 0 : context_switch_ns());  // one thread: always loaded
  }
  // Unloaded round trip of an RPC between two nanoPUs through one switch
  // hop each way (links only), with service_ns on the server's core.
  [[nodiscard]] double rpc_round_trip_ns(size_t request_bytes, size_t reply_bytes,
                                         double service_ns) const;

  // A message relayed by a nanoPU: in_bytes arrive, out_bytes leave (MAC and
  // serial I/O both ways; the core moves max(in, out) words).
  [[nodiscard]] double relay_ns(size_t in_bytes, size_t out_bytes) const;
  // Unloaded time of a request passed along servers in turn (a chain
  // replication WRITE: client, head, ..., tail, client), one link between
  // each: hop_bytes[i] is the message on link i (hop_bytes.size() ==
  // server_ns.size() + 1), server_ns[i] server i's own work beyond relaying.
  [[nodiscard]] double path_round_trip_ns(const std::vector<size_t>& hop_bytes,
                                          const std::vector<double>& server_ns) const;

  [[nodiscard]] const TimingParams& params() const { return p_; }

 private:
  TimingParams p_;
};

}  // namespace nanopu::model
