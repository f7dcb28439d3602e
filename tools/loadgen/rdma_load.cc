#include "tools/loadgen/rdma_load.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "tools/loadgen/load_schedule.h"
#include "apps/rdma/rdma_protocol.h"

namespace nanopu::apps {
namespace {

constexpr uint32_t kMaxOpWords = 4;
// --rdma_mode=scan: a table of (key, pointer) pairs after the indirect
// reads' pointers, written once (unmeasured); each scan names one of its keys.
constexpr int kScanKind = 5, kMaxKind = 6;
constexpr uint32_t kScanKeys = 16;

struct Pending {
  RdmaOp op = RdmaOp::kRead;
  uint32_t first = 0, n = 0;      // reserved words of the slice (data ops)
  uint32_t expect_n = 0;          // words expected after the status
  uint64_t expect[kMaxOpWords] = {};
  uint16_t request_bytes = 0;
};

class RdmaLoad : public LoadSchedule {
 public:
  RdmaLoad(Thread& t, const LoadGenOptions& o, const RdmaLoadOptions& ro, LoadGenResult* r,
           RdmaLoadResult* rr)
      : LoadSchedule(t, o, r), ro_(ro), rr_(rr), image_(ro.words, 0), busy_(ro.words, 0),
        pointers_(std::min<uint32_t>(64, ro.words / 8)),
        data_first_(pointers_ + (ro.only == kScanKind ? 2 * kScanKeys : 0)) {}

  void run() {
    if (absl::Status s = t_.bind(o_.context, 0); !s.ok()) {
      r_->error = std::string(s.message());
      return;
    }
    reset_given_up();
    if (ro_.mode == RdmaLoadMode::kMix && !(read_slice() && write_pointers() && write_scan_table())) {
      r_->error = "reading the slice or writing its pointers failed: no reply within --drain_timeout, or an "
                  "error status (is an rdma server up, with --rdma_base + 8 x --rdma_words inside "
                  "its --rdma_region_kb?)";
      return;
    }
    measure();
    if (ro_.mode != RdmaLoadMode::kMix) read_counter();
  }

 private:
  [[nodiscard]] uint64_t addr(uint32_t word) const { return ro_.base + 8ull * word; }
  // Writes the request header and head words; false if no buffer.
  bool begin(RdmaOp op, uint64_t sent_time, uint64_t a, uint32_t nwords) {
    last_request_bytes_ = rdma_request_len(op, nwords);
    if (t_.write(AppHeader{o_.server_ip, o_.server_context, last_request_bytes_}.word()) !=
        ApiError::kOk) {
      ++r_->send_failures;
      return false;
    }
    for (uint64_t w : {o_.service_cycles, sent_time, static_cast<uint64_t>(op), a}) (void)t_.write(w);
    return true;
  }
  // One request outside the schedule (set-up, final read); its reply in reply_.
  bool call(RdmaOp op, uint64_t a, const std::vector<uint64_t>& args);
  bool read_slice();
  bool write_pointers();
  bool write_scan_table();
  bool send_scan_or_max(uint64_t sent_time, Pending* p);
  // A read through a pointer the image holds (indirect, scan): its n words
  // at ptr expected as the image has them; false if one of them is the
  // target of a request in flight.
  bool expect_through(uint64_t ptr, uint32_t n, Pending* p);
  void read_counter();
  bool send_next(uint64_t sent_tsc) override;
  bool send_mix(uint64_t sent_time);
  void receive_all(bool measure) override;
  [[nodiscard]] size_t in_flight_count() const override { return in_flight_.size(); }
  void forget_in_flight() override {
    in_flight_.clear();
    std::fill(busy_.begin(), busy_.end(), 0);
  }
  // A run of n free data words, or false.
  bool reserve(uint32_t n, uint32_t* first);

  const RdmaLoadOptions& ro_;
  RdmaLoadResult* rr_;
  std::vector<uint64_t> image_;
  std::vector<uint8_t> busy_;
  uint32_t pointers_;
  uint32_t data_first_;  // the words reserve() gives out start here (past pointers and a scan table)
  absl::flat_hash_map<uint64_t, Pending> in_flight_;  // by sent_time
  uint64_t counter_guess_ = 0;  // cas-counter: the value the next CAS expects
  uint16_t last_request_bytes_ = 0;  // of the request begin() last wrote
  uint64_t reply_[3 + kRdmaMaxWords] = {};
};

bool RdmaLoad::call(RdmaOp op, uint64_t a, const std::vector<uint64_t>& args) {
  const uint64_t sent_time = next_sent_time(now());
  const auto nwords = static_cast<uint32_t>(op == RdmaOp::kWrite ? args.size() - 1 : 1);
  if (!begin(op, sent_time, a, nwords)) return false;
  for (uint64_t w : args) (void)t_.write(w);
  const uint64_t deadline = now() + static_cast<uint64_t>(o_.drain_timeout_s * hz_);
  while (now() < deadline && !t_.stopping()) {
    if (!t_.msgs_ready()) {
      wait_until(now() + 1000000);  // a reply or 1 ms: never a spin
      continue;
    }
    const AppHeader h = AppHeader::from_word(t_.read());
    const uint32_t n = std::min<uint32_t>(h.payload_words(), 3 + kRdmaMaxWords);
    for (uint32_t i = 0; i < n; ++i) reply_[i] = t_.read();
    t_.msg_done();
    if (n >= 3 && reply_[1] == sent_time) return reply_[2] == static_cast<uint64_t>(RdmaStatus::kOk);
  }
  return false;
}

// The slice as the server holds it (unmeasured): a server keeps its region
// across clients, so a second run finds the first one's words.
bool RdmaLoad::read_slice() {
  for (uint32_t at = 0; at < ro_.words; at += kRdmaMaxWords) {
    const uint32_t n = std::min<uint32_t>(kRdmaMaxWords, ro_.words - at);
    if (!call(RdmaOp::kRead, addr(at), {n})) return false;
    std::copy(reply_ + 3, reply_ + 3 + n, image_.begin() + at);
  }
  return true;
}

bool RdmaLoad::write_pointers() {
  // Pointer i names a data word (byte address in the region).
  std::vector<uint64_t> args = {pointers_};
  const uint32_t data_words = ro_.words - data_first_ - kMaxOpWords;
  for (uint32_t i = 0; i < pointers_; ++i) {
    image_[i] = addr(data_first_ + static_cast<uint32_t>((uint64_t{i} * 7919) % data_words));
    args.push_back(image_[i]);
  }
  return call(RdmaOp::kWrite, addr(0), args);
}

// The scan table (scan mode only): distinct keys, each with a pointer to a
// data word, as the indirect reads' pointers are made.
bool RdmaLoad::write_scan_table() {
  if (ro_.only != kScanKind) return true;
  std::vector<uint64_t> args = {2 * kScanKeys};
  const uint32_t data_words = ro_.words - data_first_ - kMaxOpWords;
  for (uint32_t i = 0; i < kScanKeys; ++i) {
    image_[pointers_ + 2 * i] = (rng_.next() << 8) | i;  // distinct in their low byte
    image_[pointers_ + 2 * i + 1] = addr(data_first_ + static_cast<uint32_t>((uint64_t{i} * 104729) % data_words));
    args.push_back(image_[pointers_ + 2 * i]);
    args.push_back(image_[pointers_ + 2 * i + 1]);
  }
  return call(RdmaOp::kWrite, addr(pointers_), args);
}

void RdmaLoad::read_counter() {
  if (call(RdmaOp::kRead, addr(0), {1})) rr_->final_value = reply_[3];
  else r_->error = "the final read of the counter failed";
}

bool RdmaLoad::reserve(uint32_t n, uint32_t* first) {

  for (int tries = 0; tries < 8; ++tries) {
    const auto f = static_cast<uint32_t>(rng_.int_between(data_first_, ro_.words - n));
    if (std::all_of(busy_.begin() + f, busy_.begin() + f + n, [](uint8_t b) { return b == 0; })) {
      *first = f;
      return true;
    }
  }
  return false;
}

bool RdmaLoad::send_next(uint64_t sent_tsc) {
  const uint64_t sent_time = next_sent_time(sent_tsc);
  if (ro_.mode == RdmaLoadMode::kMix) return send_mix(sent_time);
  Pending p;
  if (ro_.mode == RdmaLoadMode::kCasCounter) {
    // The CAS loop: one at a time per client (the next expects this one's outcome).
    if (!in_flight_.empty()) return false;
    p.op = RdmaOp::kCas;
    if (!begin(p.op, sent_time, addr(0), 1)) return false;
    (void)t_.write(counter_guess_);
    (void)t_.write(counter_guess_ + 1);
    ++rr_->cas;
  } else {
    p.op = RdmaOp::kFaa;
    if (!begin(p.op, sent_time, addr(0), 1)) return false;
    (void)t_.write(1);
    ++rr_->faa;
  }
  p.request_bytes = last_request_bytes_;
  in_flight_[sent_time] = p;
  return true;
}

// A scan of the table for one of its keys (its pointer's n words back), or
// the largest of n reserved words.
bool RdmaLoad::expect_through(uint64_t ptr, uint32_t n, Pending* p) {
  p->first = static_cast<uint32_t>((ptr - ro_.base) / 8);
  p->n = n;
  if (std::any_of(busy_.begin() + p->first, busy_.begin() + p->first + p->n, [](uint8_t b) { return b; }))
    return false;
  p->expect_n = p->n;
  for (uint32_t i = 0; i < p->n; ++i) p->expect[i] = image_[p->first + i];
  return true;
}

bool RdmaLoad::send_scan_or_max(uint64_t sent_time, Pending* p) {
  p->n = static_cast<uint32_t>(rng_.int_between(1, kMaxOpWords));
  if (ro_.only == kScanKind) {
    const auto entry = static_cast<uint32_t>(rng_.below(kScanKeys));
    if (!expect_through(image_[pointers_ + 2 * entry + 1], p->n, p)) return false;
    p->op = RdmaOp::kScanRead;
    if (!begin(p->op, sent_time, addr(pointers_), p->n)) return false;
    for (uint64_t w : {uint64_t{kScanKeys}, image_[pointers_ + 2 * entry], uint64_t{p->n}}) (void)t_.write(w);
    ++rr_->scans;
    return true;
  }
  if (!reserve(p->n, &p->first)) return false;
  p->op = RdmaOp::kMax;
  if (!begin(p->op, sent_time, addr(p->first), p->n)) return false;
  (void)t_.write(p->n);
  p->expect_n = 1;
  p->expect[0] = *std::max_element(image_.begin() + p->first, image_.begin() + p->first + p->n);
  std::fill(busy_.begin() + p->first, busy_.begin() + p->first + p->n, 1);
  ++rr_->maxes;
  return true;
}

bool RdmaLoad::send_mix(uint64_t sent_time) {
  auto len = [&] { return static_cast<uint32_t>(rng_.int_between(1, kMaxOpWords)); };
  Pending p;
  const int kind = ro_.only >= 0 ? ro_.only : static_cast<int>(rng_.below(5));
  if (kind == kScanKind || kind == kMaxKind) {
    if (!send_scan_or_max(sent_time, &p)) return false;
  } else if (kind == 4) {  // indirect read through a random pointer
    const auto ptr_word = static_cast<uint32_t>(rng_.below(pointers_));
    if (!expect_through(image_[ptr_word], len(), &p)) return false;
    p.op = RdmaOp::kIndirectRead;
    if (!begin(p.op, sent_time, addr(ptr_word), p.n)) return false;
    (void)t_.write(p.n);
    ++rr_->indirect_reads;
  } else {
    p.n = kind <= 1 ? len() : 1;
    if (!reserve(p.n, &p.first)) return false;
    uint64_t* w = &image_[p.first];
    p.op = kind == 0 ? RdmaOp::kRead : kind == 1 ? RdmaOp::kWrite : kind == 2 ? RdmaOp::kCas : RdmaOp::kFaa;
    if (!begin(p.op, sent_time, addr(p.first), p.n)) return false;
    switch (p.op) {
      case RdmaOp::kRead:
        (void)t_.write(p.n);
        p.expect_n = p.n;
        for (uint32_t i = 0; i < p.n; ++i) p.expect[i] = w[i];
        ++rr_->reads;
        break;
      case RdmaOp::kWrite:
        (void)t_.write(p.n);
        for (uint32_t i = 0; i < p.n; ++i) {
          w[i] = rng_.next();
          (void)t_.write(w[i]);
        }
        ++rr_->writes;
        break;
      case RdmaOp::kCas: {
        const bool hit = rng_.next() & 1;
        const uint64_t expected = hit ? w[0] : w[0] ^ 1, desired = rng_.next();
        (void)t_.write(expected);
        (void)t_.write(desired);
        p.expect_n = 1;
        p.expect[0] = w[0];
        if (hit) {
          w[0] = desired;
          ++rr_->cas_swapped;
        }
        ++rr_->cas;
        break;
      }
      default: {  // FAA
        const uint64_t add = rng_.next() >> 40;
        (void)t_.write(add);
        p.expect_n = 1;
        p.expect[0] = w[0];
        w[0] += add;
        ++rr_->faa;
        break;
      }
    }
    std::fill(busy_.begin() + p.first, busy_.begin() + p.first + p.n, 1);
  }
  p.request_bytes = last_request_bytes_;
  in_flight_[sent_time] = p;
  return true;
}

void RdmaLoad::receive_all(bool measure) {
  while (t_.msgs_ready()) {
    const AppHeader h = AppHeader::from_word(t_.read());
    const uint32_t n = std::min<uint32_t>(h.payload_words(), 3 + kRdmaMaxWords);
    for (uint32_t i = 0; i < 3 + kMaxOpWords; ++i) reply_[i] = i < n ? t_.read() : 0;
    take_stamp(h);
    t_.msg_done();
    auto it = in_flight_.find(reply_[1]);
    if (it == in_flight_.end()) {
      if (reply_[1] != 0 && reply_[1] <= last_sent_tsc_) ++r_->duplicates;
      else ++r_->bad_replies;
      continue;
    }
    const Pending p = it->second;
    in_flight_.erase(it);
    if (p.op != RdmaOp::kIndirectRead && p.op != RdmaOp::kScanRead)  // reads through a pointer reserve nothing
      std::fill(busy_.begin() + p.first, busy_.begin() + p.first + p.n, 0);
    bool ok = h.ip == o_.server_ip && h.context == o_.server_context && reply_[0] == o_.service_cycles &&
              reply_[2] == static_cast<uint64_t>(RdmaStatus::kOk) &&
              h.len == rdma_reply_len(p.op, p.expect_n == 0 ? 0 : p.expect_n);
    if (ro_.mode == RdmaLoadMode::kMix) {
      for (uint32_t i = 0; ok && i < p.expect_n; ++i) ok = reply_[3 + i] == p.expect[i];
    } else if (ok && p.op == RdmaOp::kCas) {
      if (reply_[3] == counter_guess_) ++rr_->increments;
      counter_guess_ = reply_[3] == counter_guess_ ? counter_guess_ + 1 : reply_[3];
    } else if (ok) {
      ++rr_->increments;  // a fetch-and-add always increments
    }
    if (!ok) {
      ++r_->bad_replies;
      continue;
    }
    if (measure) record_reply(reply_[1], p.request_bytes);
  }
}

}  // namespace

void run_rdma_client(Thread& t, const LoadGenOptions& o, const RdmaLoadOptions& ro,
                     LoadGenResult* r, RdmaLoadResult* rr) {
  RdmaLoad(t, o, ro, r, rr).run();
}

}  // namespace nanopu::apps
