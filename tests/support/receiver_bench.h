// Test support for driving a transport's receiver by hand: a pool of
// message mbufs (with MsgMeta room, as the runtime's) and one context entry
// with its global RX queue; on teardown every mbuf must be back.
#pragma once

#include <gtest/gtest.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <string>

#include "lib/contract/context_table.h"
#include "lib/contract/message.h"

namespace nanopu::testing {

class ReceiverBench {
 public:
  // Call from SetUp (ASSERTs inside). tag names the pool; mbufs its size.
  void open(const std::string& tag, unsigned mbufs, uint16_t context) {
    static int n = 0;
    const std::string id = tag + std::to_string(n++);
    pool = rte_pktmbuf_pool_create(id.c_str(), mbufs, 0, kMsgMetaBytes, RTE_MBUF_DEFAULT_BUF_SIZE,
                                   SOCKET_ID_ANY);
    ASSERT_NE(pool, nullptr);
    auto queue = MsgFifo::create(id + "_q", 64);
    ASSERT_TRUE(queue.ok());
    ctx.context = context;
    ctx.held = std::move(*queue);
  }
  // Call from TearDown, after the receiver is gone.
  void close() {
    while (rte_mbuf* m = ctx.held.pop()) rte_pktmbuf_free(m);
    EXPECT_EQ(rte_mempool_in_use_count(pool), 0) << "a packet leaked";
    rte_mempool_free(pool);
    pool = nullptr;
  }

  rte_mempool* pool = nullptr;
  ContextEntry ctx;
};

}  // namespace nanopu::testing
