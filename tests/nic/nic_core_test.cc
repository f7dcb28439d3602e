// The NIC core through the real EAL: a host on one end of a net_ring pair, raw
// frames injected from the other end.
#include "nic/nic_core.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "apps/loopback/loopback.h"
#include "nanopu/runtime.h"
#include "lib/wire/frame.h"
#include "tests/support/eal_env.h"
#include "tests/support/test_hosts.h"

namespace nanopu {
namespace {

constexpr uint32_t kServerIp = 0x0a000001;
constexpr uint32_t kClientIp = 0x0a000002;
constexpr uint16_t kContext = 7;

// A DATA frame from the client's context 99 to kContext, len bytes of fill.
std::vector<uint8_t> data_frame(uint16_t len, uint8_t fill) {
  wire::FrameHeader h;
  h.protocol = wire::kIpProtoNdp;
  h.src_ip = kClientIp;
  h.dst_ip = kServerIp;
  h.ndp.flags = wire::kFlagData;
  h.ndp.src_context = 99;
  h.ndp.dst_context = kContext;
  h.ndp.msg_len = len;
  std::vector<uint8_t> f(wire::kFrameHeaderBytes + len, fill);
  wire::encode_frame_header(h, len, f.data());
  return f;
}

class NicCoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ports_ = testing::make_ring_pair();
    Config c = testing::host_config(ports_.a, kServerIp);
    // The raw far end never ACKs the echo: no retransmission may join the
    // frames a test counts, however slow this machine is.
    c.rto_us = 1e6;
    auto rt = Runtime::create(c);
    ASSERT_TRUE(rt.ok()) << rt.status();
    host_ = std::move(*rt);
    ASSERT_TRUE(host_->spawn([](Thread& t) {
      (void)apps::serve_loopback(t, kContext, 0, apps::LoopbackMode::kEcho);
    }).ok());
    testing::start_raw_port(ports_.b);
    host_->poll_once();  // the thread binds its context
  }
  void TearDown() override {
    host_.reset();
    testing::close_raw_port(ports_.b);
  }

  // Injects a frame and polls the host until it has seen it.
  void inject(const std::vector<uint8_t>& f) {
    const uint64_t before = host_->nic_counters().rx_packets;
    ASSERT_TRUE(testing::send_frame(ports_.b, f.data(), f.size()));
    ASSERT_TRUE(testing::poll_until({host_.get()}, [&] {
      return host_->nic_counters().rx_packets > before;
    }));
    for (int i = 0; i < 10; ++i) host_->poll_once();  // let the echo leave
  }
  size_t drain(std::vector<std::string>* out) {
    std::string frames[64];
    const size_t n = testing::recv_frames(ports_.b, frames, 64);
    if (out != nullptr) out->assign(frames, frames + n);
    return n;
  }

  testing::PortPair ports_;
  std::unique_ptr<Runtime> host_;
};

TEST_F(NicCoreTest, ValidDataIsAckedAndEchoedByteExact) {
  std::vector<uint8_t> req = data_frame(24, 0);
  for (size_t i = 0; i < 24; ++i) req[64 + i] = static_cast<uint8_t>(i * 7 + 1);
  inject(req);
  std::vector<std::string> out;
  ASSERT_EQ(drain(&out), 2u);
  wire::FrameHeader ack, echo;
  size_t ack_payload = 0, echo_payload = 0;
  // Control before data (docs/wire.md).
  ASSERT_EQ(wire::decode_frame_header(reinterpret_cast<const uint8_t*>(out[0].data()), out[0].size(),
                                      &ack, &ack_payload), wire::ParseError::kOk);
  EXPECT_EQ(ack.ndp.flags, wire::kFlagAck | wire::kFlagPull);
  EXPECT_EQ(ack.ndp.src_context, kContext);
  EXPECT_EQ(ack.ndp.dst_context, 99);
  EXPECT_EQ(ack.ndp.msg_len, 24);
  EXPECT_EQ(ack.dst_ip, kClientIp);
  EXPECT_EQ(ack_payload, wire::kControlPayloadBytes);
  ASSERT_EQ(wire::decode_frame_header(reinterpret_cast<const uint8_t*>(out[1].data()), out[1].size(),
                                      &echo, &echo_payload), wire::ParseError::kOk);
  EXPECT_EQ(echo.ndp.flags, wire::kFlagData);
  EXPECT_EQ(echo.ndp.src_context, kContext);
  EXPECT_EQ(echo.ndp.dst_context, 99);
  EXPECT_EQ(echo.src_ip, kServerIp);
  EXPECT_EQ(echo.dst_ip, kClientIp);
  ASSERT_EQ(echo_payload, 24u);
  EXPECT_EQ(out[1].substr(64), std::string(reinterpret_cast<const char*>(req.data()) + 64, 24));
  EXPECT_EQ(host_->nic_counters().rx_msgs_delivered, 1u);
}

TEST_F(NicCoreTest, MalformedFramesAreCountedAndDropped) {
  struct Case {
    const char* name;
    std::vector<uint8_t> frame;
    std::string counter;
  };
  std::vector<Case> cases;
  {
    auto f = data_frame(16, 1);
    f.resize(40);
    cases.push_back({"short", f, "rx_drop_short_frame"});
  }
  {
    auto f = data_frame(16, 1);
    f[23] = 17;  // UDP
    cases.push_back({"wrong protocol", f, "rx_drop_unknown_protocol"});
  }
  {
    auto f = data_frame(16, 1);
    f[25] ^= 0x5a;
    cases.push_back({"bad checksum", f, "rx_drop_bad_checksum"});
  }
  {
    auto f = data_frame(16, 1);
    f[40] = 20;  // msg_len 20, payload 16
    f[24] = f[25] = 0;
    cases.push_back({"length mismatch", f, "rx_drop_bad_length"});
  }
  {
    auto f = data_frame(16, 1);
    f[37] = 0;
    f[38] = 8;  // dst context 8: nobody bound
    f[24] = f[25] = 0;
    cases.push_back({"unknown context", f, "rx_drop_unknown_context"});
  }
  {
    auto f = data_frame(16, 1);
    f[33] = 9;  // 10.0.0.9
    f[24] = f[25] = 0;
    cases.push_back({"not for this host", f, "rx_drop_not_for_host"});
  }
  for (const Case& c : cases) {
    auto count = [&] {
      uint64_t v = 0;
      host_->nic_counters().for_each([&](std::string_view n, uint64_t x) {
        if (n == c.counter) v = x;
      });
      return v;
    };
    const uint64_t before = count();
    inject(c.frame);
    EXPECT_EQ(count(), before + 1) << c.name;
    EXPECT_EQ(drain(nullptr), 0u) << c.name << ": a dropped frame got an answer";
  }
  EXPECT_EQ(host_->nic_counters().rx_msgs_delivered, 0u);
  EXPECT_EQ(host_->nic_counters().rx_dropped(), cases.size());
  // And the host still serves a good one afterwards.
  inject(data_frame(8, 3));
  EXPECT_EQ(drain(nullptr), 2u);
}

TEST_F(NicCoreTest, RandomGarbageNeverCrashesAndIsAllCounted) {
  uint64_t x = 12345;
  for (int i = 0; i < 500; ++i) {
    std::vector<uint8_t> f = data_frame(static_cast<uint16_t>(1 + i % 200), 0);
    for (int k = 0; k < 4; ++k) {  // flip a few random bytes of a valid frame
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      f[(x >> 33) % f.size()] ^= static_cast<uint8_t>(x >> 20);
    }
    ASSERT_TRUE(testing::send_frame(ports_.b, f.data(), f.size()));
    host_->poll_once();
  }
  for (int i = 0; i < 100; ++i) host_->poll_once();
  const NicCounters& c = host_->nic_counters();
  EXPECT_EQ(c.rx_packets, 500u);
  EXPECT_EQ(c.rx_dropped() + c.rx_msgs_delivered + c.rx_control_packets, 500u);
  drain(nullptr);
}

// A host with a dedicated NIC core: a request already waiting on the port
// when run() starts is served, because the NIC core polls only after the
// worker's threads have bound their contexts (else it would be dropped as
// for an unknown context).
TEST(NicCoreDedicatedTest, ARequestWaitingAtStartFindsItsContextBound) {
  testing::PortPair ports = testing::make_ring_pair();
  auto rt = Runtime::create(testing::dedicated_config(ports.a, kServerIp, 1));
  ASSERT_TRUE(rt.ok()) << rt.status();
  ASSERT_TRUE((*rt)->spawn([](Thread& t) {
    (void)apps::serve_loopback(t, kContext, 0, apps::LoopbackMode::kEcho);
  }).ok());
  testing::start_raw_port(ports.b);
  const std::vector<uint8_t> f = data_frame(16, 0x5a);
  ASSERT_TRUE(testing::send_frame(ports.b, f.data(), f.size()));  // before run()

  std::atomic<bool> echoed{false};
  std::thread watcher([&] {  // the raw far end: waits for the echo, then stops the host
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!echoed && std::chrono::steady_clock::now() < end) {
      std::string frames[8];
      const size_t n = testing::recv_frames(ports.b, frames, 8);
      for (size_t i = 0; i < n; ++i) {
        wire::FrameHeader got;
        size_t payload = 0;
        if (wire::decode_frame_header(reinterpret_cast<const uint8_t*>(frames[i].data()),
                                      frames[i].size(), &got, &payload) == wire::ParseError::kOk &&
            (got.ndp.flags & wire::kFlagData))
          echoed = true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    (*rt)->stop();
  });
  ASSERT_TRUE((*rt)->run().ok());
  watcher.join();
  EXPECT_TRUE(echoed);
  EXPECT_EQ((*rt)->nic_counters().rx_drop_unknown_context, 0u);
  EXPECT_EQ((*rt)->nic_counters().rx_msgs_delivered, 1u);
  rt->reset();
  testing::close_raw_port(ports.b);
}

}  // namespace
}  // namespace nanopu
