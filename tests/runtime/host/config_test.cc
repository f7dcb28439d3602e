#include "nanopu/config.h"

#include <gtest/gtest.h>

#include <cmath>

#include "runtime/host/host_params.h"

namespace nanopu {
namespace {

TEST(ConfigTest, DefaultsAreValid) { EXPECT_TRUE(Config{}.validate().ok()); }

// Config.link_wait_s's default: a port that reaches out to its peer waits
// 10 s for its link, one that listens for peers (a memif server) without
// limit; a value set is taken as it is, for both.
TEST(ConfigTest, TheAutomaticLinkWaitIsTenSecondsForAClientAndUnlimitedForAServer) {
  Config c;
  EXPECT_EQ(link_wait_s(c, /*port_listens=*/false), 10);
  EXPECT_TRUE(std::isinf(link_wait_s(c, /*port_listens=*/true)));
  c.link_wait_s = 2.5;
  EXPECT_EQ(link_wait_s(c, false), 2.5);
  EXPECT_EQ(link_wait_s(c, true), 2.5);
  c.link_wait_s = 0;
  EXPECT_EQ(link_wait_s(c, true), 0);
}

// A library user who passes a bad Config learns which field, its value and
// what is accepted, in one line; nothing aborts.
TEST(ConfigTest, ImpossibleSettingsNameTheFieldAndWhatItAccepts) {
  struct Case {
    void (*mutate)(Config&);
    const char* mention;
  };
  const Case cases[] = {
      {[](Config& c) { c.lcores.clear(); }, "Config.lcores"},
      {[](Config& c) { c.lcores = {1, 1}; }, "Config.lcores=1"},
      {[](Config& c) { c.max_message_bytes = 0; }, "Config.max_message_bytes=0: must be 1..65535"},
      {[](Config& c) { c.max_message_bytes = 70000; }, "Config.max_message_bytes=70000"},
      {[](Config& c) { c.jbsq_n = 0; }, "Config.jbsq_n=0"},
      {[](Config& c) { c.jbsq_n = 300; }, "must not exceed fifo_messages=256"},
      {[](Config& c) { c.core_select = static_cast<CoreSelectPolicy>(9); }, "Config.core_select=9"},
      {[](Config& c) { c.scheduler = static_cast<SchedMode>(7); }, "Config.scheduler=7: kHts or kTis"},
      {[](Config& c) { c.faults.drop = 2; }, "drop=2 is a probability"},
      {[](Config& c) { c.faults.delay_us = -1; }, "delay_us=-1"},
      {[](Config& c) { c.lcores = {0, 1}; c.shared_workers = 2; }, "Config.shared_workers=2"},
      {[](Config& c) { c.fifo_messages = 1; }, "Config.fifo_messages=1"},
      {[](Config& c) { c.max_threads_per_core = 0; }, "Config.max_threads_per_core=0"},
      {[](Config& c) { c.mbufs = 10; }, "Config.mbufs=10"},
      {[](Config& c) { c.rtt_packets = 0; }, "Config.rtt_packets=0"},
      {[](Config& c) { c.rtt_bytes = 0; }, "Config.rtt_bytes=0"},
      {[](Config& c) { c.overcommit = 65; }, "Config.overcommit=65: must be 1..64"},
      {[](Config& c) { c.homa_unsched_cutoffs = {200, 100, 300}; }, "Config.homa_unsched_cutoffs=100: must be ascending"},
      {[](Config& c) { c.homa_unsched_cutoffs = {200}; }, "three ascending byte counts"},
      {[](Config& c) { c.transport = TransportProtocol::kHoma; c.backend = Backend::kUring; c.vdevs.clear(); }, "use a DPDK port for Homa"},
      {[](Config& c) { c.rto_us = 0; }, "Config.rto_us=0"},
      {[](Config& c) { c.ack_hold_us = 25; }, "Config.ack_hold_us=25"},
      {[](Config& c) { c.ack_hold_us = -1; }, "Config.ack_hold_us=-1"},
      {[](Config& c) { c.t0_ns = -5; }, "Config.t0_ns=-5"},
      {[](Config& c) { c.link_hold_s = -1; }, "Config.link_hold_s=-1"},
      {[](Config& c) { c.context_packets = 3; }, "Config.context_packets=3"},
      {[](Config& c) { c.reserved_priority0_slots = 256; }, "below reassembly_slots=256"},
      {[](Config& c) { c.context_slos = {{5, 0, 100}}; }, "Config.context_slos[0].service_ns=0: must be > 0 (context 5)"},
      {[](Config& c) { c.context_slos = {{5, 2000, 2000}}; },
       "Config.context_slos[0].slo_ns=2000: cannot be met even when idle: must exceed its service_ns=2000 (context 5)"},
      {[](Config& c) { c.context_slos = {{5, 1, 1e6}}; }, "more than global_queue_messages=4096 holds (context 5)"},
      {[](Config& c) { c.context_slos = {{5, 1000, 9000}, {5, 1000, 3000}}; }, "Config.context_slos[1].context=5: given an SLO twice"},
      {[](Config& c) { c.lcores = {0, 1}; c.nic_lcores = 2; c.context_slos = {{5, 1000, 9000}}; }, "one NIC core only"},
      {[](Config& c) { c.memory_model = "nebula_server:bogus"; }, "--memory_model='nebula_server:bogus': no buffer provisioning 'bogus'"},
      {[](Config& c) { c.os_port = "net_tap0"; c.backend = Backend::kUring; c.vdevs.clear(); }, "Config.os_port=net_tap0: needs a DPDK port"},
      {[](Config& c) { c.lcores = {0, 1}; c.nic_lcores = 2; c.os_port = "net_tap0"; }, "Config.os_port=net_tap0: one NIC core only"},
      {[](Config& c) { c.memory_model = "dram"; }, "--memory_model='dram': not two or three fields"},
      {[](Config& c) { c.memory_model = "nebula_server:bounded:get=2,value=512"; },
       "--memory_model='nebula_server:bounded:get=2,value=512': get= must be a share in 0..1"},
      {[](Config& c) { c.memory_model = "nebula_server:bounded:gets=1"; },
       "--memory_model='nebula_server:bounded:gets=1': no demand field 'gets'"},
      {[](Config& c) { c.memory_model = "nebula_server:bounded:value=64"; },
       "--memory_model='nebula_server:bounded:value=64': a demand needs both get= and value="},
      {[](Config& c) { c.memory_model = "nebula_server:bounded:get=1,get=0"; },
       "--memory_model='nebula_server:bounded:get=1,get=0': get= given twice"},
      {[](Config& c) { c.memory_model = "nebula_server:bounded:get=0.5,value=x"; },
       "--memory_model='nebula_server:bounded:get=0.5,value=x': 'value=x' is not a number"},
  };
  for (const Case& k : cases) {
    Config c;
    k.mutate(c);
    absl::Status s = c.validate();
    EXPECT_FALSE(s.ok()) << k.mention;
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_NE(s.message().find(k.mention), std::string::npos) << s;
    EXPECT_EQ(s.message().find('\n'), std::string::npos) << "one line: " << s;
  }
}

TEST(ConfigTest, WorkersFollowTheNicCore) {
  Config c;
  c.lcores = {0};
  EXPECT_TRUE(c.shared_core());
  EXPECT_EQ(c.worker_count(), 1u);
  c.lcores = {0, 1, 2};
  EXPECT_FALSE(c.shared_core());
  EXPECT_EQ(c.worker_count(), 2u);
}

TEST(ConfigTest, LcoresArePinnedUnlessPinIsOff) {
  Config c;
  EXPECT_TRUE(c.pins_lcores());  // DPDK's way, whatever the polling
  c.poll = PollMode::kAdaptive;
  EXPECT_TRUE(c.pins_lcores());
  c.pin = Pinning::kOff;
  EXPECT_FALSE(c.pins_lcores());
}

}  // namespace
}  // namespace nanopu
