// nanopu/loadgen.h: the load engine. One loop for every client: send what
// is due, take what came back, count what is stuck, then drain. Between
// sends the thread waits (Thread::wait_for) rather than spinning: a load
// generator that spins keeps its CPU, and a server sharing that CPU was seen
// starved for 5.7 s at a time (docs/design.md §3).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "nanopu/loadgen.h"

namespace nanopu::loadgen {

Load::Load(Thread& t, const Options& o, Result* r)
    : t_(t), opts_(o), r_(r), rng_(o.seed), rate_per_s_(o.rate > 0 ? o.rate : 1.0), failures_before_(t.tx_failures()) {
  t.watch_failures(true);  // a give-up ends a wait: the request will get no reply
}

uint64_t Load::next_sent_time(uint64_t want) {
  last_sent_tsc_ = std::max(want, last_sent_tsc_ + 1);
  return last_sent_tsc_;
}

void Load::record_reply(uint64_t sent_ns, uint32_t request_bytes) {
  const uint64_t t = now();
  r_->recent_reply_ns[r_->received % Result::kRecentReplies] = t;
  ++r_->received;
  last_reply_ = t;
  if (sent_ns > t) return;
  const double rtt_ns = static_cast<double>(t - sent_ns);
  r_->latency_ns.record(static_cast<uint64_t>(rtt_ns));
  if (request_bytes == 0) return;
  if (r_->samples.size() >= kMaxReplySamples) {
    ++r_->samples_dropped;
    return;
  }
  if (r_->samples.capacity() == 0) r_->samples.reserve(1u << 16);
  const double sent_from_start = static_cast<double>(sent_ns - std::min(sent_ns, start_));
  r_->samples.push_back({sent_from_start, rtt_ns, reply_core_ns_, request_bytes, reply_bytes_});
}

uint64_t Load::in_flight() const {
  const size_t n = in_flight_count();
  return n - std::min<uint64_t>(n, given_up());
}

void Load::take_notices() {
  TxFailure f;
  while (!client_takes_notices_ && t_.next_failure(&f)) {
    if (f.reason == TxFailureReason::kPeerRestarted) continue;  // not a give-up (not counted in tx_failures)
    if ((f.tag != 0 && f.tag <= forgot_through_tag_) || answered(f.tag)) {
      ++stale_notices_;
    } else {
      given_up_tags_.insert(f.tag);
    }
  }
}

void Load::wait_until(uint64_t until) {
  // Drain notices now: they are counted (given_up()), and a pending one
  // would make wait_for() return at once.
  take_notices();
  const uint64_t t = now();
  if (t_.msgs_ready()) return;
  // Nothing to wait for: still give the core away once (on a shared core
  // the NIC loop runs only when the thread lets it).
  if (until <= t) return t_.idle();
  (void)t_.wait_for(std::chrono::nanoseconds(until - t));  // now() is in ns
}

bool Load::send_due(uint64_t t) {
  blocked_ = capped_ = tx_full_ = false;
  if (opts_.rate > 0) {
    while (static_cast<double>(t) >= next_arrival_ && more(t)) {
      if (opts_.max_in_flight != 0 && in_flight() >= opts_.max_in_flight) {
        capped_ = true;  // sent when one completes
        break;
      }
      // No TX entry free: read replies first rather than stall in write()
      // (past the server's capacity, the replies this thread does not read
      // fill its context's buffers, the server's resends of them fill its
      // slots, and nothing moves: docs/design.md §3, tx_ready).
      if (!t_.tx_ready()) {
        tx_full_ = true;
        break;
      }
      if (!send_next(static_cast<uint64_t>(next_arrival_))) {
        blocked_ = true;
        break;
      }
      ++r_->sent;
      r_->last_sent_ns = t;
      next_arrival_ += rng_.exponential(rate_per_s_) * hz_;
    }
    if (!capped_) return more(t);
  } else {
    while (in_flight() < opts_.outstanding && more(t)) {
      if (!t_.tx_ready()) {
        tx_full_ = true;
        break;
      }
      if (!send_next(now())) {
        blocked_ = true;
        break;
      }
      ++r_->sent;
      r_->last_sent_ns = t;
    }
  }
  // A full window (closed loop, or a capped open loop) with no reply for
  // the drain timeout is stuck: count them lost, go on.
  const auto drain = static_cast<uint64_t>(opts_.drain_timeout_s * hz_);
  if (in_flight() > 0 && t - last_reply_ > drain) {
    take_notices();
    r_->lost += in_flight();
    given_up_before_ += given_up();
    forget_in_flight();
    // The transport may give them up later still: not counted twice.
    forgot_through_tag_ = t_.tx_tag();
    reset_given_up();
    last_reply_ = t;
  }
  return more(t);
}

void Load::drain(uint64_t t) {
  const uint64_t drain_end = t + static_cast<uint64_t>(opts_.drain_timeout_s * hz_);
  while (!t_.stopping() && in_flight() > 0 && t < drain_end) {
    receive_all(true);
    if (in_flight() == 0) break;
    // Until the drain ends, a request's own timer, or the drain timeout
    // since the last reply — that one only while it is ahead: a wait to a
    // time already past returns at once, and on a modelled clock a thread
    // that loops so holds the clock at one instant.
    uint64_t until = std::min(drain_end, next_timer_ns());
    if (const uint64_t quiet = last_reply_ + static_cast<uint64_t>(opts_.drain_timeout_s * hz_); quiet > t)
      until = std::min(until, quiet);
    wait_until(until);
    t = now();
  }
}

void Load::run() {
  start_ = now();
  last_reply_ = start_;
  end_ = opts_.count == 0 ? start_ + static_cast<uint64_t>(opts_.duration_s * hz_) : UINT64_MAX;
  next_arrival_ = static_cast<double>(start_);
  uint64_t t = start_;
  while (!t_.stopping() && send_due(t)) {
    receive_all(true);
    // Wait for a reply, or for the next arrival (open loop), or for the
    // window's drain timeout (closed loop, all in flight); a client that
    // could not send (no slot, no buffer) tries again within a millisecond.
    const uint64_t drain_at = last_reply_ + static_cast<uint64_t>(opts_.drain_timeout_s * hz_) + 1;
    // (The next arrival rounded up: rounded down it would be "now" for up to
    // a nanosecond without being due, and the thread would spin.)
    // A capped open loop waits for a reply only while every slot is still
    // out: receive_all() may just have freed one for the arrivals due.
    const bool still_capped = capped_ && in_flight() >= opts_.max_in_flight;
    uint64_t until = opts_.rate > 0 ? (still_capped ? drain_at : static_cast<uint64_t>(std::ceil(next_arrival_)))
                                    : (in_flight() < opts_.outstanding ? now() : drain_at);
    if (blocked_) until = std::min(drain_at, now() + static_cast<uint64_t>(hz_ / 1000));  // 1 ms
    // A closed loop whose replies just freed window slots sends at once: no
    // yield first. Yielding cost a fiber switch and a whole NIC loop before
    // the next request (issue 37 item 1: the load generator's fiber is
    // resumed only when it has something to do, and does it then).
    const bool send_now = opts_.rate == 0 && !blocked_ && !tx_full_ && in_flight() < opts_.outstanding;
    if (tx_full_)
      (void)t_.wait_tx_room();  // until the NIC core makes room, or a reply is in: read, then send again
    else if (!send_now)
      wait_until(std::min(until, next_timer_ns()));
    t = now();
    if (opts_.progress) {
      const double el = static_cast<double>(t - start_) / hz_;
      // The moment the server is known to answer: what a user starting a
      // client beside a server (or a switch) that is still coming up waits for.
      if (!first_reply_told_ && r_->received > 0) {
        first_reply_told_ = true;
        std::fprintf(stderr, "[%5.1fs] first reply\n", el);
      }
      if (el >= static_cast<double>(next_progress_s_)) {
        next_progress_s_ = static_cast<uint64_t>(el) + 1;
        std::fprintf(stderr, "[%5.1fs] sent %llu  received %llu  %.0f msg/s  p50 %.2f us  p99 %.2f us\n", el,
                     static_cast<unsigned long long>(r_->sent), static_cast<unsigned long long>(r_->received),
                     static_cast<double>(r_->received) / el, static_cast<double>(r_->latency_ns.quantile(0.5)) / 1e3,
                     static_cast<double>(r_->latency_ns.quantile(0.99)) / 1e3);
      }
    }
  }
  drain(t);
  take_notices();
  r_->given_up = given_up_before_ + given_up() + given_up_by_client_;
  // Counted by the NIC, not from the notices (which a burst can overflow);
  // a client that takes the notices counts its calls' rejections itself.
  if (!client_takes_notices_ && !transport_give_ups_are_retried_)
    r_->rejected = std::min(r_->given_up, t_.tx_rejections() - rejections_before_);
  r_->lost += in_flight();
  if (in_flight_count() != 0) forget_in_flight();  // a client hears of each (CallLoad::failed)
  r_->elapsed_s = static_cast<double>(last_reply_ - start_) / hz_;
}

}  // namespace nanopu::loadgen
