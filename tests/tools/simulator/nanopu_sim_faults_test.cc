// nanopu-sim under faults as a user runs it: the fault-injecting wire, a
// cut link, servers killed and restarted, and the seeds nanopu-dst once
// failed on — every request answered, every run replayable.
#include <string>
#include <tuple>
#include <vector>

#include "tests/tools/simulator/nanopu_sim_fixture.h"

using namespace nanopu::testing::sim_cli;  // NOLINT: the fixture is this test's vocabulary

namespace {

// The fault-injecting wire on both hosts (drops, duplicates, reordering,
// trimming; seeded, on the modelled clock): every request is still
// answered exactly once, and the run replays frame for frame.
TEST_F(NanopuSimTest, AFaultyWireLosesNothingAndReplays) {
  const std::string faults = " --faults=drop=0.05,dup=0.02,reorder=0.05,trim=0.02,seed=";
  const std::string topo = write("faulty.topo",
                                 "host srv 10.0.0.1 02:00:00:00:00:01 server --app=echo" + faults + "3\n"
                                 "host cli 10.0.0.2 02:00:00:00:00:02 loadgen --size=3000 --outstanding=4 --count=2000" +
                                     faults + "4\n"
                                 "link srv cli\n");
  std::string out, again;
  ASSERT_EQ(sim({topo, "--sim_seed=5"}, &out), 0) << out;
  EXPECT_NE(out.find(all_answered("2000")), std::string::npos) << out;
  // Again with every host polled at every instant (--poll_every_host): a
  // host is otherwise polled only when something is due for it, and the
  // polls skipped must change nothing (model/network/sim_loop.h).
  ASSERT_EQ(sim({topo, "--sim_seed=5", "--poll_every_host"}, &again), 0) << again;
  EXPECT_TRUE(same_run(out, again));
}

// A partition that heals (--cut): the server's link is cut for 2 ms while a
// client's open loop runs; every frame meanwhile is lost, and the
// transport's retransmissions get every request answered once after it
// heals. A bad --cut is refused.
TEST_F(NanopuSimTest, ACutLinkLosesFramesAndTheTransportRecoversAfterItHeals) {
  const std::string topo = write("cut.topo",
                                 "host srv 10.0.0.1 02:00:00:00:00:01 server --app=echo\n"
                                 "host cli 10.0.0.2 02:00:00:00:00:02 loadgen --rate=100000 --count=1000 --outstanding=8\n"
                                 "link srv cli\n");
  std::string out, err;
  ASSERT_EQ(sim({topo, "--cut=srv@3+2"}, &out, &err), 0) << out << err;
  EXPECT_NE(out.find(all_answered("1000")), std::string::npos) << out;
  const size_t at = out.find(" frames lost on cut links");
  ASSERT_NE(at, std::string::npos) << out;
  EXPECT_GT(std::stoull(out.substr(out.rfind(' ', at - 1) + 1)), 0u) << out;
  EXPECT_GT(p99_us(out), 1000) << "requests sent into the cut wait for it to heal: " << out;
  EXPECT_EQ(sim({topo, "--cut=nohost@1+1"}, &out, &err), 2);
  EXPECT_NE(err.find("--cut: no host nohost"), std::string::npos) << err;
  EXPECT_EQ(sim({topo, "--cut=srv@1"}, &out, &err), 2);
  EXPECT_NE(err.find("is not HOST@FROM_MS+FOR_MS"), std::string::npos) << err;
}

// --crash: every Raft server killed at once mid-load and started again
// 20 ms later from its --raft_state file: a leader of a later term is
// elected and every request is answered once and right, the writes
// acknowledged before the crash read back from the files alone; without the
// files the same run reads stale values. One server (a minority) killed and
// restarted rejoins as well. A load generator cannot be crashed.
TEST_F(NanopuSimTest, RaftServersKilledAndRestartedFromTheirStateRejoin) {
  auto topology = [&](const std::string& name, bool state) {
    std::string hosts = "switch sw\n";
    const std::string cluster = " --raft_cluster=10.0.0.1:5,10.0.0.3:5,10.0.0.4:5";
    const char* ips[] = {"10.0.0.1", "10.0.0.3", "10.0.0.4"};
    for (int i = 0; i < 3; ++i) {
      const std::string file = dir_ + "/" + name + "-s" + std::to_string(i) + ".raft";
      unlink(file.c_str());
      hosts += "host s" + std::to_string(i) + " " + ips[i] + " 02:00:00:00:00:1" + std::to_string(i) +
               " server --app=raft --context=5 --raft_election_ms=20 --raft_heartbeat_ms=2" + cluster +
               (state ? " --raft_state=" + file : "") + "\n";
    }
    hosts += "host client 10.0.0.2 02:00:00:00:00:02 loadgen --service=raft" + cluster +
             " --raft_keys=64 --raft_retry_ms=5 --rate=10000 --count=800\n"
             "link s0 sw\nlink s1 sw\nlink s2 sw\nlink client sw\n";
    return write(name + ".topo", hosts);
  };
  const std::string clean = all_answered("800");
  std::string out, err;
  ASSERT_EQ(sim(idle_steps_under_asan({topology("all", true), "--crash=s0@40+20,s1@40+20,s2@40+20"}), &out, &err), 0)
      << out << err;
  EXPECT_NE(out.find(clean), std::string::npos) << out;
  EXPECT_NE(out.find("nanopu-sim: 3 crashes, 3 restarts"), std::string::npos) << out;
  std::set<std::string> terms;  // terms that had a leader: one before the crash, one after
  for (size_t at = 0; (at = err.find("is the leader of term ", at)) != std::string::npos; ++at)
    terms.insert(err.substr(at + 22, err.find('\n', at) - at - 22));
  EXPECT_GE(terms.size(), 2u) << err;
  EXPECT_EQ(sim(idle_steps_under_asan({topology("volatile", false), "--crash=s0@40+20,s1@40+20,s2@40+20"}), &out, &err),
            3) << out;
  EXPECT_EQ(out.find(clean), std::string::npos) << "without the files the restarted cluster forgot: " << out;
  ASSERT_EQ(sim(idle_steps_under_asan({topology("one", true), "--crash=s0@40+20"}), &out, &err), 0) << out << err;
  EXPECT_NE(out.find(clean), std::string::npos) << out;
  // Again on two threads: the crash and the restart fall between two
  // windows, at their times, and the run is the same frame for frame.
  std::string two;
  ASSERT_EQ(sim(idle_steps_under_asan({topology("one", true), "--crash=s0@40+20", "--sim_threads=2"}), &two, &err), 0)
      << two << err;
  EXPECT_TRUE(same_run(out, two));
  EXPECT_EQ(sim({topology("client", true), "--crash=client@1+1"}, &out, &err), 2);
  EXPECT_NE(err.find("--crash: client runs a client (program loadgen): crash it for good"), std::string::npos) << err;
}

// Chain replication with its master (apps/chain/chain_master.h): a
// replica killed mid-run and started again empty is taken out of the chain,
// joins again as the tail once its predecessor has sent it everything, and
// every client's history stays linearizable through it (the tail's read
// lease and the joiner's snapshot are what keep it so: docs/apps.md).
TEST_F(NanopuSimTest, AChainReplicaRestartedEmptyIsTakenOutAndJoinsAgain) {
  const std::string members = "--chain=10.0.0.1:5,10.0.0.2:5,10.0.0.3:5";
  std::string hosts = "switch sw\n";
  for (int i = 0; i < 3; ++i)
    hosts += "host s" + std::to_string(i) + " 10.0.0." + std::to_string(i + 1) + " 02:00:00:00:00:1" +
             std::to_string(i) + " server --app=chain --context=5 --chain_master=10.0.0.4:5\n";
  hosts += "host master 10.0.0.4 02:00:00:00:00:13 server --app=chain-master --context=5 " + members + "\n";
  for (int j = 0; j < 2; ++j)
    hosts += "host c" + std::to_string(j) + " 10.0.0.10" + std::to_string(j) + " 02:00:00:00:00:2" + std::to_string(j) +
             " loadgen --service=chain --context=7 " + members +
             " --chain_keys=8 --chain_retry_ms=5 --chain_preload=false --shared_keys --writer_id=" +
             std::to_string(j + 1) + " --rate=20000 --count=600 --outstanding=2 --max_in_flight=2\n";
  hosts += "link s0 sw\nlink s1 sw\nlink s2 sw\nlink master sw\nlink c0 sw\nlink c1 sw\n";
  const std::string topo = write("chain-master.topo", hosts);
  std::string out, err;
  // Exit 3, not 0, when requests were refused while the chain changed
  // (given up: a fail in the history) or went unanswered (lost: info):
  // by design. 1 would be a history that is not linearizable.
  const int rc = sim({topo, "--crash=s1@8+4", "--check=register", "--history=" + dir_ + "/chain.jsonl"}, &out, &err);
  ASSERT_TRUE(rc == 0 || rc == 3) << rc << out << err;
  EXPECT_NE(err.find("chain-master: epoch 2, a replica removed: 10.0.0.1:5,10.0.0.3:5"), std::string::npos) << err;
  EXPECT_NE(err.find("a replica joining: 10.0.0.1:5,10.0.0.3:5,10.0.0.2:5 (the tail joining)"), std::string::npos) << err;
  EXPECT_NE(err.find("a replica joined: 10.0.0.1:5,10.0.0.3:5,10.0.0.2:5"), std::string::npos) << err;
  EXPECT_NE(out.find("linearizable"), std::string::npos) << out;
  EXPECT_NE(out.find("bad 0"), std::string::npos) << out;
}

// Seeds nanopu-dst failed on, kept as they failed (tools/simulator/dst.h): a kv
// client with three requests in flight under drops, duplicates and
// reordering (two SETs of one key could be applied in either order, and
// the client's reference took the last acknowledged for the value held);
// and a Raft client whose request went to a leader cut off by a partition
// (its resend waited for the 10 s drain timeout instead of --raft_retry_ms).
TEST_F(NanopuSimTest, SeedsNanopuDstFailedOnPass) {
  const std::string kv = write("kv9.topo",
      "switch sw\n"
      "host s0 10.0.0.1 02:00:00:00:00:10 server --app=kv --context=5 --transport=ndp "
      "--faults=drop=0.028,dup=0.014,reorder=0.039,trim=0.017,seed=279\n"
      "host client 10.0.0.2 02:00:00:00:00:11 loadgen --service=kv --server_context=5 --kv_keys=64 "
      "--count=364 --outstanding=3 --drain_timeout=10\n"
      "link s0 sw\nlink client sw\n");
  const std::string cluster = "--raft_cluster=10.0.0.1:5,10.0.0.3:5,10.0.0.4:5";
  const std::string server = " server --app=raft --raft_election_ms=20 --raft_heartbeat_ms=2 --context=5 " + cluster;
  const std::string raft = write("raft289.topo",
      "switch sw\n"
      "host s0 10.0.0.1 02:00:00:00:00:10" + server + "\n"
      "host s1 10.0.0.3 02:00:00:00:00:11" + server + "\n"
      "host s2 10.0.0.4 02:00:00:00:00:12" + server + " --faults=drop=0.022,dup=0.002,reorder=0.030,trim=0.016,seed=8961\n"
      "host client 10.0.0.2 02:00:00:00:00:13 loadgen --service=raft " + cluster +
      " --raft_keys=64 --raft_retry_ms=5 --faults=drop=0.013,dup=0.018,reorder=0.013,trim=0.008,seed=8962"
      " --count=222 --outstanding=1 --drain_timeout=10\n"
      "link s0 sw\nlink s1 sw\nlink s2 sw\nlink client sw\n");
  for (const auto& [topo, seed, cut] : {std::tuple<std::string, std::string, std::string>{kv, "1", ""},
                                        {kv, "4", ""}, {raft, "289", "--cut=s2@24.532+34.781"}}) {
    std::vector<std::string> args = {topo, "--sim_seed=" + seed};
    if (!cut.empty()) args.push_back(cut);
    std::string out, err;
    EXPECT_EQ(sim(args, &out, &err), 0) << topo << " seed " << seed << "\n" << out << err;
    EXPECT_NE(out.find("lost 0  given-up 0  bad 0  duplicated 0"), std::string::npos) << out;
  }
}

}  // namespace
