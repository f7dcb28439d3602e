// Faults as an author meets them (nanopu/sim.h, issue 71): a crash aimed
// at the moment after a send, a power loss against a DurableFile synced or
// not, a host's clock that drifts, buggify() in the author's code and in
// nanopu's own NIC — each on the register and ledger programs of
// sim_api_programs.h, each run replayed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>

#include "nanopu/buggify.h"
#include "nanopu/sim.h"
#include "tests/runtime/simulation/sim_api_programs.h"

namespace nanopu {
namespace {

// Issue 71 item 2: a crash aimed at a window. Armed at 0 ms, it falls the
// moment the server next sends — its first reply — where a crash at 0 ms
// drawn blind kills it before it answers anything: its client hears
// exactly one reply, not none. The aimed crash is one run, replayed.
TEST(SimApiTest, AnAimedCrashFallsJustAfterTheServersFirstReply) {
  const Programs p = programs();
  const std::string topo = write_topology(
      "aimed", "host srv 10.0.0.1 02:00:00:00:00:01 reg-server\n"
               "host c1 10.0.0.2 02:00:00:00:00:02 reg-client --rate=200000 --max_in_flight=1 --count=20 "
               "--drain_timeout=0.002\nlink srv c1\n");
  std::FILE* sink = std::fopen("/dev/null", "w");
  auto received = [&](bool aimed) -> uint64_t {
    sim::Options o = quiet(4);
    o.crashes.push_back({"srv", 0, 0, aimed});
    absl::StatusOr<sim::Report> r = sim::run(topo, p, o, sink);
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok() || r->hosts.size() != 2 || r->hosts[1].result == nullptr) return 99;
    EXPECT_TRUE(r->hosts[0].down);
    EXPECT_EQ(r->crashes, 1u);
    EXPECT_EQ(r->hosts[0].nic.tx_msgs, aimed ? 1u : 0u) << "the server's messages sent before it died";
    return r->hosts[1].result->received;
  };
  EXPECT_EQ(received(false), 0u);
  EXPECT_EQ(received(true), 1u);
  // Restarted, an aimed crash's downtime counts from when it fell.
  sim::Options o = quiet(4);
  o.crashes.push_back({"srv", 0, 0.05, true});
  absl::StatusOr<sim::Report> a = sim::run(topo, p, o, sink), b = sim::run(topo, p, o, sink);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->restarts, 1u);
  EXPECT_EQ(a->trace_hash, b->trace_hash);
  // The call in flight when it fell went to the dead run: refused by the
  // new one (given up, its client told); every later call is answered.
  const loadgen::Result& c = *a->hosts[1].result;
  EXPECT_GE(c.received, 18u);
  EXPECT_EQ(c.received + c.given_up + c.lost, 20u) << c.sent << " " << c.received << " " << c.given_up << " " << c.lost << " " << c.send_failures;
  EXPECT_EQ(c.duplicates + c.bad_replies, 0u);
  // Armed while its host is down, an aimed crash falls at the host's first
  // send once restarted (a crash during its catch-up): killed at 0 ms,
  // back at 0.05 ms, it answers once and dies for good.
  o = quiet(4);
  o.crashes.push_back({"srv", 0, 0.05});
  o.crashes.push_back({"srv", 0.01, 0, true});
  absl::StatusOr<sim::Report> k = sim::run(topo, p, o, sink);
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->crashes, 2u);
  EXPECT_EQ(k->restarts, 1u);
  EXPECT_TRUE(k->hosts[0].down);
  EXPECT_EQ(k->hosts[1].result->received, 1u);
  std::fclose(sink);
  unlink(topo.c_str());
}

// Issue 71 item 6: a power loss. A server that answers before it syncs
// comes back from one with less than it answered for, often a torn last
// record; one that syncs first keeps every record it answered for. A
// crash that is not a power loss keeps everything (the kernel had it).
TEST(SimApiTest, APowerLossKeepsWhatASyncedServerAnsweredFor) {
  const Programs p = programs();
  auto recovered = [&](const std::string& program, uint64_t seed, bool power) -> uint64_t {
    const std::string topo = write_topology(
        "ledger", "host srv 10.0.0.1 02:00:00:00:00:01 " + program +
                      "\nhost c1 10.0.0.2 02:00:00:00:00:02 reg-client --rate=200000 --max_in_flight=1 "
                      "--count=300 --drain_timeout=0.002\nlink srv c1\n");
    std::FILE* sink = std::fopen("/dev/null", "w");
    sim::Options o = quiet(seed);
    o.crashes.push_back({"srv", 0.5, 0.05, false, power});
    uint64_t r = UINT64_MAX;
    absl::StatusOr<sim::Report> run = sim::run(topo, p, o, sink, [&](const sim::Report& rep) {
      const auto* l = dynamic_cast<const LedgerServer*>(rep.hosts[0].program_object);
      if (l != nullptr) r = l->recovered();
    });
    std::fclose(sink);
    unlink(topo.c_str());
    EXPECT_TRUE(run.ok() && run->restarts == 1) << run.status();
    return r;
  };
  int torn_or_lost = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const uint64_t synced = recovered("synced-ledger", seed, true);
    EXPECT_GT(synced, 0u);
    EXPECT_EQ(synced % 8, 0u) << "every record it answered for, whole";
    const uint64_t kept = recovered("ledger", seed, false);
    EXPECT_EQ(kept % 8, 0u);
    EXPECT_GT(kept, 0u) << "a process crash loses nothing";
    const uint64_t unsynced = recovered("ledger", seed, true);
    EXPECT_LE(unsynced, kept) << "the same run to the crash: the loss only cuts";
    torn_or_lost += unsynced != kept;
  }
  EXPECT_GE(torn_or_lost, 4) << "a prefix of 0..all of ~100 records kept: all of it about one time in a hundred";
}

// Issue 71 item 6: a clock that drifts. The same run, the ticker's clock
// 20 % fast, true, and 20 % slow: its 1 ms timeouts fire more often, as
// often, less often in the same modelled time (the clients' load, ~10 ms).
// A drift past the bound is refused with its flag.
TEST(SimApiTest, AHostsClockRunsFastOrSlowAsItsDriftSays) {
  const Programs p = programs();
  auto ticks = [&](const std::string& drift) -> uint64_t {
    const std::string topo = write_topology(
        "clock", "host tick 10.0.0.9 02:00:00:00:00:09 ticker " + drift +
                     "\nhost srv 10.0.0.1 02:00:00:00:00:01 reg-server\n"
                     "host c1 10.0.0.2 02:00:00:00:00:02 reg-client --rate=200000 --max_in_flight=3 --count=2000\n"
                     "switch sw\nlink tick sw\nlink srv sw\nlink c1 sw\n");
    std::FILE* sink = std::fopen("/dev/null", "w");
    uint64_t n = 0;
    absl::StatusOr<sim::Report> r = sim::run(topo, p, quiet(2), sink, [&](const sim::Report& rep) {
      n = dynamic_cast<const Ticker*>(rep.hosts[0].program_object)->ticks();
    });
    std::fclose(sink);
    unlink(topo.c_str());
    EXPECT_TRUE(r.ok()) << drift << ": " << r.status();
    return n;
  };
  const uint64_t fast = ticks("--clock_drift_ppm=200000"), none = ticks(""), slow = ticks("--clock_drift_ppm=-200000");
  std::printf("  1 ms timeouts in the same run: 20 %% fast %llu, true %llu, 20 %% slow %llu\n",
              static_cast<unsigned long long>(fast), static_cast<unsigned long long>(none),
              static_cast<unsigned long long>(slow));
  EXPECT_GE(none, 8u);
  EXPECT_GT(fast, none);
  EXPECT_LT(slow, none);
  EXPECT_NEAR(static_cast<double>(fast) / static_cast<double>(none), 1.2, 0.15);
  const std::string bad = write_topology("clock-bad", "host tick 10.0.0.9 02:00:00:00:00:09 ticker --clock_drift_ppm=600000\n"
                                                      "host c1 10.0.0.2 02:00:00:00:00:02 reg-client\nlink tick c1\n");
  std::FILE* sink = std::fopen("/dev/null", "w");
  absl::StatusOr<sim::Report> r = sim::run(bad, p, quiet(2), sink);
  std::fclose(sink);
  unlink(bad.c_str());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("clock_drift_ppm"), std::string::npos) << r.status();
}

// Issue 71 item 2: buggify. A site is on in about a quarter of the seeds,
// says yes to some of its calls there, is reported as a probe, and the
// same seed takes the same paths; live, or with it off, never.
TEST(SimApiTest, BuggifyTakesTheRarePathInSomeSeedsTheSameWayEachTime) {
  const Programs p = programs();
  const std::string topo = write_topology("buggify", kTopology);
  std::FILE* sink = std::fopen("/dev/null", "w");
  auto fired = [](const sim::Report& r) {
    uint64_t n = 0;
    for (const auto& [name, hits] : r.probes)
      if (name.rfind("buggify sim_api_programs.h:", 0) == 0) n += hits;
    return n;
  };
  int seeds_on = 0;
  for (uint64_t seed = 1; seed <= 16; ++seed) {
    sim::Options o = quiet(seed);
    o.buggify = true;
    absl::StatusOr<sim::Report> a = sim::run(topo, p, o, sink), b = sim::run(topo, p, o, sink);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->trace_hash, b->trace_hash) << seed;
    EXPECT_EQ(fired(*a), fired(*b)) << seed;
    if (fired(*a) == 0) continue;
    ++seeds_on;
    EXPECT_LT(fired(*a), 600u) << "a site that is on says yes to about a quarter of its calls";
    o.buggify = false;
    absl::StatusOr<sim::Report> off = sim::run(topo, p, o, sink);
    ASSERT_TRUE(off.ok());
    EXPECT_EQ(fired(*off), 0u);
    EXPECT_NE(off->trace_hash, a->trace_hash) << "the slow steps moved the run";
  }
  EXPECT_GT(seeds_on, 0);
  EXPECT_LT(seeds_on, 16);
  EXPECT_FALSE(buggify()) << "outside a run";
  std::fclose(sink);
  unlink(topo.c_str());
}

// Issue 71 item 2: nanopu's own NIC takes its rare paths under buggify —
// a message refused as if its context were full, a packet or control
// frame left for want of a buffer — and recovers: every call answered
// once, checked. A site draws a stream per host, so the run is the same on
// one simulation thread and on two.
TEST(SimApiTest, TheNicsBuggifySitesFireAndTheTransportRecovers) {
  const Programs p = programs();
  const std::string topo = write_topology("nic-buggify", kTopology);
  std::FILE* sink = std::fopen("/dev/null", "w");
  std::map<std::string, int> seeds_of;  // a NIC site -> seeds it said yes in
  int on_two_threads = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    sim::Options o = quiet(seed);
    o.buggify = true;
    absl::StatusOr<sim::Report> a = sim::run(topo, p, o, sink);
    ASSERT_TRUE(a.ok());
    for (const sim::HostReport& h : a->hosts) {
      if (!h.client) continue;
      EXPECT_TRUE(h.result->received == 300 && h.result->clean()) << seed << " " << h.name;
    }
    bool fired = false;
    for (const auto& [name, hits] : a->probes)
      if (hits > 0 && name.rfind("nic.buggify ", 0) == 0) ++seeds_of[name.substr(12, name.find(':') - 12)], fired = true;
    // Two seeds whose NIC took a rare path, again on two simulation
    // threads (each window a barrier: slow beside a CPU hog, so two only).
    if (!fired || on_two_threads == 2) continue;
    ++on_two_threads;
    o.threads = 2;
    absl::StatusOr<sim::Report> b = sim::run(topo, p, o, sink);
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(a->trace_hash, b->trace_hash) << "seed " << seed << ": one thread and two";
  }
  EXPECT_EQ(on_two_threads, 2);
  for (const auto& [site, n] : seeds_of) std::printf("  NIC buggify site %s: on in %d of 8 seeds\n", site.c_str(), n);
  EXPECT_GT(seeds_of["receive_front.h"], 0) << "a message refused as if its context were full";
  EXPECT_GT(seeds_of["ndp_sender.cc"] + seeds_of["nic_core.cc"], 0) << "a frame left for want of a buffer";
  std::fclose(sink);
  unlink(topo.c_str());
}

}  // namespace
}  // namespace nanopu
