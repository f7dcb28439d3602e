// The Homa header codec (docs/wire.md, "Homa header"): byte offsets, every
// field round-tripped, and what a receiver refuses.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "lib/wire/frame.h"

namespace nanopu::wire {
namespace {

FrameHeader homa_sample() {
  FrameHeader h;
  h.src_ip = 0x0a000001;
  h.dst_ip = 0x0a000002;
  h.protocol = kIpProtoHoma;
  h.tos = 6;
  h.homa.flags = kHomaData;
  h.homa.src_context = 0x1234;
  h.homa.dst_context = 0xabcd;
  h.homa.msg_len = 3000;
  h.homa.pkt_offset = 2;  // the last packet: 952 bytes
  h.homa.grant_offset = 0x0708;
  h.homa.grant_prio = 5;
  h.homa.tx_msg_id = 0x0405;
  h.homa.buf_ptr = 0x0607;
  h.homa.buf_size_class = 0x09;
  h.homa.incarnation = 0x0a0b;
  h.homa.dst_incarnation = 0x0c0d;
  h.homa.core_time = 0x01020304;
  h.homa.acked_msg_id = 0x1112;
  h.homa.acked_buf_ptr = 0x1314;
  h.homa.options = kHomaOptTakesAcks | kHomaOptCarriesAck;
  return h;
}

std::vector<uint8_t> frame_of(const FrameHeader& h, size_t payload) {
  std::vector<uint8_t> f(kFrameHeaderBytes + payload, 0xee);
  encode_frame_header(h, payload, f.data());
  return f;
}

TEST(HomaHeaderTest, FieldsSitAtTheirBytes) {
  const std::vector<uint8_t> f = frame_of(homa_sample(), 952);
  const uint8_t* l4 = f.data() + kEthHeaderBytes + kIpv4HeaderBytes;
  EXPECT_EQ(f[15], 6) << "priority in the TOS byte";
  EXPECT_EQ(f[23], kIpProtoHoma);
  const uint8_t want[30] = {0x01, 0x12, 0x34, 0xab, 0xcd, 0x0b, 0xb8, 0x02, 0x07, 0x08,
                            0x05, 0x04, 0x05, 0x06, 0x07, 0x09, 0x0a, 0x0b, 0x0c, 0x0d,
                            0x01, 0x02, 0x03, 0x04, 0x11, 0x12, 0x13, 0x14, 0x03, 0};
  EXPECT_EQ(0, std::memcmp(l4, want, sizeof want));
}

TEST(HomaHeaderTest, EveryFieldRoundTrips) {
  const FrameHeader in = homa_sample();
  const std::vector<uint8_t> f = frame_of(in, 952);
  FrameHeader out;
  size_t payload = 0;
  ASSERT_EQ(decode_frame_header(f.data(), f.size(), &out, &payload), ParseError::kOk);
  EXPECT_EQ(payload, 952u);
  EXPECT_EQ(out.homa, in.homa);
  EXPECT_EQ(out.tos, 6);
  EXPECT_TRUE(out.is_homa());
  EXPECT_TRUE(out.is_data());
  EXPECT_EQ(out.dst_context(), 0xabcd);
}

TEST(HomaHeaderTest, ControlPacketsOfEveryKindDecode) {
  for (uint8_t flags : {kHomaAck, kHomaNack, kHomaGrant, kHomaResend, kHomaBusy, kHomaGone,
                        static_cast<uint8_t>(kHomaGrant | kHomaBusy)}) {
    FrameHeader in = homa_sample();
    in.homa.flags = flags;
    in.tos = 7;
    const std::vector<uint8_t> f = frame_of(in, kControlPayloadBytes);
    FrameHeader out;
    size_t payload = 0;
    ASSERT_EQ(decode_frame_header(f.data(), f.size(), &out, &payload), ParseError::kOk) << int{flags};
    EXPECT_FALSE(out.is_data());
    EXPECT_EQ(out.homa.flags, flags);
  }
}

TEST(HomaHeaderTest, BadFramesAreCountedDropsWithTheirReason) {
  struct Case {
    const char* name;
    void (*mutate)(FrameHeader&);
    ParseError want;
  };
  const Case cases[] = {
      {"priority 8", [](FrameHeader& h) { h.tos = 8; }, ParseError::kBadPriority},
      {"priority 0xff", [](FrameHeader& h) { h.tos = 0xff; }, ParseError::kBadPriority},
      {"no flags", [](FrameHeader& h) { h.homa.flags = 0; }, ParseError::kBadFlags},
      {"data+grant", [](FrameHeader& h) { h.homa.flags = kHomaData | kHomaGrant; }, ParseError::kBadFlags},
      {"data+resend", [](FrameHeader& h) { h.homa.flags = kHomaData | kHomaResend; }, ParseError::kBadFlags},
      {"chop on control", [](FrameHeader& h) { h.homa.flags = kHomaChop | kHomaAck; }, ParseError::kBadFlags},
      {"chop alone", [](FrameHeader& h) { h.homa.flags = kHomaChop; }, ParseError::kBadFlags},
      {"msg_len 0", [](FrameHeader& h) { h.homa.msg_len = 0; }, ParseError::kBadLength},
      {"offset past end", [](FrameHeader& h) { h.homa.pkt_offset = 3; }, ParseError::kBadLength},
      {"payload != segment", [](FrameHeader& h) { h.homa.pkt_offset = 1; }, ParseError::kBadLength},
  };
  for (const Case& c : cases) {
    FrameHeader h = homa_sample();
    c.mutate(h);
    const std::vector<uint8_t> f = frame_of(h, 952);
    FrameHeader out;
    size_t payload = 0;
    EXPECT_EQ(decode_frame_header(f.data(), f.size(), &out, &payload), c.want) << c.name;
  }
  // A truncated header: short frame, whatever the protocol.
  std::vector<uint8_t> f = frame_of(homa_sample(), 952);
  f.resize(kFrameHeaderBytes - 1);
  FrameHeader out;
  size_t payload = 0;
  EXPECT_EQ(decode_frame_header(f.data(), f.size(), &out, &payload), ParseError::kShortFrame);
}

TEST(HomaHeaderTest, ATrimmedHomaPacketKeepsItsHeaderAndDecodesAsChop) {
  std::vector<uint8_t> f = frame_of(homa_sample(), 952);
  mark_trimmed(f.data());
  f.resize(kTrimmedFrameBytes);
  FrameHeader out;
  size_t payload = 0;
  ASSERT_EQ(decode_frame_header(f.data(), f.size(), &out, &payload), ParseError::kOk);
  EXPECT_EQ(out.homa.flags, kHomaData | kHomaChop);
  EXPECT_EQ(out.homa.tx_msg_id, 0x0405);
}

}  // namespace
}  // namespace nanopu::wire
