#include "nic/nic_core.h"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_prefetch.h>

#include <algorithm>
#include <cstdio>

#include "lib/contract/message.h"
#include "nanopu/address.h"
#include "nanopu/app_header.h"
#include "nic/pipeline/tester_stamp.h"
#include "nic/transport/homa/homa_transport.h"
#include "nic/transport/ndp/ndp_transport.h"

namespace nanopu {

NicCore::NicCore(const NicParams& params, rte_mempool* pool, const ContextTable* contexts)
    : params_(params),
      neighbors_(params.gateway_mac),
      pipeline_(params.host_ip, contexts, &neighbors_, &counters_),
      packetizer_(params.host_ip, params.host_mac, &neighbors_, pool),
      selector_(params.core_select, params.jbsq_n, kBurst),
      ndp_(std::make_unique<NdpTransport>(params.ndp, pool, &counters_)),
      homa_(std::make_unique<HomaTransport>(params.homa, pool, &counters_)),
      peer_protocols_(params.protocol),
      ethdev_(params.port_id),
      io_(params.io != nullptr ? params.io : &ethdev_),
      waiter_(params.io != nullptr ? std::vector<uint16_t>{} : std::vector<uint16_t>{params.port_id},
              doorbell_.fd(), params.io != nullptr ? params.io->rx_event_fd() : -1),
      link_(LinkWatchParams{params.port_id, params.io == nullptr, params.reconnect_link,
                            rte_get_tsc_hz() / 10, rte_get_tsc_hz() / 4, params.link_kernel_iface}) {
  if (params.faults.any())
    faults_ = std::make_unique<FaultInjector>(params.faults, pool, rte_get_tsc_hz());
  pending_.reserve(ContextTable::kContexts);
  staged_.reserve(64);
}

NicCore::~NicCore() {
  for (TxBatch* b : {&control_, &data_, &deferred_})
    for (unsigned i = 0; i < b->n; ++i) rte_pktmbuf_free(b->pkts[i]);
  for (uint16_t i = 0; i < stash_n_; ++i) rte_pktmbuf_free(stash_[i]);
}

unsigned NicCore::poll() {
  ++counters_.nic_polls;
  now_ = rte_rdtsc();
  unsigned work = 0;
  if (params_.defer_control && !params_.control_after_data) flush(deferred_);

  rte_mbuf* rx[2 * kBurst];
  uint16_t n = 0;
  if (stash_n_ != 0) {  // frames found while arming the RX interrupt
    std::copy(stash_, stash_ + stash_n_, rx);
    n = stash_n_;
    stash_n_ = 0;
  }
  if (link_.port_started())
    n += io_->rx_burst(rx + n, static_cast<uint16_t>(kBurst - n));
  if (faults_) {
    n = faults_->apply(rx, n, 2 * kBurst, now_);
    const FaultCounters& f = faults_->counters();
    counters_.fault_dropped = f.dropped;
    counters_.fault_duplicated = f.duplicated;
    counters_.fault_reordered = f.reordered;
    counters_.fault_corrupted = f.corrupted;
    counters_.fault_mangled = f.mangled;
    counters_.fault_trimmed = f.trimmed;
  }
  // The mbufs first, all at once (a zero-copy PMD hands over ones another
  // core wrote), then each frame's header one ahead.
  for (uint16_t i = 0; i < n; ++i) rte_prefetch0(rx[i]);
  for (uint16_t i = 0; i < n; ++i) {
    if (i + 1 < n) rte_prefetch0(rte_pktmbuf_mtod(rx[i + 1], void*));
    wire::FrameHeader h;
    size_t payload = 0;
    const PipelineResult r = pipeline_.classify(rx[i], &h, &payload);
    switch (r.kind) {
      case PipelineResult::Kind::kData:
        peer_protocols_.heard(h.src_ip, h.protocol);
        transport_for(h.protocol).on_data(rx[i], h, payload, r.dst, now_, *this);
        break;
      case PipelineResult::Kind::kControl:
        transport_for(h.protocol).on_control(rx[i], h, now_, *this);
        break;
      case PipelineResult::Kind::kDrop:
        rte_pktmbuf_free(rx[i]);
        break;
    }
  }
  work += n;
  if (!pending_.empty()) work += service_pending();
  if (!staged_.empty()) push_all_staged();  // the workers start on them now

  // Gather complete messages from every thread's TX FIFO, as many as the
  // transport has slots for (the rest wait in the FIFOs: back-pressure).
  for (size_t ti = 0; ti < threads_.size(); ++ti) {
    ThreadFifos* t = threads_[ti];
    rte_mbuf* msgs[kBurst];
    // Either transport may get any of them: room in both.
    const unsigned room =
        std::min({kBurst, ndp_->tx_capacity(), homa_->tx_capacity()});
    if (room == 0) break;
    const unsigned k = t->tx.pop_burst(msgs, room);
    // The worker core wrote these: each first touch is a cache miss from
    // the other core (a third of the NIC core's time in the rate benchmark
    // went to the first read of the MsgMeta). Ask for all of them at once
    // so the misses overlap, then for each message's data one ahead.
    for (unsigned i = 0; i < k; ++i) {
      rte_prefetch0(msgs[i]);                                  // data_off, lengths
      rte_prefetch0(reinterpret_cast<uint8_t*>(msgs[i]) + 64);  // next (segments)
      rte_prefetch0(msg_meta(msgs[i]));
    }
    for (unsigned i = 0; i < k; ++i)  // the first payload line (after the header room)
      rte_prefetch0(rte_pktmbuf_mtod_offset(msgs[i], const uint8_t*, wire::kFrameHeaderBytes));
    for (unsigned i = 0; i < k; ++i) {
      ++counters_.tx_msgs;
      MsgMeta* meta = msg_meta(msgs[i]);
      meta->sender = static_cast<uint16_t>(ti);
      if (params_.tester_timestamps && meta->src_context == kTesterStampContext) [[unlikely]]
        (void)stamp_tx(msgs[i], AppHeader::from_word(meta->app_header).len, tester_cycle(now_, tsc_hz_));
      transport_for(peer_protocols_.lookup(AppHeader::from_word(meta->app_header).ip))
          .on_message(msgs[i], now_, *this);
    }
    work += k;
  }
  const bool holding = holding_for_link(now_);
  if (!holding) {
    ndp_->on_tick(now_, *this);
    homa_->on_tick(now_, *this);
  }
  counters_.outbound_in_use = ndp_->outbound_in_use() + homa_->outbound_in_use();
  counters_.reassembly_in_use = ndp_->inbound_in_use() + homa_->inbound_in_use();
  // Its own period, not every poll: reading the workers' signals pulls
  // lines they write on every message (a signal goes at most 1/8 late).
  if (params_.async_preempt_after_tsc != 0 && now_ >= next_async_check_tsc_) {
    next_async_check_tsc_ = now_ + params_.async_preempt_after_tsc / 8;
    check_async_preemption(now_);
  }
  if (params_.watchdog_tsc != 0 && now_ >= next_watchdog_tsc_) check_watchdog(now_);
  (void)link_.poll(now_, &counters_);
  if (holding && link_.up()) {
    // Back: what waited for the link goes out now, not at its backed-off timer.
    ndp_->on_tick(now_, *this);
    homa_->on_tick(now_, *this);
  }

  // Control before data, except on a socket port (control_after_data, see
  // NicParams). On a shared core (defer_control) this poll's control
  // packets wait for the next poll; the previous poll's leave now (at the
  // poll's start, or after the data on a socket port).
  if (params_.control_after_data) flush(data_);
  if (params_.defer_control) {
    if (params_.control_after_data) flush(deferred_);
    for (unsigned i = 0; i < control_.n; ++i) enqueue(deferred_, control_.pkts[i]);
    control_.n = 0;
  } else {
    flush(control_);
  }
  if (!params_.control_after_data) flush(data_);
  io_->flush();
  if (!staged_.empty()) push_all_staged();  // delivered by a tick
  if (to_wake_ != 0) wake_workers();
  if (work == 0) ++counters_.nic_idle_polls;
  return work;
}

void NicCore::message_failed(uint16_t sender, uint32_t dst_ip, uint16_t dst_context) {
  if (sender < threads_.size()) threads_[sender]->tx_failed.fetch_add(1, std::memory_order_relaxed);
  // A line per episode, not per message: a dead peer fails many at once.
  ++give_ups_unreported_;
  const uint64_t now = rte_rdtsc();
  if (now < next_give_up_report_tsc_) return;
  next_give_up_report_tsc_ = now + rte_get_tsc_hz();
  std::fprintf(stderr,
               "nanopu: gave up %llu message(s), the last to %s context %u: %u retransmissions "
               "unanswered (is the peer up?) or refused by a restarted peer (nic.tx_msgs_failed, "
               "nic.tx_msgs_refused; the sender sees Thread::tx_failures())\n",
               static_cast<unsigned long long>(give_ups_unreported_), format_ipv4(dst_ip).c_str(),
               dst_context, params_.ndp.max_timeouts);
  give_ups_unreported_ = 0;
}

void NicCore::wake_workers() {
  // One fence and one load per worker delivered to in this poll, not per message.
  for (uint64_t m = to_wake_; m != 0; m &= m - 1)
    workers_[static_cast<size_t>(__builtin_ctzll(m))]->wake_if_sleeping();
  to_wake_ = 0;
}

bool NicCore::quiescent() const {
  // A message being received is paced by PULLs and timed by the reassembly
  // sweep; JBSQ-held messages wait for credits the NIC must see; the
  // fault-injecting wire may hold frames back. Messages being sent only wait
  // for ACKs and their retransmission timers: the sleep is bounded by the
  // next timer (idle_or_sleep), so a peer that went away (its last ACKs
  // never coming) does not keep this NIC spinning until it gives up.
  return ndp_->inbound_in_use() == 0 && homa_->inbound_in_use() == 0 && pending_.empty() && deferred_.n == 0 &&
         control_.n == 0 && data_.n == 0 && stash_n_ == 0 && faults_ == nullptr;
}

bool NicCore::still_idle() {
  stash_n_ = link_.port_started() ? io_->rx_burst(stash_, kBurst) : 0;
  if (stash_n_ != 0) return false;
  for (const ThreadFifos* t : threads_)
    if (!t->tx.empty()) return false;
  return true;
}

void NicCore::idle_or_sleep(unsigned work, bool workers_idle) {
  if (!params_.adaptive_poll) return;
  if (work != 0 || !workers_idle) {
    if (idle_since_ != 0) waiter_.reset();
    idle_since_ = 0;
    return;
  }
  const uint64_t now = rte_rdtsc();
  if (idle_since_ == 0) idle_since_ = now;
  // Waiting for the link, nothing can progress: sleep whatever is in flight.
  const bool holding = holding_for_link(now);
  if (now - idle_since_ < params_.idle_spin_tsc || (!holding && !quiescent())) return;
  uint32_t sleep_us = kMaxSleepUs;
  if (const uint64_t deadline = std::min(ndp_->next_timer_deadline(), homa_->next_timer_deadline());
      !holding && deadline != UINT64_MAX) {
    if (deadline <= now) return;  // a timer is due: poll
    const uint64_t tsc_per_us = std::max<uint64_t>(1, rte_get_tsc_hz() / 1000000);
    sleep_us = static_cast<uint32_t>(std::min<uint64_t>(kMaxSleepUs, (deadline - now) / tsc_per_us));
    if (sleep_us == 0) return;
  }
  doorbell_.set_sleeping(true);  // then re-check (still_idle), then sleep
  const bool slept = waiter_.sleep(sleep_us, [this] { return still_idle(); });
  doorbell_.set_sleeping(false);
  if (!slept) return;
  doorbell_.drain();
  ++counters_.nic_sleeps;
  // idle_since_ stays: with nothing new the next poll sleeps again at once
  // (any work resets it, and then the spin starts over).
}

ThreadFifos* NicCore::choose(ContextEntry* e, uint64_t hash, bool* no_thread) const {
  uint32_t outstanding[kMaxWorkers];
  bool bound[kMaxWorkers];
  ThreadFifos* fifos[kMaxWorkers];
  const size_t w = params_.workers;
  bool any = false;
  for (size_t i = 0; i < w; ++i) {
    fifos[i] = e->threads[i].load(std::memory_order_acquire);
    bound[i] = fifos[i] != nullptr;
    outstanding[i] = bound[i] ? fifos[i]->outstanding() : 0;
    any |= bound[i];
  }
  *no_thread = !any;
  const int i = any ? selector_.select(outstanding, bound, w, hash) : CoreSelector::kHold;
  return i == CoreSelector::kHold ? nullptr : fifos[i];
}

bool NicCore::push_to(ThreadFifos* t, rte_mbuf* msg, ContextEntry* e) {
  e->packets -= msg->nb_segs;  // out of the NIC's custody either way
  if (t->staged_n == ThreadFifos::kStagedMax) push_staged(t);
  if (t->staged_n == 0) staged_.push_back(t);
  t->staged[t->staged_n++] = msg;
  ++t->delivered;
  ++counters_.rx_msgs_delivered;
  return true;
}

void NicCore::push_staged(ThreadFifos* t) {
  const uint32_t n = t->staged_n;
  const unsigned pushed = t->rx.push_burst(t->staged, n);
  if (pushed < n) [[unlikely]] {  // a full FIFO (RSS, static; JBSQ never overfills one)
    counters_.rx_drop_fifo_full += n - pushed;
    counters_.rx_msgs_delivered -= n - pushed;
    t->delivered -= n - pushed;
    rte_pktmbuf_free_bulk(t->staged + pushed, n - pushed);
  }
  t->staged_n = 0;
  if (pushed == 0) return;
  if (params_.adaptive_poll) to_wake_ |= uint64_t{1} << t->worker;
  t->signals->on_delivery(t->priority.load(std::memory_order_relaxed), now_);
}

void NicCore::push_all_staged() {
  for (ThreadFifos* t : staged_)
    if (t->staged_n != 0) push_staged(t);
  staged_.clear();
}

bool NicCore::deliver(rte_mbuf* msg, ContextEntry* dst) {
  if (params_.tester_timestamps && dst->context == kTesterStampContext) [[unlikely]] {
    const MsgMeta* meta = msg_meta(msg);
    (void)stamp_rx(msg, AppHeader::from_word(meta->app_header).len, tester_cycle(meta->nic_tsc, tsc_hz_));
  }
  // FIFO order per context: while older messages wait, newer ones queue too.
  if (dst->held.empty()) {
    const AppHeader src = AppHeader::from_word(msg_meta(msg)->app_header);
    bool no_thread = false;
    ThreadFifos* t = choose(dst, flow_hash(src.ip, src.context), &no_thread);
    if (no_thread) {
      ++counters_.rx_drop_no_thread;
      dst->packets -= msg->nb_segs;
      rte_pktmbuf_free(msg);
      return false;
    }
    if (t != nullptr) return push_to(t, msg, dst);
  }
  if (!dst->held.push(msg)) {  // cannot happen for admitted messages (buffer_partition.h)
    ++counters_.rx_drop_queue_full;
    dst->packets -= msg->nb_segs;
    rte_pktmbuf_free(msg);
    return false;
  }
  ++counters_.rx_msgs_queued;
  if (!dst->pending) {
    dst->pending = true;
    pending_.push_back(dst);
  }
  return true;
}

unsigned NicCore::service_pending() {
  // nanoPU §3.2: when a core returns a credit (its thread's done counter
  // moves), forward the context's next message to it. Only JBSQ holds
  // messages, and its choice does not depend on the message.
  unsigned moved = 0;
  for (size_t k = 0; k < pending_.size();) {
    ContextEntry* e = pending_[k];
    while (!e->held.empty()) {
      bool no_thread = false;
      ThreadFifos* t = choose(e, 0, &no_thread);
      if (no_thread) {
        counters_.rx_drop_no_thread += e->held.count();
        while (rte_mbuf* m = e->held.pop()) {
          e->packets -= m->nb_segs;
          rte_pktmbuf_free(m);
        }
        break;
      }
      if (t == nullptr) break;  // every core at n: wait for a credit
      (void)push_to(t, e->held.pop(), e);
      ++moved;
    }
    if (e->held.empty()) {
      e->pending = false;
      pending_[k] = pending_.back();
      pending_.pop_back();
    } else {
      ++k;
    }
  }
  return moved;
}

void NicCore::check_async_preemption(uint64_t now) {
  if (kicks_.size() != workers_.size()) kicks_.assign(workers_.size(), Kick{});
  for (size_t i = 0; i < workers_.size(); ++i) {
    CoreSignals* s = workers_[i];
    if (!s->async_enabled.load(std::memory_order_relaxed)) continue;
    // The episode: a raised preempt word, or the running thread's t0 deadline.
    uint64_t since = UINT64_MAX;
    if (s->preempt.load(std::memory_order_relaxed) != 0)
      since = s->preempt_raised_tsc.load(std::memory_order_relaxed);
    const uint64_t deadline = s->deadline_tsc.load(std::memory_order_relaxed);
    if (deadline < since) since = deadline;
    if (since == UINT64_MAX || now < since || now - since < params_.async_preempt_after_tsc)
      continue;
    // A signal that lands in nanopu's own code is left to the next safe
    // point, which code that never calls the API does not reach: signal the
    // episode again, waiting twice as long each time (up to a millisecond),
    // so a stuck thread is always preempted and never flooded.
    Kick& k = kicks_[i];
    if (k.episode == since && now - k.sent_tsc < k.retry_tsc) continue;
    k.retry_tsc = k.episode == since ? std::min<uint64_t>(2 * k.retry_tsc, rte_get_tsc_hz() / 1000)
                                     : params_.async_preempt_after_tsc;
    k.episode = since;
    k.sent_tsc = now;
    if (s->kick()) ++counters_.async_preempt_signals;
  }
}

void NicCore::check_watchdog(uint64_t now) {
  next_watchdog_tsc_ = now + params_.watchdog_tsc / 16 + 1;
  if (watchdog_flagged_.size() != workers_.size()) watchdog_flagged_.assign(workers_.size(), 0);
  for (size_t i = 0; i < workers_.size(); ++i) {
    const uint64_t since = workers_[i]->busy_since_tsc.load(std::memory_order_relaxed);
    if (since == 0 || now < since || now - since < params_.watchdog_tsc) continue;
    if (watchdog_flagged_[i] == since) continue;  // this episode is counted
    watchdog_flagged_[i] = since;
    ++counters_.watchdog_stuck;
    // Rare and worth a line: a thread holds its core without msg_done.
    std::fprintf(stderr,
                 "nanopu: watchdog: worker core %zu has been on one message for over %.0f ms "
                 "without msg_done\n",
                 i, static_cast<double>(params_.watchdog_tsc) * 1e3 / static_cast<double>(rte_get_tsc_hz()));
  }
}

void NicCore::send_data(rte_mbuf* m, uint32_t dst_ip, const wire::TransportHeader& h,
                        size_t payload_bytes) {
  packetizer_.frame_data(m, dst_ip, h, payload_bytes);
  ++counters_.tx_data_packets;
  if (h.protocol == wire::kIpProtoHoma) ++counters_.tx_homa_packets;
  enqueue(data_, m);
}

void NicCore::send_control(uint32_t dst_ip, const wire::TransportHeader& h) {
  rte_mbuf* m = packetizer_.make_control(dst_ip, h);
  if (m == nullptr) {
    ++counters_.tx_drop_no_mbuf;
    return;
  }
  ++counters_.tx_control_packets;
  if (h.protocol == wire::kIpProtoHoma) ++counters_.tx_homa_packets;
  enqueue(control_, m);
}

void NicCore::enqueue(TxBatch& b, rte_mbuf* m) {
  if (b.n == std::size(b.pkts)) flush(b);
  if (b.n == std::size(b.pkts)) {  // the port still refuses: drop, counted
    ++counters_.tx_drop_port_full;
    rte_pktmbuf_free(m);
    return;
  }
  b.pkts[b.n++] = m;
}

void NicCore::flush(TxBatch& b) {
  if (b.n == 0) return;
  if (!link_.port_started()) {  // restarting: the transport retransmits what is lost here
    counters_.tx_drop_link_down += b.n;
    for (unsigned i = 0; i < b.n; ++i) rte_pktmbuf_free(b.pkts[i]);
    b.n = 0;
    return;
  }
  const uint16_t sent = io_->tx_burst(b.pkts, static_cast<uint16_t>(b.n));
  // Keep what the port did not take for the next iteration (back-pressure);
  // enqueue() drops only when a whole batch is still stuck.
  for (unsigned i = sent; i < b.n; ++i) b.pkts[i - sent] = b.pkts[i];
  b.n -= sent;
}

}  // namespace nanopu
