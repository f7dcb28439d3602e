#include "tools/loadgen/checked_client.h"

#include "absl/strings/str_cat.h"

#include <algorithm>
#include <cstdint>

namespace nanopu::apps {

CheckedClient::CheckedClient(Thread& t, const LoadGenOptions& o, uint32_t keys, double write_fraction,
                             LoadGenResult* r)
    : LoadSchedule(t, o, r), sent_version_(keys, 0), acked_version_(keys, 0), keys_(keys),
      hc_(o.history), write_fraction_(write_fraction) {
  // Shared keys: this client's versions in its own space (writer_id << 20),
  // so values are unique across writers.
  if (o.shared_keys) std::fill(sent_version_.begin(), sent_version_.end(), o.writer_id << 20);
}

bool CheckedClient::issue(bool write, uint32_t key, uint64_t sent_tsc) {
  InFlight f;
  f.write = write;
  f.key = key;
  if (write) f.version = sent_version_[key] + 1;
  else f.min_version = acked_version_[key];
  const uint64_t sent_time = next_sent_time(sent_tsc);
  f.sent_at = now();
  if (!send(f, sent_time)) {
    ++r_->send_failures;
    return false;
  }
  if (write) sent_version_[key] = f.version;
  f.token = hc_.invoke(now(), HistoryOp{write ? "write" : "read", key,
                                        write ? HistoryValue::of(f.version) : HistoryValue::null()});
  in_flight_[sent_time] = f;
  if (write) ++writes_in_flight_[key];
  return true;
}

bool CheckedClient::send_next(uint64_t sent_tsc) {
  const bool write = rng_.chance(write_fraction_);
  auto key = static_cast<uint32_t>(rng_.below(keys_));
  // A write goes to the next key with none in flight (there is one: fewer
  // requests are in flight than there are keys, or reads fill the rest).
  for (uint32_t tries = 0; write && tries < keys_ && write_in_flight(key); ++tries) key = (key + 1) % keys_;
  if (write && write_in_flight(key)) return false;  // every key has a write in flight: wait for one
  return issue(write, key, sent_tsc);
}

void CheckedClient::record_end(const InFlight& f, bool ok) {
  if (!ok) return hc_.info(f.token, now());  // a wrong reply: what happened is unknown
  if (f.write) return hc_.ok(f.token, now());
  hc_.ok(f.token, now(), read_version_ == 0 ? HistoryValue::null() : HistoryValue::of(read_version_));
}

void CheckedClient::forget_in_flight() {
  // In the order they were sent: a simulation writes the same history.
  std::vector<uint64_t> order;
  for (const auto& [sent, f] : in_flight_) order.push_back(sent);
  std::sort(order.begin(), order.end());
  for (uint64_t sent : order) hc_.info(in_flight_[sent].token, now());
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
    if (refused(h, words, f)) {
      count_given_up();
      hc_.fail(f.token, now());
      continue;
    }
    read_version_ = 0;
    const bool ok = check(h, words, f);
    record_end(f, ok);
    if (!ok) {
      ++r_->bad_replies;
      continue;
    }
    if (f.write) acked_version_[f.key] = std::max(acked_version_[f.key], f.version);
    if (measure) record_reply(words[1], request_bytes(f));
  }
  end_overdue();
}

void CheckedClient::end_overdue() {
  if (request_timeout_ns_ == 0 || in_flight_.empty()) return;
  const uint64_t t = now();
  std::vector<uint64_t> overdue;  // in the order they were sent: a simulation replays the same
  for (const auto& [sent, f] : in_flight_)
    if (t - f.sent_at >= request_timeout_ns_) overdue.push_back(sent);
  std::sort(overdue.begin(), overdue.end());
  for (uint64_t sent : overdue) {
    const InFlight f = in_flight_[sent];
    in_flight_.erase(sent);
    if (f.write) --writes_in_flight_[f.key];
    ++r_->lost;
    hc_.info(f.token, t);
    timed_out(f);
  }
}

uint64_t CheckedClient::next_timer_ns() const {
  if (request_timeout_ns_ == 0) return UINT64_MAX;
  uint64_t due = UINT64_MAX;
  for (const auto& [sent, f] : in_flight_) due = std::min(due, f.sent_at + request_timeout_ns_);
  return due;
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

std::string CheckedClient::preload_keys() {
  if (read_first_) {
    // Any version may be there (an earlier run's): the reads accept every one.
    const std::vector<uint32_t> sent = sent_version_;
    std::fill(sent_version_.begin(), sent_version_.end(), UINT32_MAX);
    if (!touch_every_key(false)) return "no reply to a READ within --drain_timeout";
    sent_version_ = sent;
  }
  if (!touch_every_key(true)) return "no acknowledgement within --drain_timeout";
  // Preloading is not measured: start the counts from here.
  forget_in_flight();
  reset_counts();
  std::string why;
  if (r_->bad_replies + r_->duplicates + r_->send_failures != 0)
    why = absl::StrCat(r_->bad_replies, " wrong replies, ", r_->duplicates, " duplicates, ", r_->send_failures,
                       " requests not sent");
  r_->bad_replies = r_->duplicates = r_->send_failures = 0;
  reset_given_up();
  return why;
}

void CheckedClient::run(bool preload, const std::string& preload_error) {
  if (absl::Status s = t_.bind(o_.context, 0); !s.ok()) {
    r_->error = std::string(s.message());
    return;
  }
  reset_given_up();
  if (const std::string why = preload ? preload_keys() : ""; !why.empty()) {
    r_->error = preload_error + ": " + why;
    return;
  }
  measure();
}

}  // namespace nanopu::apps
