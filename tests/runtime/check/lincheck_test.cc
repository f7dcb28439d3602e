// The linearizability checker (nanopu/lincheck.h) on hand-made histories,
// linearizable and not: the read that goes back in time (which the old
// version-window check let through), concurrent writes, operations that
// failed or whose outcome is unknown (did or did not take effect), the
// counter and versioned models, a violation on one key among several, the
// budget's honest "unknown", and histories that are no history at all.
#include "nanopu/lincheck.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace nanopu::lincheck {
namespace {

HistoryValue v(int64_t x) { return HistoryValue::of(x); }
HistoryValue null() { return HistoryValue::null(); }
HistoryValue pair(int64_t a, int64_t b) { return HistoryValue::of_list({a, b}); }

// A history written event by event.
class H {
 public:
  H& at(uint64_t process, uint64_t t, HistoryType type, const std::string& f, std::optional<int64_t> key,
        HistoryValue value) {
    e_.push_back(HistoryEvent{e_.size(), t, process, type, HistoryOp{f, key, std::move(value)}});
    return *this;
  }
  H& inv(uint64_t p, uint64_t t, const std::string& f, HistoryValue x = {}, std::optional<int64_t> key = 1) {
    return at(p, t, HistoryType::kInvoke, f, key, std::move(x));
  }
  H& ok(uint64_t p, uint64_t t, const std::string& f, HistoryValue x = {}, std::optional<int64_t> key = 1) {
    return at(p, t, HistoryType::kOk, f, key, std::move(x));
  }
  H& fail(uint64_t p, uint64_t t, const std::string& f, HistoryValue x = {}, std::optional<int64_t> key = 1) {
    return at(p, t, HistoryType::kFail, f, key, std::move(x));
  }
  H& info(uint64_t p, uint64_t t, const std::string& f, HistoryValue x = {}, std::optional<int64_t> key = 1) {
    return at(p, t, HistoryType::kInfo, f, key, std::move(x));
  }
  // A whole operation, invoke and completion.
  H& op(uint64_t p, uint64_t from, uint64_t to, const std::string& f, HistoryValue in, HistoryValue out,
        std::optional<int64_t> key = 1) {
    return inv(p, from, f, std::move(in), key).ok(p, to, f, std::move(out), key);
  }
  const std::vector<HistoryEvent>& events() const { return e_; }

 private:
  std::vector<HistoryEvent> e_;
};

Verdict verdict(const H& h, const std::string& model = "register") {
  absl::StatusOr<Result> r = check(h.events(), model);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->verdict : Verdict::kUnknown;
}

// A violation's window names each operation once, also when operations
// share an invoke time (the window was sorted by time alone and then
// deduplicated, so two reads invoked in the same nanosecond could list one
// of them twice: seen in a dst failure). Small random histories on a
// coarse clock, many with equal times.
TEST(LincheckTest, AWindowListsEachOperationOnceWhenTimesTie) {
  std::mt19937_64 rng(7);
  int violations = 0;
  for (int round = 0; round < 400; ++round) {
    struct Ev {
      uint64_t t;
      uint64_t p;
      bool invoke;
      std::string f;
      HistoryValue x;
    };
    std::vector<Ev> evs;
    for (uint64_t p = 0; p < 4; ++p) {
      uint64_t t = rng() % 3;
      for (int k = 0; k < 3; ++k) {
        const bool write = rng() % 2 == 0;
        const uint64_t end = t + 1 + rng() % 3;
        const int64_t val = static_cast<int64_t>(1 + rng() % 2);
        const HistoryValue read_out = rng() % 3 == 0 ? null() : v(val);
        evs.push_back({t * 10, p, true, write ? "write" : "read", write ? v(val) : null()});
        evs.push_back({end * 10, p, false, write ? "write" : "read", write ? v(val) : read_out});
        t = end + rng() % 2;
      }
    }
    std::stable_sort(evs.begin(), evs.end(), [](const Ev& a, const Ev& b) { return a.t < b.t; });
    H h;
    for (const Ev& e : evs) {
      if (e.invoke) h.inv(e.p, e.t, e.f, e.x);
      else h.ok(e.p, e.t, e.f, e.x);
    }
    absl::StatusOr<Result> r = check(h.events(), "register");
    ASSERT_TRUE(r.ok()) << r.status();
    if (r->verdict != Verdict::kNotLinearizable) continue;
    ++violations;
    std::set<uint64_t> distinct;
    for (const Operation& op : r->window) distinct.insert(op.invoke_index);
    ASSERT_EQ(distinct.size(), r->window.size()) << "round " << round << ":\n" << describe(*r);
  }
  EXPECT_GT(violations, 100);
}

TEST(LincheckTest, ASequentialRegisterIsLinearizable) {
  H h;
  h.op(0, 0, 1, "read", null(), null()).op(0, 2, 3, "write", v(1), v(1)).op(1, 4, 5, "read", null(), v(1));
  EXPECT_EQ(verdict(h), Verdict::kLinearizable);
}

// The issue's example: a PUT of v2 over [2, 12], a GET returns v2 over
// [3, 5], a later GET returns v1 over [6, 8]: a read going back in time.
// A per-key version window passes it; it is not linearizable.
TEST(LincheckTest, AReadThatGoesBackInTimeIsNot) {
  H h;
  h.op(0, 0, 1, "write", v(1), v(1));
  h.inv(1, 2, "write", v(2));
  h.op(2, 3, 5, "read", null(), v(2));
  h.op(3, 6, 8, "read", null(), v(1));
  h.ok(1, 12, "write", v(2));
  absl::StatusOr<Result> r = check(h.events(), "register");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict, Verdict::kNotLinearizable);
  EXPECT_EQ(r->key, std::optional<int64_t>(1));
  std::vector<uint64_t> processes;
  for (const Operation& op : r->window) processes.push_back(op.process);
  EXPECT_EQ(processes, (std::vector<uint64_t>{0, 1, 2, 3})) << describe(*r);
  const std::string text = describe(*r);
  EXPECT_NE(text.find("not linearizable"), std::string::npos) << text;
  EXPECT_NE(text.find("process 3 read(null) -> 1  6 .. 8"), std::string::npos) << text;
  // Without the last read it is.
  H before;
  before.op(0, 0, 1, "write", v(1), v(1)).inv(1, 2, "write", v(2)).op(2, 3, 5, "read", null(), v(2)).ok(1, 12, "write", v(2));
  EXPECT_EQ(verdict(before), Verdict::kLinearizable);
}

TEST(LincheckTest, ConcurrentWritesMayBeReadInEitherOrderButNotBoth) {
  H h;  // two overlapping writes; reads after both see one of them, the same one
  h.inv(0, 0, "write", v(1)).inv(1, 1, "write", v(2)).ok(0, 5, "write", v(1)).ok(1, 6, "write", v(2));
  h.op(2, 7, 8, "read", null(), v(1)).op(3, 9, 10, "read", null(), v(1));
  EXPECT_EQ(verdict(h), Verdict::kLinearizable);
  H flip = h;
  flip.op(4, 11, 12, "read", null(), v(2));  // after reading 1 twice, 2 again: which write came last?
  EXPECT_EQ(verdict(flip), Verdict::kNotLinearizable);
}

TEST(LincheckTest, AFailedWriteDidNotHappen) {
  H h;
  h.inv(0, 0, "write", v(7)).fail(0, 1, "write", v(7)).op(1, 2, 3, "read", null(), v(7));
  EXPECT_EQ(verdict(h), Verdict::kNotLinearizable) << "a fail is certain: nobody can read its value";
}

TEST(LincheckTest, AnInfoWriteMayOrMayNotHaveHappened) {
  H took;  // its value read later: it happened
  took.inv(0, 0, "write", v(7)).info(0, 1, "write", v(7)).op(1, 50, 51, "read", null(), v(7));
  EXPECT_EQ(verdict(took), Verdict::kLinearizable);
  H not_took;  // never seen: fine too
  not_took.op(2, 0, 1, "write", v(1), v(1)).inv(0, 2, "write", v(7)).info(0, 3, "write", v(7));
  not_took.op(1, 50, 51, "read", null(), v(1));
  EXPECT_EQ(verdict(not_took), Verdict::kLinearizable);
  H never_completed = not_took;  // an invoke with no completion at all is an info
  never_completed.inv(3, 60, "write", v(9));
  EXPECT_EQ(verdict(never_completed), Verdict::kLinearizable);
  H too_early;  // its value read before it was invoked
  too_early.op(1, 0, 1, "read", null(), v(7)).inv(0, 2, "write", v(7)).info(0, 3, "write", v(7));
  EXPECT_EQ(verdict(too_early), Verdict::kNotLinearizable);
  H lost_then_seen;  // an info write seen, then the value before it seen again: it cannot have happened twice
  lost_then_seen.op(2, 0, 1, "write", v(1), v(1)).inv(0, 2, "write", v(7)).info(0, 3, "write", v(7));
  lost_then_seen.op(1, 10, 11, "read", null(), v(7)).op(1, 12, 13, "read", null(), v(1));
  EXPECT_EQ(verdict(lost_then_seen), Verdict::kNotLinearizable);
}

TEST(LincheckTest, CompareAndSetHappensOnlyFromItsExpectedValue) {
  H h;
  h.op(0, 0, 1, "write", v(1), v(1)).op(0, 2, 3, "cas", pair(1, 2), pair(1, 2)).op(1, 4, 5, "read", null(), v(2));
  EXPECT_EQ(verdict(h), Verdict::kLinearizable);
  H bad;
  bad.op(0, 0, 1, "write", v(1), v(1)).op(0, 2, 3, "cas", pair(5, 2), pair(5, 2));
  EXPECT_EQ(verdict(bad), Verdict::kNotLinearizable) << "an ok cas from a value that was not there";
  H failed;
  failed.op(0, 0, 1, "write", v(1), v(1)).inv(0, 2, "cas", pair(5, 2)).fail(0, 3, "cas", pair(5, 2));
  failed.op(1, 4, 5, "read", null(), v(1));
  EXPECT_EQ(verdict(failed), Verdict::kLinearizable);
}

TEST(LincheckTest, ACounterCountsEveryIncrementOnce) {
  H h;
  h.inv(0, 0, "incr", null(), std::nullopt).inv(1, 1, "incr", v(5), std::nullopt);
  h.ok(0, 3, "incr", null(), std::nullopt).ok(1, 4, "incr", v(5), std::nullopt);
  h.op(2, 5, 6, "read", null(), v(6), std::nullopt);
  EXPECT_EQ(verdict(h, "counter"), Verdict::kLinearizable);
  H lost = h;
  lost.op(2, 7, 8, "read", null(), v(5), std::nullopt);
  EXPECT_EQ(verdict(lost, "counter"), Verdict::kNotLinearizable);
  H maybe;  // an info incr counts or not
  maybe.inv(0, 0, "incr", null(), std::nullopt).info(0, 1, "incr", null(), std::nullopt);
  maybe.op(1, 2, 3, "read", null(), v(1), std::nullopt);
  EXPECT_EQ(verdict(maybe, "counter"), Verdict::kLinearizable);
}

TEST(LincheckTest, VersionsMustRiseInTheOrderWritesTookEffect) {
  H h;
  h.op(0, 0, 1, "write", pair(10, 1), pair(10, 1)).op(0, 2, 3, "write", pair(20, 2), pair(20, 2));
  h.op(1, 4, 5, "read", null(), pair(20, 2));
  EXPECT_EQ(verdict(h, "versioned"), Verdict::kLinearizable);
  H back;
  back.op(0, 0, 1, "write", pair(10, 2), pair(10, 2)).op(0, 2, 3, "write", pair(20, 1), pair(20, 1));
  EXPECT_EQ(verdict(back, "versioned"), Verdict::kNotLinearizable) << "a version written after a higher one";
}

TEST(LincheckTest, KeysAreCheckedApartAndTheBrokenOneIsNamed) {
  H h;
  for (int64_t k = 0; k < 5; ++k) h.op(k, 10 * k, 10 * k + 1, "write", v(k), v(k), k).op(k, 10 * k + 2, 10 * k + 3, "read", null(), v(k), k);
  h.op(9, 100, 101, "read", null(), v(99), 3);
  absl::StatusOr<Result> r = check(h.events(), "register");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, Verdict::kNotLinearizable);
  EXPECT_EQ(r->key, std::optional<int64_t>(3));
  EXPECT_EQ(r->keys, 5u);
}

// Issue 71 item 8: a violation drawn — every operation of the failing key
// a box in its process's lane, those that cannot be ordered in red, an
// info one dashed; nothing for a linearizable history.
TEST(LincheckTest, AViolationIsDrawnWithTheUnorderedOperationsInRed) {
  H h;
  h.op(0, 0, 1, "write", v(1), v(1)).inv(1, 2, "write", v(2)).op(2, 3, 5, "read", null(), v(2));
  h.op(3, 6, 8, "read", null(), v(1)).ok(1, 12, "write", v(2)).inv(4, 13, "write", v(3));
  absl::StatusOr<Result> r = check(h.events(), "register");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->verdict, Verdict::kNotLinearizable);
  const std::string svg = timeline_svg(h.events(), *r);
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = svg.find(what); at != std::string::npos; at = svg.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  // The window and what overlaps it: every operation here but the info
  // write may be in view; each box in its process's lane.
  EXPECT_GE(count("<rect "), 2u) << svg;
  EXPECT_LE(count("<rect "), 5u) << svg;
  std::set<uint64_t> distinct;
  for (const Operation& op : r->window) distinct.insert(op.invoke_index);
  EXPECT_EQ(distinct.size(), r->window.size()) << "each operation of the window listed once";
  EXPECT_EQ(count("class=\"op unordered"), distinct.size()) << svg;
  EXPECT_EQ(count(">process ") - count("<title>process "), count("<rect ")) << svg;  // a lane a process
  EXPECT_NE(svg.find("read(null) \u2192 1"), std::string::npos) << svg;
  H fine;
  fine.op(0, 0, 1, "write", v(1), v(1)).op(1, 2, 3, "read", null(), v(1));
  r = check(fine.events(), "register");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(timeline_svg(fine.events(), *r), "");
}

TEST(LincheckTest, ASearchPastItsBudgetSaysUnknown) {
  H h;  // 40 concurrent writes of one key and reads that pin their order late: a wide search
  for (uint64_t p = 0; p < 40; ++p) h.inv(p, p, "write", v(static_cast<int64_t>(p)));
  for (uint64_t p = 0; p < 40; ++p) h.ok(p, 100 + p, "write", v(static_cast<int64_t>(p)));
  h.op(50, 200, 201, "read", null(), v(123456));  // never written: the search must try every order
  Limits tiny;
  tiny.max_states = 1000;
  absl::StatusOr<Result> r = check(h.events(), "register", tiny);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, Verdict::kUnknown);
  EXPECT_NE(describe(*r).find("the state budget ran out"), std::string::npos) << describe(*r);
}

TEST(LincheckTest, WhatIsNoHistoryIsRefusedNamingTheEvent) {
  const std::pair<H, std::string> cases[] = {
      {H().ok(0, 1, "read", null()), "event 0 (process 0): completes an operation it never invoked"},
      {H().inv(0, 5, "read").ok(0, 4, "read", null()), "event 1 (process 0): returns at 4 ns, before its invoke"},
      {H().inv(0, 0, "read").inv(0, 1, "read"), "event 1 (process 0): invokes while"},
      {H().inv(0, 0, "write", v(1)).info(0, 1, "write", v(1)).inv(0, 2, "read"), "event 2 (process 0): invokes after"},
      {H().inv(0, 0, "read").ok(0, 1, "write", v(1)), "event 1 (process 0): completes 'write' but invoked 'read'"},
      {H().op(0, 0, 1, "increment", null(), null()), "event 0: the register model has read, write and cas"},
      {H().op(0, 0, 1, "cas", v(1), v(1)), "event 0: a cas's value must be [expected, new]"},
  };
  for (const auto& [h, want] : cases) {
    absl::StatusOr<Result> r = check(h.events(), "register");
    ASSERT_FALSE(r.ok()) << want;
    EXPECT_EQ(std::string(r.status().message()).rfind(want, 0), 0u) << r.status() << "\nwanted: " << want;
  }
  absl::StatusOr<Result> r = check(H().op(0, 0, 1, "read", null(), null()).events(), "queue");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("unknown model 'queue'"), std::string::npos);
}

TEST(LincheckTest, HistoryLinesRoundTripAndBadLinesAreNamed) {
  const HistoryEvent e{3, 1200, 7, HistoryType::kOk, HistoryOp{"cas", -4, pair(1, 2)}};
  absl::StatusOr<HistoryEvent> back = parse_history_line(history_json(e));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, e);
  absl::StatusOr<HistoryEvent> jepsen = parse_history_line(
      R"({"type": "ok", "f": "read", "value": null, "process": 2, "time": 9, "index": 4, "error": ["x", {"y": 1}]})");
  ASSERT_TRUE(jepsen.ok()) << jepsen.status();
  EXPECT_EQ(jepsen->op.key, std::nullopt);
  for (const char* bad : {"", "[1,2]", R"({"time":1,"process":0,"type":"ok"})", R"({"time":1,"process":0,"type":"done","f":"read"})",
                          R"({"time":-1,"process":0,"type":"ok","f":"read"})", R"({"time":1.5,"process":0,"type":"ok","f":"read"})",
                          R"({"time":1,"process":0,"type":"ok","f":"read","value":"x"})", R"({"time":1,"process":0,"type":"ok","f":"read"} x)"})
    EXPECT_FALSE(parse_history_line(bad).ok()) << bad;
}

}  // namespace
}  // namespace nanopu::lincheck
