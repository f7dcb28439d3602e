// The NIC↔worker contract (lib/contract) on its own, with the real EAL's
// rings and mbufs: the FIFOs wrap and refuse when full and hand over in
// order; the context table binds per worker and survives binds and unbinds
// racing lookups; the doorbell and the futex word wake a sleeper and never
// lose a wake-up; a TX message is cut into the packets the wire carries.
#include <gtest/gtest.h>
#include <poll.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "lib/contract/context_table.h"
#include "lib/contract/message.h"
#include "lib/contract/msg_fifo.h"
#include "lib/contract/nic_cores.h"
#include "lib/contract/thread_fifos.h"
#include "lib/contract/tx_message.h"
#include "lib/contract/wakeup.h"
#include "lib/wire/frame.h"
#include "nanopu/app_header.h"
#include "tests/support/eal_env.h"

namespace nanopu {
namespace {

rte_mempool* pool() {
  static rte_mempool* p = rte_pktmbuf_pool_create("contract_test", 4095, 0, kMsgMetaBytes,
                                                  RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  return p;
}

// A tag in the mbuf's own data room (DPDK 22.11's mbuf has no user word).
uint64_t& tag(rte_mbuf* m) { return *rte_pktmbuf_mtod(m, uint64_t*); }

std::vector<rte_mbuf*> mbufs(unsigned n) {
  std::vector<rte_mbuf*> v(n);
  EXPECT_EQ(rte_pktmbuf_alloc_bulk(pool(), v.data(), n), 0);
  return v;
}

TEST(MsgFifoTest, HoldsExactlyItsCapacityAndRefusesTheNextWithoutLosingIt) {
  auto f = MsgFifo::create("fifo_full", 8);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->capacity(), 8u);
  std::vector<rte_mbuf*> m = mbufs(9);
  for (unsigned i = 0; i < 8; ++i) ASSERT_TRUE(f->push(m[i]));
  EXPECT_FALSE(f->push(m[8])) << "full";
  EXPECT_EQ(f->free_count(), 0u);
  EXPECT_EQ(f->push_burst(&m[8], 1), 0u) << "a burst into a full FIFO takes nothing";
  for (unsigned i = 0; i < 8; ++i) EXPECT_EQ(f->pop(), m[i]) << "in order";
  EXPECT_EQ(f->pop(), nullptr);
  EXPECT_TRUE(f->empty());
  for (rte_mbuf* x : m) rte_pktmbuf_free(x);
}

TEST(MsgFifoTest, WrapsAroundManyTimesInOrderInBursts) {
  auto f = MsgFifo::create("fifo_wrap", 16);
  ASSERT_TRUE(f.ok());
  std::vector<rte_mbuf*> m = mbufs(11);
  std::vector<rte_mbuf*> more = mbufs(11);
  uint64_t next_in = 0, next_out = 0;
  for (int round = 0; round < 500; ++round) {  // 11 in, 11 out: the indices wrap every other round
    rte_mbuf* in[11];
    for (unsigned i = 0; i < 11; ++i) {
      in[i] = m[i];
      tag(m[i]) = next_in++;
    }
    ASSERT_EQ(f->push_burst(in, 11), 11u);
    rte_mbuf* out[11];
    ASSERT_EQ(f->pop_burst(out, 11), 11u);
    for (rte_mbuf* x : out) EXPECT_EQ(tag(x), next_out++);
  }
  EXPECT_EQ(f->push_burst(m.data(), 11), 11u);
  EXPECT_EQ(f->push_burst(more.data(), 11), 5u) << "a burst past the end takes what fits";
  f->drain();  // frees the 16 it holds
  for (unsigned i = 5; i < 11; ++i) rte_pktmbuf_free(more[i]);
}

TEST(MsgFifoTest, OneProducerAndOneConsumerOnTwoThreadsLoseNothing) {
  auto f = MsgFifo::create("fifo_spsc", 64);
  ASSERT_TRUE(f.ok());
  constexpr uint64_t kMessages = 50000;
  std::vector<rte_mbuf*> m = mbufs(64);
  std::atomic<uint64_t> sum{0};
  std::thread consumer([&] {
    uint64_t got = 0, s = 0;
    while (got < kMessages) {
      rte_mbuf* b[16];
      const unsigned k = f->pop_burst(b, 16);
      for (unsigned i = 0; i < k; ++i) s += tag(b[i]);
      got += k;
      // Empty: let the producer run (the two threads may share a CPU with
      // the rest of the suite; spinning out a time slice is all a spin buys).
      if (k == 0) std::this_thread::yield();
    }
    sum = s;
  });
  for (uint64_t i = 0; i < kMessages; ++i) {
    rte_mbuf* x = m[i % 64];
    while (f->free_count() == 0) std::this_thread::yield();
    tag(x) = i;
    while (!f->push(x)) std::this_thread::yield();
  }
  consumer.join();
  EXPECT_EQ(sum.load(), kMessages * (kMessages - 1) / 2);
  for (rte_mbuf* x : m) rte_pktmbuf_free(x);
}

TEST(ContextTableTest, OneThreadPerWorkerPerContextAndUnbindFreesTheSlot) {
  ContextTable table(901, 16);
  ThreadFifos a, b, c;
  a.worker = 0;
  b.worker = 0;
  c.worker = 1;
  EXPECT_EQ(table.lookup(5), nullptr);
  ASSERT_TRUE(table.bind(5, &a).ok());
  EXPECT_EQ(table.bind(5, &b).code(), absl::StatusCode::kAlreadyExists) << "worker 0 holds it";
  ASSERT_TRUE(table.bind(5, &c).ok()) << "another worker may share the context (JBSQ)";
  ContextEntry* e = table.lookup(5);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->threads[0].load(), &a);
  EXPECT_EQ(e->threads[1].load(), &c);
  table.unbind(5, &a);
  EXPECT_EQ(e->threads[0].load(), nullptr);
  ASSERT_TRUE(table.bind(5, &b).ok()) << "free again";
  EXPECT_EQ(table.lookup(5), e) << "an entry lives as long as the table";
}

TEST(ContextTableTest, BindsAndUnbindsRacingTheNicsLookupsNeverShowATornEntry) {
  ContextTable table(902, 16);
  std::vector<ThreadFifos> fifos(4);
  for (uint32_t i = 0; i < fifos.size(); ++i) fifos[i].worker = i;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> seen{0};
  std::thread nic([&] {  // the NIC core's side: lookups, reads of the slots
    while (!stop.load(std::memory_order_acquire))
      for (uint16_t ctx = 1; ctx <= 8; ++ctx)
        if (ContextEntry* e = table.lookup(ctx)) {
          ASSERT_EQ(e->context, ctx);
          for (uint32_t w = 0; w < fifos.size(); ++w)
            if (ThreadFifos* t = e->threads[w].load(std::memory_order_acquire)) {
              ASSERT_EQ(t->worker, w) << "a slot only ever holds its own worker's thread";
              seen.fetch_add(1, std::memory_order_relaxed);
            }
        }
  });
  std::vector<std::thread> binders;
  for (uint32_t w = 0; w < fifos.size(); ++w)
    binders.emplace_back([&, w] {
      for (int i = 0; i < 2000; ++i) {
        const auto ctx = static_cast<uint16_t>(1 + i % 8);
        ASSERT_TRUE(table.bind(ctx, &fifos[w]).ok());
        table.unbind(ctx, &fifos[w]);
      }
    });
  for (std::thread& t : binders) t.join();
  stop = true;
  nic.join();
  for (uint16_t ctx = 1; ctx <= 8; ++ctx)
    for (uint32_t w = 0; w < fifos.size(); ++w) EXPECT_EQ(table.lookup(ctx)->threads[w].load(), nullptr);
}

TEST(ContextTableTest, SeveralNicCoresEachHaveTheirOwnEntryWithTheSameBindings) {
  ContextTable table(903, 16, 2);
  ThreadFifos a, c;
  a.worker = 0;
  c.worker = 1;
  ASSERT_TRUE(table.bind(7, &a).ok());
  ASSERT_TRUE(table.bind(7, &c).ok());
  ContextEntry* e0 = table.lookup(7, 0);
  ContextEntry* e1 = table.lookup(7, 1);
  ASSERT_NE(e0, nullptr);
  ASSERT_NE(e1, nullptr);
  EXPECT_NE(e0, e1) << "each NIC core its own global queue and buffer share";
  EXPECT_NE(&e0->held, &e1->held);
  EXPECT_EQ(e1->context, 7);
  EXPECT_EQ(e1->threads[0].load(), &a);
  EXPECT_EQ(e1->threads[1].load(), &c);
  table.unbind(7, &a);
  EXPECT_EQ(e1->threads[0].load(), nullptr) << "an unbind reaches every core's copy";
  EXPECT_EQ(table.bind(7, &c).code(), absl::StatusCode::kAlreadyExists);
}

TEST(SeveralNicCoresTest, EveryPeerHasOneOwnerAndPeersSpreadOverTheCores) {
  for (uint32_t n = 1; n <= kMaxNicCores; ++n) {
    std::vector<uint32_t> per(n);
    for (uint32_t ip = 0x0a000001; ip < 0x0a000001 + 4000; ++ip) {
      const uint32_t k = nic_core_for_peer(ip, n);
      ASSERT_LT(k, n);
      ++per[k];
    }
    for (uint32_t k = 0; k < n; ++k)  // consecutive addresses: within 25 % of an even share
      EXPECT_NEAR(per[k], 4000.0 / n, 1000.0 / n) << n << " cores, core " << k;
  }
}

TEST(SeveralNicCoresTest, JbsqCountsWhatEveryNicCoreDeliveredLessTheThreadsDones) {
  ThreadFifos f;
  f.nic_cores = 2;
  f.nic[0].count_delivered(3);
  f.nic[1].count_delivered(2);
  EXPECT_EQ(f.delivered(), 5u);
  EXPECT_EQ(f.outstanding(), 5u);
  f.done.store(4);
  EXPECT_EQ(f.outstanding(), 1u) << "a credit returns to whichever core chooses next";
  f.nic[1].count_delivered(-1);  // a full FIFO took one back
  EXPECT_EQ(f.outstanding(), 0u);
}

TEST(SeveralNicCoresTest, TwoNicCoresPushIntoOneRxFifoAndTheThreadLosesNothing) {
  auto f = MsgFifo::create("fifo_mp", 64, 2);
  ASSERT_TRUE(f.ok()) << f.status();
  // Every message its own buffer, freed only at the end: a buffer recycled
  // through the mempool between threads is a hand-off ThreadSanitizer
  // cannot see (lib/base/tsan_handoff.h).
  constexpr uint64_t kEach = 500;
  std::vector<rte_mbuf*> bufs[2] = {mbufs(kEach), mbufs(kEach)};
  std::atomic<bool> start{false};
  auto producer = [&](int p) {
    while (!start.load()) std::this_thread::yield();
    for (uint64_t i = 0; i < kEach; ++i) {
      tag(bufs[p][i]) = (uint64_t{static_cast<uint64_t>(p)} << 30) + i;
      while (!f->push(bufs[p][i])) std::this_thread::yield();  // three threads, maybe one CPU
    }
  };
  std::thread p0(producer, 0), p1(producer, 1);
  start = true;
  uint64_t next[2] = {0, 1u << 30}, got = 0;
  while (got < 2 * kEach) {
    rte_mbuf* m = f->pop();
    if (m == nullptr) {
      std::this_thread::yield();
      continue;
    }
    const uint64_t v = tag(m);
    const int from = v >= (1u << 30) ? 1 : 0;
    EXPECT_EQ(v, next[from]) << "each core's messages in its order";
    next[from] = v + 1;
    ++got;
  }
  p0.join();
  p1.join();
  EXPECT_TRUE(f->empty());
  for (auto& v : bufs) rte_pktmbuf_free_bulk(v.data(), static_cast<unsigned>(v.size()));
}

TEST(WakeupTest, ADoorbellRungAfterTheSleeperAnnouncedIsNeverLost) {
  Doorbell bell;
  ASSERT_GE(bell.fd(), 0);
  constexpr int kRounds = 2000;
  std::atomic<int> work{0}, done{0};
  int timeouts = 0;
  std::thread sleeper([&] {
    for (int round = 1; round <= kRounds; ++round) {
      bell.set_sleeping(true);    // announce,
      if (work.load() < round) {  // re-check, then sleep
        pollfd p{bell.fd(), POLLIN, 0};
        // A lost ring would sleep the whole timeout (a busy machine's
        // scheduler never takes 10 s to run the waker).
        if (::poll(&p, 1, 10000) == 0) ++timeouts;
      }
      bell.set_sleeping(false);
      bell.drain();
      while (work.load() < round) std::this_thread::yield();  // a wake-up left from a round before
      done.store(round);
    }
  });
  for (int round = 1; round <= kRounds; ++round) {
    work.store(round);  // publish, then look at the announcement
    bell.ring_if_sleeping();
    while (done.load() < round) std::this_thread::yield();
  }
  sleeper.join();
  EXPECT_EQ(timeouts, 0) << "a ring was lost";
}

TEST(WakeupTest, AFutexWaitReturnsOnWakeAndOnTimeout) {
  std::atomic<uint32_t> word{0};
  const auto t0 = std::chrono::steady_clock::now();
  futex_wait(&word, 0, 2000);  // nobody wakes it: the timeout
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::microseconds(1000));
  std::thread waker([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    word.store(1);
    futex_wake(&word);
  });
  while (word.load() == 0) futex_wait(&word, 0, 1000000);
  waker.join();
  EXPECT_EQ(word.load(), 1u);
  futex_wait(&word, 0, 1000000);  // the word moved: no wait at all
}

// The packets a message of `len` bytes is cut into: header room, then at
// most one segment of payload each (docs/wire.md).
TEST(TxMessageTest, AMessageIsCutIntoOnePacketPerSegmentWithHeaderRoomEach) {
  for (uint16_t len : {1, 8, 1023, 1024, 1025, 4096, 65535}) {
    rte_mbuf* m = alloc_tx_message(pool(), AppHeader{0x0a000001, 7, len}.word(), 3);
    ASSERT_NE(m, nullptr) << len;
    const auto packets = static_cast<unsigned>(wire::packets_for(len));
    EXPECT_EQ(m->nb_segs, packets) << len;
    EXPECT_EQ(m->pkt_len, len + packets * wire::kFrameHeaderBytes) << len;
    EXPECT_EQ(msg_meta(m)->src_context, 3);
    EXPECT_EQ(AppHeader::from_word(msg_meta(m)->app_header).len, len);
    unsigned i = 0, payload = 0;
    for (rte_mbuf* seg = m; seg != nullptr; seg = seg->next, ++i) {
      const size_t want = wire::segment_payload_bytes(len, static_cast<uint8_t>(i));
      EXPECT_EQ(seg->data_len, wire::kFrameHeaderBytes + want) << len << " packet " << i;
      EXPECT_EQ(tx_segment_words(seg), (want + 7) / 8);
      EXPECT_EQ(tx_segment_payload(seg), rte_pktmbuf_mtod(seg, uint8_t*) + wire::kFrameHeaderBytes);
      payload += seg->data_len - wire::kFrameHeaderBytes;
    }
    EXPECT_EQ(i, packets);
    EXPECT_EQ(payload, len);
    rte_pktmbuf_free(m);
  }
}

TEST(TxMessageTest, ALengthThatNoMessageHasOrAPoolTooSmallGivesNothingAndTakesNothing) {
  EXPECT_EQ(alloc_tx_message(pool(), AppHeader{0x0a000001, 7, 0}.word(), 3), nullptr);
  rte_mempool* tiny = rte_pktmbuf_pool_create("contract_tiny", 3, 0, kMsgMetaBytes,
                                              RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  ASSERT_NE(tiny, nullptr);
  EXPECT_EQ(alloc_tx_message(tiny, AppHeader{0x0a000001, 7, 4096}.word(), 3), nullptr)
      << "four packets from three buffers";
  EXPECT_EQ(rte_mempool_in_use_count(tiny), 0) << "all or nothing";
  rte_mempool_free(tiny);
}

}  // namespace
}  // namespace nanopu
