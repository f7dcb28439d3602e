// Parsing of the fault-injecting wire's spec; the faults themselves are
// exercised end to end by tests/nic/transport/ndp/ndp_transport_test.cc.
#include "nic/fault/fault_injector.h"

#include <gtest/gtest.h>

namespace nanopu {
namespace {

TEST(FaultSpecTest, ParsesEveryFault) {
  auto s = parse_fault_spec("drop=0.1,dup=0.05,reorder=0.2,corrupt=0.01,mangle=0.02,trim=0.3,"
                            "delay_us=5,ack_delay_us=7,drop_once=1,trim_once=1,no_echo=1,seed=42");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_DOUBLE_EQ(s->drop, 0.1);
  EXPECT_DOUBLE_EQ(s->dup, 0.05);
  EXPECT_DOUBLE_EQ(s->reorder, 0.2);
  EXPECT_DOUBLE_EQ(s->corrupt, 0.01);
  EXPECT_DOUBLE_EQ(s->mangle, 0.02);
  EXPECT_DOUBLE_EQ(s->trim, 0.3);
  EXPECT_DOUBLE_EQ(s->delay_us, 5);
  EXPECT_DOUBLE_EQ(s->ack_delay_us, 7);
  EXPECT_TRUE(s->drop_once);
  EXPECT_TRUE(s->trim_once);
  EXPECT_TRUE(s->no_echo);
  EXPECT_EQ(s->seed, 42u);
  EXPECT_TRUE(s->any());
}

TEST(FaultSpecTest, NoEchoAloneIsAFault) {
  auto s = parse_fault_spec("no_echo=1");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->no_echo);
  EXPECT_TRUE(s->any()) << "a wire that clears echoes must be in front of the port";
}

TEST(FaultSpecTest, EmptyIsNoFaults) {
  auto s = parse_fault_spec("");
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->any());
}

TEST(FaultSpecTest, RejectsBadInputWithTheReason) {
  for (const char* bad : {"drop=1.5", "drop=-1", "drop=x", "explode=0.1", "drop", "ack_delay_us=-3"}) {
    auto s = parse_fault_spec(bad);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.status().message().find("--faults"), std::string::npos) << s.status();
  }
}

}  // namespace
}  // namespace nanopu
