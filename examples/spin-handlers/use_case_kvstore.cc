// kvstore (PsPIN §IV-C, "Key-Value cache"): a cache of the host's store on
// the NIC, 500 entries, 4-way set-associative (the set: the key modulo the
// number of sets; a victim chosen within its row), in handler memory. A GET
// that hits is answered by the NIC; a miss goes to the host's store. A PUT
// updates the cache and goes on to the host, which answers it. YCSB: 1,000
// requests, 50 % reads, keys Zipf-distributed with theta = 1.1.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "use_cases.h"

namespace spin_demo {
// Its own names (a unity build may join the use cases in one unit).
namespace kvstore_case {

constexpr uint32_t kWays = 4, kSets = 125, kRequests = 1000, kKeys = 10000;
constexpr uint32_t kEntryBytes = 16;                       // [key: u64][value: u64]; key 0: empty
constexpr uint32_t kVictims = kSets * kWays * kEntryBytes;  // then a u8 per set: its next victim

uint32_t way_at(uint64_t key, uint32_t way) { return (static_cast<uint32_t>(key % kSets) * kWays + way) * kEntryBytes; }

void header(spin::Handle& h, const spin::Packet& p) {
  h.charge_cycles(40);  // the set, four compares in L2, the reply or the update
  if (p.payload.size() < 24) return h.forward();  // not ours to judge: the host answers
  const uint64_t w0 = spin::load_be<uint64_t>(p.payload.data());
  const uint64_t key = spin::load_be<uint64_t>(p.payload.data() + 8);
  const uint64_t value = spin::load_be<uint64_t>(p.payload.data() + 16);
  spin::Memory& m = h.memory();
  int hit = -1;
  for (uint32_t way = 0; way < kWays && key != 0; ++way)
    if (m.load<uint64_t>(way_at(key, way)) == key) hit = static_cast<int>(way);
  const auto op = static_cast<KvOp>(w0 >> 56);
  if (op == KvOp::kGet && hit >= 0) {
    uint8_t reply[24];
    spin::store_be<uint64_t>(reply, uint64_t{static_cast<uint8_t>(KvFrom::kNic)} << 56 | (w0 & kIdMask));
    spin::store_be<uint64_t>(reply + 8, key);
    spin::store_be<uint64_t>(reply + 16, m.load<uint64_t>(way_at(key, static_cast<uint32_t>(hit)) + 8));
    (void)h.reply(reply);
    return;
  }
  if (op == KvOp::kPut && key != 0) {
    uint32_t way = static_cast<uint32_t>(hit);
    if (hit < 0) {  // a victim within the row, round robin
      const uint32_t v = kVictims + static_cast<uint32_t>(key % kSets);
      way = m.load<uint8_t>(v) % kWays;
      m.store<uint8_t>(v, static_cast<uint8_t>(way + 1));
    }
    m.store<uint64_t>(way_at(key, way), key);
    m.store<uint64_t>(way_at(key, way) + 8, value);
  }
  h.forward();  // a miss, or a PUT (written through): the host's store answers
}

// Zipf(theta) over 1..n by inverting its CDF (n is small).
class Zipf {
 public:
  Zipf(uint32_t n, double theta) : cdf_(n) {
    double sum = 0;
    for (uint32_t i = 0; i < n; ++i) cdf_[i] = sum += 1.0 / std::pow(i + 1, theta);
    for (double& c : cdf_) c /= sum;
  }
  uint64_t draw(uint64_t r) const {
    const double u = static_cast<double>(r >> 11) / static_cast<double>(uint64_t{1} << 53);
    return static_cast<uint64_t>(std::lower_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin()) + 1;
  }

 private:
  std::vector<double> cdf_;
};

}  // namespace kvstore_case

spin::ExecutionContext kvstore_context(uint16_t context) {
  using namespace kvstore_case;
  spin::ExecutionContext c;
  c.name = "kvstore";
  c.match.context = context;
  c.memory_bytes = kVictims + kSets;
  c.header = header;
  return c;
}

Workload kvstore_workload(uint64_t seed) {
  using namespace kvstore_case;
  Workload w;
  const Zipf zipf(kKeys, 1.1);
  std::unordered_map<uint64_t, uint64_t> store;  // the host reference
  for (uint32_t i = 0; i < kRequests; ++i) {
    const uint64_t key = zipf.draw(mix(seed * 17 + i));
    const bool put = mix(seed * 19 + i) % 2 == 0;
    const uint64_t value = put ? mix(seed * 23 + i) : 0;
    Bytes b;
    put_be<uint64_t>(b, uint64_t{static_cast<uint8_t>(put ? KvOp::kPut : KvOp::kGet)} << 56 | i);
    put_be<uint64_t>(b, key);
    put_be<uint64_t>(b, value);
    w.messages.push_back(std::move(b));
    if (put) store[key] = value;
    w.replies.push_back(put ? value : (store.count(key) ? store[key] : 0));
  }
  return w;
}

}  // namespace spin_demo
