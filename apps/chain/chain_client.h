// A chain-replication client on a nanoPU thread: WRITE to the chain's
// head, READ at its tail, one request at a time. It starts from the chain
// it is given and learns the current one from the replicas: a refusal
// carries the replica's configuration. A request whose reply does not come
// (no reply within the timeout) goes to the next replica it knows, which
// answers or refuses with what it knows.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "apps/chain/chain_config.h"
#include "apps/chain/chain_protocol.h"
#include "nanopu/thread.h"

namespace nanopu::apps {

struct ChainClientOptions {
  uint32_t ip = 0;             // this host's address (replies come to ip, context)
  uint16_t context = 0;        // bound by the client
  std::vector<uint64_t> chain; // chain_node(ip, ctx) of each replica, head first: where it starts
  double timeout_s = 2;        // per attempt
  uint32_t attempts = 4;
};

struct ChainRead {
  uint64_t version = 0;        // the head's number of the write the value came from
  ChainValue value{};
};

struct ChainClientStats {
  uint64_t writes = 0, reads = 0, resent = 0, refused = 0, late_replies = 0;
};

class ChainClient {
 public:
  // `t` must be bound to options.context already.
  ChainClient(Thread& t, ChainClientOptions options);

  // Acknowledged by the tail: every replica holds it or a newer write of
  // the key. The version the head gave it.
  [[nodiscard]] absl::StatusOr<uint64_t> write(const ChainKey& key, const ChainValue& value);
  // The tail's value, or nullopt if the key is absent.
  [[nodiscard]] absl::StatusOr<std::optional<ChainRead>> read(const ChainKey& key);
  [[nodiscard]] const ChainConfig& config() const { return config_; }
  [[nodiscard]] const ChainClientStats& stats() const { return stats_; }

 private:
  // One request (words after the header); its reply's words in reply_.
  absl::Status call(bool write, const ChainKey& key, const ChainValue* value);
  // Waits for the reply carrying token; false on timeout.
  bool await(uint64_t token);

  Thread& t_;
  ChainClientOptions o_;
  ChainConfig config_;
  ChainClientStats stats_;
  uint64_t next_token_ = 1;
  uint64_t reply_[kChainMaxWords] = {};
  uint16_t reply_len_ = 0;
};

}  // namespace nanopu::apps
