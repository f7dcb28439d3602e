#include "tools/loadgen/word_load.h"

#include <chrono>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "tools/loadgen/load_schedule.h"

namespace nanopu::apps {
namespace {

class WordLoad : public LoadSchedule {
 public:
  WordLoad(Thread& t, const LoadGenOptions& o, Workload& w, LoadGenResult* r, WordLoadResult* wr)
      : LoadSchedule(t, o, r), w_(w), wr_(wr) {}

  void run() {
    if (absl::Status s = t_.bind(o_.context, 0); !s.ok()) {
      r_->error = std::string(s.message());
      return;
    }
    if (!ready()) return;
    reset_given_up();
    measure();
  }

 private:
  bool send(const std::vector<uint64_t>& payload) {
    if (t_.write(AppHeader{o_.server_ip, o_.server_context, static_cast<uint16_t>(8 * payload.size())}.word()) !=
        ApiError::kOk)
      return false;
    for (uint64_t x : payload) (void)t_.write(x);
    return true;
  }

  // The prologue, then one request until it is answered right (up to ten
  // tries of a second each): the server has the prologue's state.
  bool ready() {
    for (int attempt = 0; attempt < 10; ++attempt) {
      for (const auto& m : w_.prologue())
        if (!send(m)) ++r_->send_failures;
      Expected e;
      const uint64_t sent_time = next_sent_time(0);
      w_.make(rng_, sent_time, &req_, &e);
      if (!send(req_)) continue;
      const uint64_t deadline_ns = t_.now_ns() + 1'000'000'000;  // the thread's clock
      while (t_.now_ns() < deadline_ns) {
        if (!t_.wait_for(std::chrono::milliseconds(100)) || !t_.msgs_ready()) continue;
        const std::vector<uint64_t> reply = take();
        if (w_.reply_tag(reply) == w_.tag_of(sent_time) && w_.check(reply, e)) return true;
      }
    }
    r_->error = "no correct answer to a first request in 10 s (is the server running this service?)";
    return false;
  }

  std::vector<uint64_t> take() {
    const AppHeader h = AppHeader::from_word(t_.read());
    std::vector<uint64_t> reply(h.payload_words());
    for (uint64_t& x : reply) x = t_.read();
    t_.msg_done();
    from_server_ = h.ip == o_.server_ip && h.context == o_.server_context;
    return reply;
  }

  bool send_next(uint64_t sent_tsc) override {
    const uint64_t sent_time = next_sent_time(sent_tsc);
    Expected e;
    w_.make(rng_, sent_time, &req_, &e);
    if (!send(req_)) {
      ++r_->send_failures;
      return false;
    }
    in_flight_[w_.tag_of(sent_time)] = {sent_time, std::move(e)};
    return true;
  }

  void receive_all(bool measure) override {
    while (t_.msgs_ready()) {
      const std::vector<uint64_t> reply = take();
      const std::optional<uint64_t> tag = w_.reply_tag(reply);
      const auto it = from_server_ && tag ? in_flight_.find(*tag) : in_flight_.end();
      if (it == in_flight_.end() || !w_.check(reply, it->second.second)) {
        ++r_->bad_replies;
        if (w_.is_error_reply(reply)) ++wr_->error_replies;
        continue;
      }
      const uint64_t sent_time = it->second.first;
      in_flight_.erase(it);
      ++wr_->checked;
      if (measure) record_reply(sent_time);
    }
  }
  [[nodiscard]] size_t in_flight_count() const override { return in_flight_.size(); }
  void forget_in_flight() override { in_flight_.clear(); }

  Workload& w_;
  WordLoadResult* wr_;
  std::vector<uint64_t> req_;
  bool from_server_ = false;
  absl::flat_hash_map<uint64_t, std::pair<uint64_t, Expected>> in_flight_;  // tag -> (sent_time, answer)
};

}  // namespace

void run_word_client(Thread& t, const LoadGenOptions& o, Workload& w, LoadGenResult* r, WordLoadResult* wr) {
  WordLoad(t, o, w, r, wr).run();
}

}  // namespace nanopu::apps
