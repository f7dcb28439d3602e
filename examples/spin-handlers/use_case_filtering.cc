// filtering (PsPIN §IV-C, "Packet filtering/rewriting"): each packet's
// source IPv4 address is looked up in an application-defined hash table of
// 65,536 entries in handler memory; on a match the packet's UDP destination
// port is overwritten with the entry's and the packet written to the host;
// others are dropped on the NIC. 512 messages of one 512-byte packet each:
// [src ip: u32][dst port: u16][pad: u16][payload].
#include <tuple>
#include <utility>

#include "use_cases.h"

namespace spin_demo {
// Its own names (a unity build may join the use cases in one unit).
namespace filtering_case {

constexpr uint32_t kEntries = 65536, kInserted = 32768, kMessages = 512, kPacketBytes = 512;
// An entry: [ip: u32][port: u16][valid: u8][pad], big-endian.
constexpr uint32_t kEntryBytes = 8;

uint32_t slot_of(uint32_t ip) { return static_cast<uint32_t>(mix(ip) % kEntries); }
uint32_t table_ip(uint64_t seed, uint32_t k) { return static_cast<uint32_t>(mix(seed * 7 + k)) | 1u; }
uint16_t table_port(uint32_t k) { return static_cast<uint16_t>(1024 + k % 60000); }

// The table as the host builds it: the first of colliding addresses keeps
// its slot. Calls f(k, ip, slot) for each entry kept.
template <typename F>
void for_each_entry(uint64_t seed, F f) {
  std::vector<bool> taken(kEntries);
  for (uint32_t k = 0; k < kInserted; ++k) {
    const uint32_t ip = table_ip(seed, k), s = slot_of(ip);
    if (taken[s]) continue;
    taken[s] = true;
    f(k, ip, s);
  }
}

}  // namespace filtering_case

spin::ExecutionContext filtering_context(uint16_t context, uint64_t seed) {
  using namespace filtering_case;
  spin::ExecutionContext c;
  c.name = "filtering";
  c.match.context = context;
  c.memory_bytes = kEntries * kEntryBytes;
  c.init = [seed](spin::Memory& m) {
    for_each_entry(seed, [&](uint32_t k, uint32_t ip, uint32_t s) {
      m.store_be<uint32_t>(s * kEntryBytes, ip);
      m.store_be<uint16_t>(s * kEntryBytes + 4, table_port(k));
      m.store<uint8_t>(s * kEntryBytes + 6, 1);
    });
  };
  c.header = [](spin::Handle& h, const spin::Packet& p) {
    // Declared: the hash of the address (~40 cycles on an HPU, the paper's
    // costliest part here), an L2 read of the entry, the rewrite and the
    // DMA command (6 cycles).
    h.charge_cycles(60);
    if (p.payload.size() < 8) return;
    const uint32_t ip = spin::load_be<uint32_t>(p.payload.data());
    const uint32_t at = slot_of(ip) * kEntryBytes;
    const spin::Memory& m = h.memory();
    if (m.load<uint8_t>(at + 6) != 1 || m.load_be<uint32_t>(at) != ip) return;  // no match: dropped
    (void)h.host_write(0, p.payload);
    uint8_t port[2];
    spin::store_be<uint16_t>(port, m.load_be<uint16_t>(at + 4));
    (void)h.host_write(4, port);
  };
  return c;
}

Workload filtering_workload(uint64_t seed) {
  using namespace filtering_case;
  std::vector<std::pair<uint32_t, uint16_t>> kept;
  std::vector<bool> in_table(kEntries);
  for_each_entry(seed, [&](uint32_t k, uint32_t ip, uint32_t s) {
    kept.emplace_back(ip, table_port(k));
    in_table[s] = true;
  });
  Workload w;
  for (uint32_t j = 0; j < kMessages; ++j) {
    // Half the packets from addresses in the table, half from others.
    uint32_t ip;
    uint16_t port = 0;
    if (j % 2 == 0) {
      std::tie(ip, port) = kept[mix(seed + j) % kept.size()];
    } else {
      ip = static_cast<uint32_t>(mix(seed * 11 + j)) & ~1u;  // even: the table's addresses are odd
    }
    Bytes b;
    put_be<uint32_t>(b, ip);
    put_be<uint16_t>(b, 53);
    put_be<uint16_t>(b, 0);
    while (b.size() < kPacketBytes) b.push_back(static_cast<uint8_t>(mix(seed ^ (uint64_t{j} << 20) ^ b.size())));
    if (j % 2 == 0) {
      Bytes rewritten = b;
      spin::store_be<uint16_t>(rewritten.data() + 4, port);
      w.host.push_back(std::move(rewritten));
    }
    w.messages.push_back(std::move(b));
  }
  return w;
}

}  // namespace spin_demo
