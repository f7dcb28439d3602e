// The simulation's topology reader (runtime/sim/topology.h) against the format of
// deploy/netns/topology.py: the shipped examples parse, and every mistake
// the netns runner refuses is refused with the file and line.
#include "runtime/sim/topology.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

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
  ASSERT_TRUE(t->sw.has_value());
  EXPECT_EQ(t->sw->flags, std::vector<std::string>{"--switch_gbps=10"});
  EXPECT_EQ(t->sw->ports, (std::vector<std::string>{"head", "mid", "tail", "client"}));
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
      {"switch s\nswitch t\n", "t.topo:2: a second switch (the first is on line 1)"},
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

TEST(TopologyTest, WordsSplitAsAShellSplitsThem) {
  EXPECT_EQ(*split_shell_words("host  a 'x y' \"z\"  w\\ v # c"),
            (std::vector<std::string>{"host", "a", "x y", "z", "w v"}));
  EXPECT_EQ(*split_shell_words("a#b"), std::vector<std::string>{"a#b"});
  EXPECT_TRUE(split_shell_words("   # only a comment")->empty());
  EXPECT_FALSE(split_shell_words("'open").has_value());
}

}  // namespace
}  // namespace nanopu::sim
