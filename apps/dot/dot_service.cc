#include "apps/dot/dot_service.h"

#include <cstdio>
#include <string>
#include <vector>

#include "apps/boot/bind_service.h"
#include "apps/dot/dot_protocol.h"

namespace nanopu::apps {

const std::array<uint64_t, kDotWeights>& dot_weights() {
  static const std::array<uint64_t, kDotWeights> w = [] {
    std::array<uint64_t, kDotWeights> a{};
    for (uint32_t i = 0; i < kDotWeights; ++i) a[i] = i;
    return a;
  }();
  return w;
}

namespace {

DotReply error(uint64_t code, uint64_t ts, DotStats* stats) {
  ++stats->errors;
  return {true, {kDotError, code, 0, ts}};
}

// Checks the type word and n against the message's length: 0 if the
// request is well formed, else the error code.
uint64_t shape_error(uint64_t type, uint64_t n, uint64_t words) {
  if (type != kDotData && type != kDotPairs) return kDotUnknownType;
  if (words < 2 || n == 0 || n > words || dot_request_words(type, n) != words) return kDotBadLength;
  return 0;
}

}  // namespace

DotReply dot_reply(const uint64_t* w, uint32_t n, DotStats* stats) {
  if (n < 1) {
    ++stats->dropped;
    return {};
  }
  if (w[0] == kDotConfig) {
    ++stats->configs;
    return {};
  }
  const uint64_t ts = w[0] == kDotData && n >= 3 ? w[n - 1] : 0;  // the tester's timestamp: the last word
  if (const uint64_t e = shape_error(w[0], n >= 2 ? w[1] : 0, n); e != 0) return error(e, ts, stats);
  const auto& weights = dot_weights();
  const bool pairs = w[0] == kDotPairs;
  uint64_t result = 0;
  for (uint64_t i = 0; i < w[1]; ++i) {
    const uint64_t idx = pairs ? w[2 + 2 * i] : w[2 + i];
    const uint64_t value = pairs ? w[3 + 2 * i] : idx;
    if (idx >= kDotWeights) return error(kDotIndexOutOfRange, ts, stats);
    result += value * weights[idx];
  }
  ++stats->requests;
  return {true, {kDotReply, result, 0, ts}};
}

namespace {

void send_reply(Thread& t, const AppHeader& from, const DotReply& r) {
  (void)t.write(AppHeader{from.ip, from.context, kDotReplyBytes}.word());
  for (uint64_t w : r.words) (void)t.write(w);
}

// kOptimal: every word straight from the RX FIFO into the multiply-add.
DotReply optimal(Thread& t, uint32_t words, DotStats* stats) {
  if (words < 1) {
    ++stats->dropped;
    return {};
  }
  const uint64_t type = t.read();
  if (type == kDotConfig) {
    ++stats->configs;
    return {};
  }
  const uint64_t n = words >= 2 ? t.read() : 0;
  if (const uint64_t e = shape_error(type, n, words); e != 0) {
    uint64_t last = 0;
    for (uint32_t i = 2; i < words; ++i) last = t.read();  // the tester's timestamp is the last word
    return error(e, type == kDotData ? last : 0, stats);
  }
  const auto& weights = dot_weights();
  const bool pairs = type == kDotPairs;
  uint64_t result = 0;
  bool in_range = true;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t idx = t.read();
    const uint64_t value = pairs ? t.read() : idx;
    if (idx >= kDotWeights) in_range = false;
    else result += value * weights[idx];
  }
  const uint64_t ts = pairs ? 0 : t.read();
  if (!in_range) return error(kDotIndexOutOfRange, ts, stats);
  ++stats->requests;
  return {true, {kDotReply, result, 0, ts}};
}

}  // namespace

bool serve_dot(Thread& t, uint16_t context, uint8_t priority, DotVariant variant, DotStats* stats) {
  if (!bind_service(t, context, priority, "dot")) return false;
  std::vector<uint64_t> buffer;  // kNaive: the message in memory
  while (t.wait()) {
    const AppHeader h = AppHeader::from_word(t.read());
    const uint32_t words = h.payload_words();
    DotReply r;
    if (variant == DotVariant::kOptimal) {
      r = optimal(t, words, stats);
    } else {
      buffer.resize(words);
      for (uint32_t i = 0; i < words; ++i) buffer[i] = t.read();
      r = dot_reply(buffer.data(), words, stats);
    }
    if (r.answer) send_reply(t, h, r);
    t.msg_done();
  }
  return true;
}

}  // namespace nanopu::apps
