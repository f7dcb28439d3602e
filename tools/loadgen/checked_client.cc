#include "tools/loadgen/checked_client.h"

#include <algorithm>
#include <cstdint>

namespace nanopu::apps {

CheckedClient::CheckedClient(Thread& t, const LoadGenOptions& o, uint32_t keys, double write_fraction,
                             LoadGenResult* r)
    : LoadSchedule(t, o, r), sent_version_(keys, 0), acked_version_(keys, 0), seen_version_(keys, 0), keys_(keys),
      key_(0, keys - 1), is_write_(write_fraction) {}

bool CheckedClient::issue(bool write, uint32_t key, uint64_t sent_tsc) {
  InFlight f;
  f.write = write;
  f.key = key;
  if (write) f.version = sent_version_[key] + 1;
  else f.min_version = acked_version_[key];
  const uint64_t sent_time = next_sent_time(sent_tsc);
  if (!send(f, sent_time)) {
    ++r_->send_failures;
    return false;
  }
  if (write) sent_version_[key] = f.version;
  in_flight_[sent_time] = f;
  if (write) ++writes_in_flight_[key];
  return true;
}

bool CheckedClient::send_next(uint64_t sent_tsc) {
  const bool write = is_write_(rng_);
  uint32_t key = key_(rng_);
  // A write goes to the next key with none in flight (there is one: fewer
  // requests are in flight than there are keys, or reads fill the rest).
  for (uint32_t tries = 0; write && tries < keys_ && write_in_flight(key); ++tries) key = (key + 1) % keys_;
  if (write && write_in_flight(key)) return false;  // every key has a write in flight: wait for one
  return issue(write, key, sent_tsc);
}

void CheckedClient::forget_in_flight() {
  in_flight_.clear();
  std::fill(writes_in_flight_.begin(), writes_in_flight_.end(), 0);
}

void CheckedClient::receive_all(bool measure) {
  while (t_.msgs_ready()) {
    const AppHeader h = AppHeader::from_word(t_.read());
    const uint32_t n = h.payload_words();
    uint64_t words[kMaxReplyWords] = {};
    for (uint32_t i = 0; i < n && i < kMaxReplyWords; ++i) words[i] = t_.read();
    take_stamp(h);
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
    if (f.write) --writes_in_flight_[f.key];
    if (!check(h, words, f)) {
      ++r_->bad_replies;
      continue;
    }
    if (f.write) acked_version_[f.key] = std::max(acked_version_[f.key], f.version);
    if (measure) record_reply(words[1], request_bytes(f));
  }
}

bool CheckedClient::touch_every_key(bool write) {
  const auto drain = static_cast<uint64_t>(o_.drain_timeout_s * hz_);
  uint32_t k = 0;
  uint64_t last_progress = now();
  while (!t_.stopping() && (k < keys_ || !in_flight_.empty())) {
    while (in_flight_.size() < o_.outstanding && k < keys_)
      if (issue(write, k, now())) ++k;
      else break;
    const size_t before = in_flight_.size();
    receive_all(false);
    const uint64_t t_now = now();
    if (in_flight_.size() != before) {
      last_progress = t_now;
      continue;  // a reply freed a slot: the next key goes at once
    }
    if (t_now - last_progress > drain) return false;  // nothing answers
    wait_until(now() + 1000000);  // a reply or 1 ms: never a spin
  }
  return true;
}

bool CheckedClient::preload_keys() {
  if (learn_versions_) {
    // Any version may be there: the reads accept every one and record it.
    std::fill(sent_version_.begin(), sent_version_.end(), UINT32_MAX);
    if (!touch_every_key(false)) return false;
    sent_version_ = acked_version_ = seen_version_;
  }
  if (!touch_every_key(true)) return false;
  // Preloading is not measured: start the counts from here.
  forget_in_flight();
  reset_counts();
  const bool clean = r_->bad_replies == 0 && r_->duplicates == 0 && r_->send_failures == 0;
  r_->bad_replies = r_->duplicates = r_->send_failures = 0;
  reset_given_up();
  return clean;
}

void CheckedClient::run(bool preload, const std::string& preload_error) {
  if (absl::Status s = t_.bind(o_.context, 0); !s.ok()) {
    r_->error = std::string(s.message());
    return;
  }
  reset_given_up();
  if (preload && !preload_keys()) {
    r_->error = preload_error;
    return;
  }
  measure();
}

}  // namespace nanopu::apps
