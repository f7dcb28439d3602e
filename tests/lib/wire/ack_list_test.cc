// An ACK's list (lib/wire/ack_list.h): what the encoder writes the decoder
// reads back, a malformed list is refused whole, and the ACK a listed
// message stands for is the whole-message ACK its sender takes.
#include "lib/wire/ack_list.h"

#include <gtest/gtest.h>

#include <cstring>

namespace nanopu::wire {
namespace {

AckList list_of(uint8_t n) {
  AckList l;
  for (uint8_t i = 0; i < n; ++i)
    l.add({static_cast<uint16_t>(1000 + i), static_cast<uint16_t>(7 * i)});
  return l;
}

TEST(AckListTest, RoundTripsOneToFifteenEntries) {
  for (uint8_t n = 1; n <= AckList::kMax; ++n) {
    const AckList l = list_of(n);
    uint8_t payload[kControlPayloadBytes];
    std::memset(payload, 0xee, sizeof payload);
    encode_ack_list(l, payload);
    EXPECT_EQ(payload[0], n);
    for (size_t i = 2 + 4u * n; i < sizeof payload; ++i) ASSERT_EQ(payload[i], 0) << "byte " << i;
    AckList back;
    ASSERT_TRUE(decode_ack_list(payload, sizeof payload, &back));
    ASSERT_EQ(back.count, n);
    for (uint8_t i = 0; i < n; ++i) EXPECT_EQ(back.msgs[i], l.msgs[i]);
  }
  // Big-endian on the wire: id 0x03e8, slot 0.
  uint8_t payload[kControlPayloadBytes];
  encode_ack_list(list_of(1), payload);
  EXPECT_EQ(payload[2], 0x03);
  EXPECT_EQ(payload[3], 0xe8);
}

TEST(AckListTest, RefusesAMalformedList) {
  uint8_t payload[kControlPayloadBytes];
  encode_ack_list(list_of(3), payload);
  AckList out;
  out.count = 9;
  EXPECT_FALSE(decode_ack_list(payload, 1, &out)) << "no room for the count's byte pair";
  EXPECT_FALSE(decode_ack_list(payload, 2 + 4 * 3 - 1, &out)) << "the last entry cut";
  EXPECT_TRUE(decode_ack_list(payload, 2 + 4 * 3, &out));
  uint8_t bad[kControlPayloadBytes];
  std::memcpy(bad, payload, sizeof bad);
  bad[0] = 0;
  out.count = 9;
  EXPECT_FALSE(decode_ack_list(bad, sizeof bad, &out));
  EXPECT_EQ(out.count, 9) << "untouched when refused";
  bad[0] = AckList::kMax + 1;
  EXPECT_FALSE(decode_ack_list(bad, sizeof bad, &out));
  bad[0] = 3;
  bad[1] = 1;
  EXPECT_FALSE(decode_ack_list(bad, sizeof bad, &out)) << "byte 1 is reserved, zero";
}

TEST(AckListTest, AListedMessageStandsForItsWholeMessageAck) {
  NdpHeader first;
  first.flags = kFlagAck | kFlagPull;
  first.src_context = 7;
  first.dst_context = 3;
  first.msg_len = 100;
  first.pkt_offset = 0;
  first.pull_offset = 1;
  first.tx_msg_id = 11;
  first.buf_ptr = 51;
  first.incarnation = 5;
  first.buf_size_class = 5;
  first.dst_incarnation = 9;
  first.options = kOptAckList;
  const NdpHeader a = listed_ack(first, {12, 52});
  EXPECT_EQ(a.flags, kFlagAck);
  EXPECT_EQ(a.tx_msg_id, 12);
  EXPECT_EQ(a.buf_ptr, 52);
  EXPECT_EQ(a.options, kOptAckBitmap) << "not itself a list";
  EXPECT_EQ(a.acked_bitmap, ~uint64_t{0}) << "every packet of the message";
  EXPECT_EQ(a.src_context, 7);
  EXPECT_EQ(a.dst_context, 3);
  EXPECT_EQ(a.incarnation, 5);
  EXPECT_EQ(a.buf_size_class, 5);
  EXPECT_EQ(a.dst_incarnation, 9);
}

}  // namespace
}  // namespace nanopu::wire
