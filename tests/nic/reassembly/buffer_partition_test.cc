#include "nic/reassembly/buffer_partition.h"

#include <gtest/gtest.h>

namespace nanopu {
namespace {

PartitionParams params() {
  PartitionParams p;
  p.total_slots = 16;
  p.reserved_priority0_slots = 4;
  p.context_slots = 8;
  p.context_packets = 100;
  return p;
}

ContextUsage usage(uint8_t priority) {
  ContextUsage u;
  u.queue_capacity = 50;
  u.priority = priority;
  return u;
}

TEST(BufferPartitionTest, AdmitsWithinEveryShare) {
  BufferPartition b(params());
  EXPECT_EQ(b.admit(usage(1), 3, 0), Admission::kAdmit);
}

TEST(BufferPartitionTest, AContextCannotTakeMoreThanItsSlots) {
  BufferPartition b(params());
  ContextUsage u = usage(1);
  u.slots = 8;
  EXPECT_EQ(b.admit(u, 1, 8), Admission::kContextSlots);
}

TEST(BufferPartitionTest, AContextCannotHoardPackets) {
  BufferPartition b(params());
  ContextUsage u = usage(0);
  u.packets = 98;
  EXPECT_EQ(b.admit(u, 2, 1), Admission::kAdmit);
  EXPECT_EQ(b.admit(u, 3, 1), Admission::kContextPackets);
}

TEST(BufferPartitionTest, AdmittedMessagesAlwaysFitTheGlobalQueue) {
  BufferPartition b(params());
  ContextUsage u = usage(0);
  u.queued = 45;
  u.slots = 4;  // 45 queued + 4 completing + this one = 50
  EXPECT_EQ(b.admit(u, 1, 4), Admission::kAdmit);
  u.slots = 5;
  EXPECT_EQ(b.admit(u, 1, 5), Admission::kContextQueue);
}

// SLO-aware admission (NEBULA (ISCA'20) §IV-B): a context with an SLO
// rejects a new message once as many as its SLO allows are ahead of it,
// before any other share is asked; a context without one never.
TEST(BufferPartitionTest, AContextOverItsSloQueueRejectsForGood) {
  BufferPartition b(params());
  ContextUsage u = usage(0);
  u.slo_ahead = 3;
  u.ahead = 2;
  EXPECT_EQ(b.admit(u, 1, 0), Admission::kAdmit);
  u.ahead = 3;
  EXPECT_EQ(b.admit(u, 1, 0), Admission::kRejected);
  u.slots = 8;  // its slots used up too: the rejection says more
  EXPECT_EQ(b.admit(u, 1, 8), Admission::kRejected);
  u.slo_ahead = 0;
  u.ahead = 1000;
  EXPECT_EQ(b.admit(u, 1, 8), Admission::kContextSlots);
  NicCounters c;
  BufferPartition::count_refusal(Admission::kRejected, &c);
  EXPECT_EQ(c.rx_rejected_slo, 1u);
  EXPECT_EQ(c.rx_nack_context_full, 0u);
}

TEST(BufferPartitionTest, TheLastSlotsAreForPriorityZero) {
  BufferPartition b(params());
  // 12 of 16 slots taken by others: only priority 0 may have the last 4.
  EXPECT_EQ(b.admit(usage(1), 1, 12), Admission::kReserved);
  EXPECT_EQ(b.admit(usage(0), 1, 12), Admission::kAdmit);
  EXPECT_EQ(b.admit(usage(1), 1, 11), Admission::kAdmit);
}

}  // namespace
}  // namespace nanopu
