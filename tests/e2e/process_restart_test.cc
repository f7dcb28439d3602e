// Processes killed with SIGKILL mid-stream and started again
// (docs/design.md §9, "Crashes and restarts"): the load generator must see
// every request answered exactly once or reported (lost: accepted by a
// server that died before replying; given up: the transport's retries ran
// out, or a restarted peer refused it), never answered twice, and service
// must resume with the new process.
//
// The hosts run in network namespaces joined by veth pairs, over
// net_af_packet: the kernel owns the link, so a killed process leaves
// nothing half torn down for its peer (memif churn, with its teardown
// fenced, is tests/e2e/churn_test.cc). A
// killed process's port goes dark until its successor is ready, as a
// memif link or a rebooting switch's ports do: the test sets its veth end
// down, and up again once the new process is ready. The last test churns
// the three over af_packet (the PMD of deploy/netns and the Ansible
// playbook) as tests/e2e/churn_test.cc does over io_uring and memif.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/churn.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/netns.h"
#include "tests/support/subprocess.h"
#include "nanopu_test_paths.h"  // generated: the programs' paths (tests/CMakeLists.txt)

using nanopu::testing::json_number;
using nanopu::testing::log_counter;
using nanopu::testing::Netns;
using nanopu::testing::netns_unavailable;
using nanopu::testing::veth;
using nanopu::testing::read_file;
using nanopu::testing::spawn;
using nanopu::testing::wait_for;
using nanopu::testing::wait_for_line;

namespace {

class ProcessRestartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "nanopu-restart-" + std::to_string(getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    mkdir(dir_.c_str(), 0755);
    lcore_ = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? "1" : "0";
    if (const std::string why = netns_unavailable(); !why.empty()) GTEST_SKIP() << why;
    const std::string tag = "npu" + std::to_string(getpid());
    server_ns_ = std::make_unique<Netns>(tag + "srv");
    client_ns_ = std::make_unique<Netns>(tag + "cli");
    switch_ns_ = std::make_unique<Netns>(tag + "sw");
    ASSERT_TRUE(server_ns_->ok() && client_ns_->ok() && switch_ns_->ok())
        << "cannot make network namespaces (ip netns add) as root";
  }
  void TearDown() override {
    for (pid_t p : {server_, switch_, loadgen_})
      if (p > 0) {
        kill(p, SIGKILL);
        waitpid(p, nullptr, 0);
      }
    server_ns_.reset();
    client_ns_.reset();
    switch_ns_.reset();
    nanopu::testing::remove_if_passed(dir_);
  }
  // Server and client on one veth pair (each end named p0).
  void direct_link() { ASSERT_TRUE(veth(*server_ns_, "p0", *client_ns_, "p0")); }
  // Server - switch (p0) and switch (p1) - client.
  void switched_links() {
    ASSERT_TRUE(veth(*switch_ns_, "p0", *server_ns_, "p0"));
    ASSERT_TRUE(veth(*switch_ns_, "p1", *client_ns_, "p0"));
  }
  // Starts a program in a namespace and waits for its ready line.
  pid_t start(const Netns& ns, const std::vector<std::string>& args, const std::string& log) {
    const pid_t p = spawn(ns.exec(args), dir_ + "/" + log);
    EXPECT_GT(p, 0);
    EXPECT_TRUE(wait_for_line(dir_ + "/" + log, "Ctrl-C stops", std::chrono::seconds(60)))
        << read_file(dir_ + "/" + log);
    return p;
  }
  // Whether a program's log says its link went down (within a minute).
  bool saw_link_lost(const std::string& log) {
    const bool seen = wait_for_line(dir_ + "/" + log, "lost its link", std::chrono::seconds(60));
    EXPECT_TRUE(seen) << log << "\n" << read_file(dir_ + "/" + log);
    return seen;
  }
  void kill9(pid_t* p) {
    kill(*p, SIGKILL);
    waitpid(*p, nullptr, 0);
    *p = -1;
  }
  int stop(pid_t* p) {
    kill(*p, SIGTERM);
    const int rc = wait_for(*p, std::chrono::seconds(30));
    *p = -1;
    return rc;
  }
  // A load generator in the client namespace, in the background, writing
  // `log` and result.json; `load`: its load flags.
  pid_t spawn_loadgen(const std::vector<std::string>& load, const std::string& log = "loadgen.log") {
    std::vector<std::string> args = {NANOPU_LOADGEN_BIN, "--lcores=0", "--huge=off",
                                     "--vdev=net_af_packet0,iface=p0",
                                     "--server_context=1", "--poll=adaptive",
                                     "--json=" + dir_ + "/result.json"};
    args.insert(args.end(), load.begin(), load.end());
    return spawn(client_ns_->exec(args), dir_ + "/" + log);
  }
  // A closed-loop load generator, in the background; returns once it has
  // run for a while (its first progress line). drain_s: how long without a
  // reply before the window counts as lost.
  // peer_dead_ms: how long a silent peer may stay silent before the
  // transport gives its messages up (0: the default, 2 s).
  void start_loadgen(uint32_t size, double seconds, uint32_t outstanding = 4, int drain_s = 5, int peer_dead_ms = 0) {
    std::vector<std::string> args = {"--duration=" + std::to_string(seconds), "--size=" + std::to_string(size),
                                     "--outstanding=" + std::to_string(outstanding),
                                     "--drain_timeout=" + std::to_string(drain_s)};
    if (peer_dead_ms > 0) args.push_back("--peer_dead_ms=" + std::to_string(peer_dead_ms));
    loadgen_ = spawn_loadgen(args);
    ASSERT_GT(loadgen_, 0);
    ASSERT_TRUE(wait_for_line(dir_ + "/loadgen.log", "] sent ", std::chrono::seconds(60)))
        << read_file(dir_ + "/loadgen.log");
  }
  // Waits for the load generator; returns its JSON result.
  std::string finish_loadgen() {
    const int rc = wait_for(loadgen_, std::chrono::seconds(90));
    loadgen_ = -1;
    const std::string json = read_file(dir_ + "/result.json");
    // 0: everything answered; 3: some requests reported lost or given up.
    EXPECT_TRUE(rc == 0 || rc == 3) << rc << "\n" << read_file(dir_ + "/loadgen.log");
    EXPECT_EQ(json_number(json, "duplicates"), 0) << "a request answered twice: " << json;
    EXPECT_EQ(json_number(json, "bad_replies"), 0) << json;
    EXPECT_EQ(json_number(json, "send_failures"), 0) << json;
    EXPECT_EQ(rc == 0, json_number(json, "lost") + json_number(json, "given_up") == 0) << json;
    // Every request is accounted for: answered, lost or given up.
    EXPECT_EQ(json_number(json, "sent"), json_number(json, "received") + json_number(json, "lost") +
                                             json_number(json, "given_up"))
        << json;
    return json;
  }

  std::string dir_, lcore_;
  std::unique_ptr<Netns> server_ns_, client_ns_, switch_ns_;
  pid_t server_ = -1, switch_ = -1, loadgen_ = -1;
};

TEST_F(ProcessRestartTest, AServerKilledMidStreamIsReplacedAndNothingGoesMissing) {
  direct_link();
  const std::vector<std::string> server = {NANOPU_SERVER_BIN, "--lcores=" + lcore_,
                                           "--vdev=net_af_packet0,iface=p0", "--app=echo",
                                           "--context=1", "--poll=adaptive"};
  server_ = start(*server_ns_, server, "server1.log");
  // A drain timeout longer than the restart takes on a busy machine (an
  // ASan server beside a CPU hog took over 5 s): the window in flight at
  // the kill waits for the new server rather than being counted lost and
  // followed by a second one sent into the outage.
  start_loadgen(100, 8, 4, /*drain_s=*/30);
  kill9(&server_);
  ASSERT_TRUE(server_ns_->set_link("p0", false));
  server_ = start(*server_ns_, server, "server2.log");
  // The port stays dark until the client has seen it (its link watch runs
  // every 100 ms, later on a busy machine), as a restarting host's does.
  ASSERT_TRUE(saw_link_lost("loadgen.log"));
  ASSERT_TRUE(server_ns_->set_link("p0", true));
  const std::string json = finish_loadgen();
  // Only the window in flight at the kill fails: lost (the dead server took
  // them and never answered) or given up (held while the link was down,
  // then refused by the new server: they name its predecessor, which may
  // have served them already). Nothing after it fails.
  EXPECT_LE(json_number(json, "lost") + json_number(json, "given_up"), 4) << json;
  const std::string log = read_file(dir_ + "/loadgen.log");
  EXPECT_NE(log.find("link up again"), std::string::npos) << log;
  EXPECT_EQ(stop(&server_), 0);
  // The new server answered requests: its replies, whose ids start over,
  // were not taken for its predecessor's (the sender incarnation).
  const std::string s2 = read_file(dir_ + "/server2.log");
  EXPECT_GT(log_counter(s2, "nic.rx_msgs_delivered"), 0) << s2;
}

TEST_F(ProcessRestartTest, ASwitchKilledMidStreamIsReplacedAndEveryRequestIsAnswered) {
  switched_links();
  const std::vector<std::string> sw = {
      NANOPU_SWITCH_BIN, "--lcores=" + lcore_, "--huge=off",
      "--vdev=net_af_packet0,iface=p0;net_af_packet1,iface=p1",
      "--routes=10.0.0.1=0,10.0.0.2=1", "--switch_gbps=10", "--queue_bytes=65536", "--poll=adaptive"};
  switch_ = start(*switch_ns_, sw, "switch1.log");
  // 3 packets a message: some are in the switch at the kill. Nothing may be
  // lost, however long the new switch takes to start on a busy machine: both
  // hosts are alive throughout, so neither may give the other up. Beside a
  // CPU hog the switch's restart took over the default 2 s: once the client
  // gave requests up (ASan), once the server a reply (the normal build; its
  // requests were then lost), so both wait for a silent peer for a minute.
  server_ = start(
      *server_ns_,
      {NANOPU_SERVER_BIN, "--lcores=" + lcore_, "--huge=off", "--vdev=net_af_packet0,iface=p0",
       "--app=echo", "--context=1", "--poll=adaptive", "--peer_dead_ms=60000"},
      "server.log");
  start_loadgen(3000, 8, 4, /*drain_s=*/60, /*peer_dead_ms=*/60000);
  kill9(&switch_);
  // A rebooting switch's ports go dark.
  ASSERT_TRUE(switch_ns_->set_link("p0", false) && switch_ns_->set_link("p1", false));
  switch_ = start(*switch_ns_, sw, "switch2.log");
  ASSERT_TRUE(saw_link_lost("loadgen.log") && saw_link_lost("server.log"));
  ASSERT_TRUE(switch_ns_->set_link("p0", true) && switch_ns_->set_link("p1", true));
  const std::string json = finish_loadgen();
  // A switch holds no state: what died in it is retransmitted, and both
  // hosts hold their messages while their links are down.
  EXPECT_EQ(json_number(json, "lost"), 0) << json;
  EXPECT_EQ(json_number(json, "given_up"), 0) << json;
  if (json_number(json, "lost") != 0 || json_number(json, "given_up") != 0) {
    // Seen once in about a dozen runs beside a CPU hog and the Raft tests
    // (ASan build): the logs say which host went silent, and when.
    for (const char* log : {"loadgen.log", "server.log", "switch1.log", "switch2.log"})
      ADD_FAILURE() << log << ":\n" << read_file(dir_ + "/" + log);
  }
  EXPECT_GT(json_number(json, "received"), 0) << json;
  EXPECT_EQ(stop(&server_), 0);
  for (const char* log : {"loadgen.log", "server.log"}) {
    const std::string text = read_file(dir_ + "/" + log);
    EXPECT_NE(text.find("link up again"), std::string::npos) << log << "\n" << text;
  }
  const std::string sw2 = read_file(dir_ + "/switch2.log");
  EXPECT_EQ(stop(&switch_), 0);
  EXPECT_GT(log_counter(read_file(dir_ + "/switch2.log"), "switch.forwarded"), 0) << sw2;
}

// The client restarts on the same address and context while the server
// still retransmits replies meant for the dead one (the server holds them
// while its link is down and sends them when the new client's port comes
// up). The new client refuses them (they name its predecessor's run) and
// sees only answers to its own requests.
TEST_F(ProcessRestartTest, AClientRestartedOnTheSameContextGetsOnlyItsOwnReplies) {
  direct_link();
  server_ = start(*server_ns_,
                  {NANOPU_SERVER_BIN, "--lcores=" + lcore_, "--vdev=net_af_packet0,iface=p0",
                   "--app=echo", "--context=1", "--poll=adaptive"},
                  "server.log");
  start_loadgen(3000, 30, /*outstanding=*/32);  // many replies in flight at the kill
  kill9(&loadgen_);
  ASSERT_TRUE(client_ns_->set_link("p0", false));
  ASSERT_TRUE(saw_link_lost("server.log"));
  ASSERT_TRUE(client_ns_->set_link("p0", true));
  // Every request of the new client must be answered: it waits for a silent
  // server for a minute, not the default 2 s (beside a hog a pinned process
  // can go unscheduled for seconds: docs/design.md §9,
  // --pin), and drains for 30 s.
  loadgen_ = spawn_loadgen({"--count=2000", "--size=3000", "--outstanding=4", "--drain_timeout=30",
                            "--peer_dead_ms=60000", "--stats", "--progress=false"});
  ASSERT_GT(loadgen_, 0);
  const std::string json = finish_loadgen();
  EXPECT_EQ(json_number(json, "lost") + json_number(json, "given_up"), 0) << json;
  EXPECT_EQ(json_number(json, "received"), 2000) << json;
  const std::string log = read_file(dir_ + "/loadgen.log");
  std::printf("replies meant for the dead client, refused by the new one: %lld\n",
              log_counter(log, "nic.rx_drop_stale_incarnation"));
  EXPECT_NE(read_file(dir_ + "/server.log").find("link up again"), std::string::npos)
      << read_file(dir_ + "/server.log");
  EXPECT_EQ(stop(&server_), 0);
}

// Churn over af_packet through the switch: the server, the client and the
// switch killed with SIGKILL and restarted in turn (tests/support/churn.h:
// 24 in the test command; deploy/churn.sh af_packet for more), traffic
// flowing. Each churned client hears its first reply (through the server
// and switch restarted since it started) before it goes, no process dies on
// its own, and a last client's 2000 requests are each answered once. The
// ports stay up across a kill here: an af_packet socket holds no state a
// successor needs, so the hosts' transports alone ride it out.
TEST_F(ProcessRestartTest, ServerClientAndSwitchChurnedInTurnWithTrafficFlowing) {
  using nanopu::testing::kill9_alive;
  switched_links();
  const std::vector<std::string> sw = {NANOPU_SWITCH_BIN, "--lcores=" + lcore_, "--huge=off",
                                       "--vdev=net_af_packet0,iface=p0;net_af_packet1,iface=p1",
                                       "--routes=10.0.0.1=0,10.0.0.2=1", "--poll=adaptive"};
  const std::vector<std::string> server = {NANOPU_SERVER_BIN, "--lcores=" + lcore_, "--huge=off",
                                           "--vdev=net_af_packet0,iface=p0", "--app=echo", "--context=1",
                                           "--poll=adaptive"};
  const std::vector<std::string> load = {"--duration=600", "--size=200", "--outstanding=4", "--calibrate=false",
                                         "--drain_timeout=10"};
  const auto log = [](const char* who, int run) { return std::string(who) + std::to_string(run) + ".log"; };
  switch_ = start(*switch_ns_, sw, log("switch", 0));
  server_ = start(*server_ns_, server, log("server", 0));
  loadgen_ = spawn_loadgen(load, log("client", 0));
  ASSERT_GT(loadgen_, 0);
  const int restarts = nanopu::testing::churn_restarts();
  int client_run = 0;
  for (int i = 1; i <= restarts; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
    switch ((i - 1) % 3) {
      case 0:
        kill9_alive(&server_, "server", i);
        server_ = start(*server_ns_, server, log("server", i));
        break;
      case 1:
        EXPECT_TRUE(wait_for_line(dir_ + "/" + log("client", client_run), "first reply", std::chrono::seconds(30)))
            << "client " << client_run << " never answered";
        kill9_alive(&loadgen_, "client", i);
        loadgen_ = spawn_loadgen(load, log("client", i));
        client_run = i;
        break;
      default:
        kill9_alive(&switch_, "switch", i);
        switch_ = start(*switch_ns_, sw, log("switch", i));
        break;
    }
    if (HasFatalFailure()) return;
  }
  EXPECT_TRUE(wait_for_line(dir_ + "/" + log("client", client_run), "first reply", std::chrono::seconds(60)));
  kill9_alive(&loadgen_, "client", restarts + 1);
  loadgen_ = spawn_loadgen({"--count=2000", "--size=200", "--outstanding=4", "--drain_timeout=10"});
  ASSERT_GT(loadgen_, 0);
  const std::string json = finish_loadgen();
  EXPECT_EQ(json_number(json, "received"), 2000) << json;
  EXPECT_EQ(stop(&server_), 0) << "the last server stops cleanly";
  EXPECT_EQ(stop(&switch_), 0) << "the last switch stops cleanly";
  std::vector<std::string> logs = {"loadgen.log"};
  for (int i = 0; i <= restarts; ++i)
    for (const char* who : {"server", "client", "switch"}) logs.push_back(log(who, i));
  for (const std::string& name : logs) {
    const std::string text = read_file(dir_ + "/" + name);
    EXPECT_EQ(text.find("SIGSEGV"), std::string::npos) << name << "\n" << text;
    EXPECT_EQ(text.find("Sanitizer"), std::string::npos) << name << "\n" << text;
  }
}

}  // namespace
