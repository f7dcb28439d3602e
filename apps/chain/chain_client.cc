#include "apps/chain/chain_client.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "apps/mica/kv_protocol.h"

namespace nanopu::apps {

ChainClient::ChainClient(Thread& t, ChainClientOptions options) : t_(t), o_(std::move(options)) {}

absl::Status ChainClient::write(const ChainKey& key, uint8_t seq, const ChainValue& value) {
  if (o_.chain.empty()) return absl::FailedPreconditionError("chain: no replicas");
  ++stats_.writes;
  return call(o_.chain.front(), true, key, seq, &value);
}

absl::StatusOr<std::optional<ChainRead>> ChainClient::read(const ChainKey& key) {
  if (o_.chain.empty()) return absl::FailedPreconditionError("chain: no replicas");
  ++stats_.reads;
  if (absl::Status s = call(o_.chain.back(), false, key, 0, nullptr); !s.ok()) return s;
  const ChainMeta m = ChainMeta::from_word(reply_[2]);
  if (m.flags & kChainNotFound) return std::nullopt;
  if (reply_len_ != chain_len(0, true))
    return absl::DataLossError(absl::StrCat("chain: READ reply of ", reply_len_, " bytes"));
  ChainRead r;
  r.seq = m.seq;
  for (uint32_t i = 0; i < kChainValueWords; ++i) r.value[i] = reply_[kChainFixedWords + i];
  return r;
}

absl::Status ChainClient::call(uint64_t to, bool write, const ChainKey& key, uint8_t seq,
                               const ChainValue* value) {
  const uint8_t rest = static_cast<uint8_t>(write ? o_.chain.size() - 1 : 0);
  for (uint32_t attempt = 0; attempt < o_.attempts; ++attempt) {
    if (attempt > 0) ++stats_.resent;
    const uint64_t token = next_token_++;
    ChainMeta m{static_cast<uint8_t>(kChainFromTester | (write ? kChainWrite : kChainRead)), seq,
                rest, o_.context, o_.ip};
    if (t_.write(AppHeader{static_cast<uint32_t>(to), static_cast<uint16_t>(to >> 32),
                           chain_len(rest, write)}
                     .word()) != ApiError::kOk)
      return absl::ResourceExhaustedError("chain: no buffer for a request");
    (void)t_.write(0);  // service_time
    (void)t_.write(token);  // sent_time: matches the reply to this attempt
    (void)t_.write(m.word());
    for (uint32_t i = 1; i <= rest; ++i) (void)t_.write(o_.chain[i]);
    (void)t_.write(key[0]);
    (void)t_.write(key[1]);
    (void)t_.write(kv_key_hash(key));
    if (write)
      for (uint64_t v : *value) (void)t_.write(v);
    if (!await(token)) continue;
    const ChainMeta r = ChainMeta::from_word(reply_[2]);
    if (r.flags & kChainBad) return absl::InvalidArgumentError("chain: a replica refused the request as malformed");
    return absl::OkStatus();
  }
  return absl::DeadlineExceededError(
      absl::StrCat("chain: no reply after ", o_.attempts, " attempts of ", o_.timeout_s, " s"));
}

bool ChainClient::await(uint64_t token) {
  const uint64_t deadline_ns = t_.now_ns() + static_cast<uint64_t>(o_.timeout_s * 1e9);  // the thread's clock
  const uint64_t failures = t_.tx_failures();
  for (;;) {
    while (!t_.msgs_ready()) {
      if (t_.stopping() || t_.tx_failures() != failures || t_.now_ns() > deadline_ns)
        return false;
      t_.idle();
    }
    const AppHeader h = AppHeader::from_word(t_.read());
    reply_len_ = h.len;
    const uint32_t n = std::min<uint32_t>(h.payload_words(), kChainFixedWords + kChainValueWords);
    for (uint32_t i = 0; i < n; ++i) reply_[i] = t_.read();
    t_.msg_done();
    if (n >= 3 && reply_[1] == token) return true;
    ++stats_.late_replies;  // an earlier attempt's reply, or not ours
  }
}

}  // namespace nanopu::apps
