// The pipeline as a program (nic/pipeline/swx_spec.h, swx_program.h) on
// DPDK's SWX engine with real EAL mbufs: nanopu's own program
// (nic/pipeline/programs/nanopu.spec) sends NDP and Homa to the fast path
// and ARP and ICMP to the OS, as the fixed pipeline decides; an entry added
// while it runs takes effect on the next frame; a program that does not
// read or that DPDK refuses is named with its line; an entry for a missing
// table is refused, named.
#include "nic/pipeline/swx_program.h"

#include <gtest/gtest.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstring>

#include "lib/wire/frame.h"
#include "nanopu_test_paths.h"
#include "nic/pipeline/swx_spec.h"
#include "tests/support/eal_env.h"
#include "tests/support/subprocess.h"

namespace nanopu {
namespace {

std::string nanopu_program() {
  return testing::read_file(std::string(NANOPU_SOURCE_DIR) + "/nic/pipeline/programs/nanopu.spec");
}

class SwxProgramTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static int n = 0;
    pool_ = rte_pktmbuf_pool_create(("swx" + std::to_string(n++)).c_str(), 255, 0, 0,
                                    RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
    ASSERT_NE(pool_, nullptr);
  }
  void TearDown() override {
    EXPECT_EQ(rte_mempool_in_use_count(pool_), 0) << "a frame leaked";
    rte_mempool_free(pool_);
  }
  // An IPv4 frame of `protocol` (NDP 0x99 carries a DATA header), or ARP.
  rte_mbuf* ipv4(uint8_t protocol) {
    wire::FrameHeader h;
    h.protocol = wire::kIpProtoNdp;
    h.src_ip = 0x0a000002;
    h.dst_ip = 0x0a000001;
    h.ndp.flags = wire::kFlagData;
    h.ndp.dst_context = 7;
    h.ndp.msg_len = 100;
    rte_mbuf* m = rte_pktmbuf_alloc(pool_);
    auto* p = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, wire::kFrameHeaderBytes + 100));
    wire::encode_frame_header(h, 100, p);
    p[14 + 9] = protocol;
    return m;
  }
  rte_mbuf* arp() {
    rte_mbuf* m = rte_pktmbuf_alloc(pool_);
    auto* a = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, 42));
    std::memset(a, 0, 42);
    a[12] = 0x08, a[13] = 0x06;
    return m;
  }
  // Which port each frame left by (-1: dropped), in order of output port.
  std::vector<size_t> ports_of(SwxProgram& p, std::vector<rte_mbuf*> frames) {
    std::vector<std::vector<rte_mbuf*>> out;
    const SwxProgram::RunResult r = p.run(frames.data(), static_cast<uint16_t>(frames.size()), &out);
    EXPECT_EQ(r.stuck, 0u);
    EXPECT_EQ(r.dropped, 0u);
    std::vector<size_t> counts;
    for (std::vector<rte_mbuf*>& o : out) {
      counts.push_back(o.size());
      for (rte_mbuf* m : o) rte_pktmbuf_free(m);
    }
    return counts;
  }

  rte_mempool* pool_ = nullptr;
};

TEST_F(SwxProgramTest, NanopusProgramSendsItsTransportsFastAndTheRestToTheOs) {
  absl::StatusOr<std::unique_ptr<SwxProgram>> p =
      SwxProgram::load(nanopu_program(), "nanopu.spec", 2, "swxa");
  ASSERT_TRUE(p.ok()) << p.status();
  // Empty, the table sends everything to the OS (its default action).
  EXPECT_EQ(ports_of(**p, {ipv4(0x99), arp()}), (std::vector<size_t>{0, 2}));
  // Its entries, added while it runs: the next frames take them.
  ASSERT_TRUE((*p)->add_entry("transport", "match 0x99 action fast_path").ok());
  ASSERT_TRUE((*p)->add_entry("transport", "match 0x9A action fast_path").ok());
  EXPECT_EQ(ports_of(**p, {ipv4(0x99), ipv4(0x9A), ipv4(1), arp(), ipv4(0x99)}),
            (std::vector<size_t>{3, 2}));
  // A frame's bytes leave as they came (the headers it extracted emitted again).
  rte_mbuf* f = ipv4(0x99);
  std::vector<uint8_t> before(rte_pktmbuf_mtod(f, uint8_t*),
                              rte_pktmbuf_mtod(f, uint8_t*) + f->pkt_len);
  std::vector<std::vector<rte_mbuf*>> out;
  (void)(*p)->run(&f, 1, &out);
  ASSERT_EQ(out[0].size(), 1u);
  EXPECT_EQ(std::vector<uint8_t>(rte_pktmbuf_mtod(out[0][0], uint8_t*),
                                 rte_pktmbuf_mtod(out[0][0], uint8_t*) + out[0][0]->pkt_len),
            before);
  rte_pktmbuf_free(out[0][0]);
}

// DPDK's extract does not check a frame's length: the VXLAN decapsulation
// program given a runt — Ethernet, IPv4 and UDP to 4789 in 42 bytes, the
// rest of its buffer a stale VXLAN header of the tunnel's network — takes
// 50 bytes of headers off 42, and the frame would leave with its length
// wrapped (64 KB read past it by whoever came next). It is freed, counted.
TEST_F(SwxProgramTest, AFrameLeftWithLengthsPastItsBufferIsDroppedNotHandedOn) {
  absl::StatusOr<std::unique_ptr<SwxProgram>> p = SwxProgram::load(
      testing::read_file(std::string(NANOPU_SOURCE_DIR) + "/nic/pipeline/programs/vxlan_decap.spec"),
      "vxlan_decap.spec", 3, "swxr");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_TRUE((*p)->add_entry("tunnel", "match 42 action decap").ok());
  rte_mbuf* m = rte_pktmbuf_alloc(pool_);
  auto* f = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, 64));
  std::memset(f, 0, 64);
  f[12] = 0x08;  // IPv4
  f[14] = 0x45;
  f[14 + 9] = 0x11;  // UDP
  f[34 + 2] = 4789 >> 8, f[34 + 3] = 4789 & 0xff;
  f[42] = 0x08;            // a VXLAN header beyond the frame's end: flags,
  f[42 + 6] = 42;          // VNI 42 (bytes 4-6)
  rte_pktmbuf_trim(m, 64 - 42);
  std::vector<std::vector<rte_mbuf*>> out;
  const SwxProgram::RunResult r = (*p)->run(&m, 1, &out);
  EXPECT_EQ(r.dropped, 1u);
  EXPECT_EQ(r.stuck, 0u);
  for (const std::vector<rte_mbuf*>& o : out) EXPECT_TRUE(o.empty());
}

// The VXLAN encapsulation (RFC 7348) byte by byte: outer Ethernet to the
// entry's MACs, an IPv4 header whose lengths follow the inner packet's and
// whose checksum sums to 0xffff, UDP to 4789 from a port in the dynamic
// range (a hash of the inner addresses), VNI 42, then the frame as it was.
TEST_F(SwxProgramTest, VxlanEncapsulationWrapsAFrameInCheckedOuterHeaders) {
  absl::StatusOr<std::unique_ptr<SwxProgram>> p = SwxProgram::load(
      testing::read_file(std::string(NANOPU_SOURCE_DIR) + "/nic/pipeline/programs/vxlan_encap.spec"),
      "vxlan_encap.spec", 3, "swxe");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)->header_bytes(), 84u);
  ASSERT_TRUE((*p)->add_entry("tunnel", "match 0x0a000001 action encap dst_mac 0x020000000063 src_mac "
                                        "0x020000000064 src_ip 0x0a630001 dst_ip 0x0a630002 vni 42")
                  .ok());
  rte_mbuf* f = ipv4(0x99);
  const std::vector<uint8_t> inner(rte_pktmbuf_mtod(f, uint8_t*), rte_pktmbuf_mtod(f, uint8_t*) + f->pkt_len);
  std::vector<std::vector<rte_mbuf*>> out;
  ASSERT_EQ((*p)->run(&f, 1, &out).dropped, 0u);
  ASSERT_EQ(out[0].size(), 1u);
  rte_mbuf* m = out[0][0];
  const uint8_t* o = rte_pktmbuf_mtod(m, const uint8_t*);
  ASSERT_EQ(m->pkt_len, inner.size() + 50);
  EXPECT_EQ(std::vector<uint8_t>(o, o + 6), (std::vector<uint8_t>{2, 0, 0, 0, 0, 0x63}));
  EXPECT_EQ(o[12] << 8 | o[13], 0x0800);
  const uint8_t* ip = o + 14;
  EXPECT_EQ(ip[0], 0x45);
  EXPECT_EQ(ip[2] << 8 | ip[3], static_cast<int>(m->pkt_len - 14));
  EXPECT_EQ(ip[9], 17);
  uint32_t sum = 0;
  for (int i = 0; i < 20; i += 2) sum += ip[i] << 8 | ip[i + 1];
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  EXPECT_EQ(sum, 0xffffu) << "the outer IPv4 checksum";
  const uint8_t* udp = ip + 20;
  EXPECT_GE(udp[0] << 8 | udp[1], 0xC000);
  EXPECT_EQ(udp[2] << 8 | udp[3], 4789);
  EXPECT_EQ(udp[4] << 8 | udp[5], static_cast<int>(m->pkt_len - 34));
  const uint8_t* vx = udp + 8;
  EXPECT_EQ(vx[0], 0x08);
  EXPECT_EQ(vx[4] << 16 | vx[5] << 8 | vx[6], 42);
  EXPECT_EQ(std::vector<uint8_t>(vx + 8, o + m->pkt_len), inner);
  rte_pktmbuf_free(m);
}

// Comments as DPDK's reader takes them: a word that begins with ";", "#"
// or "//" and the rest of its line, wherever it stands.
TEST(SwxSpecTest, ACommentEndsItsLineWhereverItBegins) {
  absl::StatusOr<SwxSpec> s = read_swx_spec(
      "struct a_h {  ; its fields\n\tbit<8> x  // one\n}  # done\napply {\n\trx m.port_in ; "
      "first\n}\n",
      "ok.spec");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->structs.size(), 1u);
  EXPECT_EQ(s->structs[0].fields.size(), 1u);
  EXPECT_EQ(s->apply, std::vector<std::string>{"rx m.port_in"});
}

// In-band telemetry, byte by byte: int_source.spec puts a hop record (the
// hop's time and queue, as run() gave them) after the IPv4 header of an NDP
// frame its table names, with the IPv4 protocol, length and checksum to
// match; int_sink.spec takes it off again, leaving the frame as it was,
// and keeps the frame, the one-way time and the queue in its registers.
TEST_F(SwxProgramTest, AHopRecordGoesOnAtTheSourceAndComesOffAtTheSink) {
  const std::string dir = std::string(NANOPU_SOURCE_DIR) + "/nic/pipeline/programs/";
  absl::StatusOr<std::unique_ptr<SwxProgram>> src =
      SwxProgram::load(testing::read_file(dir + "int_source.spec"), "int_source.spec", 2, "swxis");
  absl::StatusOr<std::unique_ptr<SwxProgram>> sink =  // ports as on ingress: fast path, OS, drop
      SwxProgram::load(testing::read_file(dir + "int_sink.spec"), "int_sink.spec", 3, "swxik");
  ASSERT_TRUE(src.ok()) << src.status();
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*src)->reads_hop());
  ASSERT_TRUE((*src)->add_entry("telemetry", "match 0x99 action stamp").ok());
  rte_mbuf* m = ipv4(wire::kIpProtoNdp);
  const std::vector<uint8_t> before(rte_pktmbuf_mtod(m, uint8_t*), rte_pktmbuf_mtod(m, uint8_t*) + m->data_len);
  std::vector<std::vector<rte_mbuf*>> out;
  SwxProgram::RunResult r = (*src)->run(&m, 1, &out, {.time_ns = 0x0102030405060708, .queue_depth = 5});
  ASSERT_EQ(r.dropped + r.stuck, 0);
  ASSERT_EQ(out[0].size(), 1u);
  m = out[0][0];
  ASSERT_EQ(m->data_len, before.size() + 16);
  const uint8_t* f = rte_pktmbuf_mtod(m, const uint8_t*);
  EXPECT_TRUE(std::equal(f, f + 14, before.begin())) << "the Ethernet header kept";
  EXPECT_EQ(f[14 + 9], 0xfd) << "the IPv4 protocol names the record";
  EXPECT_EQ((f[16] << 8 | f[17]), (before[16] << 8 | before[17]) + 16) << "IPv4 length";
  EXPECT_EQ(wire::ipv4_header_checksum(f + 14), (f[24] << 8 | f[25])) << "IPv4 checksum";
  const std::vector<uint8_t> record(f + 34, f + 50);
  EXPECT_EQ(record, (std::vector<uint8_t>{0x99, 16, 0, 0, 0, 0, 0, 5, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_TRUE(std::equal(f + 50, f + m->data_len, before.begin() + 34)) << "the NDP header and payload kept";
  r = (*sink)->run(&m, 1, &out, {.time_ns = 0x0102030405060708 + 900, .queue_depth = 1});
  ASSERT_EQ(r.dropped + r.stuck, 0);
  ASSERT_EQ(out[0].size(), 1u);
  m = out[0][0];
  EXPECT_EQ(std::vector<uint8_t>(rte_pktmbuf_mtod(m, uint8_t*), rte_pktmbuf_mtod(m, uint8_t*) + m->data_len),
            before)
      << "the frame as the source's transport sent it";
  rte_pktmbuf_free(m);
  EXPECT_EQ((*sink)->table_counts(), std::vector<std::string>{"regarray int_hops: 1 900 5 900 0 0 0 0"});
  // A record whose IPv4 header arrives damaged is dropped, counted, never
  // sent on with a checksum made anew.
  m = ipv4(wire::kIpProtoNdp);
  r = (*src)->run(&m, 1, &out, {.time_ns = 1000, .queue_depth = 1});
  ASSERT_EQ(out[0].size(), 1u);
  m = out[0][0];
  rte_pktmbuf_mtod(m, uint8_t*)[14 + 8] ^= 0x01;  // the TTL, after the checksum was made
  r = (*sink)->run(&m, 1, &out, {.time_ns = 2000, .queue_depth = 1});
  EXPECT_TRUE(out[0].empty());
  ASSERT_EQ(out[2].size(), 1u) << "the drop port; stuck " << r.stuck << " dropped " << r.dropped  << " to port 1 " << out[1].size() << " " << (*sink)->table_counts()[0];
  rte_pktmbuf_free(out[2][0]);
  EXPECT_EQ((*sink)->table_counts(), std::vector<std::string>{"regarray int_hops: 1 900 5 900 1 0 0 0"});
  // A frame with no room before it for the hop's values is dropped, counted.
  m = ipv4(wire::kIpProtoNdp);
  m->data_off = 8;
  r = (*sink)->run(&m, 1, &out, {});
  EXPECT_EQ(r.dropped, 1);
  EXPECT_TRUE(out[0].empty());
}

TEST_F(SwxProgramTest, AProgramOrEntryThatIsWrongIsRefusedAndNamed) {
  absl::StatusOr<SwxSpec> s = read_swx_spec("struct a_h {\n\tbit<12> x\n}\n", "bad.spec");
  EXPECT_EQ(s.status().message(),
            "bad.spec:2: expected bit<N> FIELD, N a multiple of 8 up to 64 (found 'bit<12> x')");
  s = read_swx_spec("header h instanceof a_h\nfrobnicate\n", "bad.spec");
  EXPECT_NE(s.status().message().find("bad.spec:2: expected struct NAME {"), std::string::npos)
      << s.status();
  s = read_swx_spec("apply {\n\trx m.port_in\n", "bad.spec");
  EXPECT_EQ(s.status().message(), "bad.spec:1: block not closed with } (found 'apply {')");
  // A table DPDK would size at build to take the host's memory.
  s = read_swx_spec("table t {\n\tsize 4294967295\n}\n", "bad.spec");
  EXPECT_EQ(s.status().message(), "bad.spec:2: a table holds at most 1048576 entries (found 'size 4294967295')");
  s = read_swx_spec("regarray r size 0 initval 0\n", "bad.spec");
  EXPECT_EQ(s.status().message(), "bad.spec:1: expected regarray NAME size N initval V, N > 0 (found 'regarray r size 0 initval 0')");
  s = read_swx_spec("regarray r size 4 initval 0xzz\n", "bad.spec");
  EXPECT_FALSE(s.ok());
  // nanopu_meta is nanopu's: its layout is HopValues'.
  absl::StatusOr<std::unique_ptr<SwxProgram>> meta = SwxProgram::load(
      "struct m_h {\n\tbit<64> time_ns\n}\nheader nanopu_meta instanceof m_h\n" + nanopu_program(),
      "meta.spec", 2, "swxm");
  ASSERT_FALSE(meta.ok());
  EXPECT_EQ(meta.status().message(),
            "meta.spec:4: header nanopu_meta (the hop's values nanopu puts before each frame) must be an "
            "instance of a struct { bit<64> time_ns bit<32> queue_depth bit<32> reserved }");
  // ... and the program takes it off every frame: extracted first, never emitted.
  const std::string source = testing::read_file(std::string(NANOPU_SOURCE_DIR) + "/nic/pipeline/programs/int_source.spec");
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"\textract h.nanopu_meta\n", "\n"},
                                 {"\tETH : emit h.ethernet", "\tETH : emit h.nanopu_meta\n\temit h.ethernet"}}) {
    std::string text = source;
    text.replace(text.find(from), from.size(), to);
    meta = SwxProgram::load(text, "int_source.spec", 2, "swxn");
    ASSERT_FALSE(meta.ok()) << from;
    EXPECT_NE(meta.status().message().find("takes it off every frame"), std::string::npos) << meta.status();
  }
  // Reads, but DPDK refuses an instruction on a header nobody declared.
  std::string text = nanopu_program();
  text.replace(text.find("extract h.ipv4"), 14, "extract h.ipv6");
  absl::StatusOr<std::unique_ptr<SwxProgram>> p = SwxProgram::load(text, "nanopu.spec", 2, "swxb");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("nanopu.spec:"), std::string::npos) << p.status();
  EXPECT_NE(p.status().message().find("DPDK refused the apply block"), std::string::npos)
      << p.status();
  p = SwxProgram::load(nanopu_program(), "nanopu.spec", 2, "swxc");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)->add_entry("routes", "match 0x99 action fast_path").message(),
            "table routes: entry 'match 0x99 action fast_path' does not read (no such table, a "
            "field, action or "
            "argument wrong)");
  EXPECT_FALSE((*p)->add_entry("transport", "match 0x99 action teleport").ok());
}

}  // namespace
}  // namespace nanopu
