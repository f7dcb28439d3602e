// nanopu-sim as a user runs it: a topology's hosts, each the real runtime
// running nanopu-server's or nanopu-loadgen's program, on one modelled
// clock. One seed gives one run (the same results and trace hash, twice);
// another seed another; the shipped examples run unchanged; and what it
// cannot run is refused with the file and line. Faults, cuts and crashes:
// nanopu_sim_faults_test.cc.
#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "tests/tools/simulator/nanopu_sim_fixture.h"
#include "nanopu_test_paths.h"  // generated: the programs' paths (tests/CMakeLists.txt)

using namespace nanopu::testing::sim_cli;  // NOLINT: the fixture is this test's vocabulary

namespace {
// An echo server, a closed-loop client and an open-loop (Poisson) one through the switch.
constexpr char kEcho3[] =
    "switch sw --switch_gbps=100\n"
    "host srv 10.0.0.1 02:00:00:00:00:01 server  --app=echo --context=1\n"
    "host cla 10.0.0.2 02:00:00:00:00:02 loadgen --server_ip=10.0.0.1 --size=256 --outstanding=2 --count=3000\n"
    "host clb 10.0.0.3 02:00:00:00:00:03 loadgen --server_ip=10.0.0.1 --size=3000 --rate=200000 --count=1000\n"
    "link srv sw\nlink cla sw\nlink clb sw\n";

TEST_F(NanopuSimTest, OneSeedOneRunAnotherSeedAnother) {
  const std::string topo = write("echo3.topo", kEcho3);
  std::string first, second, other, err;
  ASSERT_EQ(sim({topo, "--sim_seed=7"}, &first, &err), 0) << first << err;
  EXPECT_NE(first.find(all_answered("3000")), std::string::npos) << first;
  EXPECT_NE(first.find(all_answered("1000")), std::string::npos) << first;
  EXPECT_NE(first.find("latency (modelled round trip, us)"), std::string::npos) << first;
  ASSERT_EQ(sim({topo, "--sim_seed=7", "--poll_every_host"}, &second), 0) << second;  // the same run
  EXPECT_EQ(hash_of(first).size(), 16u) << first;
  EXPECT_TRUE(same_run(first, second));
  ASSERT_EQ(sim({topo, "--sim_seed=8"}, &other), 0) << other;
  EXPECT_NE(hash_of(other), hash_of(first)) << "another seed, another run";
}

TEST_F(NanopuSimTest, TheChainReplicationExampleRunsUnchanged) {
  std::string out, err;
  ASSERT_EQ(sim(example("chain-4hosts.topo"), &out, &err), 0) << out << err;
  EXPECT_NE(out.find("== client (10.0.0.2, loadgen)"), std::string::npos) << out;
  EXPECT_NE(out.find("lost 0  given-up 0  bad 0  duplicated 0"), std::string::npos) << out;
  EXPECT_NE(out.find("WRITEs through 3 replicas"), std::string::npos) << out;
  EXPECT_NE(out.find("nanopu-sim: 4 hosts"), std::string::npos) << out;
}

// Each switch's frames from the "forwarded by switch:" line, by name.
std::map<std::string, uint64_t> forwarded_by(const std::string& out) {
  std::map<std::string, uint64_t> f;
  const size_t at = out.find("forwarded by switch:");
  if (at == std::string::npos) return f;
  std::istringstream line(out.substr(at + 20, out.find('\n', at) - at - 20));
  std::string name;
  uint64_t n = 0;
  while (line >> name >> n) f[name] = n;
  return f;
}

// A leaf-spine fabric (deploy/netns/examples/fabric-leafspine.topo), NDP's
// and Homa's real code on both ends: every request crosses a leaf, a spine
// and the other leaf, every reply comes back, the leaves spray packets
// over both spines, and one seed twice is one run. Without --spray the
// leaves hash each flow (a host pair, one way) onto one spine.
TEST_F(NanopuSimTest, ALeafSpineFabricCarriesNdpAndHomaOverBothSpinesAndReplays) {
  std::string out, err, again;
  ASSERT_EQ(sim(example("fabric-leafspine.topo"), &out, &err), 0) << out << err;
  const std::string all = all_answered("2000");
  ASSERT_NE(out.find(all), std::string::npos) << out;
  EXPECT_NE(out.find(all), out.rfind(all)) << "both clients, every request answered once\n" << out;
  std::map<std::string, uint64_t> f = forwarded_by(out);
  ASSERT_EQ(f.size(), 4u) << out;
  EXPECT_GT(f["s1"], 1000u) << out;  // sprayed: both spines carry a share
  EXPECT_GT(f["s2"], 1000u) << out;
  // Each frame crosses its sender's leaf, a spine and the other leaf (but
  // the few still on their way when the clients finished).
  EXPECT_NEAR(static_cast<double>(f["l1"] + f["l2"]), 2.0 * static_cast<double>(f["s1"] + f["s2"]), 64) << out;
  // Again with the hosts and switches split across two threads (each
  // running its share of every window): the same run, frame for frame.
  std::vector<std::string> args = example("fabric-leafspine.topo");
  args.push_back("--sim_threads=2");
  ASSERT_EQ(sim(args, &again), 0) << again;
  EXPECT_TRUE(same_run(out, again));

  std::string text = read_file(NANOPU_SOURCE_DIR "/deploy/netns/examples/fabric-leafspine.topo");
  for (const char* kind : {"server   --app", "loadgen  --server_ip"})
    for (size_t at = 0; (at = text.find(kind, at)) != std::string::npos; at += 20)
      text.insert(text.find(' ', at), " --transport=homa");
  for (size_t at; (at = text.find(" --spray")) != std::string::npos;) text.erase(at, 8);
  std::string homa;
  ASSERT_EQ(sim(idle_steps_under_asan({write("homa.topo", text)}), &homa, &err), 0) << homa << err;
  ASSERT_NE(homa.find(all), std::string::npos) << homa;
  EXPECT_NE(homa.find(all), homa.rfind(all)) << homa;
  f = forwarded_by(homa);
  EXPECT_GT(f["s1"] + f["s2"], 8000u) << homa;  // every request and reply crossed a spine
}

// The fabric again as two MPI ranks (mpirun -np 2): each process builds
// the whole topology and runs its share of the hosts and switches, and the
// frames that cross go between windows as bytes. The same run as in one
// process, frame for frame, its results printed once (by rank 0). More
// ranks than hosts and switches are refused, in every rank.
TEST_F(NanopuSimTest, TwoMpiRanksRunTheFabricAsOneProcessDoes) {
#ifndef NANOPU_MPIEXEC
  GTEST_SKIP() << "built without MPI (deploy/setup.sh installs Open MPI)";
#else
  // Under AddressSanitizer, no leak check in the ranks: Open MPI's plugins
  // keep memory past MPI_Finalize and are unloaded before LeakSanitizer can
  // name them (nanopu's own frees are checked by the one-process runs).
  const std::string env = nanopu::testing::kUnderAddressSanitizer ? "env ASAN_OPTIONS=abort_on_error=1:detect_leaks=0 " : "";
  const std::string mpirun = env + NANOPU_MPIEXEC + " --allow-run-as-root --oversubscribe -np ";
  // The fabric with a tenth of its requests: every window is an exchange
  // between the ranks, and beside a CPU hog each costs a timeslice (the
  // whole example took 3 s idle, over 240 s under ASan beside a hog).
  std::ifstream in(std::string(NANOPU_SOURCE_DIR "/deploy/netns/examples/fabric-leafspine.topo"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t at; (at = text.find("--count=2000")) != std::string::npos;) text.replace(at, 12, "--count=200");
  std::vector<std::string> fabric = example("fabric-leafspine.topo");
  fabric[0] = write("fabric-short.topo", text);
  std::string one, two, err;
  ASSERT_EQ(sim(fabric, &one, &err), 0) << one << err;
  ASSERT_EQ(sim(fabric, &two, &err, mpirun + "2 "), 0) << two << err;
  EXPECT_NE(two.find("on 1 thread in each of 2 ranks"), std::string::npos) << two;
  EXPECT_NE(one.find(all_answered("200")), std::string::npos) << one;
  EXPECT_TRUE(same_run(one, two));
  const std::string pair = write("pair.topo",
                                 "host a 10.0.0.1 02:00:00:00:00:01 server\n"
                                 "host b 10.0.0.2 02:00:00:00:00:02 loadgen --count=10\nlink a b\n");
  EXPECT_NE(sim({pair}, &one, &err, mpirun + "3 "), 0) << one << err;
  EXPECT_NE(err.find("pair.topo: 3 MPI ranks: the topology has 2 hosts and switches to share among ranks"),
            std::string::npos)
      << err;
#endif
}

// Raft's three servers elect a leader (their timeouts drawn from seeds the
// simulation gives them) and a client's 10,000 PUTs and GETs go through
// it, every reply checked, in about a second of wall time; and again, the
// same to the last frame.
TEST_F(NanopuSimTest, TheRaftExampleRunsUnchangedAndReplays) {
  std::string out, err, again;
  ASSERT_EQ(sim(example("raft-3servers.topo"), &out, &err), 0) << out << err;
  EXPECT_NE(out.find(all_answered("10000")), std::string::npos) << out;
  EXPECT_NE(err.find("is the leader of term"), std::string::npos) << err;
  ASSERT_EQ(sim(example("raft-3servers.topo"), &again), 0) << again;
  EXPECT_TRUE(same_run(out, again));
}

// 81 hosts, each its real program: 80 clients' 8 KB requests into one echo
// server's switch port overflow its queue, the switch trims, and NDP
// recovers every one. (Under AddressSanitizer 3 requests a client, not 50:
// the first burst already overflows the port.)
TEST_F(NanopuSimTest, TheEightyOneHostIncastRunsUnchanged) {
  std::string topo = NANOPU_SOURCE_DIR "/deploy/netns/examples/incast-81hosts.topo";
  std::string count = "50";
  if (nanopu::testing::kUnderAddressSanitizer) {
    std::string text = read_file(topo);
    for (size_t at; (at = text.find("--count=50")) != std::string::npos;) text.replace(at, 10, "--count=3");
    topo = write("incast.topo", text);
    count = "3";
  }
  std::string out, err;
  ASSERT_EQ(sim({topo}, &out, &err), 0) << out << err;
  const std::string line = all_answered(count);
  size_t answered = 0;
  for (size_t at = 0; (at = out.find(line, at)) != std::string::npos; ++at) ++answered;
  EXPECT_EQ(answered, 80u) << out;
  const size_t t = out.find("trimmed ");
  ASSERT_NE(t, std::string::npos) << out;
  EXPECT_GT(std::stoull(out.substr(t + 8)), 0u) << "the incast overflowed the server's port: " << out.substr(t);
}

// Each worker core has a clock of its own: two threads whose requests take
// 20 us of declared work (Thread::compute) each, served by two clients,
// finish about twice as many requests a modelled second on two worker
// cores as on one, which must take them one after the other (the round
// trips, well under a microsecond, overlap the work on one core only).
TEST_F(NanopuSimTest, EachWorkerCoreHasAClockOfItsOwn) {
  auto topo = [&](int workers) {
    const std::string w = std::to_string(workers);
    return write("w" + w + ".topo",
                 "switch sw\n"
                 "host srv 10.0.0.1 02:00:00:00:00:01 server --app=service --threads=2 --shared_workers=" + w + "\n"
                 "host cla 10.0.0.2 02:00:00:00:00:02 loadgen --server_context=1 --service_ns=20000 --count=400\n"
                 "host clb 10.0.0.3 02:00:00:00:00:03 loadgen --server_context=2 --service_ns=20000 --count=400\n"
                 "link srv sw\nlink cla sw\nlink clb sw\n");
  };
  auto modelled_s = [](const std::string& out) {
    const size_t at = out.find("modelled ", out.find("\nnanopu-sim: "));
    return at == std::string::npos ? 0.0 : std::stod(out.substr(at + 9));
  };
  std::string one, two;
  ASSERT_EQ(sim({topo(1)}, &one), 0) << one;
  ASSERT_EQ(sim({topo(2)}, &two), 0) << two;
  const double t1 = modelled_s(one), t2 = modelled_s(two);
  ASSERT_GT(t2, 0) << two;
  // 800 requests of 20 us: 16 ms on one core, about 8 ms on two.
  EXPECT_GT(t1, 16e-3) << one;
  EXPECT_GT(t1 / t2, 1.9) << one << two;
  EXPECT_LT(t1 / t2, 2.05) << one << two;
}


// A reply leaves when the server's core has done the work before it: a
// request of 2 us declared work (Thread::compute) takes 2 us more than the
// wire, both NICs and the messages' counted work. And hosts paired by
// links of their own (no switch) each talk on theirs.
TEST_F(NanopuSimTest, AThreadsWorkIsInItsRoundTripOnEveryLink) {
  const std::string topo = write("pairs.topo",
                                 "host sa 10.0.0.1 02:00:00:00:00:01 server --app=service\n"
                                 "host ca 10.0.0.2 02:00:00:00:00:02 loadgen --server_ip=10.0.0.1 --service_ns=2000 --count=200\n"
                                 "host sb 10.0.0.3 02:00:00:00:00:03 server --app=echo\n"
                                 "host cb 10.0.0.4 02:00:00:00:00:04 loadgen --server_ip=10.0.0.3 --count=200\n"
                                 "link sa ca\nlink cb sb\n");
  std::string out, err;
  ASSERT_EQ(sim({topo}, &out, &err), 0) << out << err;
  const size_t second = out.find("== cb");
  ASSERT_NE(second, std::string::npos) << out;
  const double service = p50_us(out), echo = p50_us(out.substr(second));
  EXPECT_GT(echo, 0.1) << out;
  EXPECT_GT(service, echo + 1.95) << "2 us of work: " << out;
  EXPECT_LT(service, echo + 2.2) << out;
  EXPECT_NE(out.find("sent 200  received 200  lost 0", second), std::string::npos) << out;
}

// JBSQ with real threads (nanoPU OSDI'21 §5.2.3's experiment): four worker
// cores' threads bind one context, 0.5% of the requests ask 5 us, the rest
// 500 ns. JBSQ(2) keeps short requests from queueing behind long ones, so
// its p99 is a fraction of a per-message random choice's. (The credit a
// core returns is seen at the core's own time, after the work charged to
// it: seen at the instant its poll ran, JBSQ sent the next message to a core
// still busy for 5 us, and was no better than random.)
TEST_F(NanopuSimTest, JbsqKeepsShortRequestsFromWaitingBehindLongOnes) {
  auto p99_of = [&](const std::string& policy) {
    const std::string topo = write(policy + ".topo",
        "host srv 10.0.0.1 02:00:00:00:00:01 server --app=service --context=1 --threads=4 --shared_context "
        "--shared_workers=4 --jbsq_n=2 --core_select=" + policy + "\n"
        "host cli 10.0.0.2 02:00:00:00:00:02 loadgen --server_context=1 --service_ns=500 --service_long_ns=5000 "
        "--service_long_fraction=0.005 --outstanding=200 --rate=2300000 --count=20000\n"
        "link srv cli\n");
    std::string out;
    EXPECT_EQ(sim({topo}, &out), 0) << out;
    EXPECT_NE(out.find(all_answered("20000")), std::string::npos) << out;
    return p99_us(out);
  };
  const double random = p99_of("random"), jbsq = p99_of("jbsq");
  EXPECT_GT(random, 3.0) << "a short request behind a 5 us one";
  EXPECT_LT(jbsq, random / 2) << "random " << random << " us, jbsq " << jbsq << " us";
}

// TIS in virtual time (its tick a simulation wakeup): a thread waiting for
// its message keeps the core until that message or the next tick (nanoPU
// OSDI'21 §3.3, the scheduler HTS is compared with), so a message for the
// other thread waits for the tick: at low load priority 0's p99 is near the
// 5 us tick, HTS's a round trip. The TIS run replays.
TEST_F(NanopuSimTest, UnderTisAMessageForTheOtherThreadWaitsForTheTick) {
  auto run = [&](const std::string& sched, std::string* out) {
    const std::string topo = write(sched + ".topo",
        "switch sw\n"
        "host srv 10.0.0.1 02:00:00:00:00:01 server --app=service --context=1 --threads=2 "
        "--thread_priorities=0,1 --scheduler=" + sched + " --tis_period_ns=5000\n"
        "host c0 10.0.0.2 02:00:00:00:00:02 loadgen --server_context=1 --service_ns=500 --rate=100000 --count=2000\n"
        "host c1 10.0.0.3 02:00:00:00:00:03 loadgen --server_context=2 --service_ns=500 --rate=100000 --count=2000\n"
        "link srv sw\nlink c0 sw\nlink c1 sw\n");
    return sim({topo}, out);
  };
  std::string hts, tis, again;
  ASSERT_EQ(run("hts", &hts), 0) << hts;
  ASSERT_EQ(run("tis", &tis), 0) << tis;
  ASSERT_EQ(run("tis", &again), 0) << again;
  EXPECT_NE(tis.find(all_answered("2000")), std::string::npos) << tis;
  const double h = p99_us(hts), t = p99_us(tis);
  ASSERT_GT(h, 0) << hts;
  EXPECT_GT(t, h + 2.5) << "HTS " << h << " us, TIS " << t << " us";
  EXPECT_LT(t, h + 5.5) << "at most a tick more: HTS " << h << " us, TIS " << t << " us";
  EXPECT_TRUE(same_run(tis, again));
}

// A client faster than its server: the server's context fills, its NIC
// holds back acknowledgements, the client's TX FIFO fills and its thread
// waits for room (Thread::wait_tx_room, reading replies meanwhile). That
// wait spins in modelled time (it once held the clock at one instant: the
// run never ended). The server's 20 us requests bound
// the throughput at 50,000 a second, and nothing is lost.
TEST_F(NanopuSimTest, AClientFasterThanItsServerWaitsInModelledTime) {
  const std::string topo = write("overload.topo",
      "host srv 10.0.0.1 02:00:00:00:00:01 server --app=service --context=1\n"
      "host cli 10.0.0.2 02:00:00:00:00:02 loadgen --server_context=1 --service_ns=20000 --rate=200000 "
      "--outstanding=250 --count=3000\n"
      "link srv cli\n");
  std::string out;
  ASSERT_EQ(sim({topo}, &out), 0) << out;
  EXPECT_NE(out.find(all_answered("3000")), std::string::npos) << out;
  const size_t at = out.find("throughput");
  ASSERT_NE(at, std::string::npos) << out;
  const double per_s = std::stod(out.substr(at + 10));
  EXPECT_GT(per_s, 45000) << out;
  EXPECT_LT(per_s, 50500) << out;
}

// An open loop's requests leave when they are due, to the picosecond: its
// round trips are the closed loop's (a wait that ended a clock step late
// used to add half a microsecond to each).
TEST_F(NanopuSimTest, AnOpenLoopSendsEachRequestWhenItIsDue) {
  const std::string hosts = "host srv 10.0.0.1 02:00:00:00:00:01 server --app=echo\n"
                            "host cli 10.0.0.2 02:00:00:00:00:02 loadgen --count=2000 ";
  std::string open, closed;
  ASSERT_EQ(sim({write("open.topo", hosts + "--rate=100000\nlink srv cli\n")}, &open), 0) << open;
  ASSERT_EQ(sim({write("closed.topo", hosts + "--outstanding=1\nlink srv cli\n")}, &closed), 0) << closed;
  ASSERT_GT(p50_us(closed), 0) << closed;
  EXPECT_EQ(p50_us(open), p50_us(closed)) << open << closed;
}

// Measured time charges what the threads' own code takes between their API
// calls — here the server's set intersection over its inverted index and
// the client's reference answer, computed after it stamps a request and
// before it sends it: microseconds on this machine; counted time charges
// the API's modelled cost and the few hundred cycles of work the service
// declares for the postings it merged (Thread::charge_work).
TEST_F(NanopuSimTest, MeasuredTimeChargesAServicesOwnCode) {
  const std::string topo = write("setint.topo",
                                 "host srv 10.0.0.1 02:00:00:00:00:01 server --app=setint\n"
                                 "host cli 10.0.0.2 02:00:00:00:00:02 loadgen --service=setint --count=500\n"
                                 "link srv cli\n");
  std::string counted, measured;
  ASSERT_EQ(sim({topo}, &counted), 0) << counted;
  ASSERT_EQ(sim({topo, "--charge=measured"}, &measured), 0) << measured;
  EXPECT_NE(measured.find("and measured (not replayable)"), std::string::npos) << measured;
  const double c = p50_us(counted), m = p50_us(measured);
  ASSERT_GT(c, 0) << counted;
  EXPECT_GT(m, c + 0.5) << "counted " << c << " us, measured " << m << " us";
}

// Counted time charges the work a service declares for what it did
// (Thread::charge_work): MICA's naive variant copies each SET's 64-word
// value through memory at 2 cycles a word, which the register-file variant
// does not, so every unloaded SET takes 128 cycles of the 3.2 GHz core
// (40 ns) longer, and nothing else differs.
TEST_F(NanopuSimTest, CountedTimeChargesTheWorkAServiceDeclares) {
  auto topo = [&](const std::string& variant) {
    return write(variant + ".topo",
                 "host srv 10.0.0.1 02:00:00:00:00:01 server --app=" + std::string(variant == "naive" ? "kv-naive" : "kv") +
                     "\nhost cli 10.0.0.2 02:00:00:00:00:02 loadgen --service=kv --kv_set_fraction=1 --count=300 "
                     "--kv_variant=" + variant + "\nlink srv cli\n");
  };
  std::string rf, naive;
  ASSERT_EQ(sim({topo("register-file")}, &rf), 0) << rf;
  ASSERT_EQ(sim({topo("naive")}, &naive), 0) << naive;
  const double min_rf = latency_column_us(rf, 0), min_naive = latency_column_us(naive, 0);
  ASSERT_GT(min_rf, 0) << rf;
  EXPECT_NEAR(min_naive - min_rf, 0.040, 0.0101) << rf << naive;  // printed to 10 ns
}

TEST_F(NanopuSimTest, WhatItCannotRunIsRefusedWithTheLine) {
  const std::string base = "host a 10.0.0.1 02:00:00:00:00:01 server";
  const std::string tail = "\nhost b 10.0.0.2 02:00:00:00:00:02 loadgen --count=10\nlink a b\n";
  const std::pair<std::string, std::string> cases[] = {
      {base + " --service=kv" + tail, "bad.topo:1: host a: unknown flag --service (program server has none)"},
      {base + " --backend=uring" + tail, "bad.topo:1: host a: --backend does not apply in virtual time"},
      {base + " --app=nope" + tail, "bad.topo:1: host a: program server: --app='nope'"},
      {"host a 10.0.0.1 02:00:00:00:00:01 counter\n" + tail.substr(1),
       "bad.topo:1: host a: no program 'counter' in this binary (it has server, loadgen or workload)"},
      {"host a 10.0.0.1 02:00:00:00:00:01 workload --workload=W9 --peers=10.0.0.2" + tail,
       "bad.topo:1: host a: program workload: --workload: unknown workload 'W9': want W1"},
      {"host a 10.0.0.1 02:00:00:00:00:01 workload --peers=10.0.0.1-1" + tail,
       "bad.topo:1: host a: program workload: --peers names no host but this one"},
      {"host a 10.0.0.1 02:00:00:00:00:01 workload --load=0.5 --rate=10 --peers=10.0.0.2" + tail,
       "bad.topo:1: host a: program workload: --load and --rate both set the arrival rate"},
      {base + tail + "host c 10.0.0.3 02:00:00:00:00:03 server --scheduler=tis\nswitch s\n",
       "bad.topo:4: host c has no link"},
      {"switch s --occupancy_csv=q.csv\n" + base + "\nhost b 10.0.0.2 02:00:00:00:00:02 loadgen\nlink a s\nlink b s\n",
       "bad.topo:1: switch s: --occupancy_csv: nanopu-sim models"},
  };
  for (const auto& [text, want] : cases) {
    std::string out, err;
    EXPECT_EQ(sim({write("bad.topo", text)}, &out, &err), 2) << text << out << err;
    EXPECT_NE(err.find(want), std::string::npos) << "wanted: " << want << "\n" << err;
  }
  std::string out, err;
  EXPECT_EQ(sim({write("ok.topo", base + tail), "--modelled_limit_s=0.000001"}, &out, &err), 1) << out << err;
  EXPECT_NE(err.find("had not finished after"), std::string::npos) << err;
  // More threads than hosts and switches to share among them; none.
  EXPECT_EQ(sim({write("ok.topo", base + tail), "--sim_threads=3"}, &out, &err), 2) << out << err;
  EXPECT_NE(err.find("ok.topo: --sim_threads=3: the topology has 2 hosts and switches to share among threads"),
            std::string::npos)
      << err;
  EXPECT_EQ(sim({write("ok.topo", base + tail), "--sim_threads=0"}, &out, &err), 2) << out << err;
  EXPECT_NE(err.find("--sim_threads must be in [1, 256]"), std::string::npos) << err;
}

}  // namespace
