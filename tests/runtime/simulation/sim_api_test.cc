// The simulation as an author meets it (nanopu/sim.h, nanopu/program.h):
// programs written here, against the public API only, run on one modelled
// clock — the same seed twice one run, another seed another, every call in
// the history, which is linearizable; a topology naming a
// program or flag the binary lacks is refused with its line; a campaign
// finds a broken invariant and names the command that replays the seed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>

#include "nanopu/probe.h"
#include "nanopu/sim.h"
#include "tests/runtime/simulation/sim_api_programs.h"

namespace nanopu {
namespace {

TEST(SimApiTest, AnAuthorsProgramsRunOnTheModelledClockAndReplay) {
  const Programs p = programs();
  const std::string topo = write_topology("ok", kTopology);
  std::FILE* sink = std::fopen("/dev/null", "w");
  absl::StatusOr<sim::Report> a = sim::run(topo, p, quiet(5), sink);
  absl::StatusOr<sim::Report> b = sim::run(topo, p, quiet(5), sink);
  absl::StatusOr<sim::Report> c = sim::run(topo, p, quiet(6), sink);
  std::fclose(sink);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok()) << a.status() << b.status() << c.status();
  EXPECT_TRUE(a->ended);
  EXPECT_EQ(a->exit_status, 0);
  EXPECT_EQ(a->trace_hash, b->trace_hash) << "one seed, one run";
  EXPECT_NE(a->trace_hash, c->trace_hash) << "another seed, another run";
  ASSERT_EQ(a->hosts.size(), 3u);
  for (const sim::HostReport& h : a->hosts) {
    if (!h.client) continue;
    ASSERT_NE(h.result, nullptr) << h.name;
    EXPECT_EQ(h.result->received, 300u) << h.name;
    EXPECT_TRUE(h.result->clean()) << h.name;
  }
  EXPECT_EQ(a->history.size(), 1200u) << "an invoke and an ok for each of 600 calls";
  EXPECT_EQ(a->history, b->history);
  EXPECT_EQ(sim::linearizable("register")(*a), "");
  // The same history with one read's value changed is caught.
  sim::Report broken = *a;
  for (HistoryEvent& e : broken.history)
    if (e.type == HistoryType::kOk && e.op.f == "read" && !e.op.value.is_null()) {
      e.op.value = HistoryValue::of(e.op.value.i ^ 1);
      break;
    }
  EXPECT_NE(sim::linearizable("register")(broken).find("not linearizable"), std::string::npos);
  unlink(topo.c_str());
}

TEST(SimApiTest, WhatTheBinaryLacksIsRefusedWithTheLine) {
  const Programs p = programs();
  const std::pair<std::string, std::string> cases[] = {
      {"host a 10.0.0.1 02:00:00:00:00:01 counter\nhost b 10.0.0.2 02:00:00:00:00:02 reg-client\nlink a b\n",
       ":1: host a: no program 'counter' in this binary (it has reg-server, slow-server, reg-client, thrower, ledger, synced-ledger, ticker or refuses)"},
      {"host a 10.0.0.1 02:00:00:00:00:01 reg-server --rate=5\nhost b 10.0.0.2 02:00:00:00:00:02 reg-client\nlink a b\n",
       ":1: host a: unknown flag --rate (program reg-server has none)"},
      {"host a 10.0.0.1 02:00:00:00:00:01 refuses\nhost b 10.0.0.2 02:00:00:00:00:02 reg-client\nlink a b\n",
       ":1: host a: program refuses: --whatever: not today"},
      {"host a 10.0.0.1 02:00:00:00:00:01 reg-server\nhost b 10.0.0.2 02:00:00:00:00:02 reg-client --history=x\nlink a b\n",
       ":2: host b: --history is the simulation's to set"},
      {"host a 10.0.0.1 02:00:00:00:00:01 reg-server\nhost b 10.0.0.2 02:00:00:00:00:02 reg-client --rate=-1\nlink a b\n",
       ":2: host b: program reg-client: --rate must be >= 0"},
  };
  // A history hook that throws: the run ends and says so (an author's
  // program runs it: exit 2), never a crash.
  {
    const std::string topo = write_topology(
        "throw", "host a 10.0.0.1 02:00:00:00:00:01 reg-server\nhost b 10.0.0.2 02:00:00:00:00:02 thrower --count=20\n"
                 "link a b\n");
    std::FILE* sink = std::fopen("/dev/null", "w");
    absl::StatusOr<sim::Report> r = sim::run(topo, p, quiet(1), sink);
    std::fclose(sink);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(r.status().message()).find("history recorder of a client on context 2 threw"), std::string::npos)
        << r.status();
    EXPECT_NE(std::string(r.status().message()).find("the fifth call is too much"), std::string::npos) << r.status();
    unlink(topo.c_str());
  }
  for (const auto& [text, want] : cases) {
    const std::string topo = write_topology("bad", text);
    absl::StatusOr<sim::Report> r = sim::run(topo, p, quiet(1), stdout);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(r.status().message()).find(topo + want), std::string::npos)
        << r.status() << "\nwanted: " << want;
    unlink(topo.c_str());
  }
}

TEST(SimApiTest, ACampaignFindsABrokenInvariantAndNamesItsReplay) {
  const Programs p = programs();
  const std::string topo = write_topology("dst", kTopology);
  sim::Campaign c;
  c.first_seed = 1;
  c.seeds = 6;
  c.faults.max_cuts = 0;
  c.faults.wire = false;
  c.faults.window_ms = 1;  // the run's load lasts 1.5 modelled ms
  c.faults.swarm = false;  // a crash in half the seeds
  c.shrink_runs = 0;
  c.check_model = "register";
  c.replay_prefix = "my-service dst " + topo;
  // A made-up invariant that a crash breaks: some seeds crash the server.
  c.invariants.push_back({"no crash", [](const sim::Report& r) { return r.crashes == 0 ? "" : "a host crashed"; }});
  std::FILE* sink = std::fopen("/dev/null", "w");
  absl::StatusOr<std::vector<sim::SeedOutcome>> out = sim::run_campaign(topo, p, quiet(1), c, sink);
  std::fclose(sink);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 6u);
  int failed = 0;
  for (const sim::SeedOutcome& o : *out) {
    EXPECT_EQ(o.passed, o.report.crashes == 0) << o.seed << ": " << o.why;
    if (o.passed) continue;
    ++failed;
    EXPECT_EQ(o.why, "no crash: a host crashed");
    EXPECT_EQ(o.replay, "my-service dst " + topo + " --first_seed=" + std::to_string(o.seed) + " --seeds=1 --verbose");
  }
  EXPECT_GT(failed, 0) << "half the seeds crash a server";
  EXPECT_LT(failed, 6);
  unlink(topo.c_str());
}

// Issue 71 item 5: a failing seed's schedule shrunk to the faults the
// failure needs — here the crash an invariant forbids, out of wires' faults,
// cuts and a crash — and its printed schedule replays the failure alone.
TEST(SimApiTest, AFailingSeedsScheduleShrinksToTheCrashAndReplays) {
  const Programs p = programs();
  const std::string topo = write_topology("shrink", kTopology);
  sim::Campaign c;
  c.seeds = 16;
  c.faults.window_ms = 1;
  c.faults.swarm = false;  // every kind drawn: something to shrink
  c.faults.live_calls = 0;
  c.replay_prefix = "my-service dst " + topo;
  c.invariants.push_back({"no crash", [](const sim::Report& r) { return r.crashes == 0 ? "" : "a host crashed"; }});
  std::FILE* sink = std::fopen("/dev/null", "w");
  absl::StatusOr<std::vector<sim::SeedOutcome>> out = sim::run_campaign(topo, p, quiet(1), c, sink);
  ASSERT_TRUE(out.ok()) << out.status();
  int shrunk = 0, from_more = 0;
  for (const sim::SeedOutcome& o : *out) {
    if (o.passed) continue;
    ASSERT_TRUE(o.shrunk) << o.seed;
    ++shrunk;
    from_more += o.faults_before > 1;
    EXPECT_EQ(o.faults_after, 1u) << o.seed << ": " << o.shrunk_faults.description;
    EXPECT_EQ(o.shrunk_faults.crashes.size(), 1u) << o.shrunk_faults.description;
    EXPECT_TRUE(o.shrunk_faults.cuts.empty()) << o.shrunk_faults.description;
    EXPECT_EQ(o.shrunk_faults.description.find("--faults="), std::string::npos) << o.shrunk_faults.description;
    EXPECT_NE(o.shrunk_replay.find("--first_seed=" + std::to_string(o.seed) + " --seeds=1 --schedule='"),
              std::string::npos) << o.shrunk_replay;
    // The printed schedule, alone, fails the same check; with none, it passes.
    sim::Campaign again = c;
    again.first_seed = o.seed;
    again.seeds = 1;
    again.shrink_runs = 0;
    again.schedule = o.shrunk_faults.description;
    absl::StatusOr<std::vector<sim::SeedOutcome>> r = sim::run_campaign(topo, p, quiet(1), again, sink);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_FALSE((*r)[0].passed);
    EXPECT_EQ((*r)[0].why, o.why);
    again.schedule = "none";
    r = sim::run_campaign(topo, p, quiet(1), again, sink);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE((*r)[0].passed) << (*r)[0].why;
  }
  EXPECT_GT(shrunk, 0) << "half the seeds crash a server";
  EXPECT_GT(from_more, 0) << "no failing seed had faults besides its crash";
  std::fclose(sink);
  unlink(topo.c_str());
}

// Issue 71 item 3: coverage. A run reports its programs' probes (a
// declared one at 0 when it never fired) and the runtime's rare paths; a
// campaign prints, for each, the seeds that reached it.
TEST(SimApiTest, ARunReportsItsProbesAndACampaignTheirCoverage) {
  const Programs p = programs();
  declare_probe("reg.never");
  const std::string topo = write_topology("probes", kTopology);
  std::FILE* sink = std::fopen("/dev/null", "w");
  absl::StatusOr<sim::Report> r = sim::run(topo, p, quiet(3), sink);
  ASSERT_TRUE(r.ok()) << r.status();
  std::map<std::string, uint64_t> probes(r->probes.begin(), r->probes.end());
  EXPECT_GT(probes["reg.second_key_written"], 0u);
  ASSERT_TRUE(probes.contains("reg.never"));
  EXPECT_EQ(probes["reg.never"], 0u);
  EXPECT_TRUE(probes.contains("nic.tx_retransmits"));
  probe("reg.outside_a_run");  // nothing records: not counted anywhere
  // A host's NIC counts survive its crash: a server killed for good at
  // 0.5 ms still reports what it delivered before. Its clients give up
  // on it 2 ms after its last reply (the default second of drain, spent
  // retransmitting to a dead host, cost this test 250 s under ASan).
  std::string short_drain = kTopology;
  const std::string flag = "--drain_timeout=0.002 ", count = "--count=300";
  for (size_t at = 0; (at = short_drain.find(count, at)) != std::string::npos; at += flag.size() + count.size())
    short_drain.insert(at, flag);
  const std::string killed = write_topology("probes-killed", short_drain);
  sim::Options crashed = quiet(3);
  crashed.crashes.push_back({"srv", 0.5, 0});
  absl::StatusOr<sim::Report> k = sim::run(killed, p, crashed, sink);
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_TRUE(k->hosts[0].down);
  EXPECT_GT(k->hosts[0].nic.rx_msgs_delivered, 0u);
  unlink(killed.c_str());
  sim::Campaign c;
  c.seeds = 3;
  c.faults.window_ms = 1;
  std::FILE* out = std::tmpfile();
  ASSERT_TRUE(sim::run_campaign(topo, p, quiet(1), c, out).ok());
  std::rewind(out);
  std::string text;
  for (int ch; (ch = std::fgetc(out)) != EOF;) text += static_cast<char>(ch);
  std::fclose(out);
  const size_t line = text.find("coverage, your probes (seeds that reached each): ");
  ASSERT_NE(line, std::string::npos) << text;
  const std::string mine = text.substr(line, text.find('\n', line) - line);
  EXPECT_NE(mine.find("reg.second_key_written 3"), std::string::npos) << mine;
  EXPECT_NE(mine.find("; never: reg.never"), std::string::npos) << mine;
  EXPECT_NE(text.find("coverage, the runtime's rare paths (seeds that reached each): "), std::string::npos) << text;
  EXPECT_EQ(text.find("reg.outside_a_run"), std::string::npos) << text;
  std::fclose(sink);
  unlink(topo.c_str());
}

// Issue 71: liveness. A client none of whose calls is answered (its
// server's address is a host that does not exist) fails the seed, where
// it used to pass (the run ended; nothing came back wrong); the same
// campaign with the check off passes, and one whose server answers passes.
TEST(SimApiTest, AClientThatIsNeverAnsweredFailsTheSeed) {
  const Programs p = programs();
  const std::string lost = write_topology(
      "mute", "switch sw\n"
              "host srv 10.0.0.1 02:00:00:00:00:01 reg-server\n"
              "host c1 10.0.0.2 02:00:00:00:00:02 reg-client --server_ip=10.0.0.9 --rate=200000 --max_in_flight=3 "
              "--count=40 --drain_timeout=0.005\n"
              "link srv sw\nlink c1 sw\n");
  const std::string fine = write_topology("live", kTopology);
  sim::Campaign c;
  c.seeds = 2;
  c.faults.max_cuts = 0;
  c.faults.wire = false;
  c.faults.crash_servers = false;
  std::FILE* sink = std::fopen("/dev/null", "w");
  absl::StatusOr<std::vector<sim::SeedOutcome>> out = sim::run_campaign(lost, p, quiet(1), c, sink);
  ASSERT_TRUE(out.ok()) << out.status();
  for (const sim::SeedOutcome& o : *out) {
    EXPECT_FALSE(o.passed) << o.seed;
    EXPECT_NE(o.why.find("c1: none of its 40 requests was answered"), std::string::npos) << o.why;
  }
  c.faults.live_calls = 0;  // the check off: what a campaign said before
  out = sim::run_campaign(lost, p, quiet(1), c, sink);
  ASSERT_TRUE(out.ok()) << out.status();
  for (const sim::SeedOutcome& o : *out) EXPECT_TRUE(o.passed) << o.seed << ": " << o.why;
  c.faults.live_calls = 1;
  out = sim::run_campaign(fine, p, quiet(1), c, sink);
  ASSERT_TRUE(out.ok()) << out.status();
  for (const sim::SeedOutcome& o : *out) EXPECT_TRUE(o.passed) << o.seed << ": " << o.why;
  std::fclose(sink);
  unlink(lost.c_str());
  unlink(fine.c_str());
}

// NEBULA (ISCA'20) §IV-B: a call rejected for load can go elsewhere. Two
// servers of 2 us a call, each admitting a call while fewer than two are
// ahead of it (a 6 us SLO); Poisson arrivals at 0.45 M/s. On one server
// (load 0.9) about a quarter of the calls are rejected; spread over two,
// few; and with one retry at the other server, fewer still — every call
// answered or heard rejected.
TEST(SimApiTest, ACallRejectedForLoadIsSentToTheNextServer) {
  const Programs p = programs();
  const std::string servers = "switch sw\n"
                              "host s1 10.0.0.1 02:00:00:00:00:01 slow-server --context_slo=1:2:6\n"
                              "host s2 10.0.0.3 02:00:00:00:00:03 slow-server --context_slo=1:2:6\n"
                              "link s1 sw\nlink s2 sw\nlink c sw\n";
  const std::string client = "host c 10.0.0.2 02:00:00:00:00:02 reg-client --rate=450000 --count=2000 ";
  const std::string topos[3] = {
      write_topology("one", servers + client + "\n"),
      write_topology("two", servers + client + "--more_servers=10.0.0.3\n"),
      write_topology("retry", servers + client + "--more_servers=10.0.0.3 --retry_rejected=1\n")};
  std::shared_ptr<const loadgen::Result> r[3];
  std::FILE* sink = std::fopen("/dev/null", "w");
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<sim::Report> rep = sim::run(topos[i], p, quiet(1), sink);
    ASSERT_TRUE(rep.ok()) << rep.status();
    for (const sim::HostReport& h : rep->hosts)
      if (h.client) r[i] = h.result;
    ASSERT_NE(r[i], nullptr);
    EXPECT_EQ(r[i]->sent, 2000u);
    EXPECT_EQ(r[i]->received + r[i]->rejected, r[i]->sent) << "each call answered or heard rejected";
    EXPECT_EQ(r[i]->given_up, r[i]->rejected);
    EXPECT_EQ(r[i]->lost, 0u);
    unlink(topos[i].c_str());
  }
  std::fclose(sink);
  EXPECT_EQ(r[0]->retried + r[1]->retried, 0u);
  EXPECT_GT(r[0]->rejected, 200u) << "load 0.9 at one server of bound two";
  EXPECT_LT(r[1]->rejected * 4, r[0]->rejected) << "spread over two";
  EXPECT_GT(r[2]->retried, 0u);
  EXPECT_LT(r[2]->rejected, r[1]->rejected) << "a retry at the other server answers some";
  std::printf("rejected of 2000: one server %llu, two %llu, two with a retry %llu (%llu retried)\n",
              static_cast<unsigned long long>(r[0]->rejected), static_cast<unsigned long long>(r[1]->rejected),
              static_cast<unsigned long long>(r[2]->rejected), static_cast<unsigned long long>(r[2]->retried));
}

// Replies a client got after a fault healed are what liveness counts: a
// cut of the server that heals at 0.5 ms, clients sending till ~1.5 ms.
TEST(SimApiTest, LivenessCountsTheRepliesAfterTheLastFaultHealed) {
  sim::Report r;
  auto result = std::make_shared<loadgen::Result>();
  result->sent = 100;
  result->received = 70;
  result->last_sent_ns = 30'000'000;
  for (uint64_t i = 0; i < 70; ++i) result->recent_reply_ns[i % loadgen::Result::kRecentReplies] = i * 100'000;
  sim::HostReport h;
  h.name = "c1";
  h.client = true;
  h.result = result;
  r.hosts.push_back(h);
  sim::FaultOptions o;
  o.quiet_ms = 10;
  o.live_calls = 1;
  // Healed at 5 ms: replies at 5.0 .. 6.9 ms came after.
  EXPECT_EQ(sim::liveness(r, {{"srv", 1, 4}}, {}, o), "");
  o.live_calls = 20;
  EXPECT_EQ(sim::liveness(r, {{"srv", 1, 4}}, {}, o), "");
  o.live_calls = 21;
  EXPECT_NE(sim::liveness(r, {{"srv", 1, 4}}, {}, o).find("c1: 20 replies since the last fault healed at 5.000 ms"),
            std::string::npos);
  // A restart heals later than the cut: at 8 ms, nothing since.
  o.live_calls = 1;
  EXPECT_NE(sim::liveness(r, {{"srv", 1, 4}}, {{"srv", 3, 5}}, o).find("0 replies since"), std::string::npos);
  // Stopped sending before the quiet period ended: not judged.
  result->last_sent_ns = 17'000'000;
  EXPECT_EQ(sim::liveness(r, {{"srv", 1, 4}}, {{"srv", 3, 5}}, o), "");
  // A client crashed for good is not judged; one answered nothing is.
  result->received = 0;
  r.hosts[0].down = true;
  EXPECT_EQ(sim::liveness(r, {}, {}, o), "");
  r.hosts[0].down = false;
  EXPECT_NE(sim::liveness(r, {}, {}, o).find("none of its 100 requests"), std::string::npos);
}

}  // namespace
}  // namespace nanopu
