// A Raft cluster as separate processes: three (and five) nanopu-server
// --app=raft and nanopu-loadgen --service=raft on nanopu-switch, each in its
// own network namespace on net_af_packet over a veth pair (the kernel's
// link, and its carrier, between killed and restarted peers; memif churn
// is tests/e2e/churn_test.cc). The
// leader's process is killed with SIGKILL mid-run: a new
// leader is elected, the client finds it, every request is answered and
// checked (a GET sees every PUT acknowledged before it, across the
// change), and no term has two leaders (from the servers' logs).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/scratch_dir.h"
#include "tests/support/netns.h"
#include "tests/support/subprocess.h"
#include "nanopu_test_paths.h"  // generated: the programs' paths (tests/CMakeLists.txt)

using nanopu::testing::json_number;
using nanopu::testing::kFloat;
using nanopu::testing::Netns;
using nanopu::testing::netns_unavailable;
using nanopu::testing::read_file;
using nanopu::testing::spawn;
using nanopu::testing::veth;
using nanopu::testing::wait_for;
using nanopu::testing::wait_for_line;

namespace {

class RaftClusterTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "nanopu-raft-" + std::to_string(getpid()) + "-" +
           std::to_string(GetParam());
    mkdir(dir_.c_str(), 0755);
    lcore_ = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? "1" : "0";
    if (const std::string why = netns_unavailable(); !why.empty()) GTEST_SKIP() << why;
    // The switch's port i joins server i (its p0); port n joins the client.
    const std::string tag = "npr" + std::to_string(getpid()) + "-";
    switch_ns_ = std::make_unique<Netns>(tag + "sw");
    ASSERT_TRUE(switch_ns_->ok()) << "cannot make network namespaces (ip netns add) as root";
    for (int i = 0; i <= GetParam(); ++i) {
      hosts_ns_.push_back(std::make_unique<Netns>(tag + std::to_string(i)));
      ASSERT_TRUE(hosts_ns_.back()->ok());
      ASSERT_TRUE(veth(*switch_ns_, "p" + std::to_string(i), *hosts_ns_.back(), "p0"));
    }
  }
  void TearDown() override {
    for (pid_t p : servers_)
      if (p > 0) {
        kill(p, SIGKILL);
        waitpid(p, nullptr, 0);
      }
    if (switch_ > 0) {
      kill(switch_, SIGKILL);
      waitpid(switch_, nullptr, 0);
    }
    hosts_ns_.clear();
    switch_ns_.reset();
    nanopu::testing::remove_if_passed(dir_);
  }
  // Whether pid has ended, without reaping it (wait_for still reads its status).
  static bool exited(pid_t pid) {
    siginfo_t info{};
    return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
  }
  // What a failure needs to be understood: every server's Raft lines (who
  // stood, who led, which term) and the end of a client's log (a dead
  // peer's give-ups can fill its start).
  std::string story(const std::string& client_log) const {
    std::string out;
    for (size_t i = 0; i < servers_.size(); ++i) {
      std::istringstream in(read_file(log(static_cast<int>(i))));
      for (std::string line; std::getline(in, line);)
        if (line.find("raft") != std::string::npos) out += "server" + std::to_string(i) + ": " + line + "\n";
    }
    const std::string c = read_file(client_log);
    return out + "client log (end):\n" + c.substr(c.size() > 4000 ? c.size() - 4000 : 0);
  }
  std::string ip(int i) const { return "10.0.0." + std::to_string(10 + i); }  // servers; client .2
  std::string log(int i) const { return dir_ + "/server" + std::to_string(i) + ".log"; }
  // The index of the server that last said it leads (by the highest term).
  int leader() const {
    int best = -1;
    unsigned long long best_term = 0;
    for (int i = 0; i < static_cast<int>(servers_.size()); ++i) {
      if (servers_[i] <= 0) continue;
      std::istringstream in(read_file(log(i)));
      for (std::string line; std::getline(in, line);) {
        const size_t at = line.find("is the leader of term ");
        if (at == std::string::npos) continue;
        const unsigned long long term = std::stoull(line.substr(at + 22));
        if (term >= best_term) {
          best_term = term;
          best = i;
        }
      }
    }
    return best;
  }

  std::string dir_, lcore_;
  std::unique_ptr<Netns> switch_ns_;
  std::vector<std::unique_ptr<Netns>> hosts_ns_;  // servers 0..n-1, then the client
  std::vector<pid_t> servers_;
  pid_t switch_ = -1;
};

// Seven processes (switch, up to five servers, a client) share two CPUs
// here: the kernel's scheduling period, tens of ms, is then part of a round
// trip. The hosts run with the default timeouts: each peer's timeout follows
// its measured round trip up to --rto_max_ms, a silent peer gets one probe
// per timeout (not every message's packets), and a message is given up only
// after --peer_dead_ms of its peer's silence (docs/wire.md, "Slow and silent
// peers"). Before that, a 50 us timeout backing off to 3.2 ms resent every
// message up to 200 times here and once fed on itself (16.7 M frames through
// the switch instead of ~0.1 M, hosts giving up on live peers); the test
// needed --rto_us=500.

TEST_P(RaftClusterTest, AKilledLeaderIsReplacedAndEveryAcknowledgedWriteIsSeen) {
  const int n = GetParam();
  std::string vdevs, routes, cluster;
  for (int i = 0; i <= n; ++i) {  // port n: the client
    vdevs += (i ? ";" : "") + std::string("net_af_packet") + std::to_string(i) + ",iface=p" + std::to_string(i);
    routes += (i ? "," : "") + (i < n ? ip(i) : std::string("10.0.0.2")) + "=" + std::to_string(i);
    if (i < n) cluster += (i ? "," : "") + ip(i) + ":5";
  }
  switch_ = spawn(switch_ns_->exec({NANOPU_SWITCH_BIN, "--lcores=" + lcore_, kFloat, "--huge=off",
                                    "--vdev=" + vdevs, "--routes=" + routes, "--poll=adaptive"}),
                  dir_ + "/switch.log");
  ASSERT_GT(switch_, 0);
  ASSERT_TRUE(wait_for_line(dir_ + "/switch.log", "Ctrl-C stops", std::chrono::seconds(60)))
      << read_file(dir_ + "/switch.log");
  for (int i = 0; i < n; ++i) {
    servers_.push_back(spawn(
        hosts_ns_[i]->exec({NANOPU_SERVER_BIN, "--lcores=" + lcore_, kFloat, "--huge=off",
                            "--poll=adaptive", "--vdev=net_af_packet0,iface=p0", "--ip=" + ip(i),
                            "--app=raft", "--context=5", "--raft_cluster=" + cluster}),
        log(i)));
    ASSERT_GT(servers_.back(), 0);
    ASSERT_TRUE(wait_for_line(log(i), "Ctrl-C stops", std::chrono::seconds(60))) << read_file(log(i));
  }
  // A leader, before the client starts (a busy machine may take a while).
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (leader() < 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_GE(leader(), 0) << "no leader elected in 60 s";
  // 1200 writes and reads, paced at 250 a second (about five seconds in any
  // build: a sanitizer build beside a CPU hog answers about that many with
  // two in flight), the leader killed two seconds into the measured run
  // (the client's first progress line: after the keys are preloaded, so
  // the change of leader lands among measured requests).
  const pid_t c =
      spawn(hosts_ns_[n]->exec(
                {NANOPU_LOADGEN_BIN, "--lcores=0", kFloat, "--huge=off", "--poll=adaptive",
                 "--vdev=net_af_packet0,iface=p0", "--service=raft", "--raft_cluster=" + cluster,
                 "--raft_keys=100", "--count=1200", "--rate=250", "--outstanding=2",
                 "--drain_timeout=30", "--progress=true", "--json=" + dir_ + "/raft.json"}),
            dir_ + "/loadgen.log");
  ASSERT_GT(c, 0);
  const auto kill_by = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < kill_by && !exited(c) &&
         read_file(dir_ + "/loadgen.log").find("] sent ") == std::string::npos)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  // The leader as of now: a busy machine may have held another election
  // while the client started.
  const int first = leader();
  ASSERT_GE(first, 0);
  kill(servers_[first], SIGKILL);
  waitpid(servers_[first], nullptr, 0);
  servers_[first] = -1;
  EXPECT_EQ(wait_for(c, std::chrono::seconds(300)), 0) << story(dir_ + "/loadgen.log");
  const std::string json = read_file(dir_ + "/raft.json");
  EXPECT_EQ(json_number(json, "received"), 1200) << json << story(dir_ + "/loadgen.log");
  // The kill landed among measured requests: some went to the dead leader
  // and had to be sent again.
  EXPECT_GT(json_number(json, "resent"), 0) << json;
  EXPECT_EQ(json_number(json, "bad_replies"), 0) << json;
  EXPECT_GT(json_number(json, "puts"), 0) << json;
  const int second = leader();
  EXPECT_GE(second, 0);
  EXPECT_NE(second, first) << "the killed leader was not replaced";
  // A second client process with the same address and context: its
  // requests are new to the servers (not replays of the first's), and its
  // GETs see only what it wrote (it writes every key first).
  const pid_t c2 =
      spawn(hosts_ns_[n]->exec({NANOPU_LOADGEN_BIN, "--lcores=0", kFloat, "--huge=off",
                                "--poll=adaptive", "--vdev=net_af_packet0,iface=p0",
                                "--service=raft", "--raft_cluster=" + cluster, "--raft_keys=100",
                                "--count=300", "--outstanding=2", "--drain_timeout=30",
                                "--progress=false", "--json=" + dir_ + "/raft2.json"}),
            dir_ + "/loadgen2.log");
  ASSERT_GT(c2, 0);
  EXPECT_EQ(wait_for(c2, std::chrono::seconds(300)), 0) << story(dir_ + "/loadgen2.log");
  const std::string json2 = read_file(dir_ + "/raft2.json");
  EXPECT_EQ(json_number(json2, "received"), 300) << json2;
  EXPECT_EQ(json_number(json2, "bad_replies"), 0) << json2;
  // No term has two leaders: every server's log, the killed one's too.
  std::map<unsigned long long, std::set<int>> leaders_of;
  for (int i = 0; i < n; ++i) {
    std::istringstream in(read_file(log(i)));
    for (std::string line; std::getline(in, line);)
      if (const size_t at = line.find("is the leader of term "); at != std::string::npos)
        leaders_of[std::stoull(line.substr(at + 22))].insert(i);
  }
  for (const auto& [term, who] : leaders_of) EXPECT_EQ(who.size(), 1u) << "term " << term;
  for (int i = 0; i < n; ++i) {
    if (servers_[i] <= 0) continue;
    kill(servers_[i], SIGTERM);
    EXPECT_EQ(wait_for(servers_[i], std::chrono::seconds(30)), 0) << read_file(log(i));
    servers_[i] = -1;
  }
  kill(switch_, SIGTERM);
  EXPECT_EQ(wait_for(switch_, std::chrono::seconds(30)), 0);
  switch_ = -1;
}

INSTANTIATE_TEST_SUITE_P(ThreeAndFiveServers, RaftClusterTest, ::testing::Values(3, 5));

}  // namespace
