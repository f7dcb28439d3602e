// nanopu-dst's parts that need no run: a seed's case is always the same
// case (its replay command means something), seeds differ, and Raft's
// invariant reads the servers' log lines as they print them.
#include "tools/simulator/dst.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>

#include "absl/strings/str_split.h"

namespace nanopu::sim {
namespace {

TEST(DstCaseTest, ASeedAlwaysDrawsTheSameCaseAndSeedsDiffer) {
  for (DstService s : {DstService::kRaft, DstService::kChain, DstService::kKv}) {
    const DstCase a = make_dst_case(s, 42), b = make_dst_case(s, 42), c = make_dst_case(s, 43);
    EXPECT_EQ(a.topology, b.topology);
    EXPECT_EQ(a.faults, b.faults);
    ASSERT_EQ(a.cuts.size(), b.cuts.size());
    EXPECT_NE(a.topology + a.faults, c.topology + c.faults) << dst_service_name(s);
    EXPECT_TRUE(parse_topology("<case>", a.topology).ok()) << a.topology;
  }
}

// Issue 71: seeds are independent by construction (stream_seed and the
// mixed SeededDraw state), so no two of 10,000 seeds' cases share a cut, a
// crash or a wire's fault setting (values drawn from 53 random bits each).
// Before, seed n + 1's draws were seed n's shifted by three: 35 of 599
// neighbouring pairs drew an identical cut or crash.
TEST(DstCaseTest, TenThousandSeedsShareNoCutCrashOrWireSetting) {
  for (DstService s : {DstService::kRaft, DstService::kChain, DstService::kKv}) {
    std::set<std::tuple<std::string, uint64_t, uint64_t>> cuts, crashes;
    std::set<std::string> wires;
    size_t n_cuts = 0, n_crashes = 0, n_wires = 0;
    for (uint64_t seed = 1; seed <= 10000; ++seed) {
      const DstCase c = make_dst_case(s, seed);
      for (const SimCut& k : c.cuts) cuts.insert({k.host, k.from_ps, k.until_ps});
      for (const SimCrash& k : c.crashes) crashes.insert({k.host, k.at_ps, k.restart_ps});
      n_cuts += c.cuts.size();
      n_crashes += c.crashes.size();
      // "c0 drop=0.012345,dup=...,seed=N; ": the setting, less its host and wire seed.
      for (absl::string_view f : absl::StrSplit(c.faults, "; ", absl::SkipEmpty())) {
        const size_t at = f.find("drop=");
        if (at == absl::string_view::npos) continue;
        ++n_wires;
        wires.insert(std::string(f.substr(at, f.find(",seed=") - at)));
      }
    }
    EXPECT_GT(n_cuts, 5000u) << dst_service_name(s);
    EXPECT_GT(n_wires, 10000u) << dst_service_name(s);
    EXPECT_EQ(cuts.size(), n_cuts) << dst_service_name(s) << ": two seeds drew the same cut";
    EXPECT_EQ(crashes.size(), n_crashes) << dst_service_name(s) << ": two seeds drew the same crash";
    EXPECT_EQ(wires.size(), n_wires) << dst_service_name(s) << ": two wires drew the same faults";
  }
}

TEST(DstCaseTest, SeedsCoverBothTransportsCutsAndFaultyWires) {
  int homa = 0, cut = 0, faulty = 0, crash = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const DstCase c = make_dst_case(DstService::kRaft, seed);
    homa += c.topology.find("--transport=homa") != std::string::npos;
    cut += !c.cuts.empty();
    faulty += c.topology.find("--faults=") != std::string::npos;
    crash += !c.crashes.empty();
    EXPECT_EQ(c.state_files.size(), 3u);  // every Raft server keeps its state
    for (const SimCrash& k : c.crashes)
      if (k.restart_ps != 0) {
        EXPECT_LT(k.at_ps, k.restart_ps);  // 0: a client killed for good
      }
    for (const SimCut& k : c.cuts) EXPECT_LT(k.from_ps, k.until_ps);
  }
  EXPECT_GT(homa, 10);
  EXPECT_LT(homa, 50);
  EXPECT_GT(cut, 20);
  EXPECT_GT(faulty, 40);
  EXPECT_GT(crash, 15);
  // The kv store keeps nothing on disk: only its clients are killed.
  for (uint64_t seed = 1; seed <= 20; ++seed)
    for (const SimCrash& k : make_dst_case(DstService::kKv, seed).crashes) EXPECT_EQ(k.host[0], 'c') << k.host;
}

TEST(DstCaseTest, AChainHasAMasterAndAReplicaRestartsEmptyInSomeSeeds) {
  int restarts = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const DstCase c = make_dst_case(DstService::kChain, seed);
    EXPECT_NE(c.topology.find("host master 10.0.0.4 "), std::string::npos) << c.topology;
    EXPECT_NE(c.topology.find("--app=chain-master --chain=10.0.0.1:5,10.0.0.2:5,10.0.0.3:5"), std::string::npos);
    EXPECT_NE(c.topology.find("--app=chain --chain_master=10.0.0.4:5"), std::string::npos);
    for (const SimCrash& k : c.crashes) restarts += k.restart_ps != 0 && k.host[0] == 's';
  }
  EXPECT_GT(restarts, 10);
  EXPECT_LT(restarts, 30);
}

TEST(OneLeaderPerTermTest, TwoLeadersOfOneTermAreCaughtAndNewTermsAreNot) {
  uint64_t terms = 0;
  EXPECT_EQ(check_one_leader_per_term("raft: server 0 is the leader of term 1\n"
                                      "raft: server 2 heard no leader for 22 ms: election for term 2\n"
                                      "raft: server 2 is the leader of term 2\n"
                                      "raft: server 2 is the leader of term 2\n",
                                      &terms),
            "");
  EXPECT_EQ(terms, 2u);
  EXPECT_EQ(check_one_leader_per_term("raft: server 0 is the leader of term 3\nraft: server 1 is the leader of term 3\n",
                                      &terms),
            "term 3 had 2 leaders");
  EXPECT_EQ(check_one_leader_per_term("", &terms), "");
  EXPECT_EQ(terms, 0u);
}

}  // namespace
}  // namespace nanopu::sim
