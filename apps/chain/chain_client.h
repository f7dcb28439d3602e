// A chain-replication client on a nanoPU thread: WRITE through the chain's
// head, READ at its tail, one request at a time. A request whose reply does
// not come (the transport gave it up, or no reply within the timeout) is
// sent again, a WRITE with the same seq: replicas that applied it already
// ignore it, and the tail acknowledges it again.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "apps/chain/chain_protocol.h"
#include "nanopu/thread.h"

namespace nanopu::apps {

struct ChainClientOptions {
  uint32_t ip = 0;             // this host's address (replies come to ip, context)
  uint8_t context = 0;         // bound by the client; 8 bits in the layout
  std::vector<uint64_t> chain; // chain_node(ip, ctx) of each replica, head first
  double timeout_s = 2;        // per attempt
  uint32_t attempts = 3;
};

struct ChainRead {
  uint8_t seq = 0;             // of the WRITE the value came from
  ChainValue value{};
};

struct ChainClientStats {
  uint64_t writes = 0, reads = 0, resent = 0, late_replies = 0;
};

class ChainClient {
 public:
  // `t` must be bound to options.context already.
  ChainClient(Thread& t, ChainClientOptions options);

  // Acknowledged by the tail: every replica holds a value at least as new.
  [[nodiscard]] absl::Status write(const ChainKey& key, uint8_t seq, const ChainValue& value);
  // The tail's value, or nullopt if the key is absent.
  [[nodiscard]] absl::StatusOr<std::optional<ChainRead>> read(const ChainKey& key);
  [[nodiscard]] const ChainClientStats& stats() const { return stats_; }

 private:
  // One request (words after the header) to `to`; its reply's words (after
  // the header) in reply_. Retries per the options.
  absl::Status call(uint64_t to, bool write, const ChainKey& key, uint8_t seq,
                    const ChainValue* value);
  // Waits for the reply carrying token; false on timeout or give-up.
  bool await(uint64_t token);

  Thread& t_;
  ChainClientOptions o_;
  ChainClientStats stats_;
  uint64_t next_token_ = 1;
  uint64_t reply_[kChainFixedWords + kChainValueWords] = {};
  uint16_t reply_len_ = 0;
};

}  // namespace nanopu::apps
