// Churn: processes that come and go with traffic flowing. A server and its
// clients (and, through a switch, the switch) are killed with SIGKILL and
// started again, in turn, 50 times per topology; no process may die except
// those killed, the last client's every request is answered once or
// reported, and the processes that run at the end stop cleanly. Three
// topologies:
// - io_uring (kernel UDP sockets: nothing shared between the processes that
//   a killed one could leave half torn down);
// - net_memif (shared memory: DPDK's interrupt thread unmaps a dead peer's
//   rings while the survivor may be polling them; nanopu fences the unmap,
//   nic/link/burst_fence.h). The server is role=server, so a killed server's
//   client reconnects by itself to its successor.
// - net_memif through nanopu-switch (memif_switch): both hosts are memif
//   clients of the switch, which is killed in turn with them; the hosts
//   reconnect to its successor, and the switch drops what it queued for a
//   host that went away (tools/switch/software_switch.h) rather than
//   retrying it flat out.
// deploy/churn.sh runs the same for as many restarts as asked (its result:
// the closing note of issue 36).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/churn.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/subprocess.h"
#include "nanopu_test_paths.h"  // generated: the programs' paths (tests/CMakeLists.txt)

using nanopu::testing::json_number;
using nanopu::testing::log_counter;
using nanopu::testing::read_file;
using nanopu::testing::spawn;
using nanopu::testing::wait_for;
using nanopu::testing::wait_for_line;

namespace {

// The parameter: the backend ("uring" or "memif").
class ChurnTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "nanopu-churn-" + std::to_string(getpid());
    mkdir(dir_.c_str(), 0755);
    port_ = "--udp_port=" + std::to_string(30000 + getpid() % 20000);
    sock_ = dir_ + "/churn.sock";
    lcore_ = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? "1" : "0";
  }
  void TearDown() override {
    for (pid_t p : {server_, client_, switch_})
      if (p > 0) {
        kill(p, SIGKILL);
        waitpid(p, nullptr, 0);
      }
    nanopu::testing::remove_if_passed(dir_);
  }
  [[nodiscard]] bool memif() const { return std::string(GetParam()) != "uring"; }
  [[nodiscard]] bool switched() const { return std::string(GetParam()) == "memif_switch"; }
  // The socket of the switch's port `i` (0: server, 1: client).
  [[nodiscard]] std::string switch_sock(int i) const { return dir_ + "/sw" + std::to_string(i) + ".sock"; }
  // The backend's flags of the server or of a client.
  std::vector<std::string> backend(bool server) const {
    if (switched()) return {"--huge=off", "--vdev=net_memif0,role=client,socket=" + switch_sock(server ? 0 : 1)};
    if (memif())
      return {"--huge=off", "--vdev=net_memif0,role=" + std::string(server ? "server" : "client") +
                                ",socket=" + sock_};
    return {"--backend=uring", server ? "--ip=127.0.6.1" : "--ip=127.0.6.2", port_};
  }
  // A killed memif server (host or switch) leaves its socket files behind:
  // its successor (as a service manager would) removes them before listening.
  void start_switch(int run) {
    const std::string log = dir_ + "/switch-" + std::to_string(run) + ".log";
    last_switch_ = run;
    unlink(switch_sock(0).c_str());
    unlink(switch_sock(1).c_str());
    switch_ = spawn({NANOPU_SWITCH_BIN, "--lcores=" + lcore_, "--huge=off",
                     "--vdev=net_memif0,role=server,socket=" + switch_sock(0) +
                         ";net_memif1,role=server,socket=" + switch_sock(1),
                     "--routes=10.0.0.1=0,10.0.0.2=1", "--poll=adaptive"},
                    log);
    started_.push_back(switch_);
    ASSERT_GT(switch_, 0);
    ASSERT_TRUE(wait_for_line(log, "Ctrl-C stops", std::chrono::seconds(30))) << read_file(log);
  }
  void start_server(int run) {
    const std::string log = dir_ + "/server-" + std::to_string(run) + ".log";
    last_server_ = run;
    if (memif() && !switched()) unlink(sock_.c_str());
    std::vector<std::string> args = {NANOPU_SERVER_BIN, "--lcores=" + lcore_, "--app=echo", "--context=1",
                                     "--poll=adaptive"};
    for (const std::string& a : backend(true)) args.push_back(a);
    server_ = spawn(args, log);
    started_.push_back(server_);
    ASSERT_GT(server_, 0);
    ASSERT_TRUE(wait_for_line(log, "Ctrl-C stops", std::chrono::seconds(30))) << read_file(log);
  }
  // A client that runs until killed (or `count` requests, then exits).
  void start_client(int run, uint64_t count = 0) {
    const std::string log = dir_ + "/client-" + std::to_string(run) + ".log";
    last_client_ = run;
    std::vector<std::string> args = {NANOPU_LOADGEN_BIN, "--lcores=0", "--server_context=1", "--poll=adaptive",
                                     "--outstanding=4", "--size=200", "--calibrate=false", "--drain_timeout=10",
                                     "--json=" + dir_ + "/result.json"};
    for (const std::string& a : backend(false)) args.push_back(a);
    if (!memif()) args.push_back("--server_ip=127.0.6.1");
    args.push_back(count != 0 ? "--count=" + std::to_string(count) : "--duration=600");
    client_ = spawn(args, log);
    started_.push_back(client_);
    ASSERT_GT(client_, 0);
  }
  void kill9(pid_t* p, const std::string& what, int run) { nanopu::testing::kill9_alive(p, what, run); }

  // Whether a log has a progress line "received N" with N > 0 (searched by
  // hand: <regex> alone took most of this file's compile time).
  static bool shows_a_reply(const std::string& log) {
    for (size_t at = log.find("received "); at != std::string::npos; at = log.find("received ", at + 1)) {
      const char d = at + 9 < log.size() ? log[at + 9] : '0';
      if (d >= '1' && d <= '9') return true;
    }
    return false;
  }
  // Whether a running client's progress lines ("received N", once a second
  // after the first two) show a reply within `limit`.
  static bool served(const std::string& log, std::chrono::seconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (!shows_a_reply(read_file(log))) {
      if (std::chrono::steady_clock::now() > end) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
  }

  std::string dir_, port_, sock_, lcore_;
  pid_t server_ = -1, client_ = -1, switch_ = -1;
  int last_server_ = 0, last_client_ = 0, last_switch_ = 0;  // the runs that started the running ones
  std::vector<pid_t> started_;
};

TEST_P(ChurnTest, ProcessesKilledAndRestartedInTurnWithTrafficFlowing) {
  const int kChurnRestarts = nanopu::testing::churn_restarts();
  if (switched()) start_switch(0);
  start_server(0);
  start_client(0);
  // In turn: server, client (and switch).
  const int roles = switched() ? 3 : 2;
  for (int i = 1; i <= kChurnRestarts; ++i) {
    // Some traffic first: a few tens of ms (the last rounds longer: a client
    // whose server died probes it with backed-off timeouts, and the last
    // server must have served the churned clients, checked below).
    std::this_thread::sleep_for(std::chrono::milliseconds(i + roles >= kChurnRestarts ? 600 : 40));
    switch ((i - 1) % roles) {
      case 0:
        kill9(&server_, "server", i);
        start_server(i);
        break;
      case 1:
        // Traffic flows through the churn: each client is answered (through
        // the server and switch restarted since it started) before it goes.
        EXPECT_TRUE(wait_for_line(dir_ + "/client-" + std::to_string(last_client_) + ".log", "first reply",
                                  std::chrono::seconds(30)))
            << "client " << last_client_ << " never answered";
        kill9(&client_, "client", i);
        start_client(i);
        break;
      default:
        kill9(&switch_, "switch", i);
        start_switch(i);
        break;
    }
    if (HasFatalFailure()) return;
  }
  // The last churned client has been served by the last server (its
  // progress line shows a reply) before it goes: what is checked below,
  // that the last server served churned clients, then holds on any machine
  // rather than on how soon a client's backed-off probe finds a new server.
  // That client must have started after the last server, or its progress
  // lines can show the replies of the server before (the loop ends with a
  // server restart when the restarts' count, 9 under ASan, is odd over two
  // roles): then one more client.
  int run = kChurnRestarts;
  if (last_client_ < last_server_) {
    kill9(&client_, "client", ++run);
    start_client(run);
    if (HasFatalFailure()) return;
  }
  const std::string last_client_log = dir_ + "/client-" + std::to_string(last_client_) + ".log";
  EXPECT_TRUE(served(last_client_log, std::chrono::seconds(60)))
      << read_file(last_client_log);
  kill9(&client_, "client", ++run);
  // The last client to completion: every request answered once or reported.
  const int last_server = last_server_;
  start_client(run, 2000);
  const int rc = wait_for(client_, std::chrono::seconds(120));
  client_ = -1;
  const std::string json = read_file(dir_ + "/result.json");
  EXPECT_EQ(rc, 0) << read_file(dir_ + "/client-" + std::to_string(run) + ".log");
  EXPECT_EQ(json_number(json, "received"), 2000) << json;
  EXPECT_EQ(json_number(json, "duplicates"), 0) << json;
  EXPECT_EQ(json_number(json, "bad_replies"), 0) << json;
  kill(server_, SIGTERM);
  EXPECT_EQ(wait_for(server_, std::chrono::seconds(30)), 0) << "the last server stops cleanly";
  server_ = -1;
  if (switched()) {
    kill(switch_, SIGTERM);
    EXPECT_EQ(wait_for(switch_, std::chrono::seconds(30)), 0) << "the last switch stops cleanly";
    switch_ = -1;
    // The last client's 2000 requests and their replies went through it.
    const std::string swlog = read_file(dir_ + "/switch-" + std::to_string(last_switch_) + ".log");
    EXPECT_GE(log_counter(swlog, "switch.forwarded"), 4000) << swlog;
  }
  // It served the churned clients before the last one: traffic was flowing.
  const std::string slog = read_file(dir_ + "/server-" + std::to_string(last_server) + ".log");
  EXPECT_GT(log_counter(slog, "nic.rx_msgs_delivered"), 2000) << slog;
  // Nothing of theirs left on disk: DPDK's runtime directory of each
  // process, killed or not, is gone (runtime/platform/runtime_dir.h; as
  // root it is /run/dpdk/nanopu-<pid>).
  if (getuid() == 0) {
    for (pid_t p : started_)
      EXPECT_NE(access(("/var/run/dpdk/nanopu-" + std::to_string(p)).c_str(), F_OK), 0)
          << "DPDK runtime directory of process " << p << " left behind";
  }
  // No process died of anything but the SIGKILL it was sent (checked as
  // each was killed); none reported a crash or a sanitizer error either.
  for (int i = 0; i <= kChurnRestarts + 1; ++i)
    for (const char* who : {"server", "client", "switch"}) {
      const std::string log = read_file(dir_ + "/" + who + "-" + std::to_string(i) + ".log");
      EXPECT_EQ(log.find("SIGSEGV"), std::string::npos) << who << " " << i << "\n" << log;
      EXPECT_EQ(log.find("Sanitizer"), std::string::npos) << who << " " << i << "\n" << log;
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, ChurnTest, ::testing::Values("uring", "memif", "memif_switch"),
                         [](const ::testing::TestParamInfo<const char*>& p) { return std::string(p.param); });

}  // namespace
