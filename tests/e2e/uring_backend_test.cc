// The io_uring backend (--backend=uring): two in-process hosts on kernel UDP
// sockets over the loopback interface (127.0.0.x), driven by the real NIC
// core, transport and scheduler; every reply checked byte for byte. Also what
// a user gets wrong: a port in use, an address not on this machine, a stray
// datagram on the port.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "nanopu/runtime.h"
#include "tests/support/eal_env.h"
#include "tests/support/test_hosts.h"

namespace nanopu {
namespace {

constexpr uint32_t kServerIp = 0x7f000102;  // 127.0.1.2
constexpr uint32_t kClientIp = 0x7f000103;  // 127.0.1.3
constexpr uint16_t kServerContext = 5;
constexpr uint16_t kClientContext = 9;

// A port of our own per process, so that a second test binary (or a user's
// nanopu on 9099) never collides with this one.
uint16_t test_udp_port() { return static_cast<uint16_t>(20000 + getpid() % 20000); }

Config uring_config(uint32_t ip) {
  Config c = testing::host_config(0, ip);
  c.port_id = -1;
  c.backend = Backend::kUring;
  c.udp_port = test_udp_port();
  c.rto_us = 200;  // the kernel's loopback is slower than a ring: fewer spurious timeouts
  return c;
}

struct Hosts {
  std::unique_ptr<Runtime> server, client;
};
Hosts make_hosts(const FaultSpec& faults = {}) {
  Hosts h;
  Config sc = uring_config(kServerIp), cc = uring_config(kClientIp);
  sc.faults = faults;
  cc.faults = faults;
  auto s = Runtime::create(sc);
  auto c = Runtime::create(cc);
  EXPECT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(c.ok()) << c.status();
  if (s.ok()) h.server = std::move(*s);
  if (c.ok()) h.client = std::move(*c);
  return h;
}

uint8_t byte_of(uint64_t msg, size_t i) { return static_cast<uint8_t>((msg * 131 + i * 7 + (i >> 8)) ^ 0x5a); }

// Echo: every message back to its sender, unchanged.
void echo_server(Thread& t) {
  ASSERT_TRUE(t.bind(kServerContext).ok());
  while (t.wait()) {
    const AppHeader h = AppHeader::from_word(t.read());
    ASSERT_EQ(t.write(AppHeader{h.ip, h.context, h.len}.word()), ApiError::kOk);
    for (uint32_t i = 0; i < h.payload_words(); ++i) ASSERT_EQ(t.write(t.read()), ApiError::kOk);
    t.msg_done();
  }
}

struct ClientResult {
  uint64_t replies = 0, byte_errors = 0, duplicates = 0, unknown = 0;
  bool done = false;
};

// Sends one message of each size in `sizes`, up to `window` in flight; the
// first 8 payload bytes carry the message's index (replies may come back in
// any order under faults); every byte is checked and each index must come
// back exactly once.
void client(Thread& t, const std::vector<uint16_t>& sizes, uint32_t window, ClientResult* r) {
  ASSERT_TRUE(t.bind(kClientContext).ok());
  std::vector<bool> seen(sizes.size(), false);
  std::vector<uint8_t> buf(65536 + 8);
  uint64_t sent = 0;
  while (r->replies < sizes.size()) {
    while (sent < sizes.size() && sent - r->replies < window) {
      const uint16_t len = sizes[sent];
      for (size_t i = 0; i < len; ++i) buf[i] = byte_of(sent, i);
      if (len >= 8) std::memcpy(buf.data(), &sent, 8);
      ASSERT_EQ(t.write(AppHeader{kServerIp, kServerContext, len}.word()), ApiError::kOk);
      // A message's bytes fill each word from its most significant byte
      // (docs/wire.md): a partial last word travels its first len % 8.
      for (uint32_t w = 0; w < (len + 7u) / 8; ++w) {
        uint64_t word = 0;
        std::memcpy(&word, buf.data() + 8 * w, std::min<size_t>(8, len - 8 * w));
        ASSERT_EQ(t.write(__builtin_bswap64(word)), ApiError::kOk);
      }
      ++sent;
    }
    if (!t.wait()) return;
    const AppHeader h = AppHeader::from_word(t.read());
    for (uint32_t w = 0; w < h.payload_words(); ++w) {
      const uint64_t word = __builtin_bswap64(t.read());
      std::memcpy(buf.data() + 8 * w, &word, 8);
    }
    t.msg_done();
    ++r->replies;
    uint64_t idx = r->replies - 1;  // messages shorter than 8 bytes come back in order (window 1)
    if (h.len >= 8) std::memcpy(&idx, buf.data(), 8);
    if (idx >= sizes.size() || sizes[idx] != h.len) {
      ++r->unknown;
      continue;
    }
    if (seen[idx]) ++r->duplicates;
    seen[idx] = true;
    for (size_t i = 8; i < h.len; ++i) r->byte_errors += buf[i] != byte_of(idx, i);
    if (h.len < 8)
      for (size_t i = 0; i < h.len; ++i) r->byte_errors += buf[i] != byte_of(idx, i);
  }
  r->done = true;
}

void exchange(Hosts& h, const std::vector<uint16_t>& sizes, uint32_t window, ClientResult* r,
              std::chrono::milliseconds limit = std::chrono::seconds(120)) {
  ASSERT_TRUE(h.server && h.client);
  ASSERT_TRUE(h.server->spawn(echo_server).ok());
  ASSERT_TRUE(h.client->spawn([&](Thread& t) { client(t, sizes, window, r); }).ok());
  const bool done = testing::poll_until({h.server.get(), h.client.get()}, [&] { return r->done; }, limit);
  if (!done || ::testing::Test::HasFailure()) {
    h.server->print_stats(stderr);
    h.client->print_stats(stderr);
  }
  ASSERT_TRUE(done) << "replies " << r->replies << " of " << sizes.size();
  EXPECT_EQ(r->byte_errors, 0u);
  EXPECT_EQ(r->duplicates, 0u);
  EXPECT_EQ(r->unknown, 0u);
}

TEST(UringBackendTest, EchoOfEverySmallSizeAndEveryPacketCountEdgeIsByteExact) {
  // Every size up to 1100 B (one packet and the first boundary), then each
  // packet count's edges up to the largest message: k*1024-1, k*1024, k*1024+1.
  std::vector<uint16_t> sizes;
  for (uint16_t s = 1; s <= 1100; ++s) sizes.push_back(s);
  for (uint32_t k = 2; k <= 64; ++k)
    for (int d : {-1, 0, 1})
      if (const uint32_t s = k * 1024 + d; s <= 65535) sizes.push_back(static_cast<uint16_t>(s));
  Hosts h = make_hosts();
  ClientResult r;
  // Sizes below 8 bytes carry no index: one at a time for those.
  std::vector<uint16_t> tiny(sizes.begin(), sizes.begin() + 7), rest(sizes.begin() + 7, sizes.end());
  exchange(h, tiny, 1, &r);
  EXPECT_EQ(r.replies, tiny.size());
  Hosts h2;  // a fresh pair: the first's threads have ended
  h = {};
  h2 = make_hosts();
  ClientResult r2;
  exchange(h2, rest, 8, &r2);
  EXPECT_EQ(r2.replies, rest.size());
  EXPECT_EQ(h2.server->nic_counters().rx_dropped(), 0u);
}

TEST(UringBackendTest, ExactlyOnceUnderTheFaultInjectingWire) {
  FaultSpec f;
  f.drop = 0.10;
  f.reorder = 0.10;
  f.dup = 0.05;
  f.trim = 0.05;
  Hosts h = make_hosts(f);
  std::vector<uint16_t> sizes;
  for (uint32_t i = 0; i < 20000; ++i) sizes.push_back(static_cast<uint16_t>(8 + (i * 977) % 3000));
  ClientResult r;
  exchange(h, sizes, 16, &r);
  EXPECT_EQ(r.replies, sizes.size());
  EXPECT_GT(h.server->nic_counters().fault_dropped, 0u);
  EXPECT_GT(h.client->nic_counters().tx_retransmits + h.server->nic_counters().tx_retransmits, 0u);
}

TEST(UringBackendTest, AStrayDatagramIsCountedAndDroppedAndTheHostKeepsAnswering) {
  Hosts h = make_hosts();
  ASSERT_TRUE(h.server && h.client);
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(test_udp_port());
  to.sin_addr.s_addr = htonl(kServerIp);
  std::vector<uint8_t> junk(3000, 0xab);
  for (size_t len : {size_t{1}, size_t{29}, size_t{100}, size_t{3000}})
    ASSERT_EQ(sendto(fd, junk.data(), len, 0, reinterpret_cast<sockaddr*>(&to), sizeof to),
              static_cast<ssize_t>(len));
  close(fd);
  std::vector<uint16_t> sizes(50, 200);
  for (uint16_t i = 0; i < sizes.size(); ++i) sizes[i] = static_cast<uint16_t>(8 + i);
  ClientResult r;
  exchange(h, sizes, 4, &r);
  EXPECT_EQ(r.replies, sizes.size());
  const NicCounters& c = h.server->nic_counters();
  uint64_t parse_errors = 0;
  for (uint64_t e : c.rx_parse_errors) parse_errors += e;
  // 1, 29 and 100 junk bytes reach the pipeline and fail to parse; 3000 is
  // longer than any nanopu datagram and is dropped by the port.
  EXPECT_EQ(parse_errors, 3u);
  std::string stats;
  char* text = nullptr;
  size_t text_len = 0;
  FILE* mem = open_memstream(&text, &text_len);
  h.server->print_stats(mem);
  std::fclose(mem);
  stats.assign(text, text_len);
  std::free(text);
  EXPECT_NE(stats.find("uring.rx_drop_oversize               1"), std::string::npos) << stats;
}

TEST(UringBackendTest, APortInUseOrAForeignAddressFailsWithOneClearLine) {
  auto first = Runtime::create(uring_config(kServerIp));
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = Runtime::create(uring_config(kServerIp));
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("already in use"), std::string::npos) << second.status();
  auto foreign = Runtime::create(uring_config(0x0a636363));  // 10.99.99.99: not this machine's
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.status().message().find("not an address of this machine"), std::string::npos)
      << foreign.status();
}

TEST(UringBackendTest, DpdkOnlySettingsAreRefused) {
  Config c = uring_config(kServerIp);
  c.vdevs = {"net_ring0"};
  EXPECT_NE(c.validate().message().find("backend=uring"), std::string_view::npos) << c.validate();
  c = uring_config(kServerIp);
  c.pcap_path = "/tmp/x.pcapng";
  EXPECT_NE(c.validate().message().find("tcpdump"), std::string_view::npos) << c.validate();
}

}  // namespace
}  // namespace nanopu
