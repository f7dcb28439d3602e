// The prebuilt Ethernet/IPv4 template (lib/wire/frame_template.h): a frame
// framed from a peer's template is byte for byte the one encode_frame_header
// writes from the whole header, for random headers of either protocol,
// TOS, length, addresses and MACs; and it decodes back to what it was given.
#include "lib/wire/frame_template.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace nanopu::wire {
namespace {

TEST(FrameTemplateTest, FramesFromATemplateAreByteForByteTheEncodersFrames) {
  std::mt19937_64 rng(37);
  auto u = [&rng](uint64_t n) { return static_cast<uint64_t>(rng() % n); };
  for (int i = 0; i < 20000; ++i) {
    FrameHeader h;
    for (auto& b : h.dst_mac) b = static_cast<uint8_t>(u(256));
    for (auto& b : h.src_mac) b = static_cast<uint8_t>(u(256));
    h.src_ip = static_cast<uint32_t>(rng());
    h.dst_ip = static_cast<uint32_t>(rng());
    h.protocol = u(2) ? kIpProtoHoma : kIpProtoNdp;
    h.tos = static_cast<uint8_t>(u(256));
    h.ttl = static_cast<uint8_t>(1 + u(255));
    if (h.protocol == kIpProtoNdp) {
      NdpHeader& n = h.ndp;
      n.flags = static_cast<uint8_t>(u(64));
      n.src_context = static_cast<uint16_t>(rng());
      n.dst_context = static_cast<uint16_t>(rng());
      n.msg_len = static_cast<uint16_t>(rng());
      n.pkt_offset = static_cast<uint8_t>(u(64));
      n.pull_offset = static_cast<uint16_t>(rng());
      n.tx_msg_id = static_cast<uint16_t>(rng());
      n.buf_ptr = static_cast<uint16_t>(rng());
      n.incarnation = static_cast<uint16_t>(rng());
      n.dst_incarnation = static_cast<uint16_t>(rng());
      n.options = static_cast<uint8_t>(u(8));
      n.core_time = static_cast<uint32_t>(rng());
      n.acked_msg_id = static_cast<uint16_t>(rng());
      n.acked_buf_ptr = static_cast<uint16_t>(rng());
      n.acked_bitmap = rng();
    } else {
      HomaHeader& g = h.homa;
      g.flags = static_cast<uint8_t>(u(256));
      g.src_context = static_cast<uint16_t>(rng());
      g.dst_context = static_cast<uint16_t>(rng());
      g.msg_len = static_cast<uint16_t>(rng());
      g.pkt_offset = static_cast<uint8_t>(u(64));
      g.grant_offset = static_cast<uint16_t>(rng());
      g.grant_prio = static_cast<uint8_t>(u(8));
      g.tx_msg_id = static_cast<uint16_t>(rng());
      g.incarnation = static_cast<uint16_t>(rng());
      g.core_time = static_cast<uint32_t>(rng());
    }
    const size_t payload = u(kSegmentBytes + 1);
    uint8_t want[kFrameHeaderBytes], got[kFrameHeaderBytes];
    std::memset(want, 0xee, sizeof want);
    std::memset(got, 0x11, sizeof got);  // every byte must be written
    encode_frame_header(h, payload, want);
    TransportHeader t;
    t.protocol = h.protocol;
    t.tos = h.tos;
    t.ndp = h.ndp;
    t.homa = h.homa;
    encode_frame_from(
        make_frame_template(h.dst_mac, h.src_mac, h.src_ip, h.dst_ip, h.protocol, h.ttl), t,
        payload, got);
    ASSERT_EQ(std::memcmp(want, got, sizeof want), 0) << "header " << i;
  }
}

TEST(FrameTemplateTest, AFramedHeaderDecodesBackWithItsChecksum) {
  const MacAddr a = {0x02, 0, 0, 0, 0, 1}, b = {0x02, 0, 0, 0, 0, 2};
  const FrameTemplate tmpl = make_frame_template(b, a, 0x0a000001, 0x0a000002, kIpProtoNdp);
  NdpHeader n;
  n.flags = kFlagData;
  n.src_context = 3;
  n.dst_context = 7;
  n.msg_len = 900;
  uint8_t frame[kFrameHeaderBytes + 900] = {};
  encode_frame_from(tmpl, TransportHeader::of(n), 900, frame);
  FrameHeader back;
  size_t payload = 0;
  ASSERT_EQ(decode_frame_header(frame, sizeof frame, &back, &payload), ParseError::kOk);
  EXPECT_EQ(back.ndp, n);
  EXPECT_EQ(back.dst_mac, b);
  EXPECT_EQ(back.src_ip, 0x0a000001u);
  EXPECT_EQ(payload, 900u);
  frame[kEthHeaderBytes + 8] ^= 1;  // the TTL changed under the checksum
  EXPECT_EQ(decode_frame_header(frame, sizeof frame, &back, &payload), ParseError::kBadChecksum);
}

}  // namespace
}  // namespace nanopu::wire
