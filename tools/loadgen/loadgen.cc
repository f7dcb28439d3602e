#include "tools/loadgen/loadgen.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nanopu/seeded_draw.h"
#include "nanopu/memory_message.h"
#include "tools/loadgen/load_schedule.h"

namespace nanopu::apps {
namespace {

// Mask keeping the bytes of the last word that travel on the wire: a message
// whose length is not a multiple of 8 carries only the first len%8 bytes of
// its last big-endian word (docs/wire.md).
uint64_t last_word_mask(uint32_t len) {
  const uint32_t rem = len % 8;
  return rem == 0 ? ~0ull : ~0ull << (8 * (8 - rem));
}

// The echo/increment/service client: word 0 the service time, word 1 the
// send time, word 2 the sequence number, the rest fill_word(); every reply
// word checked, and a second reply to one request counted apart.
class EchoLoad final : public LoadSchedule {
 public:
  EchoLoad(Thread& t, const LoadGenOptions& o, LoadGenResult* r) : LoadSchedule(t, o, r), words_((o.msg_bytes + 7) / 8) {}
  // After the measured run: service_time 0 ends a service-mode server.
  void stop_server() {
    if (o_.stop_server) (void)send(now(), 0);
  }

 protected:
  bool send_next(uint64_t sent_ns) override {
    uint64_t service = o_.service_cycles;
    if (o_.service_long_fraction > 0 && static_cast<double>(rng_() >> 11) * 0x1.0p-53 < o_.service_long_fraction)
      service = o_.service_long_cycles;
    return send(next_sent_time(sent_ns), service);
  }
  void receive_all(bool measure) override;
  // Sent and not answered, bad or lost (duplicates are extra replies), less
  // those forgotten when a stuck window was counted (the given-up among them).
  [[nodiscard]] size_t in_flight_count() const override { return open() - std::min(open(), forgotten_); }
  // Request seq's tag is tag_base_ + seq: every request is one message,
  // and a failed write takes no tag.
  [[nodiscard]] bool answered(uint64_t tag) const override {
    const uint64_t seq = tag - tag_base_;
    return o_.msg_bytes >= 24 && tag >= tag_base_ && seq < answered_.size() && answered_[seq];
  }
  void forget_in_flight() override {
    forgotten_ = open();
    forgot_below_seq_ = r_->sent;
  }

 private:
  bool send(uint64_t sent, uint64_t service);
  [[nodiscard]] uint64_t expected(uint64_t word, uint32_t index) const {
    uint64_t mask = index + 1 == words_ ? last_word_mask(o_.msg_bytes) : ~0ull;
    const uint64_t add = o_.expect == Expect::kIncrement ? 1 : 0;
    return ((word & mask) + add) & mask;
  }
  bool check(uint32_t n, uint64_t* sent, uint64_t* seq);

  [[nodiscard]] uint64_t open() const {
    const uint64_t done = r_->received + r_->bad_replies + r_->lost;
    return r_->sent > done ? r_->sent - done : 0;
  }

  void note_tag(uint64_t seq) {
    if (seq == 0) tag_base_ = t_.tx_tag();
  }

  uint32_t words_;
  uint64_t tag_base_ = 0;  // the first request's Thread::tx_tag()
  uint64_t forgotten_ = 0;
  uint64_t forgot_below_seq_ = 0;    // requests before it not answered by the forget were counted lost
  std::vector<bool> answered_;       // by sequence number (requests of 24 bytes or more)
  std::vector<uint64_t> tx_memory_;  // the memory path's request, reused
  MemoryMessage rx_memory_;          // and its reply
};

uint64_t fill_word_impl(uint64_t seq, uint32_t i) {
  return mix64(seq * kGoldenGamma + i);  // every word of every request differs
}

bool EchoLoad::send(uint64_t sent, uint64_t service) {
  const uint64_t seq = r_->sent;
  auto word = [&](uint32_t i) { return i == 0 ? service : i == 1 ? sent : i == 2 ? seq : fill_word_impl(seq, i); };
  if (o_.path == MessagePath::kMemory) {  // built in memory, handed over whole
    tx_memory_.resize(words_);
    for (uint32_t i = 0; i < words_; ++i) tx_memory_[i] = word(i);
    if (t_.send_message(AppHeader{o_.server_ip, o_.server_context, static_cast<uint16_t>(o_.msg_bytes)}, tx_memory_) !=
        ApiError::kOk) {
      ++r_->send_failures;
      return false;
    }
    note_tag(seq);
    return true;
  }
  if (t_.write_header(o_.server_ip, o_.server_context, o_.msg_bytes) != ApiError::kOk) {
    ++r_->send_failures;
    return false;
  }
  for (uint32_t i = 0; i < words_; ++i) (void)t_.write(word(i));
  note_tag(seq);
  return true;
}

// Reads the reply's n words (every word checked as it is read); false if wrong.
bool EchoLoad::check(uint32_t n, uint64_t* sent, uint64_t* seq) {
  const bool memory = o_.path == MessagePath::kMemory;
  const bool verify = o_.expect != Expect::kNone;
  const uint64_t add = o_.expect == Expect::kIncrement ? 1 : 0;
  const bool has_seq = o_.msg_bytes >= 24;  // word 2 arrives whole
  bool ok = true;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t v = memory ? rx_memory_.payload[i] : t_.read();
    if (i == 1) *sent = v - add;
    if (i == 2) *seq = v - add;
    if (!verify || !ok) continue;
    if (i == 0)
      ok = v == expected(o_.service_cycles, 0) || (o_.service_long_fraction > 0 && v == expected(o_.service_long_cycles, 0));
    else if (i == 2 && has_seq) ok = *seq < r_->sent;
    else if (i >= 3 && has_seq) ok = v == expected(fill_word_impl(*seq, i), i);
  }
  return ok;
}

void EchoLoad::receive_all(bool measure) {
  const bool has_seq = o_.msg_bytes >= 24;
  const bool memory = o_.path == MessagePath::kMemory;
  while (t_.msgs_ready()) {
    if (memory && t_.receive_message(&rx_memory_) != ApiError::kOk) break;
    const AppHeader h = memory ? rx_memory_.header : AppHeader::from_word(t_.read());
    if (!memory) take_stamp(h);
    const bool header_ok = h.len == o_.msg_bytes && h.ip == o_.server_ip && h.context == o_.server_context;
    uint64_t sent = 0, seq = 0;
    const bool ok = check(h.payload_words(), &sent, &seq) && header_ok;
    if (!memory) t_.msg_done();
    if (!ok) {
      ++r_->bad_replies;
      continue;
    }
    // Exactly once: a second reply to the same request is counted apart.
    if (has_seq) {
      if (seq >= answered_.size()) answered_.resize(std::max<size_t>(2 * answered_.size(), seq + 1));
      if (answered_[seq]) {
        ++r_->duplicates;
        continue;
      }
      answered_[seq] = true;
      if (seq < forgot_below_seq_) continue;  // counted lost already: a late reply is not received twice
      took_reply_to(tag_base_ + seq);         // answered, though its transport may have given it up
    }
    if (measure) record_reply(sent, o_.msg_bytes);
  }
}

}  // namespace

uint64_t fill_word(uint64_t seq, uint32_t i) { return fill_word_impl(seq, i); }

void run_loadgen(Thread& t, const LoadGenOptions& o, LoadGenResult* r) {
  if (absl::Status s = t.bind(o.context, 0); !s.ok()) {
    r->error = std::string(s.message());
    return;
  }
  EchoLoad load(t, o, r);
  load.run();
  load.stop_server();
}

void print_result(FILE* out, const LoadGenOptions& o, const LoadGenResult& r) {
  loadgen::print(out, o, r, "nanopu-loadgen",
                 o.path == MessagePath::kMemory ? ", traditional path (whole messages in memory)" : "");
}

std::string result_json(const LoadGenOptions& o, const LoadGenResult& r) {
  return loadgen::json(o, r, app_mode_name(o.path));
}

}  // namespace nanopu::apps
