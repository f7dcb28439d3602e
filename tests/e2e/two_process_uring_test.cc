// Two processes on the io_uring backend (--backend=uring), as a user runs
// them: nanopu-server and nanopu-loadgen on kernel UDP sockets, over the
// loopback interface and over a veth pair between two network namespaces.
// No DPDK device, no hugepage. The load generator checks every reply word by
// word and exits 0 only if all arrived intact.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/scratch_dir.h"
#include "tests/support/netns.h"
#include "tests/support/subprocess.h"
#include "nanopu_test_paths.h"  // generated: the programs' paths (tests/CMakeLists.txt)

using nanopu::testing::Netns;
using nanopu::testing::netns_unavailable;
using nanopu::testing::read_file;
using nanopu::testing::spawn;
using nanopu::testing::wait_for;
using nanopu::testing::wait_for_line;

namespace {

class TwoProcessUringTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "nanopu-uring-" + std::to_string(getpid());
    mkdir(dir_.c_str(), 0755);
    port_ = "--udp_port=" + std::to_string(30000 + getpid() % 20000);
    server_lcore_ = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? "1" : "0";
  }
  void TearDown() override {
    if (server_ > 0) {
      kill(server_, SIGKILL);
      waitpid(server_, nullptr, 0);
    }
    nanopu::testing::remove_if_passed(dir_);
  }
  // Adaptive polling: test processes share the machine's CPUs.
  void start_server(const std::vector<std::string>& prefix, const std::string& ip,
                    const std::string& app = "echo", const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = prefix;
    for (const std::string& a :
         {std::string(NANOPU_SERVER_BIN), "--lcores=" + server_lcore_, std::string("--backend=uring"),
          "--ip=" + ip, port_, "--app=" + app, std::string("--context=1"), std::string("--poll=adaptive")})
      args.push_back(a);
    args.insert(args.end(), extra.begin(), extra.end());
    server_ = spawn(args, dir_ + "/server.log");
    ASSERT_GT(server_, 0);
    ASSERT_TRUE(wait_for_line(dir_ + "/server.log", "Ctrl-C stops", std::chrono::seconds(60)))
        << read_file(dir_ + "/server.log");
  }
  int run_loadgen(const std::vector<std::string>& prefix, const std::string& ip,
                  const std::string& server_ip, const std::vector<std::string>& extra) {
    std::vector<std::string> args = prefix;
    for (const std::string& a :
         {std::string(NANOPU_LOADGEN_BIN), std::string("--lcores=0"), std::string("--backend=uring"),
          "--ip=" + ip, port_, "--server_ip=" + server_ip, std::string("--server_context=1"),
          std::string("--progress=false"), std::string("--poll=adaptive"), "--json=" + dir_ + "/result.json",
          // A 64 KB request's last reply took 1.7 s once with ten processes
          // on the two CPUs: past the default 1 s drain, 4 of 2000 counted
          // lost. A test's extra flags still override it.
          std::string("--drain_timeout=10")})
      args.push_back(a);
    args.insert(args.end(), extra.begin(), extra.end());
    pid_t c = spawn(args, dir_ + "/loadgen.log");
    if (c <= 0) return -2;
    return wait_for(c, std::chrono::seconds(120));
  }
  int stop_server() {
    kill(server_, SIGTERM);
    const int rc = wait_for(server_, std::chrono::seconds(30));
    server_ = -1;
    return rc;
  }

  std::string dir_, port_, server_lcore_;
  pid_t server_ = -1;
};

TEST_F(TwoProcessUringTest, EchoOverLoopbackOfSmallAndLargestMessages) {
  start_server({}, "127.0.2.1");
  // The largest size 500 times (45 packets a message each way): at 2,000 it
  // was three quarters of the test's time under ASan.
  for (const auto& [size, count] : {std::pair{"16", "2000"}, {"64", "2000"}, {"1025", "2000"}, {"65535", "500"}}) {
    EXPECT_EQ(run_loadgen({}, "127.0.2.2", "127.0.2.1",
                          {std::string("--count=") + count, std::string("--size=") + size, "--outstanding=4",
                           "--expect=echo"}),
              0)
        << size << ": " << read_file(dir_ + "/loadgen.log");
  }
  EXPECT_EQ(stop_server(), 0) << read_file(dir_ + "/server.log");
  const std::string log = read_file(dir_ + "/server.log");
  EXPECT_NE(log.find("uring udp 127.0.2.1"), std::string::npos) << log;
  EXPECT_EQ(log.find("hugepages"), std::string::npos) << "the uring backend touched hugepages: " << log;
}

TEST_F(TwoProcessUringTest, ExactlyOnceUnderTheFaultInjectingWire) {
  start_server({}, "127.0.2.1");
  EXPECT_EQ(run_loadgen({}, "127.0.2.2", "127.0.2.1",
                        // A request whose packets keep being dropped retries for
                        // as long as its peer answers anything: on a loaded
                        // machine (round trips of milliseconds, timeouts that
                        // follow them) that took 1.5 s once, past the default
                        // 1 s drain (8 counted lost, none duplicated or wrong):
                        // 30 s here.
                        {"--count=20000", "--size=3000", "--outstanding=8", "--expect=echo", "--drain_timeout=30",
                         "--faults=drop=0.1,reorder=0.1,dup=0.05,trim=0.05"}),
            0)
      << read_file(dir_ + "/loadgen.log");
}

TEST_F(TwoProcessUringTest, EchoOverAVethPairBetweenNamespaces) {
  if (const std::string why = netns_unavailable(); !why.empty()) GTEST_SKIP() << why;
  const std::string tag = "npu" + std::to_string(getpid() % 100000);
  Netns srv(tag + "s"), cli(tag + "c");
  ASSERT_TRUE(srv.ok() && cli.ok());
  ASSERT_TRUE(nanopu::testing::veth(srv, "u0", cli, "u0"));
  ASSERT_TRUE(nanopu::testing::run_ip("-n " + srv.name() + " addr add 10.77.0.1/24 dev u0"));
  ASSERT_TRUE(nanopu::testing::run_ip("-n " + cli.name() + " addr add 10.77.0.2/24 dev u0"));
  start_server(srv.exec({}), "10.77.0.1");
  for (const char* size : {"100", "65535"}) {
    EXPECT_EQ(run_loadgen(cli.exec({}), "10.77.0.2", "10.77.0.1",
                          {"--count=1000", std::string("--size=") + size, "--outstanding=4", "--expect=echo"}),
              0)
        << size << ": " << read_file(dir_ + "/loadgen.log");
  }
  EXPECT_EQ(stop_server(), 0) << read_file(dir_ + "/server.log");
}

// The user the backend is for: no root, no hugepages, no DPDK device. Both
// processes run as `nobody` (setpriv drops root's uid, gid and groups).
TEST_F(TwoProcessUringTest, RunsAsAnUnprivilegedUser) {
  if (geteuid() != 0) GTEST_SKIP() << "not root: every test here already runs unprivileged";
  if (access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "no setpriv (util-linux)";
  // The unprivileged load generator writes its JSON here: a fresh file in a
  // directory it may write (an earlier test's file is root's).
  chmod(dir_.c_str(), 0777);
  unlink((dir_ + "/result.json").c_str());
  const std::vector<std::string> nobody = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
  start_server(nobody, "127.0.2.1");
  EXPECT_EQ(run_loadgen(nobody, "127.0.2.2", "127.0.2.1",
                        {"--count=2000", "--size=3000", "--outstanding=4", "--expect=echo"}),
            0)
      << read_file(dir_ + "/loadgen.log");
  EXPECT_EQ(stop_server(), 0) << read_file(dir_ + "/server.log");
}

// The CPUs the server's NIC core (its main thread) may run on, as the kernel says.
std::string cpus_allowed(pid_t pid) {
  const std::string status = read_file("/proc/" + std::to_string(pid) + "/status");
  const size_t at = status.find("Cpus_allowed_list:");
  if (at == std::string::npos) return "?";
  const size_t from = status.find_first_not_of(" \t", at + 18);
  return status.substr(from, status.find('\n', from) - from);
}

// By default the NIC core is pinned to its lcore's CPU, as DPDK does;
// --pin=off leaves it free to run on every online CPU (where busy
// processes outnumber CPUs, a pinned one can wait seconds behind a neighbour).
TEST_F(TwoProcessUringTest, PinOffLetsTheNicCoreRunOnEveryCpu) {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  start_server({}, "127.0.2.1");
  EXPECT_EQ(cpus_allowed(server_), server_lcore_);
  EXPECT_EQ(stop_server(), 0) << read_file(dir_ + "/server.log");
  start_server({}, "127.0.2.1", "echo", {"--pin=off"});
  EXPECT_EQ(cpus_allowed(server_), cpus > 1 ? "0-" + std::to_string(cpus - 1) : "0");
  EXPECT_EQ(stop_server(), 0) << read_file(dir_ + "/server.log");
}

TEST_F(TwoProcessUringTest, APortInUseFailsAtStartWithOneClearLine) {
  start_server({}, "127.0.2.1");
  pid_t second = spawn({NANOPU_SERVER_BIN, "--lcores=0", "--backend=uring", "--ip=127.0.2.1", port_,
                        "--app=echo", "--context=1"},
                       dir_ + "/second.log");
  EXPECT_NE(wait_for(second, std::chrono::seconds(30)), 0);
  EXPECT_NE(read_file(dir_ + "/second.log").find("already in use"), std::string::npos)
      << read_file(dir_ + "/second.log");
}

}  // namespace
