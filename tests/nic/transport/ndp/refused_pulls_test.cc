// The receiver's memory of messages it refused for want of room
// (nic/transport/ndp/refused_pulls.h): each is asked for again once its
// context has room beside what was already asked for, oldest first, as far
// as the pacer's credit goes; what comes back is forgotten, an ask that
// brings nothing waits again, and a message left waiting past the sender's
// longest timeout is left to its timer.
#include "nic/transport/ndp/refused_pulls.h"

#include <gtest/gtest.h>

#include <vector>

namespace nanopu {
namespace {

RefusedPulls::Entry refused(ContextEntry* dst, uint16_t id, uint64_t at) {
  RefusedPulls::Entry e;
  e.src_ip = 0x0a000002;
  e.nack_pull.tx_msg_id = id;
  e.nack_pull.buf_ptr = id;
  e.dst = dst;
  e.at = at;
  return e;
}

// A context with room for `room` messages: admits while fewer are pending.
struct Room {
  uint32_t room = 1;
  bool operator()(const ContextEntry*, uint32_t pending) const { return pending < room; }
};

std::vector<uint16_t> ask(RefusedPulls& r, uint64_t now, Room room, int credit = 100) {
  std::vector<uint16_t> asked;
  (void)r.ask_again(now, /*ask_expiry=*/10, /*wait_expiry=*/100, room, [&](const RefusedPulls::Entry& e) {
    if (credit-- <= 0) return false;
    asked.push_back(e.nack_pull.tx_msg_id);
    return true;
  });
  return asked;
}

TEST(RefusedPullsTest, AFreedBufferBringsBackOneMessageNotEveryOneWaiting) {
  ContextEntry ctx;
  RefusedPulls r;
  for (uint16_t id = 1; id <= 3; ++id) ASSERT_TRUE(r.refused(refused(&ctx, id, 0)));
  ASSERT_TRUE(r.refused(refused(&ctx, 2, 1)));  // its resend refused again: still one entry
  EXPECT_EQ(ask(r, 2, Room{1}), (std::vector<uint16_t>{1}));
  EXPECT_TRUE(ask(r, 3, Room{1}).empty()) << "1 is on its way: no room for another";
  r.arrived(0x0a000002, 1, 1);
  EXPECT_EQ(ask(r, 4, Room{1}), (std::vector<uint16_t>{2})) << "in the order first refused";
  r.arrived(0x0a000002, 2, 2);
  EXPECT_EQ(ask(r, 5, Room{1}), (std::vector<uint16_t>{3}));
  r.arrived(0x0a000002, 3, 3);
  EXPECT_TRUE(r.empty());
}

TEST(RefusedPullsTest, ContextsAreAskedForApartAndCreditBoundsEachTick) {
  ContextEntry a, b;
  RefusedPulls r;
  ASSERT_TRUE(r.refused(refused(&a, 1, 0)));
  ASSERT_TRUE(r.refused(refused(&b, 2, 0)));
  ASSERT_TRUE(r.refused(refused(&a, 3, 0)));
  EXPECT_EQ(ask(r, 1, Room{1}, /*credit=*/1), (std::vector<uint16_t>{1})) << "one packet of credit";
  EXPECT_EQ(ask(r, 2, Room{1}), (std::vector<uint16_t>{2})) << "b has room of its own; a's next waits";
}

TEST(RefusedPullsTest, AnAskThatBringsNothingWaitsAgainAndALongWaitIsLeftToTheTimer) {
  ContextEntry ctx;
  RefusedPulls r;
  ASSERT_TRUE(r.refused(refused(&ctx, 1, 0)));
  EXPECT_EQ(ask(r, 1, Room{1}), (std::vector<uint16_t>{1}));
  EXPECT_TRUE(ask(r, 5, Room{1}).empty());
  EXPECT_EQ(ask(r, 12, Room{1}), (std::vector<uint16_t>{1})) << "not back within ask_expiry: asked again";
  ASSERT_TRUE(r.refused(refused(&ctx, 2, 13)));
  EXPECT_TRUE(ask(r, 200, Room{0}).empty());
  EXPECT_TRUE(r.empty()) << "waited past wait_expiry: its sender's timer has it";
}

TEST(RefusedPullsTest, FullItLeavesTheRestToTheSendersTimer) {
  ContextEntry ctx;
  RefusedPulls r;
  for (uint16_t id = 0; id < RefusedPulls::kMax; ++id) ASSERT_TRUE(r.refused(refused(&ctx, id, 0)));
  EXPECT_FALSE(r.refused(refused(&ctx, 999, 0)));
}

}  // namespace
}  // namespace nanopu
