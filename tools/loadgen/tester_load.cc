#include "tools/loadgen/tester_load.h"

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "tools/loadgen/load_schedule.h"
#include "apps/loopback/loopback.h"

namespace nanopu::apps {
namespace {

class TesterLoad : public LoadSchedule {
 public:
  TesterLoad(Thread& t, const LoadGenOptions& o, const TesterLoadOptions& to, LoadGenResult* r,
             TesterLoadResult* tr)
      : LoadSchedule(t, o, r), to_(to), tr_(tr), words_(o.msg_bytes / 8), first_(to.service ? 3 : 2) {}

  void run() {
    if (absl::Status s = t_.bind(o_.context, 0); !s.ok()) {
      r_->error = std::string(s.message());
      return;
    }
    config_ts_ = now() | 1;  // never 0, never a DATA's sent_time (those follow it)
    if (t_.write(AppHeader{o_.server_ip, o_.server_context, 24}.word()) != ApiError::kOk) {
      r_->error = "could not send the CONFIG";
      return;
    }
    (void)t_.write(kTesterConfig);
    (void)t_.write(o_.count);
    (void)t_.write(config_ts_);
    std::this_thread::sleep_for(std::chrono::milliseconds(kConfigSettleMs));
    reset_given_up();
    measure();
    if (!to_.service && r_->received > 0 && !tr_->config_stamp_seen) ++r_->bad_replies;  // part of the answer
  }

 private:
  bool send_next(uint64_t sent_tsc) override {
    if (t_.write(AppHeader{o_.server_ip, o_.server_context, static_cast<uint16_t>(8 * words_)}.word()) !=
        ApiError::kOk) {
      ++r_->send_failures;
      return false;
    }
    const uint64_t sent_time = next_sent_time(sent_tsc);
    const uint64_t seq = seq_++;
    (void)t_.write(kTesterData);
    if (to_.service) (void)t_.write(o_.service_cycles);
    (void)t_.write(seq);
    for (uint32_t i = first_; i + 1 < words_; ++i) (void)t_.write(fill_word(seq, i));
    (void)t_.write(sent_time);
    in_flight_[seq] = sent_time;
    return true;
  }

  void receive_all(bool measure) override {
    while (t_.msgs_ready()) {
      const AppHeader h = AppHeader::from_word(t_.read());
      std::vector<uint64_t> w(h.payload_words());
      for (uint64_t& x : w) x = t_.read();
      take_stamp(h);
      t_.msg_done();
      const bool shape = w.size() == words_ && w[0] == kTesterData && (!to_.service || w[1] == o_.service_cycles);
      const uint64_t seq = shape ? w[first_ - 1] : 0;
      const auto it = shape ? in_flight_.find(seq) : in_flight_.end();
      bool ok = it != in_flight_.end() && h.ip == o_.server_ip && h.context == o_.server_context;
      for (uint32_t i = first_; ok && i + 1 < words_; ++i) ok = w[i] == fill_word(seq, i);
      // The num_msgs-th DATA the throughput server saw carries the CONFIG's timestamp.
      const bool stamped = ok && !to_.service && w.back() == config_ts_ && !tr_->config_stamp_seen;
      ok = ok && (w.back() == it->second || stamped);
      if (!ok) {
        ++r_->bad_replies;
        continue;
      }
      tr_->config_stamp_seen = tr_->config_stamp_seen || stamped;
      ++tr_->checked;
      if (measure) record_reply(it->second, 8 * words_);
      in_flight_.erase(it);
    }
  }
  [[nodiscard]] size_t in_flight_count() const override { return in_flight_.size(); }
  void forget_in_flight() override { in_flight_.clear(); }

  const TesterLoadOptions& to_;
  TesterLoadResult* tr_;
  uint32_t words_, first_;  // first_: the first fill word
  uint64_t config_ts_ = 0, seq_ = 0;
  absl::flat_hash_map<uint64_t, uint64_t> in_flight_;  // seq -> sent_time
};

}  // namespace

void run_tester_client(Thread& t, const LoadGenOptions& o, const TesterLoadOptions& to, LoadGenResult* r,
                       TesterLoadResult* tr) {
  TesterLoad(t, o, to, r, tr).run();
}

}  // namespace nanopu::apps
