// The ingress pipeline as a program, live (Config::pipeline_program,
// --pipeline; nic/pipeline/swx_program.h): two in-process hosts on a
// net_ring pair, the server's frames through nanopu's own program
// (nic/pipeline/programs/nanopu.spec). With its table empty every frame
// takes the default action, to the OS, and with no OS port is dropped and
// counted: a call gets no answer. An entry added while the host runs
// (Runtime::add_pipeline_entry) takes effect on the next frame: calls are
// answered, and DPDK's per-table counts say which action ran. A program
// or an entries file that is wrong stops the host at start, its line named.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "nanopu/rpc.h"
#include "nanopu/runtime.h"
#include "nanopu_test_paths.h"
#include "tests/support/eal_env.h"
#include "tests/support/test_hosts.h"

namespace nanopu {
namespace {

constexpr uint32_t kServerIp = 0x0a000001;
constexpr uint32_t kClientIp = 0x0a000002;
constexpr uint16_t kServerContext = 5;
constexpr uint16_t kClientContext = 9;
const std::string kProgram = std::string(NANOPU_SOURCE_DIR) + "/nic/pipeline/programs/nanopu.spec";

struct Calls {
  std::vector<rpc::CallStatus> first, second;  // before and after the entry
  bool phase_two = false;                      // the test sets it once the entry is in
  bool first_only = false;  // no second three (their frames denied: each a give-up's wait)
  bool done = false;
  std::chrono::microseconds first_deadline = std::chrono::milliseconds(50);  // short: they fail
};

// Three calls with a short deadline, then, once told, three more.
void call(Thread& t, Calls* c) {
  ASSERT_TRUE(t.bind(kClientContext).ok());
  rpc::Client client(t);
  const auto three = [&](std::vector<rpc::CallStatus>* into, std::chrono::microseconds deadline) {
    for (uint64_t i = 0; i < 3; ++i) {
      const std::vector<uint64_t> req = {i + 1};
      uint64_t id = 0;
      ASSERT_EQ(client.call({kServerIp, kServerContext}, req, 8, deadline, i, &id), ApiError::kOk);
      rpc::Completion done;
      ASSERT_TRUE(client.next(&done, std::chrono::seconds(20)));
      into->push_back(done.status);
    }
  };
  three(&c->first, c->first_deadline);
  if (c->first_only) {
    c->done = true;
    return;
  }
  while (!c->phase_two && !t.stopping()) t.idle();
  three(&c->second, std::chrono::seconds(10));
  c->done = true;
}

void echo(Thread& t) {
  (void)rpc::serve_calls(t, kServerContext, 0, [](rpc::ServerCall& c) {
    uint64_t w = 0;
    (void)c.read_words(std::span<uint64_t>(&w, 1));
    ASSERT_EQ(c.reply(8), ApiError::kOk);
    (void)c.write_words(std::span<const uint64_t>(&w, 1));
  });
}

// Six calls from the client to the echo, each to be answered.
void six_calls_answered(testing::RingHosts& h) {
  Calls calls;
  calls.phase_two = true;
  calls.first_deadline = std::chrono::seconds(10);
  ASSERT_TRUE(h.server->spawn(echo).ok());
  ASSERT_TRUE(h.client->spawn([&](Thread& t) { call(t, &calls); }).ok());
  ASSERT_TRUE(testing::poll_until(
      {h.server.get(), h.client.get()}, [&] { return calls.done; }, std::chrono::seconds(60)));
  EXPECT_EQ(calls.first, std::vector<rpc::CallStatus>(3, rpc::CallStatus::kOk));
  EXPECT_EQ(calls.second, std::vector<rpc::CallStatus>(3, rpc::CallStatus::kOk));
}

TEST(PipelineProgramTest, AnEntryAddedWhileTheHostRunsOpensTheFastPathOnTheNextFrame) {
  testing::RingHosts h = testing::make_ring_hosts(kServerIp, kClientIp, [](Config& c, bool server) {
    if (server) c.pipeline_program = kProgram;
  });
  ASSERT_TRUE(h.server && h.client);
  Calls calls;
  ASSERT_TRUE(h.server->spawn(echo).ok());
  ASSERT_TRUE(h.client->spawn([&](Thread& t) { call(t, &calls); }).ok());
  ASSERT_TRUE(testing::poll_until(
      {h.server.get(), h.client.get()}, [&] { return calls.first.size() == 3; },
      std::chrono::seconds(60)));
  for (rpc::CallStatus s : calls.first) EXPECT_NE(s, rpc::CallStatus::kOk);
  EXPECT_GT(h.server->nic_counters().rx_program_dropped, 0u)
      << "to the OS, with no OS port: dropped, counted";
  EXPECT_EQ(h.server->add_pipeline_entry("transport", "match 0x99 action teleport").message(),
            "table transport: entry 'match 0x99 action teleport' does not read (no such table, a "
            "field, action or "
            "argument wrong)");
  ASSERT_TRUE(h.server->add_pipeline_entry("transport", "match 0x99 action fast_path").ok());
  calls.phase_two = true;
  ASSERT_TRUE(testing::poll_until(
      {h.server.get(), h.client.get()}, [&] { return calls.done; }, std::chrono::seconds(60)));
  EXPECT_EQ(calls.second, std::vector<rpc::CallStatus>(3, rpc::CallStatus::kOk));
  char* text = nullptr;
  size_t len = 0;
  std::FILE* out = open_memstream(&text, &len);
  h.server->print_stats(out);
  std::fclose(out);
  const std::string stats(text, len);
  free(text);
  EXPECT_NE(stats.find("pipeline transport: hit "), std::string::npos) << stats;
  EXPECT_NE(stats.find(" fast_path "), std::string::npos) << stats;
  EXPECT_NE(stats.find(" to_os "), std::string::npos) << stats;
}

// An operator's program: an ACL on the source before nanopu's decision
// (programs/acl.spec). The client's address denied, its calls are dropped
// at the server's door, each counted, and DPDK's counts name the table and
// action that dropped them.
TEST(PipelineProgramTest, AnAclProgramDropsADeniedSourceAndCountsIt) {
  const std::string programs = std::string(NANOPU_SOURCE_DIR) + "/nic/pipeline/programs/";
  testing::RingHosts h =
      testing::make_ring_hosts(kServerIp, kClientIp, [&](Config& c, bool server) {
        if (!server) return;
        c.pipeline_program = programs + "acl.spec";
        c.pipeline_entries = programs + "acl.entries";
      });
  ASSERT_TRUE(h.server && h.client);
  Calls calls;
  calls.first_only = true;
  ASSERT_TRUE(h.server->spawn(echo).ok());
  ASSERT_TRUE(h.client->spawn([&](Thread& t) { call(t, &calls); }).ok());
  ASSERT_TRUE(testing::poll_until(
      {h.server.get(), h.client.get()}, [&] { return calls.done; }, std::chrono::seconds(60)));
  for (rpc::CallStatus s : calls.first) EXPECT_NE(s, rpc::CallStatus::kOk);
  EXPECT_GT(h.server->nic_counters().rx_program_dropped, 0u);
  EXPECT_EQ(h.server->nic_counters().rx_msgs_delivered, 0u) << "a denied frame reached a thread";
  const std::vector<std::string> counts = h.server->pipeline_table_counts();
  ASSERT_EQ(counts.size(), 2u);
  EXPECT_EQ(counts[0].rfind("acl: hit ", 0), 0u) << counts[0];
  EXPECT_NE(counts[0].find(" deny "), std::string::npos) << counts[0];
}

// An overlay tunnel from the two programs an operator would write
// (programs/vxlan_encap.spec on egress, vxlan_decap.spec on ingress): the
// server's frames to the client leave inside VXLAN, and the client's
// ingress takes them out again, so every call is answered though every
// reply and ACK crossed the wire encapsulated: the client's decap table
// hits only a VXLAN frame of its network, and the fixed pipeline then took
// the inner frame as sent. (Over net_ring a small frame leaves as a copy
// of what the transport keeps; the frames it shares with the port are
// copied before the program, vxlan_kernel_test's af_packet port shows.)
TEST(PipelineProgramTest, RepliesCrossTheWireInVxlanThroughTheEgressAndIngressPrograms) {
  const std::string programs = std::string(NANOPU_SOURCE_DIR) + "/nic/pipeline/programs/";
  testing::RingHosts h = testing::make_ring_hosts(kServerIp, kClientIp, [&](Config& c, bool server) {
    if (server) c.egress_program = programs + "vxlan_encap.spec";
    else c.pipeline_program = programs + "vxlan_decap.spec";
  });
  ASSERT_TRUE(h.server && h.client);
  EXPECT_EQ(h.server->add_pipeline_entry("tunnel", "match 42 action decap").message(),
            "no --pipeline program: no table to add to");
  ASSERT_TRUE(h.server
                  ->add_egress_entry("tunnel",
                                     "match 0x0a000002 action encap dst_mac 0x020000630002 src_mac "
                                     "0x020000630001 src_ip 0x0a630001 dst_ip 0x0a630002 vni 42")
                  .ok());
  ASSERT_TRUE(h.client->add_pipeline_entry("tunnel", "match 42 action decap").ok());
  six_calls_answered(h);
  if (HasFatalFailure()) return;
  const std::vector<std::string> sent = h.server->pipeline_table_counts();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].rfind("egress tunnel: hit ", 0), 0u) << sent[0];
  EXPECT_EQ(sent[0].find("hit 0 "), std::string::npos) << "nothing encapsulated: " << sent[0];
  EXPECT_NE(sent[0].find("miss 0;"), std::string::npos) << "a frame left unencapsulated: " << sent[0];
  const std::vector<std::string> got = h.client->pipeline_table_counts();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].find("hit 0 "), std::string::npos) << "nothing decapsulated: " << got[0];
  EXPECT_EQ(got[0].find("decap 0"), std::string::npos) << got[0];
  EXPECT_NE(got[0].find("miss 0;"), std::string::npos) << "a VXLAN frame of another network: " << got[0];
  EXPECT_EQ(h.server->nic_counters().tx_program_dropped, 0u);
  EXPECT_EQ(h.client->nic_counters().rx_program_dropped, 0u);
}

// In-band telemetry from the two programs an operator would write
// (programs/int_source.spec on the client's egress, int_sink.spec on the
// server's ingress): every frame the client sends carries a hop record
// (its send time and queue) that the server's program reads, keeps in its
// register array and takes off, so the calls are answered only if each
// record was taken off whole. The register counts every frame the server
// took from the port; both hosts share one clock (one process), so the
// one-way times it sums are real.
TEST(PipelineProgramTest, EveryFrameCarriesItsHopRecordAndThePeerReadsIt) {
  const std::string programs = std::string(NANOPU_SOURCE_DIR) + "/nic/pipeline/programs/";
  testing::RingHosts h = testing::make_ring_hosts(kServerIp, kClientIp, [&](Config& c, bool server) {
    if (server) {
      c.pipeline_program = programs + "int_sink.spec";
    } else {
      c.egress_program = programs + "int_source.spec";
      c.egress_entries = programs + "int.entries";
    }
  });
  ASSERT_TRUE(h.server && h.client);
  six_calls_answered(h);
  if (HasFatalFailure()) return;
  const std::vector<std::string> sent = h.client->pipeline_table_counts();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_NE(sent[0].find("miss 0;"), std::string::npos) << "a frame left without a record: " << sent[0];
  const std::vector<std::string> got = h.server->pipeline_table_counts();
  ASSERT_EQ(got.size(), 1u);  // no table: the register array's line alone
  uint64_t frames = 0, sum_ns = 0, deepest = 0, last_ns = 0;
  ASSERT_EQ(std::sscanf(got[0].c_str(), "regarray int_hops: %lu %lu %lu %lu", &frames, &sum_ns, &deepest,
                        &last_ns),
            4)
      << got[0];
  std::printf("server's %s (frames, one-way ns summed, deepest queue, last one-way ns)\n", got[0].c_str());
  EXPECT_EQ(frames, h.server->nic_counters().rx_packets) << "every frame in carried a record: " << got[0];
  EXPECT_GE(frames, 6u) << got[0];
  EXPECT_GE(deepest, 1u) << "a frame queues with itself at least: " << got[0];
  EXPECT_GT(last_ns, 0u) << got[0];
  EXPECT_GE(sum_ns, last_ns) << got[0];
  EXPECT_LT(sum_ns / frames, 10'000'000'000u) << "one clock: no one-way time wraps: " << got[0];
  EXPECT_EQ(h.server->nic_counters().rx_program_dropped, 0u);
}

TEST(PipelineProgramTest, AProgramOrEntryThatIsWrongStopsTheHostAtStartNamed) {
  const std::string bad =
      ::testing::TempDir() + "nanopu-bad-" + std::to_string(getpid()) + ".entries";
  std::ofstream(bad) << "; a comment\ntransport match 0x99 action fast_path\ntransport\n";
  const auto start = [&](const std::string& program, const std::string& entries) {
    testing::PortPair p = testing::make_ring_pair();
    Config c = testing::host_config(p.a, kServerIp);
    c.pipeline_program = program;
    c.pipeline_entries = entries;
    absl::StatusOr<std::unique_ptr<Runtime>> rt = Runtime::create(c);
    return rt.ok() ? std::string() : std::string(rt.status().message());
  };
  EXPECT_EQ(start(kProgram, bad), bad + ":3: expected TABLE ENTRY (found 'transport')");
  EXPECT_EQ(start("/nonexistent.spec", ""), "--pipeline=/nonexistent.spec: cannot read the file");
  EXPECT_EQ(start("", bad), "--pipeline_entries=" + bad + ": entries for no --pipeline program");
  testing::PortPair p = testing::make_ring_pair();
  Config c = testing::host_config(p.a, kServerIp);
  c.egress_entries = bad;
  EXPECT_EQ(Runtime::create(c).status().message(),
            "--egress_pipeline_entries=" + bad + ": entries for no --egress_pipeline program");
  c.egress_program = kProgram;
  EXPECT_EQ(Runtime::create(c).status().message(), bad + ":3: expected TABLE ENTRY (found 'transport')");
  std::remove(bad.c_str());
}

}  // namespace
}  // namespace nanopu
