// Processes killed with SIGKILL mid-stream and started again, over net_memif
// (docs/design.md §9, "Crashes and restarts"): the load generator must see
// every request answered exactly once or reported (lost: accepted by a
// server that died before replying; given up: the transport's retries ran
// out), never answered twice, and service must resume with the new process.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/support/subprocess.h"

using nanopu::testing::json_number;
using nanopu::testing::read_file;
using nanopu::testing::spawn;
using nanopu::testing::wait_for;
using nanopu::testing::wait_for_line;

namespace {

// The value of a counter in a program's statistics (-1 if absent).
long long counter(const std::string& log, const std::string& name) {
  const size_t at = log.find(name + " ");
  return at == std::string::npos ? -1 : std::atoll(log.c_str() + log.find_first_not_of(' ', at + name.size()));
}

class ProcessRestartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "nanopu-restart-" + std::to_string(getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    mkdir(dir_.c_str(), 0755);
    lcore_ = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? "1" : "0";
  }
  void TearDown() override {
    for (pid_t p : {server_, switch_, loadgen_})
      if (p > 0) {
        kill(p, SIGKILL);
        waitpid(p, nullptr, 0);
      }
  }
  // Starts a program and waits for its ready line.
  pid_t start(const std::vector<std::string>& args, const std::string& log) {
    const pid_t p = spawn(args, dir_ + "/" + log);
    EXPECT_GT(p, 0);
    EXPECT_TRUE(wait_for_line(dir_ + "/" + log, "Ctrl-C stops", std::chrono::seconds(60)))
        << read_file(dir_ + "/" + log);
    return p;
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
  // A load generator over a memif client, in the background, writing
  // loadgen.log and result.json; `load`: its load flags.
  pid_t spawn_loadgen(const std::string& sock, const std::vector<std::string>& load) {
    std::vector<std::string> args = {NANOPU_LOADGEN_BIN, "--lcores=0", "--huge=off",
                                     "--vdev=net_memif0,role=client,socket=" + sock,
                                     "--server_context=1", "--poll=adaptive",
                                     "--json=" + dir_ + "/result.json"};
    args.insert(args.end(), load.begin(), load.end());
    return spawn(args, dir_ + "/loadgen.log");
  }
  // A closed-loop load generator, in the background; returns once it has
  // run for a while (its first progress line). drain_s: how long without a
  // reply before the window counts as lost.
  void start_loadgen(const std::string& sock, uint32_t size, double seconds,
                     uint32_t outstanding = 4, int drain_s = 5) {
    loadgen_ = spawn_loadgen(sock, {"--duration=" + std::to_string(seconds),
                                    "--size=" + std::to_string(size),
                                    "--outstanding=" + std::to_string(outstanding),
                                    "--drain_timeout=" + std::to_string(drain_s)});
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
    return json;
  }

  std::string dir_, lcore_;
  pid_t server_ = -1, switch_ = -1, loadgen_ = -1;
};

TEST_F(ProcessRestartTest, AServerKilledMidStreamIsReplacedAndNothingGoesMissing) {
  const std::string sock = dir_ + "/memif.sock";
  const std::vector<std::string> server = {NANOPU_SERVER_BIN, "--lcores=" + lcore_,
                                           "--vdev=net_memif0,role=server,socket=" + sock,
                                           "--app=echo", "--context=1", "--poll=adaptive"};
  server_ = start(server, "server1.log");
  start_loadgen(sock, 100, 8);
  kill9(&server_);
  server_ = start(server, "server2.log");
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
  EXPECT_GT(counter(s2, "nic.rx_msgs_delivered"), 0) << s2;
}

TEST_F(ProcessRestartTest, ASwitchKilledMidStreamIsReplacedAndEveryRequestIsAnswered) {
  const std::string s0 = dir_ + "/sw0.sock", s1 = dir_ + "/sw1.sock";
  const std::vector<std::string> sw = {
      NANOPU_SWITCH_BIN, "--lcores=" + lcore_,
      "--vdev=net_memif0,role=server,socket=" + s0 + ";net_memif1,role=server,socket=" + s1,
      "--routes=10.0.0.1=0,10.0.0.2=1", "--switch_gbps=10", "--queue_bytes=65536", "--poll=adaptive"};
  switch_ = start(sw, "switch1.log");
  server_ = start({NANOPU_SERVER_BIN, "--lcores=" + lcore_, "--huge=off",
                   "--vdev=net_memif0,role=client,socket=" + s0, "--app=echo", "--context=1",
                   "--poll=adaptive"},
                  "server.log");
  // 3 packets a message: some are in the switch at the kill. Nothing may be
  // lost, however long the new switch takes to start on a busy machine.
  start_loadgen(s1, 3000, 8, 4, /*drain_s=*/60);
  kill9(&switch_);
  switch_ = start(sw, "switch2.log");
  const std::string json = finish_loadgen();
  // A switch holds no state: what died in it is retransmitted, and both
  // hosts hold their messages while their links are down.
  EXPECT_EQ(json_number(json, "lost"), 0) << json;
  EXPECT_EQ(json_number(json, "given_up"), 0) << json;
  EXPECT_GT(json_number(json, "received"), 0) << json;
  EXPECT_EQ(stop(&server_), 0);
  for (const char* log : {"loadgen.log", "server.log"}) {
    const std::string text = read_file(dir_ + "/" + log);
    EXPECT_NE(text.find("link up again"), std::string::npos) << log << "\n" << text;
  }
  const std::string sw2 = read_file(dir_ + "/switch2.log");
  EXPECT_EQ(stop(&switch_), 0);
  EXPECT_GT(counter(read_file(dir_ + "/switch2.log"), "switch.forwarded"), 0) << sw2;
}

// The client restarts on the same address and context while the server
// still retransmits replies meant for the dead one (the server holds them
// while its link is down and sends them when the new client connects). The
// new client refuses them (they name its predecessor's run) and sees only
// answers to its own requests.
//
// DPDK 22.11's memif server can crash (SIGSEGV in rte_eth_rx_burst) when a
// client dies while traffic flows: its control thread unmaps the rings the
// polling thread is reading (README, "Known gaps"). That race is DPDK's, not
// the behaviour under test, so a server that dies of it before the new
// client connects is reported and the scenario run again, at most twice.
TEST_F(ProcessRestartTest, AClientRestartedOnTheSameContextGetsOnlyItsOwnReplies) {
  const std::string sock = dir_ + "/memif.sock";
  for (int attempt = 1;; ++attempt) {
    server_ = start({NANOPU_SERVER_BIN, "--lcores=" + lcore_,
                     "--vdev=net_memif0,role=server,socket=" + sock, "--app=echo", "--context=1",
                     "--poll=adaptive"},
                    "server.log");
    start_loadgen(sock, 3000, 30, /*outstanding=*/32);  // many replies in flight at the kill
    kill9(&loadgen_);
    loadgen_ = spawn_loadgen(sock, {"--count=2000", "--size=3000", "--outstanding=4",
                                    "--drain_timeout=5", "--stats", "--progress=false"});
    ASSERT_GT(loadgen_, 0);
    // The server must live through its client's death and the new client's
    // arrival; wait for the new client while watching it.
    int status = 0;
    bool died = false;
    while (waitpid(loadgen_, nullptr, WNOHANG) == 0) {
      if (waitpid(server_, &status, WNOHANG) == server_) {
        died = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!died) {
      loadgen_ = -1;  // reaped above
      break;
    }
    kill9(&loadgen_);
    server_ = -1;
    const bool dpdk_race = WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
    std::printf("attempt %d: the server died when its client was killed (%s)\n", attempt,
                dpdk_race ? "SIGSEGV: DPDK's memif disconnect race, README \"Known gaps\""
                          : "not the known race");
    ASSERT_TRUE(dpdk_race && attempt < 3) << read_file(dir_ + "/server.log");
  }
  const std::string json = read_file(dir_ + "/result.json");
  EXPECT_EQ(json_number(json, "duplicates"), 0) << json;
  EXPECT_EQ(json_number(json, "bad_replies"), 0) << json;
  EXPECT_EQ(json_number(json, "lost") + json_number(json, "given_up"), 0) << json;
  EXPECT_EQ(json_number(json, "received"), 2000) << json;
  const std::string log = read_file(dir_ + "/loadgen.log");
  std::printf("replies meant for the dead client, refused by the new one: %lld\n",
              counter(log, "nic.rx_drop_stale_incarnation"));
  EXPECT_EQ(stop(&server_), 0);
}

}  // namespace
