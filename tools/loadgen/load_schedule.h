// The schedule shared by nanopu-loadgen's stateful clients (kv, chain,
// rdma): open loop (Poisson arrivals, sent_time the *scheduled* time, so a
// client-side backlog counts as latency) or closed loop (o.outstanding in
// flight), then a drain; requests outstanding for o.drain_timeout_s without
// any reply are counted lost, those the transport gave up as given up. A
// service's client says what to send and how to check a reply.
#pragma once

#include <cstdint>
#include <random>

#include "tools/loadgen/loadgen.h"

namespace nanopu::apps {

class LoadSchedule {
 public:
  LoadSchedule(Thread& t, const LoadGenOptions& o, LoadGenResult* r);
  virtual ~LoadSchedule() = default;
  LoadSchedule(const LoadSchedule&) = delete;
  LoadSchedule& operator=(const LoadSchedule&) = delete;

 protected:
  // The measured run; fills r_'s sent, received, lost, given_up, elapsed_s.
  void measure();
  // Draws and sends one request with sent_time sent_tsc; false if it could
  // not be sent now (no buffer: counted by the client; nothing to send).
  virtual bool send_next(uint64_t sent_tsc) = 0;
  // Takes every waiting reply; calls record_reply for each correct one
  // when measure is set.
  virtual void receive_all(bool measure) = 0;
  [[nodiscard]] virtual size_t in_flight_count() const = 0;
  virtual void forget_in_flight() = 0;

  // A unique, increasing sent_time at or after `want`.
  [[nodiscard]] uint64_t next_sent_time(uint64_t want);
  // A correct reply to the request sent at sent_time, measured. With
  // request_bytes (a service whose reply comes from the core that served
  // the request), it is also kept for the modelled column with the stamp
  // take_stamp() read off it.
  void record_reply(uint64_t sent_time, uint32_t request_bytes = 0);
  // Call after reading a reply's header, before its msg_done: keeps the
  // server's core time on the request and the reply's length.
  void take_stamp(const AppHeader& reply) {
    reply_core_ns_ = t_.sender_core_ns();
    reply_bytes_ = reply.len;
  }
  // Restart the give-up count (after an unmeasured phase).
  void reset_given_up();
  // Requests the transport gave up since the last reset; 0 for a client
  // that sends them again itself (transport_give_ups_are_retried_).
  [[nodiscard]] uint64_t given_up() const {
    return transport_give_ups_are_retried_ ? 0 : t_.tx_failures() - failures_before_;
  }

  Thread& t_;
  const LoadGenOptions& o_;
  LoadGenResult* r_;
  std::mt19937_64 rng_;
  double hz_;
  uint64_t last_sent_tsc_ = 0;
  bool transport_give_ups_are_retried_ = false;

 private:
  double reply_core_ns_ = 0;
  uint32_t reply_bytes_ = 0;
  uint64_t start_ = 0;
  uint64_t last_reply_ = 0;
  uint64_t next_progress_s_ = 2;  // the first progress line, seconds into the run
  uint64_t failures_before_ = 0;
  uint64_t given_up_before_ = 0;  // counted before the in-flight set was last forgotten
};

}  // namespace nanopu::apps
