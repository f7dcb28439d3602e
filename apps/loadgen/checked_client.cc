#include "apps/loadgen/checked_client.h"

#include <rte_cycles.h>

#include <algorithm>

namespace nanopu::apps {

CheckedClient::CheckedClient(Thread& t, const LoadGenOptions& o, uint32_t keys, double write_fraction,
                             LoadGenResult* r)
    : t_(t), o_(o), r_(r), sent_version_(keys, 0), acked_version_(keys, 0), keys_(keys),
      write_fraction_(write_fraction), rng_(o.seed), hz_(static_cast<double>(rte_get_tsc_hz())),
      failures_before_(t.tx_failures()) {}

bool CheckedClient::issue(bool write, uint32_t key, uint64_t sent_tsc) {
  sent_tsc = std::max(sent_tsc, last_sent_tsc_ + 1);  // sent_time is the request's id
  InFlight f;
  f.write = write;
  f.key = key;
  if (write) f.version = sent_version_[key] + 1;
  else f.min_version = acked_version_[key];
  if (!send(f, sent_tsc)) {
    ++r_->send_failures;
    return false;
  }
  if (write) sent_version_[key] = f.version;
  last_sent_tsc_ = sent_tsc;
  in_flight_[sent_tsc] = f;
  return true;
}

void CheckedClient::receive_all(bool measure) {
  while (t_.msgs_ready()) {
    const AppHeader h = AppHeader::from_word(t_.read());
    const uint32_t n = h.payload_words();
    uint64_t words[kMaxReplyWords] = {};
    for (uint32_t i = 0; i < n && i < kMaxReplyWords; ++i) words[i] = t_.read();
    t_.msg_done();
    auto it = in_flight_.find(words[1]);
    if (it == in_flight_.end()) {
      // Not in flight: a second reply to a request, or nothing we sent.
      if (words[1] != 0 && words[1] <= last_sent_tsc_) ++r_->duplicates;
      else ++r_->bad_replies;
      continue;
    }
    const InFlight f = it->second;
    in_flight_.erase(it);
    if (!check(h, words, f)) {
      ++r_->bad_replies;
      continue;
    }
    if (f.write) acked_version_[f.key] = std::max(acked_version_[f.key], f.version);
    if (!measure) continue;
    ++r_->received;
    const uint64_t now = rte_rdtsc();
    last_reply_ = now;
    if (words[1] <= now)
      r_->latency_ns.record(static_cast<uint64_t>(static_cast<double>(now - words[1]) * 1e9 / hz_));
  }
}

bool CheckedClient::preload_keys() {
  const auto drain = static_cast<uint64_t>(o_.drain_timeout_s * hz_);
  uint32_t k = 0;
  uint64_t last_progress = rte_rdtsc();
  while (!t_.stopping() && (k < keys_ || !in_flight_.empty())) {
    while (in_flight_.size() < o_.outstanding && k < keys_)
      if (issue(true, k, rte_rdtsc())) ++k;
      else break;
    const size_t before = in_flight_.size();
    receive_all(false);
    const uint64_t now = rte_rdtsc();
    if (in_flight_.size() != before) last_progress = now;
    else if (now - last_progress > drain) return false;  // nothing answers
    t_.idle();
  }
  // Preloading is not measured: start the counts from here.
  in_flight_.clear();
  reset_counts();
  const bool clean = r_->bad_replies == 0 && r_->duplicates == 0 && r_->send_failures == 0;
  r_->bad_replies = r_->duplicates = r_->send_failures = 0;
  failures_before_ = t_.tx_failures();
  return clean;
}

void CheckedClient::measure() {
  std::uniform_int_distribution<uint32_t> key(0, keys_ - 1);
  std::bernoulli_distribution is_write(write_fraction_);
  std::exponential_distribution<double> gap(o_.rate > 0 ? o_.rate : 1.0);
  const uint64_t start = rte_rdtsc();
  last_reply_ = start;
  const uint64_t end = o_.count == 0 ? start + static_cast<uint64_t>(o_.duration_s * hz_) : UINT64_MAX;
  const auto drain = static_cast<uint64_t>(o_.drain_timeout_s * hz_);
  auto more = [&](uint64_t now) { return o_.count ? r_->sent < o_.count : now < end; };
  auto in_flight = [&] { return in_flight_.size() - std::min<uint64_t>(in_flight_.size(), given_up()); };
  double next = static_cast<double>(start);
  uint64_t now = start;
  while (!t_.stopping() && more(now)) {
    if (o_.rate > 0) {
      while (static_cast<double>(now) >= next && more(now)) {
        if (!issue(is_write(rng_), key(rng_), static_cast<uint64_t>(next))) break;
        ++r_->sent;
        next += gap(rng_) * hz_;
      }
    } else {
      while (in_flight() < o_.outstanding && more(now)) {
        if (!issue(is_write(rng_), key(rng_), rte_rdtsc())) break;
        ++r_->sent;
      }
      if (in_flight() > 0 && now - last_reply_ > drain) {  // stuck: count them lost, go on
        r_->lost += in_flight();
        given_up_before_ += given_up();
        in_flight_.clear();
        failures_before_ = t_.tx_failures();
        last_reply_ = now;
      }
    }
    receive_all(true);
    t_.idle();
    now = rte_rdtsc();
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

void CheckedClient::run(bool preload, const std::string& preload_error) {
  if (absl::Status s = t_.bind(o_.context, 0); !s.ok()) {
    r_->error = std::string(s.message());
    return;
  }
  failures_before_ = t_.tx_failures();
  if (preload && !preload_keys()) {
    r_->error = preload_error;
    return;
  }
  measure();
}

}  // namespace nanopu::apps
