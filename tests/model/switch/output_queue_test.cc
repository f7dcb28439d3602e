// The one output-queue policy every switch of nanopu shares
// (model/switch/output_queue.h): a pure unit, on plain entries.
#include "model/switch/output_queue.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace nanopu::model {
namespace {

using Q = OutputQueue<std::string>;

struct Drops {
  std::vector<std::string> dropped;
  auto fn() {
    return [this](const std::string& e) { dropped.push_back(e); };
  }
};

auto trim_to_header() {
  return [](std::string& e, uint32_t* bytes) {
    e += "/trimmed";
    *bytes = 72;
    return true;
  };
}

TEST(OutputQueueTest, DataWaitsBehindControlAndATrimmedHeaderGoesFirst) {
  Q q(OutputQueueParams{2000, 1u << 20, /*trimming=*/true, /*priorities=*/false});
  Drops d;
  EXPECT_EQ(q.offer_data("a", 1000, 0, trim_to_header(), d.fn()), Q::Outcome::kQueued);
  EXPECT_EQ(q.offer_data("b", 1000, 0, trim_to_header(), d.fn()), Q::Outcome::kQueued);
  EXPECT_EQ(q.offer_data("c", 1000, 0, trim_to_header(), d.fn()), Q::Outcome::kTrimmed) << "the buffer is full";
  EXPECT_EQ(q.offer_control("ack", 128, d.fn()), Q::Outcome::kQueued);
  EXPECT_EQ(q.data_bytes(), 2000u);
  EXPECT_EQ(q.control_bytes(), 72u + 128u);
  std::vector<std::string> order;
  for (auto h = q.next(); h.entry != nullptr; h = q.next()) order.push_back(q.pop(h));
  EXPECT_EQ(order, (std::vector<std::string>{"c/trimmed", "ack", "a", "b"}));
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.data_bytes(), 0u);
  EXPECT_EQ(q.control_bytes(), 0u);
  EXPECT_TRUE(d.dropped.empty());
}

TEST(OutputQueueTest, WithoutTrimmingAFullBufferDropsTheTail) {
  Q q(OutputQueueParams{1500, 1u << 20, /*trimming=*/false, false});
  Drops d;
  EXPECT_EQ(q.offer_data("a", 1000, 0, trim_to_header(), d.fn()), Q::Outcome::kQueued);
  EXPECT_EQ(q.offer_data("b", 1000, 0, trim_to_header(), d.fn()), Q::Outcome::kTailDropped);
  EXPECT_EQ(d.dropped, (std::vector<std::string>{"b"}));
}

TEST(OutputQueueTest, AFullControlQueueDropsAndCountsATrimmedHeaderBoth) {
  Q q(OutputQueueParams{1000, 100, true, false});
  Drops d;
  EXPECT_EQ(q.offer_data("a", 1000, 0, trim_to_header(), d.fn()), Q::Outcome::kQueued);
  EXPECT_EQ(q.offer_data("b", 1000, 0, trim_to_header(), d.fn()), Q::Outcome::kTrimmed);  // 72 of 100
  const Q::Outcome o = q.offer_data("c", 1000, 0, trim_to_header(), d.fn());
  EXPECT_EQ(o, Q::Outcome::kTrimmedDropped);
  EXPECT_TRUE(Q::trimmed(o));
  EXPECT_TRUE(Q::control_dropped(o));
  EXPECT_EQ(q.offer_control("ack", 64, d.fn()), Q::Outcome::kControlDropped);
  EXPECT_EQ(d.dropped, (std::vector<std::string>{"c/trimmed", "ack"}));
  // A trim that cannot be made (no buffer for the copy) is a control drop.
  auto cannot = [](std::string&, uint32_t*) { return false; };
  EXPECT_EQ(q.offer_data("d", 1000, 0, cannot, d.fn()), Q::Outcome::kControlDropped);
}

TEST(OutputQueueTest, PrioritiesByTosShareOneBufferAndTheHighestGoesFirst) {
  Q q(OutputQueueParams{3000, 1u << 20, true, /*priorities=*/true});
  Drops d;
  EXPECT_EQ(q.offer_data("low", 1000, 1, trim_to_header(), d.fn()), Q::Outcome::kQueued);
  EXPECT_EQ(q.offer_data("high", 1000, 7, trim_to_header(), d.fn()), Q::Outcome::kQueued);
  EXPECT_EQ(q.offer_data("mid", 1000, 4, trim_to_header(), d.fn()), Q::Outcome::kQueued);
  EXPECT_EQ(q.offer_data("over", 1000, 7, trim_to_header(), d.fn()), Q::Outcome::kTrimmed) << "one buffer for all";
  std::vector<std::pair<std::string, int>> order;
  for (auto h = q.next(); h.entry != nullptr; h = q.next()) {
    const int level = h.level;
    order.emplace_back(q.pop(h), level);
  }
  EXPECT_EQ(order, (std::vector<std::pair<std::string, int>>{
                       {"over/trimmed", Q::kControl}, {"high", 7}, {"mid", 4}, {"low", 1}}));
  // Without priorities every TOS is queue 0, in arrival order.
  Q fifo(OutputQueueParams{3000, 1u << 20, true, false});
  (void)fifo.offer_data("x", 10, 1, trim_to_header(), d.fn());
  (void)fifo.offer_data("y", 10, 7, trim_to_header(), d.fn());
  auto h = fifo.next();
  EXPECT_EQ(h.level, 0);
  EXPECT_EQ(fifo.pop(h), "x");
}

TEST(OutputQueueTest, OnlyEligibleHeadsLeaveAndTheLeastHeadSaysWhen) {
  // A simulation's entries cross the switch in `latency`: each its time.
  using T = OutputQueue<std::pair<uint64_t, std::string>>;
  T q(OutputQueueParams{10000, 1u << 20, true, true});
  auto keep = [](std::pair<uint64_t, std::string>&, uint32_t*) { return true; };
  auto none = [](const std::pair<uint64_t, std::string>&) {};
  (void)q.offer_control({50, "ack"}, 64, none);
  (void)q.offer_data({10, "low"}, 100, 0, keep, none);
  (void)q.offer_data({30, "high"}, 100, 7, keep, none);
  auto at = [](uint64_t now) { return [now](const std::pair<uint64_t, std::string>& e) { return e.first <= now; }; };
  EXPECT_EQ(q.least_head([](const auto& e) { return e.first; }, UINT64_MAX), 10u);
  auto h = q.next(at(20));
  ASSERT_NE(h.entry, nullptr);
  EXPECT_EQ(h.entry->second, "low") << "control and the higher queue are not there yet";
  (void)q.pop(h);
  EXPECT_EQ(q.next(at(40)).entry->second, "high");
  EXPECT_EQ(q.next(at(60)).entry->second, "ack") << "control first once it is there";
  EXPECT_EQ(q.next(at(5)).entry, nullptr);
  std::vector<std::string> cleared;
  EXPECT_EQ(q.clear([&](const auto& e) { cleared.push_back(e.second); }), 2u);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.least_head([](const auto& e) { return e.first; }, UINT64_MAX), UINT64_MAX);
}

}  // namespace
}  // namespace nanopu::model
