#include "tools/loadgen/dot_load.h"

#include <algorithm>
#include <deque>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "apps/dot/dot_protocol.h"
#include "tools/loadgen/load_schedule.h"

namespace nanopu::apps {
namespace {

class DotLoad : public LoadSchedule {
 public:
  DotLoad(Thread& t, const LoadGenOptions& o, const DotLoadOptions& d, LoadGenResult* r, DotLoadResult* dr)
      : LoadSchedule(t, o, r), d_(d), dr_(dr) {}

  void run() {
    if (absl::Status s = t_.bind(o_.context, 0); !s.ok()) {
      r_->error = std::string(s.message());
      return;
    }
    reset_given_up();
    measure();
  }

 private:
  bool send_next(uint64_t sent_tsc) override {
    const auto len = static_cast<uint16_t>(dot_request_bytes(d_));
    if (t_.write(AppHeader{o_.server_ip, o_.server_context, len}.word()) != ApiError::kOk) {
      ++r_->send_failures;
      return false;
    }
    const uint64_t sent_time = next_sent_time(sent_tsc);
    const auto& weights = dot_weights();
    uint64_t expected = 0;
    (void)t_.write(d_.pairs ? kDotPairs : kDotData);
    (void)t_.write(d_.words);
    for (uint32_t i = 0; i < d_.words; ++i) {
      const uint64_t idx = rng_.below(kDotWeights);
      const uint64_t value = d_.pairs ? rng_.next() : idx;
      (void)t_.write(idx);
      if (d_.pairs) (void)t_.write(value);
      expected += value * weights[idx];
    }
    if (d_.pairs) {
      by_order_.emplace_back(sent_time, expected);
    } else {
      (void)t_.write(sent_time);
      by_time_[sent_time] = expected;
    }
    return true;
  }

  void receive_all(bool measure) override {
    while (t_.msgs_ready()) {
      const AppHeader h = AppHeader::from_word(t_.read());
      uint64_t w[4] = {};
      for (uint32_t i = 0; i < 4 && i < h.payload_words(); ++i) w[i] = t_.read();
      take_stamp(h);
      t_.msg_done();
      const bool shape = h.len == kDotReplyBytes && h.ip == o_.server_ip && h.context == o_.server_context &&
                         w[0] == kDotReply && w[2] == 0;
      uint64_t sent_time = 0;
      if (shape && !d_.pairs) {
        const auto it = by_time_.find(w[3]);
        if (it != by_time_.end() && it->second == w[1]) {
          sent_time = it->first;
          by_time_.erase(it);
        }
      } else if (shape) {
        const auto it = std::find_if(by_order_.begin(), by_order_.end(),
                                     [&](const auto& q) { return q.second == w[1] && w[3] == 0; });
        if (it != by_order_.end()) {
          sent_time = it->first;
          by_order_.erase(it);
        }
      }
      if (sent_time == 0) {
        ++r_->bad_replies;
        continue;
      }
      ++dr_->checked;
      if (measure) record_reply(sent_time, static_cast<uint32_t>(dot_request_bytes(d_)));
    }
  }
  [[nodiscard]] size_t in_flight_count() const override { return by_time_.size() + by_order_.size(); }
  void forget_in_flight() override {
    by_time_.clear();
    by_order_.clear();
  }

  const DotLoadOptions& d_;
  DotLoadResult* dr_;
  absl::flat_hash_map<uint64_t, uint64_t> by_time_;        // tester: sent_time -> result
  std::deque<std::pair<uint64_t, uint64_t>> by_order_;     // pairs: (sent_time, result), oldest first
};

}  // namespace

void run_dot_client(Thread& t, const LoadGenOptions& o, const DotLoadOptions& d, LoadGenResult* r,
                    DotLoadResult* dr) {
  DotLoad(t, o, d, r, dr).run();
}

}  // namespace nanopu::apps
