// The simulation's topology reader (runtime/simulation/topology.h) against the format of
// deploy/netns/topology.py: the shipped examples parse, and every mistake
// the netns runner refuses is refused with the file and line.
#include "runtime/simulation/topology.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include "nanopu_test_paths.h"  // generated: the programs' paths (tests/CMakeLists.txt)

namespace nanopu::sim {
namespace {

TEST(TopologyTest, TheShippedExamplesParse) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(NANOPU_SOURCE_DIR "/deploy/netns/examples")) {
    if (e.path().extension() != ".topo") continue;
    absl::StatusOr<Topology> t = read_topology(e.path().string());
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_FALSE(t->hosts.empty());
    ++n;
  }
  EXPECT_GE(n, 3);
  absl::StatusOr<Topology> t = read_topology(NANOPU_SOURCE_DIR "/deploy/netns/examples/chain-4hosts.topo");
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->switches.size(), 1u);
  EXPECT_FALSE(t->is_fabric());
  EXPECT_EQ(t->switches[0].flags, std::vector<std::string>{"--switch_gbps=10"});
  EXPECT_EQ(t->switches[0].ports, (std::vector<std::string>{"head", "mid", "tail", "client"}));
  ASSERT_NE(t->host("client"), nullptr);
  EXPECT_EQ(t->host("client")->program, "loadgen");
  EXPECT_EQ(t->host("client")->ip, 0x0a000002u);
  EXPECT_EQ(t->host("head")->flags, (std::vector<std::string>{"--app=chain", "--context=5", "--chain=10.0.0.1:5,10.0.0.3:5,10.0.0.4:5"}));
}

TEST(TopologyTest, MistakesAreRefusedWithTheirLine) {
  const std::string ok = "host a 10.0.0.1 02:00:00:00:00:01 server\nhost b 10.0.0.2 02:00:00:00:00:02 loadgen\n";
  const std::pair<std::string, std::string> cases[] = {
      {ok + "link a b\nlink a b\n", "t.topo:4: a already has a link"},
      {ok + "link a c\n", "t.topo:3: link to c, which no host or switch line names"},
      {ok, "t.topo:1: host a has no link"},
      {"host a 10.0.0.1 02:00:00:00:00:01 Client\n", "t.topo:1: program 'Client': a-z"},
      {"host a 10.0.0.1 02:00:00:00:00:01 kv.server\n", "t.topo:1: program 'kv.server': a-z"},
      {"host a 10.0.0.300 02:00:00:00:00:01 server\n", "t.topo:1: '10.0.0.300' is not an IPv4 address"},
      {"host a 10.0.0.1 03:00:00:00:00:01 server\n", "t.topo:1: '03:00:00:00:00:01' is not a unicast MAC"},
      {"host A 10.0.0.1 02:00:00:00:00:01 server\n", "t.topo:1: host name 'A'"},
      {"host a 10.0.0.1 02:00:00:00:00:01 server --lcores=3\n", "t.topo:1: --lcores is set by the runner"},
      {ok + "host c 10.0.0.1 02:00:00:00:00:03 server\n", "t.topo:3: duplicate address 10.0.0.1 (first on line 1)"},
      {"switch s\nswitch s\n", "t.topo:2: duplicate name s (first on line 1)"},
      {ok + "switch s\nswitch t\nlink a s\nlink b t\nlink s t gbps=0\n", "t.topo:7: 'gbps=0': a link's options"},
      {ok + "switch s\nswitch t\nlink a s\nlink b t\nlink s t speed=40\n", "t.topo:7: 'speed=40': a link's options"},
      {ok + "switch s\nswitch t\nlink a s\nlink b t\n", "t.topo:3: switch s needs links to at least two"},
      {ok + "switch s\nswitch t\nswitch u\nswitch v\nlink a s\nlink b t\nlink s u\nlink s u\nlink t v\nlink t v\n",
       "t.topo:4: switch t has no path to switch s"},
      {ok + "switch s\nlink a s\nlink b c\n", "t.topo:5: link to c"},
      {ok + "switch s\nlink a s\nlink b a\n", "t.topo:5: a already has a link"},
      {"route a b\n", "t.topo:1: unknown statement 'route'"},
      {"host a 10.0.0.1 02:00:00:00:00:01 server '--app=echo\n", "t.topo:1: cannot split the line"},
      {"# nothing\n", "t.topo: no host"},
  };
  for (const auto& [text, want] : cases) {
    absl::StatusOr<Topology> t = parse_topology("t.topo", text);
    ASSERT_FALSE(t.ok()) << text;
    EXPECT_EQ(std::string(t.status().message()).rfind(want, 0), 0u) << t.status() << "\nwanted: " << want;
  }
}

// A leaf-spine fabric: every switch's ports in link order, switch-to-switch
// links on both ends, a link's own rate and latency.
TEST(TopologyTest, AFabricOfSeveralSwitchesAndItsLinks) {
  absl::StatusOr<Topology> t = parse_topology("f.topo",
                                              "switch l1\nswitch l2\nswitch s1 --switch_gbps=40\nswitch s2\n"
                                              "host a 10.0.0.1 02:00:00:00:00:01 server\n"
                                              "host b 10.0.0.2 02:00:00:00:00:02 loadgen\n"
                                              "link a l1\nlink b l2 gbps=10 latency_ns=500\n"
                                              "link l1 s1\nlink l1 s2\nlink l2 s1\nlink l2 s2 gbps=40\n");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->is_fabric());
  ASSERT_EQ(t->switches.size(), 4u);
  EXPECT_EQ(t->switches[0].ports, (std::vector<std::string>{"a", "s1", "s2"}));
  EXPECT_EQ(t->switches[2].ports, (std::vector<std::string>{"l1", "l2"}));
  EXPECT_EQ(t->switches[3].port_lines, (std::vector<int>{10, 12}));
  EXPECT_DOUBLE_EQ(t->switches[3].port_links[1].gbps, 40.0);
  EXPECT_EQ(t->host("b")->peer, "l2");
  EXPECT_DOUBLE_EQ(t->host("b")->link.gbps, 10.0);
  EXPECT_DOUBLE_EQ(t->host("b")->link.latency_ns, 500.0);
  EXPECT_DOUBLE_EQ(t->switches[1].port_links[0].latency_ns, 500.0);  // the same link, from the switch
}

TEST(TopologyTest, WordsSplitAsAShellSplitsThem) {
  EXPECT_EQ(*split_shell_words("host  a 'x y' \"z\"  w\\ v # c"),
            (std::vector<std::string>{"host", "a", "x y", "z", "w v"}));
  EXPECT_EQ(*split_shell_words("a#b"), std::vector<std::string>{"a#b"});
  EXPECT_TRUE(split_shell_words("   # only a comment")->empty());
  EXPECT_FALSE(split_shell_words("'open").has_value());
}

}  // namespace
}  // namespace nanopu::sim
