// Churn: processes that come and go with traffic flowing. A server and its
// clients are killed with SIGKILL and started again, in turn, 50 times per
// backend; no process may die except those killed, the last client's every
// request is answered once or reported, and the server that runs at the end
// stops cleanly. Two backends:
// - io_uring (kernel UDP sockets: nothing shared between the processes that
//   a killed one could leave half torn down);
// - net_memif (shared memory: DPDK's interrupt thread unmaps a dead peer's
//   rings while the survivor may be polling them; nanopu fences the unmap,
//   nic/link/burst_fence.h). The server is role=server, so a killed server's
//   client reconnects by itself to its successor.
// deploy/churn.sh runs the same for as many restarts as asked (its result:
// the closing note of issue 36).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/sanitizers.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/subprocess.h"

using nanopu::testing::json_number;
using nanopu::testing::log_counter;
using nanopu::testing::read_file;
using nanopu::testing::spawn;
using nanopu::testing::wait_for;
using nanopu::testing::wait_for_line;

namespace {

// In the test command 50 per backend (20 under AddressSanitizer, whose
// programs start several times slower: the same kill and restart paths);
// deploy/churn.sh sets NANOPU_CHURN_RESTARTS for more.
int restarts() {
  const char* n = std::getenv("NANOPU_CHURN_RESTARTS");
  if (n != nullptr && std::atoi(n) > 0) return std::atoi(n);
  return nanopu::testing::kUnderAddressSanitizer ? 20 : 50;
}

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
    for (pid_t p : {server_, client_})
      if (p > 0) {
        kill(p, SIGKILL);
        waitpid(p, nullptr, 0);
      }
    nanopu::testing::remove_if_passed(dir_);
  }
  [[nodiscard]] bool memif() const { return std::string(GetParam()) == "memif"; }
  // The backend's flags of the server or of a client.
  std::vector<std::string> backend(bool server) const {
    if (memif())
      return {"--huge=off", "--vdev=net_memif0,role=" + std::string(server ? "server" : "client") +
                                ",socket=" + sock_};
    return {"--backend=uring", server ? "--ip=127.0.6.1" : "--ip=127.0.6.2", port_};
  }
  void start_server(int run) {
    const std::string log = dir_ + "/server-" + std::to_string(run) + ".log";
    // A killed memif server leaves its socket file behind: its successor
    // (as a service manager would) removes it before listening.
    if (memif()) unlink(sock_.c_str());
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
  // SIGKILL, and it must have been alive until then (not died on its own).
  void kill9(pid_t* p, const std::string& what, int run) {
    int status = 0;
    ASSERT_EQ(waitpid(*p, &status, WNOHANG), 0) << what << " " << run << " died on its own";
    kill(*p, SIGKILL);
    ASSERT_EQ(waitpid(*p, &status, 0), *p);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << what << " " << run;
    *p = -1;
  }

  // Whether a running client's progress lines ("received N", once a second)
  // show a reply within `limit`.
  static bool served(const std::string& log, std::chrono::seconds limit) {
    const std::regex replied("received [1-9]");
    const auto end = std::chrono::steady_clock::now() + limit;
    while (!std::regex_search(read_file(log), replied)) {
      if (std::chrono::steady_clock::now() > end) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return true;
  }

  std::string dir_, port_, sock_, lcore_;
  pid_t server_ = -1, client_ = -1;
  std::vector<pid_t> started_;
};

TEST_P(ChurnTest, ServersAndClientsKilledAndRestartedInTurnWithTrafficFlowing) {
  const int kChurnRestarts = restarts();
  start_server(0);
  start_client(0);
  for (int i = 1; i <= kChurnRestarts; ++i) {
    // Some traffic first: a few tens of ms (the last rounds longer: a client
    // whose server died probes it with backed-off timeouts, and the last
    // server must have served the churned clients, checked below).
    std::this_thread::sleep_for(std::chrono::milliseconds(i + 2 >= kChurnRestarts ? 600 : 40));
    if (i % 2 == 1) {
      kill9(&server_, "server", i);
      start_server(i);
    } else {
      kill9(&client_, "client", i);
      start_client(i);
    }
    if (HasFatalFailure()) return;
  }
  // The last churned client has been served by the last server (its
  // progress line shows a reply) before it goes: what is checked below,
  // that the last server served churned clients, then holds on any machine
  // rather than on how soon a client's backed-off probe finds a new server.
  const int last_client = kChurnRestarts % 2 == 0 ? kChurnRestarts : kChurnRestarts - 1;
  const std::string last_client_log = dir_ + "/client-" + std::to_string(last_client) + ".log";
  EXPECT_TRUE(served(last_client_log, std::chrono::seconds(60))) << read_file(last_client_log);
  kill9(&client_, "client", kChurnRestarts + 1);
  // The last client to completion: every request answered once or reported.
  start_client(kChurnRestarts + 1, 2000);
  const int rc = wait_for(client_, std::chrono::seconds(120));
  client_ = -1;
  const std::string json = read_file(dir_ + "/result.json");
  EXPECT_EQ(rc, 0) << read_file(dir_ + "/client-" + std::to_string(kChurnRestarts + 1) + ".log");
  EXPECT_EQ(json_number(json, "received"), 2000) << json;
  EXPECT_EQ(json_number(json, "duplicates"), 0) << json;
  EXPECT_EQ(json_number(json, "bad_replies"), 0) << json;
  kill(server_, SIGTERM);
  EXPECT_EQ(wait_for(server_, std::chrono::seconds(30)), 0) << "the last server stops cleanly";
  server_ = -1;
  // It served the churned clients before the last one: traffic was flowing.
  const int last_server = kChurnRestarts % 2 == 1 ? kChurnRestarts : kChurnRestarts - 1;
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
    for (const char* who : {"server", "client"}) {
      const std::string log = read_file(dir_ + "/" + who + "-" + std::to_string(i) + ".log");
      EXPECT_EQ(log.find("SIGSEGV"), std::string::npos) << who << " " << i << "\n" << log;
      EXPECT_EQ(log.find("Sanitizer"), std::string::npos) << who << " " << i << "\n" << log;
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, ChurnTest, ::testing::Values("uring", "memif"),
                         [](const ::testing::TestParamInfo<const char*>& p) { return std::string(p.param); });

}  // namespace
