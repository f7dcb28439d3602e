#include "lib/wire/frame.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <vector>

namespace nanopu::wire {
namespace {

FrameHeader sample() {
  FrameHeader h;
  h.protocol = kIpProtoNdp;
  h.dst_mac = {0x02, 0, 0, 0, 0, 0x02};
  h.src_mac = {0x02, 0, 0, 0, 0, 0x01};
  h.src_ip = 0x0a000001;
  h.dst_ip = 0x0a000002;
  h.ndp.flags = kFlagData;
  h.ndp.src_context = 0x1234;
  h.ndp.dst_context = 0xabcd;
  h.ndp.msg_len = 16;
  h.ndp.pkt_offset = 0;
  h.ndp.pull_offset = 0x0203;
  h.ndp.tx_msg_id = 0x0405;
  h.ndp.buf_ptr = 0x0607;
  h.ndp.buf_size_class = 0x08;
  h.ndp.incarnation = 0x090a;
  h.ndp.dst_incarnation = 0x0b0c;
  h.ndp.core_time = 0x0d0e0f10;
  h.ndp.options = kOptTakesAcks | kOptCarriesAck;
  h.ndp.acked_msg_id = 0x1112;
  h.ndp.acked_buf_ptr = 0x1314;
  return h;
}

// Written out by hand from docs/wire.md; the checksum computed independently (RFC 1071).
constexpr std::array<uint8_t, 64> kGolden = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x02,  // dst MAC
    0x02, 0x00, 0x00, 0x00, 0x00, 0x01,  // src MAC
    0x08, 0x00,                          // EtherType IPv4
    0x45, 0x00, 0x00, 0x42,              // v4 IHL5, TOS 0, total 20+30+16
    0x00, 0x00, 0x00, 0x00,              // id, no fragments
    0x40, 0x99, 0x66, 0x21,              // TTL 64, NDP, checksum
    0x0a, 0x00, 0x00, 0x01,              // src 10.0.0.1
    0x0a, 0x00, 0x00, 0x02,              // dst 10.0.0.2
    0x01,                                // flags DATA
    0x12, 0x34, 0xab, 0xcd,              // src, dst context
    0x00, 0x10,                          // msg_len 16
    0x00,                                // pkt_offset
    0x02, 0x03, 0x04, 0x05,              // pull_offset, tx_msg_id
    0x06, 0x07, 0x08,                    // buf_ptr, buf_size_class
    0x09, 0x0a, 0x0b, 0x0c,              // incarnation, dst_incarnation
    0x0d, 0x0e, 0x0f, 0x10,              // core_time
    0x03,                                // options: takes ACKs, carries one
    0x11, 0x12, 0x13, 0x14,              // acked_msg_id, acked_buf_ptr
    0, 0};                               // 2 bytes padding

std::vector<uint8_t> frame_of(const FrameHeader& h, size_t payload) {
  std::vector<uint8_t> f(kFrameHeaderBytes + payload, 0xee);
  encode_frame_header(h, payload, f.data());
  return f;
}

TEST(FrameTest, EncodeMatchesGoldenBytes) {
  std::vector<uint8_t> f = frame_of(sample(), 16);
  EXPECT_EQ(0, std::memcmp(f.data(), kGolden.data(), kGolden.size()));
}

TEST(FrameTest, DecodeGoldenBytesReadsEveryField) {
  std::vector<uint8_t> f(kGolden.begin(), kGolden.end());
  f.resize(64 + 16, 0);
  FrameHeader h;
  size_t payload = 0;
  ASSERT_EQ(decode_frame_header(f.data(), f.size(), &h, &payload), ParseError::kOk);
  FrameHeader want = sample();
  want.ip_total_len = 0x42;
  EXPECT_EQ(h, want);
  EXPECT_EQ(payload, 16u);
}

TEST(FrameTest, RoundTripsEveryFieldValue) {
  FrameHeader h = sample();
  for (uint32_t v : {0u, 1u, 0x7fu, 0x80u, 0xffu}) {
    h.ndp.buf_size_class = static_cast<uint8_t>(v);
    h.ndp.incarnation = static_cast<uint16_t>(0xffff - v * 255);
    h.ndp.dst_incarnation = static_cast<uint16_t>(v * 255);
    h.ndp.core_time = v * 0x01010101u;
    h.ndp.options = static_cast<uint8_t>(v);
    h.ndp.acked_msg_id = static_cast<uint16_t>(v * 257);
    h.ndp.acked_buf_ptr = static_cast<uint16_t>(0xffff - v);
    h.ndp.pkt_offset = 0;
    h.ndp.src_context = static_cast<uint16_t>(v * 257);
    h.ndp.dst_context = static_cast<uint16_t>(0xffff - v);
    h.ndp.tx_msg_id = static_cast<uint16_t>(v << 8);
    h.tos = static_cast<uint8_t>(v);
    std::vector<uint8_t> f = frame_of(h, 16);
    FrameHeader back;
    size_t payload = 0;
    ASSERT_EQ(decode_frame_header(f.data(), f.size(), &back, &payload), ParseError::kOk);
    h.ip_total_len = back.ip_total_len;
    EXPECT_EQ(back, h);
  }
}

TEST(FrameTest, ZeroChecksumIsAccepted) {  // the prototype always sent 0 (docs/wire.md)
  std::vector<uint8_t> f = frame_of(sample(), 16);
  f[24] = f[25] = 0;
  FrameHeader h;
  size_t payload = 0;
  EXPECT_EQ(decode_frame_header(f.data(), f.size(), &h, &payload), ParseError::kOk);
}

// RX checksum offload: the port's verdict stands in for the sum (good: a
// wrong sum is not looked at; bad: a right one is refused), but a checksum
// of 0 is "not computed" whatever the port said.
TEST(FrameTest, APortsChecksumVerdictStandsInForTheSum) {
  std::vector<uint8_t> f = frame_of(sample(), 16);
  FrameHeader h;
  size_t payload = 0;
  EXPECT_EQ(decode_frame_header(f.data(), f.size(), &h, &payload, PortChecksum::kBad), ParseError::kBadChecksum);
  EXPECT_EQ(decode_frame_header(f.data(), f.size(), &h, &payload, PortChecksum::kGood), ParseError::kOk);
  f[25] ^= 1;  // now wrong
  EXPECT_EQ(decode_frame_header(f.data(), f.size(), &h, &payload, PortChecksum::kUnchecked), ParseError::kBadChecksum);
  EXPECT_EQ(decode_frame_header(f.data(), f.size(), &h, &payload, PortChecksum::kGood), ParseError::kOk)
      << "the port checked it: not summed again";
  f[24] = f[25] = 0;
  EXPECT_EQ(decode_frame_header(f.data(), f.size(), &h, &payload, PortChecksum::kBad), ParseError::kOk);
  f[14 + 8] = 0;  // a TTL of 0: the other checks still run
  EXPECT_EQ(decode_frame_header(f.data(), f.size(), &h, &payload, PortChecksum::kGood), ParseError::kBadIpHeader);
}

struct BadCase {
  const char* name;
  void (*mutate)(std::vector<uint8_t>&);
  ParseError want;
};

TEST(FrameTest, MalformedFramesAreRejectedWithTheirReason) {
  const BadCase cases[] = {
      {"short", [](std::vector<uint8_t>& f) { f.resize(63); }, ParseError::kShortFrame},
      {"arp", [](std::vector<uint8_t>& f) { f[12] = 0x08; f[13] = 0x06; }, ParseError::kNotIpv4},
      {"ipv6 version", [](std::vector<uint8_t>& f) { f[14] = 0x65; }, ParseError::kBadIpHeader},
      {"ip options", [](std::vector<uint8_t>& f) { f[14] = 0x46; }, ParseError::kBadIpHeader},
      {"fragment", [](std::vector<uint8_t>& f) { f[20] = 0x20; }, ParseError::kBadIpHeader},
      {"udp", [](std::vector<uint8_t>& f) { f[23] = 17; }, ParseError::kUnknownProtocol},
      {"bad checksum", [](std::vector<uint8_t>& f) { f[25] ^= 1; }, ParseError::kBadChecksum},
      {"total > frame", [](std::vector<uint8_t>& f) { f.resize(70); }, ParseError::kBadLength},
      {"msg_len 0", [](std::vector<uint8_t>& f) { f[39] = 0; f[40] = 0; }, ParseError::kBadLength},
      {"payload != msg_len", [](std::vector<uint8_t>& f) { f[40] = 17; }, ParseError::kBadLength},
      {"offset past end", [](std::vector<uint8_t>& f) { f[41] = 1; }, ParseError::kBadLength},
      {"no flags", [](std::vector<uint8_t>& f) { f[34] = 0; }, ParseError::kBadFlags},
      {"data+ack", [](std::vector<uint8_t>& f) { f[34] = kFlagData | kFlagAck; }, ParseError::kBadFlags},
      {"data+gone", [](std::vector<uint8_t>& f) { f[34] = kFlagData | kFlagGone; }, ParseError::kBadFlags},
      {"unknown flag", [](std::vector<uint8_t>& f) { f[34] = 0x81; }, ParseError::kBadFlags},
      {"chop on control", [](std::vector<uint8_t>& f) { f[34] = kFlagAck | kFlagChop; }, ParseError::kBadFlags},
      {"data+reject", [](std::vector<uint8_t>& f) { f[34] = kFlagData | kFlagReject; }, ParseError::kBadFlags},
      {"reject without nack", [](std::vector<uint8_t>& f) { f[34] = kFlagAck | kFlagReject; }, ParseError::kBadFlags},
  };
  for (const BadCase& c : cases) {
    std::vector<uint8_t> f = frame_of(sample(), 16);
    c.mutate(f);
    FrameHeader h;
    size_t payload = 0;
    EXPECT_EQ(decode_frame_header(f.data(), f.size(), &h, &payload), c.want) << c.name;
  }
}

TEST(FrameTest, EthernetPaddingAfterThePacketIsIgnored) {
  std::vector<uint8_t> f = frame_of(sample(), 16);
  f.resize(f.size() + 20, 0);
  FrameHeader h;
  size_t payload = 0;
  EXPECT_EQ(decode_frame_header(f.data(), f.size(), &h, &payload), ParseError::kOk);
  EXPECT_EQ(payload, 16u);
}

TEST(FrameTest, ControlPacketsCarryAnyPayloadOfAtLeastZeroBytes) {
  FrameHeader h = sample();
  for (uint8_t flags : {uint8_t{kFlagAck | kFlagPull}, kFlagGone}) {
    h.ndp.flags = flags;
    for (size_t payload : {0u, 64u, 100u}) {
      std::vector<uint8_t> f = frame_of(h, payload);
      FrameHeader back;
      size_t got = 0;
      EXPECT_EQ(decode_frame_header(f.data(), f.size(), &back, &got), ParseError::kOk);
      EXPECT_EQ(got, payload);
    }
  }
}

TEST(FrameTest, MarkTrimmedMakesAValidChoppedHeader) {
  std::vector<uint8_t> f = frame_of(sample(), 16);
  mark_trimmed(f.data());
  f.resize(kTrimmedFrameBytes);
  FrameHeader h;
  size_t payload = 0;
  ASSERT_EQ(decode_frame_header(f.data(), f.size(), &h, &payload), ParseError::kOk);
  EXPECT_EQ(h.ndp.flags, kFlagData | kFlagChop);
  EXPECT_EQ(h.ip_total_len, kTrimmedFrameBytes - kEthHeaderBytes);
  EXPECT_EQ(payload, kTrimmedFrameBytes - kFrameHeaderBytes);
  EXPECT_EQ(h.ndp.msg_len, 16);  // the message fields survive for the NACK
}

TEST(FrameTest, SegmentArithmetic) {
  EXPECT_EQ(segment_payload_bytes(1, 0), 1u);
  EXPECT_EQ(segment_payload_bytes(1024, 0), 1024u);
  EXPECT_EQ(segment_payload_bytes(1025, 0), 1024u);
  EXPECT_EQ(segment_payload_bytes(1025, 1), 1u);
  EXPECT_EQ(segment_payload_bytes(1025, 2), 0u);
  EXPECT_EQ(segment_payload_bytes(65535, 63), 1023u);
  EXPECT_EQ(packets_for(65535), 64u);
  EXPECT_EQ(kMaxPacketsPerMessage, 64u);
}

TEST(FrameTest, NeverReadsPastTheGivenLength) {
  // Every prefix of a valid frame is handled without reading past it
  // (ASan checks the heap copy's bounds).
  std::vector<uint8_t> f = frame_of(sample(), 16);
  for (size_t n = 0; n <= f.size(); ++n) {
    std::vector<uint8_t> prefix(f.begin(), f.begin() + static_cast<long>(n));
    FrameHeader h;
    size_t payload = 0;
    const ParseError e = decode_frame_header(prefix.data(), prefix.size(), &h, &payload);
    EXPECT_EQ(e == ParseError::kOk, n == f.size()) << n;
  }
}

}  // namespace
}  // namespace nanopu::wire

namespace nanopu::wire {
namespace {

// The io_uring backend (docs/wire.md, "UDP encapsulation"): a frame less its
// 34 envelope bytes travels as the datagram; the receiver writes an envelope
// from the socket's addresses in front of it and the frame decodes as sent.
TEST(UdpEnvelopeTest, AFrameSentWithoutItsEnvelopeDecodesTheSameAfterOneIsWritten) {
  FrameHeader h;
  h.protocol = kIpProtoNdp;
  h.dst_mac = {1, 2, 3, 4, 5, 6};
  h.src_mac = {7, 8, 9, 10, 11, 12};
  h.src_ip = 0x7f000103;
  h.dst_ip = 0x7f000102;
  h.ndp.flags = kFlagData;
  h.ndp.src_context = 9;
  h.ndp.dst_context = 5;
  h.ndp.msg_len = 100;
  h.ndp.tx_msg_id = 77;
  h.ndp.core_time = 12345;
  uint8_t sent[kFrameHeaderBytes + 100] = {};
  encode_frame_header(h, 100, sent);
  const UdpEnvelope env = read_udp_envelope(sent);
  EXPECT_EQ(env.dst_ip, h.dst_ip);
  EXPECT_EQ(env.protocol, kIpProtoNdp);

  uint8_t received[sizeof sent] = {};
  std::memcpy(received + kUdpEnvelopeBytes, sent + kUdpEnvelopeBytes, sizeof sent - kUdpEnvelopeBytes);
  encode_udp_envelope(h.src_ip, h.dst_ip, mac_for_ipv4(h.src_ip), mac_for_ipv4(h.dst_ip), kIpProtoNdp,
                      sizeof sent - kUdpEnvelopeBytes, received);
  FrameHeader got;
  size_t payload = 0;
  ASSERT_EQ(decode_frame_header(received, sizeof received, &got, &payload), ParseError::kOk);
  EXPECT_EQ(payload, 100u);
  EXPECT_EQ(got.ndp, h.ndp);
  EXPECT_EQ(got.src_ip, h.src_ip);
  EXPECT_EQ(got.dst_ip, h.dst_ip);
  EXPECT_EQ(got.src_mac, (MacAddr{0x02, 0x00, 0x7f, 0x00, 0x01, 0x03}));
}

TEST(UdpEnvelopeTest, AShortDatagramGetsAnEnvelopeThePipelineRejectsByLength) {
  uint8_t received[kUdpEnvelopeBytes + 5] = {};
  encode_udp_envelope(1, 2, mac_for_ipv4(1), mac_for_ipv4(2), kIpProtoNdp, 5, received);
  FrameHeader got;
  size_t payload = 0;
  EXPECT_EQ(decode_frame_header(received, sizeof received, &got, &payload), ParseError::kShortFrame);
}

}  // namespace
}  // namespace nanopu::wire
