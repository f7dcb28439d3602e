// Two processes, two emulated hosts: nanopu-server (memif server) and
// nanopu-loadgen (memif client), as a user runs them. The load generator
// checks every reply word by word and exits 0 only if all arrived intact.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/support/scratch_dir.h"
#include "tests/support/subprocess.h"
#include "nanopu_test_paths.h"  // generated: the programs' paths (tests/CMakeLists.txt)

using nanopu::testing::cpu_seconds;
using nanopu::testing::json_number;
using nanopu::testing::log_counter;
using nanopu::testing::read_file;
using nanopu::testing::spawn;
using nanopu::testing::wait_for;
using nanopu::testing::wait_for_line;

namespace {

class TwoProcessMemifTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "nanopu-memif-" + std::to_string(getpid());
    mkdir(dir_.c_str(), 0755);
    sock_ = dir_ + "/memif.sock";
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    server_lcore_ = cpus > 1 ? "1" : "0";
  }
  void TearDown() override {
    if (server_ > 0) {
      kill(server_, SIGKILL);
      waitpid(server_, nullptr, 0);
    }
    nanopu::testing::remove_if_passed(dir_);
  }
  // Every host in these tests polls adaptively: test processes share the
  // machine's CPUs (with each other and with whatever else runs), and a busy
  // poller would take the CPU its peer needs.
  void start_server(const std::string& app, const std::string& lcores = "",
                    const std::string& poll = "adaptive", const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {NANOPU_SERVER_BIN, "--lcores=" + (lcores.empty() ? server_lcore_ : lcores),
                                     "--vdev=net_memif0,role=server,socket=" + sock_, "--app=" + app,
                                     "--context=1", "--poll=" + poll};
    args.insert(args.end(), extra.begin(), extra.end());
    server_ = spawn(args, dir_ + "/server.log");
    ASSERT_GT(server_, 0);
    // Clients start after the server's ready line (its port is up).
    ASSERT_TRUE(wait_for_line(dir_ + "/server.log", "Ctrl-C stops", std::chrono::seconds(60)))
        << read_file(dir_ + "/server.log");
  }
  int run_loadgen(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {NANOPU_LOADGEN_BIN, "--lcores=0",
                                     "--vdev=net_memif0,role=client,socket=" + sock_,
                                     "--server_context=1", "--progress=false", "--poll=adaptive",
                                     "--json=" + dir_ + "/result.json",
                                     // Not the default 1 s: a process beside a
                                     // hog can go unscheduled for ~2 s
                                     // (docs/design.md §9, --pin). A test's own flags
                                     // still override it.
                                     "--drain_timeout=10"};
    args.insert(args.end(), extra.begin(), extra.end());
    pid_t c = spawn(args, dir_ + "/loadgen.log");
    if (c <= 0) return -2;
    return wait_for(c, std::chrono::seconds(240));
  }
  int stop_server() {
    kill(server_, SIGTERM);
    const int rc = wait_for(server_, std::chrono::seconds(30));
    server_ = -1;
    return rc;
  }

  std::string dir_, sock_, server_lcore_;
  pid_t server_ = -1;
};

TEST_F(TwoProcessMemifTest, IncrementServerAnswersEveryRequestWordByWord) {
  start_server("increment");
  const int rc = run_loadgen({"--count=20000", "--size=100", "--outstanding=8", "--expect=increment"});
  const std::string log = read_file(dir_ + "/loadgen.log");
  EXPECT_EQ(rc, 0) << log;
  const std::string json = read_file(dir_ + "/result.json");
  EXPECT_NE(json.find("\"sent\":20000,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"received\":20000,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"bad_replies\":0,"), std::string::npos) << json;
  // The host's noise over the run, measured beside the tail (nanopu/host_noise.h).
  EXPECT_NE(json.find("\"host_noise\":{\"kind\":\"measured\",\"measured\":true,\"loops\":"), std::string::npos)
      << json;
  EXPECT_NE(log.find("  host noise (measured: "), std::string::npos) << log;
  EXPECT_NE(log.find("    -> "), std::string::npos) << log;
  EXPECT_EQ(stop_server(), 0);
  const std::string slog = read_file(dir_ + "/server.log");
  EXPECT_NE(slog.find("nic.rx_msgs_delivered"), std::string::npos) << slog;
  EXPECT_NE(slog.find("20000"), std::string::npos) << slog;
}

// --app_mode=traditional on both ends (whole messages through memory),
// single- and multi-packet requests, every reply word checked.
TEST_F(TwoProcessMemifTest, TraditionalModeOnBothEndsAnswersEveryRequestWordByWord) {
  start_server("increment", "", "adaptive", {"--app_mode=traditional"});
  for (const char* size : {"100", "3000"}) {
    const int rc = run_loadgen({"--count=3000", std::string("--size=") + size, "--outstanding=8",
                                "--expect=increment", "--app_mode=traditional", "--drain_timeout=10"});
    EXPECT_EQ(rc, 0) << size << ": " << read_file(dir_ + "/loadgen.log");
    const std::string json = read_file(dir_ + "/result.json");
    EXPECT_NE(json.find("\"app_mode\":\"traditional\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"received\":3000,"), std::string::npos) << json;
    EXPECT_NE(json.find("\"bad_replies\":0,"), std::string::npos) << json;
  }
  EXPECT_EQ(stop_server(), 0);
}

TEST_F(TwoProcessMemifTest, OpenLoopPoissonEchoOfManySizes) {
  start_server("echo");
  // Each run is a new client process on the same address and context: the
  // server may still be retransmitting replies its predecessor never
  // acknowledged, which name that predecessor's run and are refused.
  for (const char* size : {"16", "21", "1024"}) {
    // A rate even the ASan build on a busy 2-CPU machine sustains.
    const int rc = run_loadgen({"--rate=5000", "--duration=0.5", "--drain_timeout=5",
                                std::string("--size=") + size});
    EXPECT_EQ(rc, 0) << size << ": " << read_file(dir_ + "/loadgen.log");
    const std::string json = read_file(dir_ + "/result.json");
    EXPECT_NE(json.find("\"lost\":0,"), std::string::npos) << json;
  }
  EXPECT_EQ(stop_server(), 0);
}

// Three processes: nanopu-loadgen -> nanopu-switch -> nanopu-server, each
// link a net_memif pair (the switch is the memif server of both).
TEST_F(TwoProcessMemifTest, ThroughTheSoftwareSwitch) {
  const std::string s0 = dir_ + "/sw0.sock", s1 = dir_ + "/sw1.sock";
  pid_t sw = spawn({NANOPU_SWITCH_BIN, "--lcores=" + server_lcore_,
                    "--vdev=net_memif0,role=server,socket=" + s0 + ";net_memif1,role=server,socket=" + s1,
                    "--routes=10.0.0.1=0,10.0.0.2=1", "--switch_gbps=10", "--queue_bytes=65536",
                    "--poll=adaptive"},
                   dir_ + "/switch.log");
  ASSERT_GT(sw, 0);
  ASSERT_TRUE(wait_for_line(dir_ + "/switch.log", "Ctrl-C stops", std::chrono::seconds(60)))
      << read_file(dir_ + "/switch.log");
  server_ = spawn({NANOPU_SERVER_BIN, "--lcores=" + server_lcore_, "--huge=off",
                   "--vdev=net_memif0,role=client,socket=" + s0, "--app=echo", "--context=1",
                   "--poll=adaptive"},
                  dir_ + "/server.log");
  ASSERT_GT(server_, 0);
  pid_t c = spawn({NANOPU_LOADGEN_BIN, "--lcores=0", "--huge=off",
                   "--vdev=net_memif0,role=client,socket=" + s1, "--server_context=1",
                   "--count=2000", "--size=3000", "--outstanding=4", "--progress=false",
                   "--drain_timeout=10", "--json=" + dir_ + "/sw.json", "--poll=adaptive"},
                  dir_ + "/swload.log");
  ASSERT_GT(c, 0);
  EXPECT_EQ(wait_for(c, std::chrono::seconds(120)), 0) << read_file(dir_ + "/swload.log");
  EXPECT_NE(read_file(dir_ + "/sw.json").find("\"received\":2000,"), std::string::npos)
      << read_file(dir_ + "/sw.json");
  EXPECT_EQ(stop_server(), 0);
  kill(sw, SIGTERM);
  EXPECT_EQ(wait_for(sw, std::chrono::seconds(30)), 0);
  const std::string slog = read_file(dir_ + "/switch.log");
  EXPECT_NE(slog.find("switch.forwarded"), std::string::npos) << slog;
}

// The key-value service as docs/running.md shows it: nanopu-loadgen -> nanopu-switch
// -> nanopu-server --app=kv with two partitions; every GET checked against
// the last SET (tools/loadgen/kv_client.h).
TEST_F(TwoProcessMemifTest, KeyValueStoreThroughTheSwitch) {
  const std::string s0 = dir_ + "/kv0.sock", s1 = dir_ + "/kv1.sock";
  pid_t sw = spawn({NANOPU_SWITCH_BIN, "--lcores=" + server_lcore_,
                    "--vdev=net_memif0,role=server,socket=" + s0 + ";net_memif1,role=server,socket=" + s1,
                    "--routes=10.0.0.1=0,10.0.0.2=1", "--poll=adaptive"},
                   dir_ + "/kvswitch.log");
  ASSERT_GT(sw, 0);
  ASSERT_TRUE(wait_for_line(dir_ + "/kvswitch.log", "Ctrl-C stops", std::chrono::seconds(60)));
  server_ = spawn({NANOPU_SERVER_BIN, "--lcores=" + server_lcore_, "--huge=off",
                   "--vdev=net_memif0,role=client,socket=" + s0, "--app=kv", "--threads=2",
                   "--context=1", "--poll=adaptive"},
                  dir_ + "/kvserver.log");
  ASSERT_GT(server_, 0);
  pid_t c = spawn({NANOPU_LOADGEN_BIN, "--lcores=0", "--huge=off",
                   "--vdev=net_memif0,role=client,socket=" + s1, "--service=kv",
                   "--server_context=1", "--kv_partitions=2", "--kv_keys=2000", "--count=4000",
                   "--outstanding=4", "--progress=false", "--drain_timeout=10",
                   "--json=" + dir_ + "/kv.json", "--poll=adaptive"},
                  dir_ + "/kvload.log");
  ASSERT_GT(c, 0);
  EXPECT_EQ(wait_for(c, std::chrono::seconds(240)), 0) << read_file(dir_ + "/kvload.log");
  const std::string json = read_file(dir_ + "/kv.json");
  EXPECT_NE(json.find("\"received\":4000,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"bad_replies\":0,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"service\":\"kv\""), std::string::npos) << json;
  EXPECT_EQ(stop_server(), 0);
  const std::string slog = read_file(dir_ + "/kvserver.log");
  for (const char* k : {"kv0.sets", "kv1.sets"}) EXPECT_NE(slog.find(k), std::string::npos) << slog;
  kill(sw, SIGTERM);
  EXPECT_EQ(wait_for(sw, std::chrono::seconds(30)), 0);
}

// Chain replication as docs/running.md shows it: three nanopu-server --app=chain
// replicas and nanopu-loadgen --service=chain on nanopu-switch; WRITEs
// through the chain, READs at the tail, each checked against the last
// acknowledged WRITE (tools/loadgen/chain_load.h).
TEST_F(TwoProcessMemifTest, ChainReplicationThroughTheSwitch) {
  std::string vdevs, routes;
  const char* ips[4] = {"10.0.0.1", "10.0.0.3", "10.0.0.4", "10.0.0.2"};  // replicas, then the client
  for (int i = 0; i < 4; ++i) {
    vdevs += (i ? ";" : "") + std::string("net_memif") + std::to_string(i) +
             ",role=server,socket=" + dir_ + "/ch" + std::to_string(i) + ".sock";
    routes += (i ? "," : "") + std::string(ips[i]) + "=" + std::to_string(i);
  }
  pid_t sw = spawn({NANOPU_SWITCH_BIN, "--lcores=" + server_lcore_, "--vdev=" + vdevs,
                    "--routes=" + routes, "--poll=adaptive"},
                   dir_ + "/chswitch.log");
  ASSERT_GT(sw, 0);
  ASSERT_TRUE(wait_for_line(dir_ + "/chswitch.log", "Ctrl-C stops", std::chrono::seconds(60)))
      << read_file(dir_ + "/chswitch.log");
  std::vector<pid_t> replicas;
  for (int i = 0; i < 3; ++i) {
    const std::string log = dir_ + "/replica" + std::to_string(i) + ".log";
    replicas.push_back(spawn({NANOPU_SERVER_BIN, "--lcores=" + server_lcore_, "--huge=off",
                              "--vdev=net_memif0,role=client,socket=" + dir_ + "/ch" +
                                  std::to_string(i) + ".sock",
                              std::string("--ip=") + ips[i], "--app=chain", "--context=5",
                              "--chain=10.0.0.1:5,10.0.0.3:5,10.0.0.4:5", "--poll=adaptive"},
                             log));
    ASSERT_GT(replicas.back(), 0);
    ASSERT_TRUE(wait_for_line(log, "Ctrl-C stops", std::chrono::seconds(60))) << read_file(log);
  }
  pid_t c = spawn({NANOPU_LOADGEN_BIN, "--lcores=0", "--huge=off",
                   "--vdev=net_memif0,role=client,socket=" + dir_ + "/ch3.sock", "--service=chain",
                   "--chain=10.0.0.1:5,10.0.0.3:5,10.0.0.4:5", "--context=7", "--chain_keys=500",
                   "--count=3000", "--outstanding=4", "--progress=false", "--drain_timeout=10",
                   "--json=" + dir_ + "/chain.json", "--poll=adaptive"},
                  dir_ + "/chload.log");
  ASSERT_GT(c, 0);
  EXPECT_EQ(wait_for(c, std::chrono::seconds(240)), 0) << read_file(dir_ + "/chload.log");
  const std::string json = read_file(dir_ + "/chain.json");
  EXPECT_NE(json.find("\"received\":3000,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"bad_replies\":0,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"service\":\"chain\""), std::string::npos) << json;
  EXPECT_GT(json_number(json, "read_hits"), 0) << json;
  EXPECT_EQ(json_number(json, "read_hits"), json_number(json, "reads")) << "every key was preloaded: " << json;
  // A second client process on the used chain: the head numbers its WRITEs
  // after the first client's, and it READs every key (at the tail, which
  // then knows this run: docs/wire.md, dst_incarnation) and WRITEs every
  // key before it measures, so its run is as clean.
  c = spawn({NANOPU_LOADGEN_BIN, "--lcores=0", "--huge=off",
             "--vdev=net_memif0,role=client,socket=" + dir_ + "/ch3.sock", "--service=chain",
             "--chain=10.0.0.1:5,10.0.0.3:5,10.0.0.4:5", "--context=7", "--chain_keys=500",
             "--count=1000", "--outstanding=4", "--progress=false", "--drain_timeout=10",
             "--json=" + dir_ + "/chain2.json", "--poll=adaptive"},
            dir_ + "/chload2.log");
  ASSERT_GT(c, 0);
  EXPECT_EQ(wait_for(c, std::chrono::seconds(240)), 0) << read_file(dir_ + "/chload2.log");
  const std::string json2 = read_file(dir_ + "/chain2.json");
  EXPECT_NE(json2.find("\"received\":1000,"), std::string::npos) << json2;
  EXPECT_NE(json2.find("\"bad_replies\":0,"), std::string::npos) << json2;
  EXPECT_EQ(json_number(json2, "read_hits"), json_number(json2, "reads")) << json2;
  // Every replica stored every WRITE (both preloads' and both runs'); only
  // the tail acknowledged them.
  const double writes = json_number(json, "writes") + json_number(json2, "writes") + 2 * 500;
  for (int i = 0; i < 3; ++i) {
    kill(replicas[i], SIGTERM);
    EXPECT_EQ(wait_for(replicas[i], std::chrono::seconds(30)), 0);
    const std::string log = read_file(dir_ + "/replica" + std::to_string(i) + ".log");
    EXPECT_EQ(log_counter(log, "chain.writes"), static_cast<long long>(writes)) << log;
    EXPECT_EQ(log_counter(log, "chain.acks"), i == 2 ? static_cast<long long>(writes) : 0) << log;
    EXPECT_EQ(log_counter(log, "chain.keys"), 500) << log;
    EXPECT_EQ(log_counter(log, "chain.stale_writes"), 0) << "a WRITE was not newer: " << log;
  }
  kill(sw, SIGTERM);
  EXPECT_EQ(wait_for(sw, std::chrono::seconds(30)), 0);
}

// The dot product as docs/running.md shows it: nanopu-server --app=dot (then
// dot-naive) and nanopu-loadgen --service=dot in both layouts, every
// result checked against the sum the client computes.
TEST_F(TwoProcessMemifTest, DotProductAnswersMatchTheReference) {
  for (const std::string app : {"dot", "dot-naive"}) {
    start_server(app);
    for (const std::string layout : {"tester", "pairs"}) {
      EXPECT_EQ(run_loadgen({"--service=dot", "--dot_layout=" + layout, "--dot_words=64", "--count=1000",
                             "--outstanding=4"}),
                0)
          << app << " " << layout << ": " << read_file(dir_ + "/loadgen.log");
      const std::string json = read_file(dir_ + "/result.json");
      EXPECT_EQ(json_number(json, "checked"), 1000) << json;
      EXPECT_EQ(json_number(json, "bad_replies"), 0) << json;
    }
    EXPECT_EQ(stop_server(), 0);
    const std::string log = read_file(dir_ + "/server.log");
    EXPECT_EQ(log_counter(log, "dot0.requests"), 2000) << log;
  }
}

// The compute services as docs/running.md shows them: nanopu-server --app=NAME (the
// set intersection also as setint-traditional) and nanopu-loadgen
// --service=NAME, 1000 requests each, every reply equal to the reference
// the client computes.
TEST_F(TwoProcessMemifTest, ComputeServicesAnswerAsTheReference) {
  for (const std::string app : {"setint", "setint-traditional", "hdsearch", "nbody", "classifier", "int"}) {
    start_server(app);
    const std::string service = app.substr(0, app.find('-'));
    EXPECT_EQ(run_loadgen({"--service=" + service, "--count=1000", "--outstanding=4"}), 0)
        << app << ": " << read_file(dir_ + "/loadgen.log");
    const std::string json = read_file(dir_ + "/result.json");
    EXPECT_EQ(json_number(json, "checked"), 1000) << app << " " << json;
    EXPECT_EQ(json_number(json, "bad_replies"), 0) << json;
    EXPECT_EQ(stop_server(), 0);
    const std::string log = read_file(dir_ + "/server.log");
    EXPECT_EQ(log_counter(log, "compute0.requests"), 1000 + 1) << log;  // and the first, unmeasured request
    EXPECT_EQ(log_counter(log, "compute0.errors"), 0) << log;
  }
}

// The packet tester's sequences as docs/running.md shows them: nanopu-server
// --app=loopback-throughput with nanopu-loadgen --service=tester-throughput
// (every DATA echoed, the last carrying the CONFIG's timestamp), and
// --app=service-tester with --service=tester-service (every DATA echoed
// after its service time, the CONFIG never ending the thread).
TEST_F(TwoProcessMemifTest, TesterSequencesAreAnswered) {
  start_server("loopback-throughput");
  for (const std::string size : {"24", "1024"}) {
    EXPECT_EQ(run_loadgen({"--service=tester-throughput", "--count=2000", "--outstanding=8", "--size=" + size}), 0)
        << read_file(dir_ + "/loadgen.log");
    const std::string json = read_file(dir_ + "/result.json");
    EXPECT_EQ(json_number(json, "checked"), 2000) << json;
    EXPECT_EQ(json_number(json, "config_stamp_seen"), 1) << json;
  }
  EXPECT_EQ(stop_server(), 0);
  start_server("service-tester");
  for (int run = 0; run < 2; ++run) {  // a second CONFIG on the same thread
    EXPECT_EQ(run_loadgen({"--service=tester-service", "--count=1000", "--outstanding=4", "--size=1024",
                           "--service_ns=200"}),
              0)
        << read_file(dir_ + "/loadgen.log");
    const std::string json = read_file(dir_ + "/result.json");
    EXPECT_EQ(json_number(json, "checked"), 1000) << json;
  }
  EXPECT_EQ(stop_server(), 0);
}

// Othello as map/reduce over hosts, as docs/running.md shows it: a root with two
// workers and a client on nanopu-switch, each its own process. The root fans
// every MAP's children out to the workers and reduces their values; every
// answer equals the plain recursive search the client runs.
TEST_F(TwoProcessMemifTest, OthelloMapReduceOverThreeHosts) {
  std::string vdevs;
  for (int i = 0; i < 4; ++i)
    vdevs += (i ? ";" : "") + std::string("net_memif") + std::to_string(i) + ",role=server,socket=" + dir_ +
             "/ot" + std::to_string(i) + ".sock";
  pid_t sw = spawn({NANOPU_SWITCH_BIN, "--lcores=" + server_lcore_, "--vdev=" + vdevs,
                    "--routes=10.0.0.1=0,10.0.0.3=1,10.0.0.4=2,10.0.0.2=3", "--poll=adaptive"},
                   dir_ + "/otswitch.log");
  ASSERT_GT(sw, 0);
  ASSERT_TRUE(wait_for_line(dir_ + "/otswitch.log", "Ctrl-C stops", std::chrono::seconds(60)));
  std::vector<pid_t> hosts;
  const std::pair<const char*, int> roles[] = {{"10.0.0.3", 1}, {"10.0.0.4", 2}, {"10.0.0.1", 0}};
  for (const auto& [ip, port] : roles) {
    std::vector<std::string> args = {NANOPU_SERVER_BIN, "--lcores=" + server_lcore_, "--huge=off",
                                     "--vdev=net_memif0,role=client,socket=" + dir_ + "/ot" + std::to_string(port) +
                                         ".sock",
                                     std::string("--ip=") + ip, "--app=othello", "--context=5", "--poll=adaptive"};
    if (port == 0) args.push_back("--othello_workers=10.0.0.3:5,10.0.0.4:5");
    const std::string log = dir_ + "/ot" + std::to_string(port) + ".log";
    hosts.push_back(spawn(args, log));
    ASSERT_GT(hosts.back(), 0);
    ASSERT_TRUE(wait_for_line(log, "Ctrl-C stops", std::chrono::seconds(60))) << read_file(log);
  }
  const pid_t c = spawn({NANOPU_LOADGEN_BIN, "--lcores=0", "--huge=off",
                         "--vdev=net_memif0,role=client,socket=" + dir_ + "/ot3.sock", "--ip=10.0.0.2",
                         "--server_ip=10.0.0.1", "--server_context=5", "--service=othello", "--othello_depth=2",
                         "--othello_workers=2", "--count=500", "--outstanding=4", "--progress=false",
                         "--drain_timeout=10", "--poll=adaptive", "--json=" + dir_ + "/ot.json"},
                        dir_ + "/otclient.log");
  EXPECT_EQ(wait_for(c, std::chrono::seconds(240)), 0) << read_file(dir_ + "/otclient.log");
  const std::string json = read_file(dir_ + "/ot.json");
  EXPECT_EQ(json_number(json, "checked"), 500) << json;
  EXPECT_EQ(json_number(json, "bad_replies"), 0) << json;
  for (pid_t h : hosts) {
    kill(h, SIGTERM);
    EXPECT_EQ(wait_for(h, std::chrono::seconds(30)), 0);
  }
  const std::string root = read_file(dir_ + "/ot0.log");
  EXPECT_EQ(log_counter(root, "othello0.maps"), 500) << root;
  EXPECT_GT(log_counter(root, "othello0.fanned_out"), 500) << root;
  EXPECT_EQ(log_counter(root, "othello0.reduces"), log_counter(root, "othello0.fanned_out")) << root;
  for (int w : {1, 2}) {
    const std::string log = read_file(dir_ + "/ot" + std::to_string(w) + ".log");
    EXPECT_GT(log_counter(log, "othello0.searched"), 0) << "worker " << w << " searched nothing: " << log;
  }
  kill(sw, SIGTERM);
  EXPECT_EQ(wait_for(sw, std::chrono::seconds(30)), 0);
}

// One-sided RDMA as docs/running.md shows it: nanopu-server --app=rdma and two
// nanopu-loadgen processes on nanopu-switch. First both race a
// compare-and-swap loop on one word; then each runs a checked mix on its
// own slice at once, and one of them again on its used slice; last, one
// fetch-and-add reads the word: it must hold
// exactly the increments both clients counted, plus one.
TEST_F(TwoProcessMemifTest, RdmaCasRacesFromTwoClientProcesses) {
  std::string vdevs;
  for (int i = 0; i < 3; ++i)
    vdevs += (i ? ";" : "") + std::string("net_memif") + std::to_string(i) + ",role=server,socket=" +
             dir_ + "/rd" + std::to_string(i) + ".sock";
  pid_t sw = spawn({NANOPU_SWITCH_BIN, "--lcores=" + server_lcore_, "--vdev=" + vdevs,
                    "--routes=10.0.0.1=0,10.0.0.2=1,10.0.0.3=2", "--poll=adaptive"},
                   dir_ + "/rdswitch.log");
  ASSERT_GT(sw, 0);
  ASSERT_TRUE(wait_for_line(dir_ + "/rdswitch.log", "Ctrl-C stops", std::chrono::seconds(60)))
      << read_file(dir_ + "/rdswitch.log");
  server_ = spawn({NANOPU_SERVER_BIN, "--lcores=" + server_lcore_, "--huge=off",
                   "--vdev=net_memif0,role=client,socket=" + dir_ + "/rd0.sock", "--app=rdma",
                   "--context=1", "--poll=adaptive"},
                  dir_ + "/rdserver.log");
  ASSERT_GT(server_, 0);
  ASSERT_TRUE(wait_for_line(dir_ + "/rdserver.log", "Ctrl-C stops", std::chrono::seconds(60)))
      << read_file(dir_ + "/rdserver.log");
  // Client c (1 or 2, at 10.0.0.2 or .3) in the background.
  auto client = [&](int c, const std::string& tag, const std::vector<std::string>& load) {
    std::vector<std::string> args = {NANOPU_LOADGEN_BIN, "--lcores=0", "--huge=off",
                                     "--vdev=net_memif0,role=client,socket=" + dir_ + "/rd" +
                                         std::to_string(c) + ".sock",
                                     "--ip=10.0.0." + std::to_string(c + 1), "--service=rdma",
                                     "--server_context=1", "--progress=false", "--drain_timeout=10",
                                     "--poll=adaptive", "--json=" + dir_ + "/" + tag + ".json"};
    args.insert(args.end(), load.begin(), load.end());
    return spawn(args, dir_ + "/" + tag + ".log");
  };
  auto finish = [&](pid_t p, const std::string& tag) {
    EXPECT_EQ(wait_for(p, std::chrono::seconds(240)), 0) << read_file(dir_ + "/" + tag + ".log");
    const std::string json = read_file(dir_ + "/" + tag + ".json");
    EXPECT_EQ(json_number(json, "bad_replies"), 0) << json;
    return json;
  };
  const std::vector<std::string> race = {"--rdma_mode=cas-counter", "--rdma_base=0", "--count=1500"};
  const pid_t a = client(1, "casA", race), b = client(2, "casB", race);
  const double inc = json_number(finish(a, "casA"), "increments") + json_number(finish(b, "casB"), "increments");
  EXPECT_GT(inc, 0);
  const pid_t ma = client(1, "mixA", {"--rdma_base=65536", "--count=3000", "--outstanding=4"});
  const pid_t mb = client(2, "mixB", {"--rdma_base=131072", "--count=3000", "--outstanding=4"});
  for (const auto& [p, tag] : {std::pair{ma, "mixA"}, std::pair{mb, "mixB"}}) {
    const std::string json = finish(p, tag);
    EXPECT_EQ(json_number(json, "received"), 3000) << json;
    EXPECT_GT(json_number(json, "indirect_reads"), 0) << json;
    EXPECT_GT(json_number(json, "cas_swapped"), 0) << json;
  }
  // A second client on a used slice finds the first one's words: it reads
  // the slice before it checks replies against it.
  const std::string again = finish(client(1, "mixAgain", {"--rdma_base=65536", "--count=500"}), "mixAgain");
  EXPECT_EQ(json_number(again, "received"), 500) << again;
  const std::string last = finish(client(1, "last", {"--rdma_mode=faa-counter", "--rdma_base=0", "--count=1"}), "last");
  EXPECT_EQ(json_number(last, "final_value"), inc + 1)
      << "the counter lost or doubled an increment: " << last;
  EXPECT_EQ(stop_server(), 0);
  const std::string slog = read_file(dir_ + "/rdserver.log");
  EXPECT_EQ(log_counter(slog, "rdma0.out_of_range"), 0) << slog;
  kill(sw, SIGTERM);
  EXPECT_EQ(wait_for(sw, std::chrono::seconds(30)), 0);
}

// Homa beside NDP through a priority switch (issue 15): one client speaks
// Homa (--transport=homa), the other NDP, to one NDP server, which answers
// each in the protocol it spoke; the switch runs eight strict-priority data
// queues by TOS. Every reply arrives; Homa's data rides priorities above 0.
TEST_F(TwoProcessMemifTest, HomaAndNdpClientsThroughAPrioritySwitch) {
  std::string vdevs;
  for (int i = 0; i < 3; ++i)
    vdevs += (i ? ";" : "") + std::string("net_memif") + std::to_string(i) + ",role=server,socket=" +
             dir_ + "/hp" + std::to_string(i) + ".sock";
  pid_t sw = spawn({NANOPU_SWITCH_BIN, "--lcores=" + server_lcore_, "--vdev=" + vdevs,
                    "--routes=10.0.0.1=0,10.0.0.2=1,10.0.0.3=2", "--priorities", "--switch_gbps=10",
                    "--poll=adaptive"},
                   dir_ + "/hpswitch.log");
  ASSERT_GT(sw, 0);
  ASSERT_TRUE(wait_for_line(dir_ + "/hpswitch.log", "Ctrl-C stops", std::chrono::seconds(60)))
      << read_file(dir_ + "/hpswitch.log");
  server_ = spawn({NANOPU_SERVER_BIN, "--lcores=" + server_lcore_, "--huge=off",
                   "--vdev=net_memif0,role=client,socket=" + dir_ + "/hp0.sock", "--app=echo",
                   "--context=1", "--poll=adaptive", "--stats"},
                  dir_ + "/hpserver.log");
  ASSERT_GT(server_, 0);
  ASSERT_TRUE(wait_for_line(dir_ + "/hpserver.log", "Ctrl-C stops", std::chrono::seconds(60)))
      << read_file(dir_ + "/hpserver.log");
  auto client = [&](int c, const std::string& transport, const std::string& size) {
    const std::string tag = "hp" + transport;
    return spawn({NANOPU_LOADGEN_BIN, "--lcores=0", "--huge=off",
                  "--vdev=net_memif0,role=client,socket=" + dir_ + "/hp" + std::to_string(c) + ".sock",
                  "--ip=10.0.0." + std::to_string(c + 1), "--transport=" + transport,
                  "--server_context=1", "--count=1500", "--size=" + size, "--outstanding=4",
                  "--progress=false", "--drain_timeout=10", "--poll=adaptive", "--stats",
                  "--json=" + dir_ + "/" + tag + ".json"},
                 dir_ + "/" + tag + ".log");
  };
  const pid_t h = client(1, "homa", "20000"), n = client(2, "ndp", "3000");
  for (const auto& [p, tag] : {std::pair{h, "hphoma"}, std::pair{n, "hpndp"}}) {
    EXPECT_EQ(wait_for(p, std::chrono::seconds(240)), 0) << read_file(dir_ + "/" + tag + ".log");
    const std::string json = read_file(dir_ + "/" + tag + ".json");
    EXPECT_EQ(json_number(json, "received"), 1500) << json;
  }
  const std::string hlog = read_file(dir_ + "/hphoma.log");
  EXPECT_GT(log_counter(hlog, "nic.tx_homa_packets"), 0) << hlog;
  EXPECT_GT(log_counter(hlog, "nic.rx_grants"), 0) << hlog;
  const std::string nlog = read_file(dir_ + "/hpndp.log");
  EXPECT_LE(log_counter(nlog, "nic.tx_homa_packets"), 0) << nlog;  // absent: zero
  EXPECT_EQ(stop_server(), 0);
  const std::string slog = read_file(dir_ + "/hpserver.log");
  EXPECT_GT(log_counter(slog, "nic.rx_homa_packets"), 0) << slog;
  EXPECT_GT(log_counter(slog, "nic.tx_homa_packets"), 0) << "Homa answered in Homa: " << slog;
  kill(sw, SIGTERM);
  EXPECT_EQ(wait_for(sw, std::chrono::seconds(30)), 0);
  const std::string swlog = read_file(dir_ + "/hpswitch.log");
  EXPECT_GT(log_counter(swlog, "switch.data_priority0"), 0) << swlog;
  long long above = 0;
  for (int i = 1; i < 8; ++i) above += std::max(0LL, log_counter(swlog, "switch.data_priority" + std::to_string(i)));
  EXPECT_GT(above, 0) << "Homa data at priorities above 0: " << swlog;
}

// Adaptive polling gives the CPU back: an idle server (NIC core and a
// worker core on lcores of their own) uses a small fraction of what a busy
// one uses, and still answers every request when work comes.
TEST_F(TwoProcessMemifTest, AnIdleAdaptiveHostGivesTheCpuBackAndStillAnswers) {
  // Served a first load (so its link is up and it runs its main loop), then
  // idle for a second: the CPU time the server used meanwhile. The server
  // outlives its client's disconnect (DPDK's memif teardown is fenced:
  // nic/link/burst_fence.h).
  auto idle_cpu_after_load = [&](const std::string& name) {
    EXPECT_EQ(run_loadgen({"--count=200", "--size=64", "--outstanding=2"}), 0)
        << read_file(dir_ + "/loadgen.log");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // past the spin
    const double t0 = cpu_seconds(server_);
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const double used = cpu_seconds(server_) - t0;
    // A server that has exited (a zombie until reaped) uses no CPU either:
    // tell it from an idle one.
    int status = 0;
    if (waitpid(server_, &status, WNOHANG) != 0) {
      server_ = -1;
      ADD_FAILURE() << name << ": the server exited\n" << read_file(dir_ + "/server.log");
      return -1.0;
    }
    EXPECT_GE(t0, 0) << name << ": cannot read /proc/" << server_ << "/stat";
    return used;
  };
  start_server("echo", "1,0");  // a dedicated NIC core and worker core: both must sleep
  const double idle_adaptive = idle_cpu_after_load("adaptive");
  EXPECT_LT(idle_adaptive, 0.25) << "CPU seconds used by an idle adaptive server in 1 s";
  // Work after the idle spell: every reply arrives.
  EXPECT_EQ(run_loadgen({"--count=300", "--size=64", "--rate=2000", "--drain_timeout=5"}),
            0)
      << read_file(dir_ + "/loadgen.log");
  EXPECT_NE(read_file(dir_ + "/result.json").find("\"received\":300,"), std::string::npos);
  EXPECT_EQ(stop_server(), 0);
  const std::string slog = read_file(dir_ + "/server.log");
  EXPECT_NE(slog.find("nic.nic_sleeps"), std::string::npos) << slog;
  EXPECT_NE(slog.find("core0.sleeps"), std::string::npos) << slog;

  // The same server polling busily: the measurement tells the two apart.
  start_server("echo", "1,0", "busy");
  const double idle_busy = idle_cpu_after_load("busy");
  EXPECT_GT(idle_busy, 3 * idle_adaptive + 0.05)
      << "busy " << idle_busy << " s, adaptive " << idle_adaptive << " s";
  std::printf("idle CPU in 1 s: adaptive %.3f s, busy %.3f s\n", idle_adaptive, idle_busy);
}

// nanopu-loadgen says which way each failed request failed, and fails.
// Offered past the server's capacity (set intersection on one core, an
// open loop at 271.5 k requests/s), the load generator reads its replies
// while its TX FIFO is full (Thread::tx_ready) instead of stalling in
// write(): the replies it left unread filled its context's buffers, the
// server's resends of them its slots, and the run never ended (docs/design.md §3,
// "Overload"). It must end, every request answered once.
TEST_F(TwoProcessMemifTest, AnOpenLoopPastTheServersCapacityEndsWithEveryRequestAnswered) {
  start_server("setint");
  EXPECT_EQ(run_loadgen({"--service=setint", "--rate=271500", "--duration=0.5"}), 0)
      << read_file(dir_ + "/loadgen.log");
  const std::string json = read_file(dir_ + "/result.json");
  EXPECT_GT(json_number(json, "received"), 0) << json;
  EXPECT_EQ(json_number(json, "received"), json_number(json, "sent")) << json;
  EXPECT_EQ(stop_server(), 0);
}

TEST_F(TwoProcessMemifTest, TheLoadGeneratorTellsGivenUpLostAndBadApart) {
  start_server("increment");
  // Given up by the transport: nobody serves context 99.
  EXPECT_EQ(run_loadgen({"--server_context=99", "--count=4", "--outstanding=4",
                         "--peer_dead_ms=50", "--rto_us=20", "--drain_timeout=5"}),
            3);
  std::string json = read_file(dir_ + "/result.json");
  EXPECT_NE(json.find("\"given_up\":4,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"lost\":0,"), std::string::npos) << json;
  EXPECT_NE(read_file(dir_ + "/loadgen.log").find("given-up 4"), std::string::npos)
      << read_file(dir_ + "/loadgen.log");
  // Bad replies: an increment server checked as an echo server.
  EXPECT_EQ(run_loadgen({"--count=20", "--expect=echo", "--context=3"}), 3);
  json = read_file(dir_ + "/result.json");
  EXPECT_NE(json.find("\"bad_replies\":20,"), std::string::npos) << json;
  EXPECT_EQ(stop_server(), 0);
  // Lost: a reply slower than the drain timeout (a 2 s service time).
  start_server("service");
  EXPECT_EQ(run_loadgen({"--count=1", "--service_ns=2e9", "--drain_timeout=0.3", "--context=4"}), 3);
  json = read_file(dir_ + "/result.json");
  EXPECT_NE(json.find("\"lost\":1,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"given_up\":0,"), std::string::npos) << json;
  EXPECT_EQ(stop_server(), 0);
}

TEST_F(TwoProcessMemifTest, BadFlagsFailWithOneClearLine) {
  pid_t c = spawn({NANOPU_LOADGEN_BIN, "--size=4"}, dir_ + "/bad.log");
  EXPECT_EQ(wait_for(c, std::chrono::seconds(30)), 2);
  EXPECT_NE(read_file(dir_ + "/bad.log").find("--size must be"), std::string::npos);
  c = spawn({NANOPU_SERVER_BIN, "--app=nope"}, dir_ + "/bad2.log");
  EXPECT_EQ(wait_for(c, std::chrono::seconds(30)), 2);
  EXPECT_NE(read_file(dir_ + "/bad2.log").find("--app="), std::string::npos);
  c = spawn({NANOPU_SERVER_BIN, "--lcores=0,0"}, dir_ + "/bad3.log");
  EXPECT_EQ(wait_for(c, std::chrono::seconds(30)), 2);
  EXPECT_NE(read_file(dir_ + "/bad3.log").find("listed twice"), std::string::npos);
  c = spawn({NANOPU_SERVER_BIN, "--lcores=999"}, dir_ + "/bad4.log");
  EXPECT_EQ(wait_for(c, std::chrono::seconds(30)), 1);
  EXPECT_NE(read_file(dir_ + "/bad4.log").find("does not exist"), std::string::npos);
  c = spawn({NANOPU_SERVER_BIN, "--vdev=net_bogus0"}, dir_ + "/bad5.log");
  EXPECT_EQ(wait_for(c, std::chrono::seconds(30)), 1);
  EXPECT_NE(read_file(dir_ + "/bad5.log").find("check --vdev"), std::string::npos);
  // A vdev whose PMD refuses its arguments is named as that, not "no such port".
  c = spawn({NANOPU_SERVER_BIN, "--vdev=net_memif0,role=srv,socket=" + sock_}, dir_ + "/bad5b.log");
  EXPECT_EQ(wait_for(c, std::chrono::seconds(30)), 1);
  EXPECT_NE(read_file(dir_ + "/bad5b.log").find("the EAL created none from --vdev=net_memif0,role=srv"),
            std::string::npos)
      << read_file(dir_ + "/bad5b.log");
  c = spawn({NANOPU_SERVER_BIN, "--jbsq_n=0"}, dir_ + "/bad6.log");
  EXPECT_EQ(wait_for(c, std::chrono::seconds(30)), 2);
  EXPECT_NE(read_file(dir_ + "/bad6.log").find("--jbsq_n=0"), std::string::npos);
  // The compute services' and Othello's own flags.
  const std::pair<std::vector<std::string>, std::string> bad[] = {
      {{NANOPU_SERVER_BIN, "--app=setint", "--setint_corpus=/nonexistent/corpus"}, "/nonexistent/corpus"},
      {{NANOPU_SERVER_BIN, "--app=setint", "--setint_documents=1000000"}, "documents asked"},
      {{NANOPU_SERVER_BIN, "--app=classifier", "--classifier_rules=0"}, "--classifier_rules"},
      {{NANOPU_SERVER_BIN, "--app=othello", "--othello_workers=10.0.0.3"}, "--othello_workers"},
      {{NANOPU_SERVER_BIN, "--app=hdsearch", "--threads=2", "--jbsq"}, "--jbsq"},
      {{NANOPU_LOADGEN_BIN, "--service=othello", "--othello_depth=9"}, "--othello_depth"},
      {{NANOPU_LOADGEN_BIN, "--service=tester-throughput"}, "needs --count"},
      {{NANOPU_LOADGEN_BIN, "--service=setint", "--setint_zipf=-1"}, "--setint_zipf"},
      {{NANOPU_LOADGEN_BIN, "--app_mode=dma"}, "--app_mode: use register-file or traditional"},
      {{NANOPU_LOADGEN_BIN, "--service=kv", "--app_mode=traditional"}, "only --service=echo"},
      {{NANOPU_SERVER_BIN, "--app_mode=dma"}, "--app_mode='dma'"},
      {{NANOPU_SERVER_BIN, "--app=raft", "--app_mode=traditional"}, "no traditional variant"},
  };
  for (const auto& [args, says] : bad) {
    c = spawn(args, dir_ + "/bad7.log");
    EXPECT_EQ(wait_for(c, std::chrono::seconds(30)), 2) << args[1] << " " << args[2];
    EXPECT_NE(read_file(dir_ + "/bad7.log").find(says), std::string::npos) << read_file(dir_ + "/bad7.log");
  }
}

// A memif server waits for its first client without the limit a client
// waits for its server (--link_wait's default, 10 s: link_wait_s() in
// runtime/host, unit-tested in config_test.cc). Its waiting line names the
// limit it resolved, and says it waits rather than that it lost a link it
// never had; then it serves the client that comes. start_server() returns
// at that line (a second into the wait): two more seconds of waiting, not
// the client's ten, since the line names the limit the wait ends at.
TEST_F(TwoProcessMemifTest, AMemifServerWaitsForItsFirstClientWithoutLimit) {
  start_server("increment");
  std::this_thread::sleep_for(std::chrono::seconds(2));
  int status = 0;
  ASSERT_EQ(waitpid(server_, &status, WNOHANG), 0) << "the server exited\n" << read_file(dir_ + "/server.log");
  const std::string waiting = read_file(dir_ + "/server.log");
  EXPECT_NE(waiting.find("waiting for its first peer without limit"), std::string::npos) << waiting;
  EXPECT_EQ(waiting.find("still down"), std::string::npos) << waiting;
  EXPECT_EQ(waiting.find("lost its link"), std::string::npos) << waiting;
  EXPECT_EQ(run_loadgen({"--count=200", "--expect=increment", "--outstanding=4"}), 0)
      << read_file(dir_ + "/loadgen.log");
  EXPECT_EQ(stop_server(), 0) << read_file(dir_ + "/server.log");
}

// --help: the program's own flags, and where the rest are; --helpfull:
// every flag, the host runtime's too (issue 70 item 7).
TEST_F(TwoProcessMemifTest, HelpExplainsEveryFlag) {
  struct Bin {
    const char* path;
    const char* own_flag;
  };
  for (const Bin& b : {Bin{NANOPU_SERVER_BIN, "--app"}, Bin{NANOPU_LOADGEN_BIN, "--outstanding"}}) {
    pid_t c = spawn({b.path, "--help"}, dir_ + "/help.log");
    wait_for(c, std::chrono::seconds(30));
    const std::string help = read_file(dir_ + "/help.log");
    EXPECT_NE(help.find(b.own_flag), std::string::npos) << b.path << "\n" << help;
    EXPECT_NE(help.find("--helpfull"), std::string::npos) << b.path << " does not say where the rest are\n" << help;
    EXPECT_EQ(help.find("--max_message_bytes"), std::string::npos) << b.path << ": a host flag under --help\n" << help;
    c = spawn({b.path, "--helpfull"}, dir_ + "/helpfull.log");
    wait_for(c, std::chrono::seconds(30));
    const std::string full = read_file(dir_ + "/helpfull.log");
    for (const char* flag : {"--lcores", "--vdev", "--huge", "--ip", "--max_message_bytes", b.own_flag})
      EXPECT_NE(full.find(flag), std::string::npos) << b.path << " lacks " << flag << "\n" << full;
  }
}

}  // namespace
