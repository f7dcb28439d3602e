// packet_for_port (nic/packetizer/packetization_buffer.h): which mbuf a kept
// packet goes to the port in. A port that only reads and lets go gets the
// kept mbuf itself, one reference more, while nobody else holds it; one
// that passes mbufs on (net_ring), or a kept packet still held by the port,
// gets a copy or a clone, and a frame still held elsewhere never has its
// header rewritten under it.
// Real mbufs from a real EAL mempool.
#include <gtest/gtest.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstring>
#include <string>

#include "lib/contract/message.h"
#include "lib/wire/frame.h"
#include "nic/packetizer/packetization_buffer.h"
#include "tests/support/eal_env.h"

namespace nanopu {
namespace {

constexpr uint16_t kCopyBelow = 256;

class PacketForPortTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static int n = 0;
    pool_ = rte_pktmbuf_pool_create(("pfp" + std::to_string(n++)).c_str(), 63, 0, kMsgMetaBytes,
                                    RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
    ASSERT_NE(pool_, nullptr);
  }
  void TearDown() override {
    EXPECT_EQ(rte_mempool_in_use_count(pool_), 0) << "an mbuf leaked";
    rte_mempool_free(pool_);
  }
  // A kept packet as split_into_packets leaves it: header room, then
  // `payload` bytes of `fill`.
  rte_mbuf* kept(uint16_t payload, uint8_t fill) {
    rte_mbuf* m = rte_pktmbuf_alloc(pool_);
    auto* p = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, wire::kFrameHeaderBytes + payload));
    std::memset(p + wire::kFrameHeaderBytes, fill, payload);
    return m;
  }
  static bool payload_is(const rte_mbuf* m, uint16_t payload, uint8_t fill) {
    if (rte_pktmbuf_data_len(m) != wire::kFrameHeaderBytes + payload) return false;
    const auto* p = rte_pktmbuf_mtod_offset(m, const uint8_t*, wire::kFrameHeaderBytes);
    for (uint16_t i = 0; i < payload; ++i)
      if (p[i] != fill) return false;
    return true;
  }
  rte_mempool* pool_ = nullptr;
};

TEST_F(PacketForPortTest, APortThatTakesKeptPacketsGetsTheKeptMbufWithOneMoreReference) {
  for (const uint16_t payload : {uint16_t{8}, uint16_t{1024}}) {
    rte_mbuf* k = kept(payload, 0x5a);
    const unsigned in_use = rte_mempool_in_use_count(pool_);
    rte_mbuf* sent = packet_for_port(k, pool_, kCopyBelow, /*port_takes_kept=*/true);
    EXPECT_EQ(sent, k) << payload << " B";
    EXPECT_EQ(rte_mbuf_refcnt_read(k), 2);
    EXPECT_EQ(rte_mempool_in_use_count(pool_), in_use) << "no buffer taken";
    rte_pktmbuf_free(sent);  // the port lets go (after its copy, DMA or send)
    EXPECT_EQ(rte_mbuf_refcnt_read(k), 1);
    EXPECT_TRUE(payload_is(k, payload, 0x5a)) << "ours, intact";
    rte_pktmbuf_free(k);  // acknowledged
  }
}

TEST_F(PacketForPortTest, AKeptPacketHeldElsewhereGoesAsACopyOfItsOwn) {
  // Held by the port (its earlier send not gone yet) or by a receiver (a
  // clone net_ring handed over): sent again, the new frame's header must
  // not be written into the buffer they still read, whatever its size.
  for (const bool port_takes_kept : {true, false}) {
    for (const uint16_t payload : {uint16_t{8}, uint16_t{1024}}) {
      SCOPED_TRACE(::testing::Message() << payload << " B, port takes kept: " << port_takes_kept);
      rte_mbuf* k = kept(payload, 0x11);
      rte_mbuf* first = packet_for_port(k, pool_, kCopyBelow, port_takes_kept);
      ASSERT_NE(first, nullptr);
      auto* first_header = rte_pktmbuf_mtod(first, uint8_t*);
      std::memset(first_header, 0xab, wire::kFrameHeaderBytes);  // its frame, as framed
      if (rte_mbuf_refcnt_read(k) == 1) {  // the first was a copy: nothing else holds ours
        rte_pktmbuf_free(first);
        rte_pktmbuf_free(k);
        continue;
      }
      rte_mbuf* again = packet_for_port(k, pool_, kCopyBelow, port_takes_kept);
      ASSERT_NE(again, nullptr);
      EXPECT_TRUE(RTE_MBUF_DIRECT(again));
      EXPECT_NE(again->buf_addr, k->buf_addr) << "a buffer of its own";
      EXPECT_TRUE(payload_is(again, payload, 0x11));
      std::memset(rte_pktmbuf_mtod(again, uint8_t*), 0xcd, wire::kFrameHeaderBytes);  // framed
      for (size_t i = 0; i < wire::kFrameHeaderBytes; ++i)
        ASSERT_EQ(first_header[i], 0xab) << "the frame still held was rewritten at byte " << i;
      rte_pktmbuf_free(again);
      rte_pktmbuf_free(first);
      EXPECT_EQ(rte_mbuf_refcnt_read(k), 1);
      rte_pktmbuf_free(k);
    }
  }
}

TEST_F(PacketForPortTest, APortThatPassesMbufsOnGetsACopyWhenSmallAndACloneWhenLarge) {
  rte_mbuf* small = kept(8, 0x22);
  rte_mbuf* copy = packet_for_port(small, pool_, kCopyBelow, /*port_takes_kept=*/false);
  ASSERT_NE(copy, nullptr);
  EXPECT_NE(copy, small);
  EXPECT_TRUE(RTE_MBUF_DIRECT(copy)) << "a copy of its own";
  EXPECT_TRUE(payload_is(copy, 8, 0x22));
  EXPECT_EQ(rte_mbuf_refcnt_read(small), 1);

  rte_mbuf* large = kept(1024, 0x33);
  rte_mbuf* clone = packet_for_port(large, pool_, kCopyBelow, false);
  ASSERT_NE(clone, nullptr);
  EXPECT_TRUE(RTE_MBUF_CLONED(clone)) << "an indirect mbuf sharing ours";
  EXPECT_TRUE(payload_is(clone, 1024, 0x33));
  for (rte_mbuf* m : {copy, small, clone, large}) rte_pktmbuf_free(m);
}

}  // namespace
}  // namespace nanopu
