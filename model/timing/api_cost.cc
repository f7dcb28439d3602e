#include "model/timing/api_cost.h"

#include <rte_mbuf.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "lib/contract/context_table.h"
#include "lib/contract/inline_msg.h"
#include "lib/contract/message.h"
#include "lib/contract/thread_fifos.h"
#include "nanopu/app_header.h"
#include "nanopu/thread.h"
#include "scheduler/worker.h"

namespace nanopu::model {
namespace {

constexpr uint32_t kIp = 0x7f000001;
constexpr uint16_t kContext = 1;
constexpr uint32_t kBatch = 32;  // messages in the RX FIFO at once

// Median on-core time, in ns, of echoing `rounds` messages of `bytes`.
double median_echo_ns(rte_mempool* pool, uint32_t bytes, int rounds, uint32_t instance) {
  absl::StatusOr<MsgFifo> rx = MsgFifo::create("apirx" + std::to_string(instance), 2 * kBatch);
  absl::StatusOr<MsgFifo> tx = MsgFifo::create("apitx" + std::to_string(instance), 2 * kBatch);
  if (!rx.ok() || !tx.ok()) return 0;
  ThreadFifos f;
  f.rx = std::move(*rx);
  f.tx[0] = std::move(*tx);
  // Small messages take the register path as a host's do (inline_msg.h):
  // the cost measured is the one the runs pay.
  const bool inline_rx = bytes <= kInlineBytes;
  if (bytes <= kInlineTxBytes) {
    f.tx_inline_slots = 4 * kBatch;
    f.tx_inline = std::make_unique<InlineTxMsg[]>(f.tx_inline_slots);
  }
  std::vector<InlineMsg> rx_slots(inline_rx ? kBatch : 0);
  ContextTable contexts(instance, 2 * kBatch);
  std::atomic<bool> stop{false};
  sched::WorkerParams wp;
  wp.max_threads = 1;
  wp.hts.bounded = false;
  wp.hts.idle_timeout = UINT64_MAX / 4;
  wp.hts.tis_period = UINT64_MAX / 4;
  sched::Worker worker(0, wp, &stop);
  const uint32_t words = (bytes + 7) / 8;
  absl::StatusOr<Thread*> t = worker.add_thread(0, &f, pool, &contexts, 65535, [&](Thread& th) {
    if (!th.bind(kContext).ok()) return;
    while (th.wait()) {  // the loopback: every word read is written back
      const AppHeader h = AppHeader::from_word(th.read());
      (void)th.write(AppHeader{h.ip, h.context, h.len}.word());
      for (uint32_t i = 0; i < words; ++i) (void)th.write(th.read());
      th.msg_done();
    }
  });
  if (!t.ok()) return 0;
  std::vector<double> ns;
  ns.reserve(static_cast<size_t>(rounds));
  (void)worker.run_once();  // binds, then waits
  while (ns.size() < static_cast<size_t>(rounds)) {
    uint32_t fed = 0;
    for (; inline_rx && fed < kBatch; ++fed) {  // the worker ends each batch before the next is fed
      InlineMsg& slot = rx_slots[fed];
      slot = InlineMsg{};
      slot.app_header = AppHeader{kIp, kContext, static_cast<uint16_t>(bytes)}.word();
      std::memset(slot.payload, 0x5a, bytes);
      (void)f.rx.push(inline_entry(&slot));
      f.nic[0].count_delivered(1);
    }
    for (; fed < kBatch; ++fed) {
      rte_mbuf* m = rte_pktmbuf_alloc(pool);
      if (m == nullptr || rte_pktmbuf_append(m, static_cast<uint16_t>(bytes)) == nullptr) {
        if (m != nullptr) rte_pktmbuf_free(m);
        break;
      }
      std::memset(rte_pktmbuf_mtod(m, void*), 0x5a, bytes);
      MsgMeta* meta = msg_meta(m);
      *meta = MsgMeta{};
      meta->app_header = AppHeader{kIp, kContext, static_cast<uint16_t>(bytes)}.word();
      (void)f.rx.push(m);
      f.nic[0].count_delivered(1);
    }
    if (fed == 0) break;
    (void)worker.run_once();
    while (rte_mbuf* m = f.tx[0].pop()) {
      ns.push_back(static_cast<double>(is_inline(m) ? inline_tx_of(m)->core_time : msg_meta(m)->core_time) / 16);
      free_fifo_entry(m);
    }
  }
  stop.store(true);
  (void)worker.run_once();  // the thread's wait() returns false: it ends
  sched::Worker::detach_os_thread();  // this OS thread runs no worker of ours any more
  while (rte_mbuf* m = f.rx.pop()) free_fifo_entry(m);
  while (rte_mbuf* m = f.tx[0].pop()) free_fifo_entry(m);
  if (ns.empty()) return 0;
  std::nth_element(ns.begin(), ns.begin() + static_cast<long>(ns.size() / 2), ns.end());
  return ns[ns.size() / 2];
}

}  // namespace

ApiCost measure_api_cost(int rounds) {
  static std::atomic<uint32_t> instance{0xca11b000};
  ApiCost c;
  const uint32_t id = instance.fetch_add(2);
  rte_mempool* pool = rte_pktmbuf_pool_create(("apicost" + std::to_string(id)).c_str(), 4 * kBatch + 63, 0,
                                              kMsgMetaBytes, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  if (pool == nullptr) return c;
  // Echo of P payload words: 2 + 2P words (a header each way).
  const double small = median_echo_ns(pool, 64, rounds, id);
  const double large = median_echo_ns(pool, 1024, rounds, id + 1);
  rte_mempool_free(pool);
  if (small <= 0 || large <= 0) return c;
  c.word_ns = std::max(0.0, (large - small) / (2.0 * (128 - 8)));
  c.message_ns = std::max(0.0, small - (2 + 2 * 8) * c.word_ns);
  c.ok = true;
  return c;
}

}  // namespace nanopu::model
