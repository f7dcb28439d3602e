#include "tools/loadgen/othello_load.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "tools/loadgen/load_schedule.h"
#include "tools/loadgen/othello_reference.h"
#include "apps/othello/othello_protocol.h"

namespace nanopu::apps {
namespace {

class OthelloLoad : public LoadSchedule {
 public:
  OthelloLoad(Thread& t, const LoadGenOptions& o, const OthelloLoadOptions& ol, LoadGenResult* r,
              OthelloLoadResult* orr)
      : LoadSchedule(t, o, r), ol_(ol), orr_(orr), self_(othello_host(ol.client_ip, o.context)) {}

  void run() {
    if (absl::Status s = t_.bind(o_.context, 0); !s.ok()) {
      r_->error = std::string(s.message());
      return;
    }
    reset_given_up();
    measure();
    // The reference search runs after the measured run, so that its cost
    // (milliseconds per position) stays out of the measured round trips.
    for (const auto& [position, minimax] : answered_) {
      if (ref_negamax(position, static_cast<int>(ol_.depth)) == minimax) {
        ++orr_->checked;
      } else {
        ++r_->bad_replies;
      }
    }
  }

 private:
  bool send_next(uint64_t sent_tsc) override {
    if (t_.write(AppHeader{o_.server_ip, o_.server_context, kOthelloMapBytes}.word()) != ApiError::kOk) {
      ++r_->send_failures;
      return false;
    }
    const uint64_t sent_time = next_sent_time(sent_tsc);
    const RefPosition p = ref_random_position(rng_, 4 + static_cast<int>(rng_() % 21));
    const uint64_t ptr = next_ptr_++;
    for (uint64_t x : {kOthelloMap, ref_own(p), uint64_t{ol_.depth}, uint64_t{0}, self_, ptr, sent_time, ref_opp(p)})
      (void)t_.write(x);
    in_flight_[ptr] = {sent_time, p};
    return true;
  }

  void receive_all(bool measure) override {
    while (t_.msgs_ready()) {
      const AppHeader h = AppHeader::from_word(t_.read());
      uint64_t w[5] = {};
      for (uint32_t i = 0; i < h.payload_words(); ++i) {
        const uint64_t x = t_.read();
        if (i < 5) w[i] = x;
      }
      t_.msg_done();
      const bool shape = h.len == kOthelloReduceBytes && w[0] == kOthelloReduce && w[1] == self_;
      const auto it = shape ? in_flight_.find(w[2]) : in_flight_.end();
      if (it == in_flight_.end() || w[4] != it->second.first) {
        ++r_->bad_replies;
        continue;
      }
      if (measure) record_reply(it->second.first);
      answered_.emplace_back(it->second.second, static_cast<int64_t>(w[3]));
      in_flight_.erase(it);
    }
  }
  [[nodiscard]] size_t in_flight_count() const override { return in_flight_.size(); }
  void forget_in_flight() override { in_flight_.clear(); }

  const OthelloLoadOptions& ol_;
  OthelloLoadResult* orr_;
  uint64_t self_;
  uint64_t next_ptr_ = 1;
  absl::flat_hash_map<uint64_t, std::pair<uint64_t, RefPosition>> in_flight_;  // ptr -> (sent_time, position)
  std::vector<std::pair<RefPosition, int64_t>> answered_;  // checked after the run
};

}  // namespace

void run_othello_client(Thread& t, const LoadGenOptions& o, const OthelloLoadOptions& ol, LoadGenResult* r,
                        OthelloLoadResult* orr) {
  OthelloLoad(t, o, ol, r, orr).run();
}

}  // namespace nanopu::apps
