// The NIC's ingress pipeline and egress framing on their own, with real EAL
// mbufs: every frame the pipeline sees goes one way (DATA for a bound
// context, control, or a counted drop, never a crash); the packetizer frames
// a DATA packet in place and builds a control packet that the pipeline
// reads back as the header it was given, in either protocol, to the MAC
// the pipeline learned.
#include <gtest/gtest.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstring>

#include "lib/contract/context_table.h"
#include "lib/contract/message.h"
#include "lib/wire/frame.h"
#include "nic/packetizer/packetizer.h"
#include "nic/pipeline/neighbor_table.h"
#include "nic/pipeline/pipeline.h"
#include "tests/support/eal_env.h"

namespace nanopu {
namespace {

constexpr uint32_t kHost = 0x0a000001;
constexpr uint32_t kPeer = 0x0a000002;
constexpr wire::MacAddr kHostMac = {0x02, 0, 0, 0, 0, 1};
constexpr wire::MacAddr kPeerMac = {0x02, 0, 0, 0, 0, 2};

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static int n = 0;
    pool_ = rte_pktmbuf_pool_create(("pipe" + std::to_string(n++)).c_str(), 255, 0, kMsgMetaBytes,
                                    RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
    ASSERT_NE(pool_, nullptr);
    bound_.worker = 0;
    ASSERT_TRUE(contexts_.bind(7, &bound_).ok());
  }
  void TearDown() override {
    EXPECT_EQ(rte_mempool_in_use_count(pool_), 0) << "a frame leaked";
    rte_mempool_free(pool_);
  }
  // A frame with header h and `payload` bytes after it, as a port would hand it over.
  rte_mbuf* frame(const wire::FrameHeader& h, size_t payload) {
    rte_mbuf* m = rte_pktmbuf_alloc(pool_);
    auto* p = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, static_cast<uint16_t>(wire::kFrameHeaderBytes + payload)));
    wire::encode_frame_header(h, payload, p);
    return m;
  }
  static wire::FrameHeader data_to(uint16_t context, uint8_t protocol = wire::kIpProtoNdp) {
    wire::FrameHeader h;
    h.protocol = protocol;
    h.src_mac = kPeerMac;
    h.dst_mac = kHostMac;
    h.src_ip = kPeer;
    h.dst_ip = kHost;
    if (protocol == wire::kIpProtoHoma) {
      h.homa.flags = wire::kHomaData;
      h.homa.src_context = 3;
      h.homa.dst_context = context;
      h.homa.msg_len = 100;
    } else {
      h.ndp.flags = wire::kFlagData;
      h.ndp.src_context = 3;
      h.ndp.dst_context = context;
      h.ndp.msg_len = 100;
    }
    return h;
  }
  PipelineResult classify(rte_mbuf* m, wire::FrameHeader* h) {
    size_t payload = 0;
    const PipelineResult r = pipeline_.classify(m, h, &payload);
    rte_pktmbuf_free(m);
    return r;
  }

  rte_mempool* pool_ = nullptr;
  ContextTable contexts_{903, 16};
  ThreadFifos bound_;
  NicCounters counters_;
  NeighborTable neighbors_{wire::kBroadcastMac};
  Pipeline pipeline_{kHost, &contexts_, &neighbors_, &counters_};
};

TEST_F(PipelineTest, DataForABoundContextGoesToItInEitherProtocol) {
  for (uint8_t proto : {wire::kIpProtoNdp, wire::kIpProtoHoma}) {
    wire::FrameHeader h;
    const PipelineResult r = classify(frame(data_to(7, proto), 100), &h);
    EXPECT_EQ(r.kind, PipelineResult::Kind::kData);
    ASSERT_NE(r.dst, nullptr);
    EXPECT_EQ(r.dst->context, 7);
    EXPECT_EQ(h.protocol, proto);
  }
  EXPECT_EQ(counters_.rx_data_packets, 2u);
  EXPECT_EQ(counters_.rx_homa_packets, 1u);
}

TEST_F(PipelineTest, EveryOtherFrameIsCountedByWhyAndDropped) {
  wire::FrameHeader h;
  EXPECT_EQ(classify(frame(data_to(8), 100), &h).kind, PipelineResult::Kind::kDrop);
  EXPECT_EQ(counters_.rx_drop_unknown_context, 1u) << "a context nobody bound";
  wire::FrameHeader other = data_to(7);
  other.dst_ip = 0x0a000009;
  EXPECT_EQ(classify(frame(other, 100), &h).kind, PipelineResult::Kind::kDrop);
  EXPECT_EQ(counters_.rx_drop_not_for_host, 1u);
  rte_mbuf* short_frame = frame(data_to(7), 100);
  rte_pktmbuf_trim(short_frame, 40);  // the IPv4 length now says more than the frame holds
  EXPECT_EQ(classify(short_frame, &h).kind, PipelineResult::Kind::kDrop);
  EXPECT_EQ(counters_.rx_parse_errors[static_cast<size_t>(wire::ParseError::kBadLength)], 1u);
  rte_mbuf* garbage = rte_pktmbuf_alloc(pool_);
  std::memset(rte_pktmbuf_append(garbage, 80), 0xab, 80);
  EXPECT_EQ(classify(garbage, &h).kind, PipelineResult::Kind::kDrop);
  EXPECT_EQ(counters_.rx_parse_errors[static_cast<size_t>(wire::ParseError::kNotIpv4)], 1u);
  EXPECT_EQ(counters_.rx_packets, 4u);
}

// A port that checks IPv4 checksums (RX offload): its flags on the mbuf
// decide, each counted; without them (or a pipeline that does not trust
// the port) the header is summed as ever.
TEST_F(PipelineTest, ThePortsChecksumFlagsDecideWhenThePortIsTrusted) {
  Pipeline trusting{kHost, &contexts_, &neighbors_, &counters_, 0, false, /*port_checksum=*/true};
  const auto run = [&](Pipeline& p, uint64_t flags, bool wrong_sum) {
    rte_mbuf* m = frame(data_to(7), 100);
    if (wrong_sum) rte_pktmbuf_mtod(m, uint8_t*)[25] ^= 1;
    m->ol_flags |= flags;
    wire::FrameHeader h;
    size_t payload = 0;
    const PipelineResult r = p.classify(m, &h, &payload);
    rte_pktmbuf_free(m);
    return r.kind;
  };
  EXPECT_EQ(run(trusting, RTE_MBUF_F_RX_IP_CKSUM_GOOD, true), PipelineResult::Kind::kData) << "not summed again";
  EXPECT_EQ(run(trusting, RTE_MBUF_F_RX_IP_CKSUM_BAD, false), PipelineResult::Kind::kDrop);
  EXPECT_EQ(counters_.rx_checksum_by_port, 2u);
  EXPECT_EQ(run(trusting, 0, true), PipelineResult::Kind::kDrop) << "no verdict: summed";
  EXPECT_EQ(run(pipeline_, RTE_MBUF_F_RX_IP_CKSUM_GOOD, true), PipelineResult::Kind::kDrop) << "not trusted: summed";
  EXPECT_EQ(counters_.rx_checksum_by_port, 2u);
  EXPECT_EQ(counters_.rx_parse_errors[static_cast<size_t>(wire::ParseError::kBadChecksum)], 3u);
}

// With an OS path (Config::os_port) what no nanopu transport carries goes
// to the OS — an ARP frame (42 bytes, shorter than nanopu's headers), an
// ICMP echo — uncounted here (the NIC core counts what it hands over);
// nanopu's own frames and a broken one are as without it.
TEST_F(PipelineTest, WithAnOsPathArpAndIcmpGoToTheOs) {
  Pipeline with_os{kHost, &contexts_, &neighbors_, &counters_, 0, /*os_path=*/true};
  const auto run = [&](rte_mbuf* m) {
    wire::FrameHeader h;
    size_t payload = 0;
    const PipelineResult r = with_os.classify(m, &h, &payload);
    rte_pktmbuf_free(m);
    return r.kind;
  };
  rte_mbuf* arp = rte_pktmbuf_alloc(pool_);
  auto* a = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(arp, 42));
  std::memset(a, 0, 42);
  a[12] = 0x08, a[13] = 0x06;  // EtherType ARP
  EXPECT_EQ(run(arp), PipelineResult::Kind::kOs);
  rte_mbuf* icmp = frame(data_to(7), 100);
  rte_pktmbuf_mtod(icmp, uint8_t*)[14 + 9] = 1;  // IPv4 protocol ICMP
  EXPECT_EQ(run(icmp), PipelineResult::Kind::kOs);
  EXPECT_EQ(run(frame(data_to(7), 100)), PipelineResult::Kind::kData);
  rte_mbuf* tiny = rte_pktmbuf_alloc(pool_);
  std::memset(rte_pktmbuf_append(tiny, 10), 0, 10);  // not even Ethernet's header
  EXPECT_EQ(run(tiny), PipelineResult::Kind::kDrop);
  EXPECT_EQ(counters_.rx_parse_errors[static_cast<size_t>(wire::ParseError::kShortFrame)], 1u);
  EXPECT_EQ(counters_.rx_parse_errors[static_cast<size_t>(wire::ParseError::kNotIpv4)], 0u);
  EXPECT_EQ(counters_.rx_parse_errors[static_cast<size_t>(wire::ParseError::kUnknownProtocol)], 0u);
  // Without one, the same ICMP echo is a parse error, dropped.
  wire::FrameHeader h;
  rte_mbuf* again = frame(data_to(7), 100);
  rte_pktmbuf_mtod(again, uint8_t*)[14 + 9] = 1;
  EXPECT_EQ(classify(again, &h).kind, PipelineResult::Kind::kDrop);
  EXPECT_EQ(counters_.rx_parse_errors[static_cast<size_t>(wire::ParseError::kUnknownProtocol)], 1u);
}

TEST_F(PipelineTest, AControlPacketGoesToTheTransportWhateverItsContext) {
  wire::FrameHeader ack = data_to(999);
  ack.ndp.flags = wire::kFlagAck | wire::kFlagPull;
  wire::FrameHeader h;
  const PipelineResult r = classify(frame(ack, wire::kControlPayloadBytes), &h);
  EXPECT_EQ(r.kind, PipelineResult::Kind::kControl);
  EXPECT_EQ(counters_.rx_control_packets, 1u);
}

TEST_F(PipelineTest, ThePacketizersFramesReadBackAsTheHeadersItWasGivenToTheLearnedMac) {
  wire::FrameHeader h;
  (void)classify(frame(data_to(7), 100), &h);  // the pipeline learns the peer's MAC
  EXPECT_EQ(neighbors_.lookup(kPeer), kPeerMac);
  const Packetizer out(kHost, kHostMac, &neighbors_, pool_);
  wire::NdpHeader n;
  n.flags = wire::kFlagAck | wire::kFlagPull;
  n.src_context = 7;
  n.dst_context = 3;
  n.msg_len = 100;
  n.pull_offset = 2;
  rte_mbuf* control = out.make_control(kPeer, wire::TransportHeader::of(n));
  ASSERT_NE(control, nullptr);
  EXPECT_EQ(control->pkt_len, wire::kFrameHeaderBytes + wire::kControlPayloadBytes);
  wire::FrameHeader back;
  size_t payload = 0;
  ASSERT_EQ(wire::decode_frame_header(rte_pktmbuf_mtod(control, const uint8_t*), control->pkt_len, &back, &payload),
            wire::ParseError::kOk);
  EXPECT_EQ(back.ndp, n);
  EXPECT_EQ(back.dst_mac, kPeerMac);
  EXPECT_EQ(back.src_ip, kHost);
  rte_pktmbuf_free(control);

  wire::HomaHeader g;
  g.flags = wire::kHomaData;
  g.src_context = 7;
  g.dst_context = 3;
  g.msg_len = 500;
  rte_mbuf* data = rte_pktmbuf_alloc(pool_);
  std::memset(rte_pktmbuf_append(data, wire::kFrameHeaderBytes + 500), 0x5a, wire::kFrameHeaderBytes + 500);
  out.frame_data(data, kPeer, wire::TransportHeader::of(g, 5), 500);
  ASSERT_EQ(wire::decode_frame_header(rte_pktmbuf_mtod(data, const uint8_t*), data->pkt_len, &back, &payload),
            wire::ParseError::kOk);
  EXPECT_EQ(back.protocol, wire::kIpProtoHoma);
  EXPECT_EQ(back.tos, 5) << "Homa's priority in the TOS";
  EXPECT_EQ(back.homa, g);
  EXPECT_EQ(payload, 500u);
  EXPECT_EQ(rte_pktmbuf_mtod(data, const uint8_t*)[wire::kFrameHeaderBytes + 499], 0x5a) << "payload untouched";

  // The peer's MAC changes (a new NIC behind the same address): the next
  // frame to it goes to the new MAC, not to the one its template was built with.
  constexpr wire::MacAddr kNewMac = {0x02, 0, 0, 0, 0, 0x22};
  wire::FrameHeader moved = data_to(7);
  moved.src_mac = kNewMac;
  (void)classify(frame(moved, 100), &h);
  out.frame_data(data, kPeer, wire::TransportHeader::of(g, 5), 500);
  ASSERT_EQ(wire::decode_frame_header(rte_pktmbuf_mtod(data, const uint8_t*), data->pkt_len, &back,
                                      &payload),
            wire::ParseError::kOk);
  EXPECT_EQ(back.dst_mac, kNewMac);
  rte_pktmbuf_free(data);
}

TEST_F(PipelineTest, AControlPacketFromAnEmptyPoolIsNothingNotACrash) {
  rte_mempool* empty = rte_pktmbuf_pool_create("pipe_empty", 1, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  ASSERT_NE(empty, nullptr);
  rte_mbuf* only = rte_pktmbuf_alloc(empty);
  const Packetizer out(kHost, kHostMac, &neighbors_, empty);
  EXPECT_EQ(out.make_control(kPeer, wire::TransportHeader::of(wire::NdpHeader{})), nullptr);
  rte_pktmbuf_free(only);
  rte_mempool_free(empty);
}

}  // namespace
}  // namespace nanopu
