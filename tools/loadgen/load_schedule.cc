#include "tools/loadgen/load_schedule.h"

#include <rte_cycles.h>

#include <algorithm>

namespace nanopu::apps {

LoadSchedule::LoadSchedule(Thread& t, const LoadGenOptions& o, LoadGenResult* r)
    : t_(t), o_(o), r_(r), rng_(o.seed), hz_(static_cast<double>(rte_get_tsc_hz())),
      failures_before_(t.tx_failures()) {}

uint64_t LoadSchedule::next_sent_time(uint64_t want) {
  last_sent_tsc_ = std::max(want, last_sent_tsc_ + 1);
  return last_sent_tsc_;
}

void LoadSchedule::record_reply(uint64_t sent_time, uint32_t request_bytes) {
  ++r_->received;
  const uint64_t now = rte_rdtsc();
  last_reply_ = now;
  record_measured_reply(r_, sent_time, now, start_, hz_, reply_core_ns_, request_bytes, reply_bytes_);
}

void LoadSchedule::reset_given_up() { failures_before_ = t_.tx_failures(); }

void LoadSchedule::measure() {
  std::exponential_distribution<double> gap(o_.rate > 0 ? o_.rate : 1.0);
  const uint64_t start = rte_rdtsc();
  start_ = start;
  last_reply_ = start;
  const uint64_t end = o_.count == 0 ? start + static_cast<uint64_t>(o_.duration_s * hz_) : UINT64_MAX;
  const auto drain = static_cast<uint64_t>(o_.drain_timeout_s * hz_);
  auto more = [&](uint64_t now) { return o_.count ? r_->sent < o_.count : now < end; };
  auto in_flight = [&] {
    return in_flight_count() - std::min<uint64_t>(in_flight_count(), given_up());
  };
  double next = static_cast<double>(start);
  uint64_t now = start;
  while (!t_.stopping() && more(now)) {
    if (o_.rate > 0) {
      while (static_cast<double>(now) >= next && more(now)) {
        if (!send_next(static_cast<uint64_t>(next))) break;
        ++r_->sent;
        next += gap(rng_) * hz_;
      }
    } else {
      while (in_flight() < o_.outstanding && more(now)) {
        if (!send_next(rte_rdtsc())) break;
        ++r_->sent;
      }
      if (in_flight() > 0 && now - last_reply_ > drain) {  // stuck: count them lost, go on
        r_->lost += in_flight();
        given_up_before_ += given_up();
        forget_in_flight();
        failures_before_ = t_.tx_failures();
        last_reply_ = now;
      }
    }
    receive_all(true);
    t_.idle();
    now = rte_rdtsc();
    if (o_.progress) print_progress(*r_, start, now, hz_, &next_progress_s_);
  }
  const uint64_t drain_end = now + drain;
  while (!t_.stopping() && in_flight() > 0 && now < drain_end) {
    receive_all(true);
    t_.idle();
    now = rte_rdtsc();
  }
  r_->given_up = given_up_before_ + given_up();
  r_->lost += in_flight();
  r_->elapsed_s = static_cast<double>(last_reply_ - start) / hz_;
}

}  // namespace nanopu::apps
