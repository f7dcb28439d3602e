#include "apps/chain/chain_client.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "apps/mica/kv_protocol.h"

namespace nanopu::apps {

ChainClient::ChainClient(Thread& t, ChainClientOptions options) : t_(t), o_(std::move(options)) {
  config_.members = o_.chain;
}

absl::StatusOr<uint64_t> ChainClient::write(const ChainKey& key, const ChainValue& value) {
  ++stats_.writes;
  if (absl::Status s = call(true, key, &value); !s.ok()) return s;
  return reply_[4];
}

absl::StatusOr<std::optional<ChainRead>> ChainClient::read(const ChainKey& key) {
  ++stats_.reads;
  if (absl::Status s = call(false, key, nullptr); !s.ok()) return s;
  const ChainMeta m = ChainMeta::from_word(reply_[2]);
  if (m.flags & kChainNotFound) return std::nullopt;
  if (reply_len_ != chain_len(true))
    return absl::DataLossError(absl::StrCat("chain: READ reply of ", reply_len_, " bytes"));
  ChainRead r;
  r.version = reply_[4];
  std::copy(reply_ + kChainFixedWords, reply_ + kChainMaxWords, r.value.begin());
  return r;
}

absl::Status ChainClient::call(bool write, const ChainKey& key, const ChainValue* value) {
  size_t skip = 0;  // a replica that did not answer: try the next
  for (uint32_t attempt = 0; attempt < o_.attempts; ++attempt) {
    if (config_.empty()) return absl::FailedPreconditionError("chain: no replicas");
    if (attempt > 0) ++stats_.resent;
    const size_t at = ((write ? 0 : config_.members.size() - 1) + skip) % config_.members.size();
    const uint64_t to = config_.members[at];
    const uint64_t token = next_token_++;
    const ChainMeta m{static_cast<uint8_t>(write ? kChainWrite | kChainFromClient : kChainRead), o_.context, o_.ip};
    if (t_.write(AppHeader{chain_node_ip(to), chain_node_ctx(to), chain_len(write)}.word()) != ApiError::kOk)
      return absl::ResourceExhaustedError("chain: no buffer for a request");
    for (uint64_t w : {uint64_t{0}, token, m.word(), config_.epoch, uint64_t{0}, key[0], key[1], kv_key_hash(key)})
      (void)t_.write(w);
    if (write)
      for (uint64_t v : *value) (void)t_.write(v);
    if (!await(token)) {
      ++skip;
      continue;
    }
    const ChainMeta r = ChainMeta::from_word(reply_[2]);
    if (r.flags & kChainBad) return absl::InvalidArgumentError("chain: a replica refused the request as malformed");
    if (r.flags & kChainRefused) {  // not the end it wanted: learn where to go
      ++stats_.refused;
      const std::optional<ChainConfig> c =
          ChainConfig::from_words({reply_ + kChainFixedWords, kChainValueWords});
      if (c && c->epoch > config_.epoch && !c->empty()) config_ = *c;
      skip = 0;
      continue;
    }
    return absl::OkStatus();
  }
  return absl::DeadlineExceededError(
      absl::StrCat("chain: no answer after ", o_.attempts, " attempts of ", o_.timeout_s, " s"));
}

bool ChainClient::await(uint64_t token) {
  const uint64_t deadline_ns = t_.now_ns() + static_cast<uint64_t>(o_.timeout_s * 1e9);  // the thread's clock
  for (;;) {
    while (!t_.msgs_ready()) {
      const uint64_t now = t_.now_ns();
      if (t_.stopping() || now > deadline_ns) return false;
      (void)t_.wait_for(std::chrono::nanoseconds(deadline_ns - now));
    }
    const AppHeader h = AppHeader::from_word(t_.read());
    reply_len_ = h.len;
    const uint32_t n = std::min<uint32_t>(h.payload_words(), kChainMaxWords);
    for (uint32_t i = 0; i < n; ++i) reply_[i] = t_.read();
    t_.msg_done();
    if (n >= 3 && reply_[1] == token) return true;
    ++stats_.late_replies;  // an earlier attempt's reply, or not ours
  }
}

}  // namespace nanopu::apps
