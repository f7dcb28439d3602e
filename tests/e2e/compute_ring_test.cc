// The compute services and Othello end to end through the real EAL on a
// net_ring pair:
// for each of set intersection, HD search, N-body, the packet classifier
// and the INT collector, on the register-file and the memory path, 1000
// random requests from nanopu-loadgen's client, every reply equal to the
// reference the client computes apart from the service; malformed requests
// get error replies and the thread keeps serving.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "apps/classifier/classifier_service.h"
#include "apps/compute/status_words.h"
#include "apps/hdsearch/hd_service.h"
#include "apps/inttel/int_collector.h"
#include "apps/nbody/nbody_service.h"
#include "apps/othello/othello_board.h"
#include "apps/othello/othello_protocol.h"
#include "apps/othello/othello_service.h"
#include "apps/setint/setint_service.h"
#include "nanopu/runtime.h"
#include "tests/support/eal_env.h"
#include "tests/support/ring_pair.h"
#include "tests/support/sanitizers.h"
#include "tests/support/test_hosts.h"
#include "tools/loadgen/othello_load.h"
#include "tools/loadgen/othello_reference.h"
#include "tools/loadgen/word_load.h"

namespace nanopu {
namespace {

constexpr uint32_t kServerIp = 0x0a000001, kClientIp = 0x0a000002;
constexpr uint16_t kServerContext = 40, kClientContext = 4;

using testing::Words;

void run_pair(const std::function<void(Thread&)>& serve, const std::function<void(Thread&)>& client) {
  testing::run_pair(kServerIp, kClientIp, serve, client);
}

// 1000 requests, `outstanding` at a time, from the client host's context.
apps::LoadGenOptions client_options(uint32_t outstanding) {
  apps::LoadGenOptions o;
  o.server_ip = kServerIp;
  o.server_context = kServerContext;
  o.context = kClientContext;
  o.outstanding = outstanding;
  o.count = 1000;
  o.drain_timeout_s = 5;
  o.progress = false;
  return o;
}

std::unique_ptr<apps::WordService> make_service(const std::string& name) {
  if (name == "setint") {
    absl::StatusOr<apps::Corpus> c = apps::load_corpus(apps::kDefaultCorpusDir);
    EXPECT_TRUE(c.ok()) << c.status();
    return std::make_unique<apps::SetIntersectionService>(std::make_shared<const apps::InvertedIndex>(*c));
  }
  if (name == "hdsearch") return std::make_unique<apps::HdSearchService>();
  if (name == "nbody") return std::make_unique<apps::NbodyService>();
  if (name == "classifier")
    return std::make_unique<apps::ClassifierService>(
        std::make_shared<const apps::TupleSpace>(apps::generate_rules(apps::kDefaultRules)));
  return std::make_unique<apps::IntCollector>();
}

struct Case {
  std::string service;
  apps::MessagePath path;
};

class ComputeRingTest : public ::testing::TestWithParam<Case> {};

TEST_P(ComputeRingTest, ThousandRandomRequestsMatchTheReference) {
  const Case& c = GetParam();
  std::unique_ptr<apps::WordService> service = make_service(c.service);
  absl::StatusOr<std::unique_ptr<apps::Workload>> w = apps::make_workload(c.service, {});
  ASSERT_TRUE(w.ok()) << w.status();
  apps::ComputeStats stats;
  apps::LoadGenResult r;
  apps::WordLoadResult wr;
  const apps::LoadGenOptions o = client_options(8);
  run_pair([&](Thread& t) { (void)apps::serve_words(t, kServerContext, 0, *service, c.path, &stats); },
           [&](Thread& t) { apps::run_word_client(t, o, **w, &r, &wr); });
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.received, o.count);
  EXPECT_GE(wr.checked, o.count);
  EXPECT_EQ(r.bad_replies + r.lost + r.given_up, 0u);
  EXPECT_EQ(stats.errors + stats.dropped, 0u);
  EXPECT_GE(stats.requests, o.count);
}

INSTANTIATE_TEST_SUITE_P(
    AllServices, ComputeRingTest,
    ::testing::Values(Case{"setint", apps::MessagePath::kRegisters}, Case{"setint", apps::MessagePath::kMemory},
                      Case{"hdsearch", apps::MessagePath::kRegisters}, Case{"hdsearch", apps::MessagePath::kMemory},
                      Case{"nbody", apps::MessagePath::kRegisters}, Case{"nbody", apps::MessagePath::kMemory},
                      Case{"classifier", apps::MessagePath::kRegisters},
                      Case{"classifier", apps::MessagePath::kMemory}, Case{"int", apps::MessagePath::kRegisters},
                      Case{"int", apps::MessagePath::kMemory}),
    [](const ::testing::TestParamInfo<Case>& i) {
      return i.param.service + (i.param.path == apps::MessagePath::kRegisters ? "Registers" : "Memory");
    });

Words call(Thread& t, const Words& payload) { return testing::call(t, kServerIp, kServerContext, payload); }

constexpr uint64_t kE = apps::kStatusError;

// Set queries of 0 and 9 words, a count the length disagrees with, and
// N-body requests before their CONFIG or with a NaN: error replies, and the
// thread still answers the next good request, on both paths.
TEST(ComputeRingTest, MalformedRequestsGetErrorRepliesAndServingGoesOn) {
  for (apps::MessagePath path : {apps::MessagePath::kRegisters, apps::MessagePath::kMemory}) {
    std::unique_ptr<apps::WordService> setint = make_service("setint");
    apps::ComputeStats stats;
    std::vector<Words> r;
    run_pair([&](Thread& t) { (void)apps::serve_words(t, kServerContext, 0, *setint, path, &stats); },
             [&](Thread& t) {
               ASSERT_TRUE(t.bind(kClientContext).ok());
               r.push_back(call(t, {0, 11, 0}));                             // 0 words
               r.push_back(call(t, {0, 12, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9}));  // 9 words
               r.push_back(call(t, {0, 13, 3, 1, 2}));                       // 3 named, 2 given
               r.push_back(call(t, {0, 14}));                                // no count
               r.push_back(call(t, {0, 15, 1, 1u << 30}));                   // an unknown word: no document
               r.push_back(call(t, {0, 16, 1, 0}));                          // the commonest word
             });
    ASSERT_EQ(r.size(), 6u);
    EXPECT_EQ(r[0], (Words{0, 11, kE, apps::kErrBadCount}));
    EXPECT_EQ(r[1], (Words{0, 12, kE, apps::kErrBadCount}));
    EXPECT_EQ(r[2], (Words{0, 13, kE, apps::kErrBadLength}));
    EXPECT_EQ(r[3], (Words{0, 14, kE, apps::kErrBadLength}));
    EXPECT_EQ(r[4], (Words{0, 15, 0}));
    ASSERT_GE(r[5].size(), 4u);
    EXPECT_EQ(r[5][2], r[5].size() - 3);
    EXPECT_GT(r[5][2], 50u) << "word 0 is in most of the 100 documents";
    EXPECT_EQ(stats.errors, 4u);
    EXPECT_EQ(stats.requests, 2u);

    apps::NbodyService nbody;
    apps::ComputeStats nstats;
    std::vector<Words> n;
    const uint64_t one = std::bit_cast<uint64_t>(1.0), zero = std::bit_cast<uint64_t>(0.0);
    run_pair([&](Thread& t) { (void)apps::serve_words(t, kServerContext, 0, nbody, path, &nstats); },
             [&](Thread& t) {
               ASSERT_TRUE(t.bind(kClientContext).ok());
               n.push_back(call(t, {apps::kNbodyRequest, one, one, 0x1'0000'0007}));  // before the CONFIG
               n.push_back(call(t, {apps::kNbodyConfig, zero, zero, 10, 5}));          // not answered
               n.push_back(call(t, {apps::kNbodyRequest, std::bit_cast<uint64_t>(std::nan("")), one, 8}));
               n.push_back(call(t, {apps::kNbodyRequest, one, 9}));                    // too short
               n.push_back(call(t, {7, one, one, 10}));                                // unknown type
               n.push_back(call(t, {apps::kNbodyRequest, one, zero, 11}));             // 1 / (1 + eps^2)
             });
    ASSERT_EQ(n.size(), 6u);
    EXPECT_EQ(n[0], (Words{apps::kNbodyError, apps::kErrNoConfig, uint64_t{7} << 32}));
    EXPECT_TRUE(n[1].empty());
    EXPECT_EQ(n[2], (Words{apps::kNbodyError, apps::kErrBadValue, uint64_t{8} << 32}));
    EXPECT_EQ(n[3], (Words{apps::kNbodyError, apps::kErrBadLength, uint64_t{9} << 32}));
    EXPECT_EQ(n[4], (Words{apps::kNbodyError, apps::kErrUnknownType, uint64_t{10} << 32}));
    EXPECT_EQ(n[5], (Words{apps::kNbodyReply, std::bit_cast<uint64_t>(1 / (1 + 1e-4)), uint64_t{11} << 32}));
    EXPECT_EQ(nstats.configs, 1u);
    EXPECT_EQ(nstats.errors, 4u);
  }
}

// Othello on one host (no workers: every MAP searched at the root): 1000
// random positions, each minimax equal to the plain recursive search. Under
// AddressSanitizer 250 (the same paths; the searches took 16 s there
// against 1.2 s in the normal build).
TEST(OthelloRingTest, ThousandSearchesMatchThePlainSearch) {
  apps::OthelloOptions oo;
  apps::OthelloStats stats;
  apps::LoadGenResult r;
  apps::OthelloLoadResult orr;
  apps::LoadGenOptions o = client_options(4);
  if (testing::kUnderAddressSanitizer) o.count = 250;
  apps::OthelloLoadOptions ol;
  ol.client_ip = kClientIp;
  ol.depth = 2;
  run_pair([&](Thread& t) { (void)apps::serve_othello(t, kServerIp, kServerContext, 0, oo, &stats); },
           [&](Thread& t) { apps::run_othello_client(t, o, ol, &r, &orr); });
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.received, o.count);
  EXPECT_EQ(orr.checked, o.count);
  EXPECT_EQ(r.bad_replies + r.lost + r.given_up, 0u);
  EXPECT_EQ(stats.searched, o.count);
  EXPECT_EQ(stats.errors + stats.stray + stats.send_failures, 0u);
}

// Bad MAPs get error replies, a stray REDUCE is dropped, the prototype's
// 56-byte MAP (no opponent word) is answered, and serving goes on.
TEST(OthelloRingTest, MalformedMessagesGetErrorsAndThePrototypeMapIsAnswered) {
  apps::OthelloOptions oo;
  apps::OthelloStats stats;
  std::vector<Words> r;
  const apps::Board start = apps::othello_start();
  const uint64_t me = apps::othello_host(kClientIp, kClientContext);
  run_pair([&](Thread& t) { (void)apps::serve_othello(t, kServerIp, kServerContext, 0, oo, &stats); },
           [&](Thread& t) {
             ASSERT_TRUE(t.bind(kClientContext).ok());
             r.push_back(call(t, {0, start.own, 9, 0, me, 1, 55, start.opp}));       // depth 9 > 8
             r.push_back(call(t, {0, 3, 2, 0, me, 2, 56, 1}));                     // overlapping bitboards
             r.push_back(call(t, {0, start.own, 2, 0, me, 3}));                    // too short
             r.push_back(call(t, {6, 1, 2, 3, 4}));                                // unknown type
             r.push_back(call(t, {1, me, 77, 5, 0}));                              // a REDUCE for no search: dropped
             r.push_back(call(t, {0, 0xff, 3, 0, me, 4, 57}));                     // 56 bytes: opponent empty
             r.push_back(call(t, {0, start.own, 3, 0, me, 5, 58, start.opp}));    // the opening, 3 plies
           });
  ASSERT_EQ(r.size(), 7u);
  EXPECT_EQ(r[0], (Words{apps::kOthelloError, apps::kErrBadValue, 1, 0, 55}));
  EXPECT_EQ(r[1], (Words{apps::kOthelloError, apps::kErrBadValue, 2, 0, 56}));
  EXPECT_EQ(r[2], (Words{apps::kOthelloError, apps::kErrBadLength, 0, 0, 0}));
  EXPECT_EQ(r[3], (Words{apps::kOthelloError, apps::kErrUnknownType, 0, 0, 0}));
  EXPECT_TRUE(r[4].empty());
  EXPECT_EQ(r[5], (Words{apps::kOthelloReduce, me, 4, static_cast<uint64_t>(8 * apps::kOthelloWin), 57}));
  const int64_t opening = apps::ref_negamax(apps::ref_from_bitboards(start.own, start.opp), 3);
  EXPECT_EQ(r[6], (Words{apps::kOthelloReduce, me, 5, static_cast<uint64_t>(opening), 58}));
  EXPECT_EQ(stats.stray, 1u);
  EXPECT_EQ(stats.errors, 4u);
}

}  // namespace
}  // namespace nanopu
