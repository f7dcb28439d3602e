#include "nic/nic_core.h"

#include <rte_ethdev.h>
#include <rte_prefetch.h>

#include <algorithm>

#include "lib/base/log.h"
#include "lib/base/nic_buggify.h"
#include "lib/contract/inline_msg.h"
#include "lib/contract/message.h"
#include "nanopu/address.h"
#include "nanopu/app_header.h"
#include "nic/pipeline/tester_stamp.h"

namespace nanopu {

namespace {

// The DPDK ports whose RX interrupt wakes an idle NIC core: the host's
// (unless frames come through another PacketIo) and the OS's.
std::vector<uint16_t> wake_ports(const NicParams& p) {
  std::vector<uint16_t> ports;
  if (p.io == nullptr) ports.push_back(p.port_id);
  if (p.os_port_id >= 0) ports.push_back(static_cast<uint16_t>(p.os_port_id));
  return ports;
}

}  // namespace

NicCore::NicCore(const NicParams& params, rte_mempool* pool, const ContextTable* contexts)
    : params_(params),
      pool_(pool),
      neighbors_(params.gateway_mac),
      pipeline_(params.host_ip, contexts, &neighbors_, &counters_, params.nic_core, params.os_io != nullptr,
                params.port_checks_ipv4 && params.io == nullptr && params.program == nullptr &&
                    !params.faults.any()),
      packetizer_(params.host_ip, params.host_mac, &neighbors_, pool),
      selector_(params.core_select, params.jbsq_n, single_binding_bound(params)),
      dispatch_(params.nic_core, params.nic_cores, params.inboxes),
      peer_protocols_(params.protocol),
      ethdev_(params.port_id, params.rx_queue, params.tx_queue),
      io_(params.io != nullptr ? params.io : &ethdev_),
      link_(LinkWatchParams{params.port_id, params.io == nullptr, params.reconnect_link,
                            clock::hz() / 10, clock::hz() / 4, params.link_kernel_iface}),
      tx_(io_, &link_, &counters_, params.defer_control, params.control_after_data),
      os_(params.os_io, &counters_),
      program_(params.program),
      watch_(params.async_preempt_after_tsc, params.watchdog_tsc, clock::hz()),
      idle_(params.adaptive_poll, params.idle_spin_tsc, clock::hz(), wake_ports(params),
            params.io != nullptr ? params.io->rx_event_fd() : -1) {
  idle_room_ = kBurst;
  for (size_t i = 0; i < kTransportProtocols.size(); ++i) {
    transports_[i] = make_transport(kTransportProtocols[i], params.transports, pool, &counters_);
    idle_room_ = std::min(idle_room_, transports_[i]->tx_capacity());
  }
  if (params.faults.any())
    faults_ = std::make_unique<FaultInjector>(params.faults, pool, clock::hz());
  if (params.egress_program != nullptr) tx_.set_egress(params.egress_program, pool);
  pending_.reserve(ContextTable::kContexts);
  staged_.reserve(64);
}

NicCore::~NicCore() {
  for (uint16_t i = 0; i < stash_n_; ++i) rte_pktmbuf_free(stash_[i]);
  for (rte_mbuf* m : not_ready_) free_fifo_entry(m);  // an inline slot is the thread's
  for (const auto& held : held_tx_)
    for (rte_mbuf* m : held) free_fifo_entry(m);
}

unsigned NicCore::poll() {
  const unsigned received = poll_receive();
  return received + poll_finish(received, /*fresh_clock=*/false);
}

unsigned NicCore::poll_receive() {
  stages_.begin();
  ++counters_.nic_polls;
  now_ = clock::ticks();
  // The packets the last poll took and sent are its own work, not a stall.
  const uint64_t packets = counters_.rx_packets + counters_.tx_data_packets + counters_.tx_control_packets;
  stall_probe_.turn(now_, stall_probe_.work_allowance(packets - packets_at_turn_));
  packets_at_turn_ = packets;
  tx_.begin_poll();
  unsigned work = receive();
  if (os_.active()) [[unlikely]] work += forward_from_os();
  if (spin_ != nullptr && spin_->hpu_count() != 0) [[unlikely]]
    work += spin_->poll_hpus(*this);  // what the HPU lcores finished
  if (!pending_.empty()) work += service_pending();
  if (!staged_.empty()) push_all_staged();  // the workers start on them now
  stages_.mark(NicStage::kDeliver);
  return work;
}

unsigned NicCore::poll_finish(unsigned received, bool fresh_clock) {
  stages_.mark(NicStage::kWorkers);
  if (fresh_clock) {  // the workers ran since poll_receive: their time is not watched
    // Their last read on this core (a reply's end, a thread parking) is
    // now to within a fiber switch: taken rather than read again.
    now_ = clock::last_read();
    stall_probe_.resume(now_);
    ++credit_epoch_;  // and returned credits: read them again (done_this_poll)
  }
  if (spin_ != nullptr && spin_->has_sends()) [[unlikely]]
    spin_->flush(*this);  // what handlers sent in this poll's receive (or a tick's delivery)
  const unsigned work = gather();
  // What the workers just wrote leaves before the timers and the link
  // checks run (a few hundred ns on this VM's shared core: net_ring's round
  // trip p50 went from 2.59 to 1.90 us with this flush alone).
  if (fresh_clock && work != 0) {
    tx_.end_poll();
    stages_.mark(NicStage::kTx);
  }
  const bool was_holding = holding_for_link(now_);
  tick_transports(received + work != 0);
  watch_.poll(now_, workers_, &counters_);
  poll_link(was_holding);
  stages_.mark(NicStage::kTick);
  tx_.end_poll();
  stages_.mark(NicStage::kTx);
  if (!staged_.empty()) push_all_staged();  // delivered by a tick
  if (to_wake_ != 0) wake_workers();
  stages_.mark(NicStage::kDeliver);
  stages_.end();
  if (received + work == 0) ++counters_.nic_idle_polls;
  return work;
}

unsigned NicCore::receive() {
  rte_mbuf* rx[2 * kBurst];
  uint16_t n = 0;
  if (stash_n_ != 0) {  // frames found while arming the RX interrupt
    std::copy(stash_, stash_ + stash_n_, rx);
    n = stash_n_;
    stash_n_ = 0;
  }
  if (link_.port_started()) n += io_->rx_burst(rx + n, static_cast<uint16_t>(kBurst - n));
  if (faults_) {
    n = faults_->apply(rx, n, 2 * kBurst, now_);
    copy_fault_counters();
  }
  if (dispatch_.active()) n = dispatch_.hand_off(rx, n, 2 * kBurst, &counters_);
  if (program_ != nullptr) [[unlikely]] n = run_program(rx, n);
  stages_.mark(NicStage::kRx);
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
      case PipelineResult::Kind::kOs:
        os_.to_os(rx[i]);
        break;
      case PipelineResult::Kind::kDrop:
        rte_pktmbuf_free(rx[i]);
        break;
    }
  }
  if (os_.active()) [[unlikely]] os_.flush();
  stages_.mark(NicStage::kClassify);
  return n;
}

uint16_t NicCore::run_program(rte_mbuf** rx, uint16_t n) {
  // A program may send out more than it took (a mirror session, frames an
  // earlier burst left inside it): the fast path's are gathered apart and
  // kept up to rx's room (2 × kBurst), the rest dropped, counted.
  rte_mbuf* fast[2 * kBurst];
  uint16_t kept = 0;
  for (uint16_t off = 0; off < n; off = static_cast<uint16_t>(off + SwxProgram::kMaxBurst)) {
    const auto k = static_cast<uint16_t>(std::min<int>(n - off, SwxProgram::kMaxBurst));
    // In-band telemetry (a program that reads nanopu_meta): the hop's
    // clock, read after the frames arrived (not the poll's start: a peer
    // on another core may have sent them since), and the burst they came in.
    HopValues hop;
    if (program_->reads_hop())
      hop = {clock::now_ns(), n};
    const SwxProgram::RunResult r = program_->run(rx + off, k, &program_out_, hop);
    counters_.rx_program_stuck += r.stuck;
    counters_.rx_program_dropped += r.dropped;
    for (size_t port = 0; port < program_out_.size(); ++port)
      for (rte_mbuf* m : program_out_[port]) {
        if (port == 0 && kept < 2 * kBurst) {
          fast[kept++] = m;  // the fast path: the fixed pipeline and the transports
        } else if (port == 1 && os_.active()) {
          os_.to_os(m);
        } else {
          ++counters_.rx_program_dropped;
          rte_pktmbuf_free(m);
        }
      }
  }
  std::copy(fast, fast + kept, rx);  // the OS's go at receive()'s flush
  return kept;
}

unsigned NicCore::forward_from_os() {
  rte_mbuf* frames[kBurst];
  const uint16_t n = os_.from_os(frames, kBurst);
  for (uint16_t i = 0; i < n; ++i) tx_.control(frames[i]);  // as the kernel framed them
  return n;
}

void NicCore::copy_fault_counters() {
  const FaultCounters& f = faults_->counters();
  counters_.fault_dropped = f.dropped;
  counters_.fault_duplicated = f.duplicated;
  counters_.fault_reordered = f.reordered;
  counters_.fault_corrupted = f.corrupted;
  counters_.fault_mangled = f.mangled;
  counters_.fault_trimmed = f.trimmed;
}

uint32_t NicCore::tx_room() const {
  // Any transport may get any message: room in all (one not yet in use
  // has every slot free).
  uint32_t room = active_ == (1u << kTransportProtocols.size()) - 1 ? kBurst : idle_room_;
  for_active([&](const Transport& t) { room = std::min(room, t.tx_capacity()); });
  return room;
}

unsigned NicCore::gather() {
  // Complete messages from every thread's TX FIFO, as many as the transports
  // have slots for (the rest wait in the FIFOs: back-pressure).
  unsigned work = 0;
  for (size_t ti = 0; ti < threads_.size(); ++ti) {
    if (held_tx_[ti].empty() && not_ready_[ti] == nullptr && tx_fifo(threads_[ti]).empty()) continue;
    const unsigned room = tx_room();
    if (room == 0) break;
    rte_mbuf* msgs[kBurst];
    const unsigned k = take_tx(ti, msgs, room);
    stages_.mark(NicStage::kGather);
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
      const AppHeader a = AppHeader::from_word(meta->app_header);
      if (meta->src_context == params_.stamp_context) [[unlikely]]
        (void)stamp_tx(msgs[i], a.len, tester_cycle(now_, tsc_hz_));
      transport_for(peer_protocols_.lookup(a.ip)).on_message(msgs[i], now_, *this);
    }
    stages_.mark(NicStage::kSend);
    work += k;
  }
  return work;
}

void NicCore::tick_transports(bool busy) {
  // A transport's tick does nothing before its next_tick_work() (the
  // contract the simulation's next event relies on too): an idle poll
  // skips it, and a packet waits less for the next poll (a tenth of a
  // shared core's samples in nanopu-bench-e2e rtt went to idle ticks).
  // Nothing changes a transport between polls: a poll that did nothing
  // before the earliest of them skips the transports altogether.
  if (!busy && spin_ == nullptr && now_ < tick_due_ && !clock::is_virtual()) return;
  const bool holding = holding_for_link(now_);
  uint32_t out = 0, in = 0;
  uint64_t due = UINT64_MAX;
  for_active([&](Transport& t) {
    uint64_t next = t.next_tick_work();
    if (!holding && now_ >= next) {
      t.on_tick(now_, *this);
      next = t.next_tick_work();
    }
    out += t.outbound_in_use();
    in += t.inbound_in_use();
    due = std::min(due, next);
  });
  counters_.outbound_in_use = out;
  counters_.reassembly_in_use = in;
  tick_due_ = due;
}

void NicCore::poll_link(bool was_holding) {
  (void)link_.poll(now_, &counters_);
  // Back: what waited for the link goes out now, not at its backed-off
  // timer, and its give-up clock starts over.
  if (was_holding && link_.up())
    for (auto& t : transports_) {
      t->on_link_restored(now_);
      t->on_tick(now_, *this);
    }
}

namespace {

// What the log says of a give-up, by its reason.
const char* give_up_words(TxFailureReason r) {
  switch (r) {
    case TxFailureReason::kNoSlot: return "gave up a message: no packetization slot";
    case TxFailureReason::kRefused: return "a restarted peer refused a message: it was meant for the peer's previous run";
    case TxFailureReason::kRejected:
      return "a peer rejected a message for load: its context was over the queue its SLO allows (nic.tx_msgs_rejected)";
    case TxFailureReason::kNoAnswer:
    case TxFailureReason::kPeerRestarted: break;
  }
  return "gave up a message: its retransmissions went unanswered: is the peer up?";
}

}  // namespace

void NicCore::message_failed(const FailedMessage& f) {
  if (f.sender < threads_.size()) {
    // Named to its thread (the notice), counted there, and the thread woken
    // as for a message: a thread waiting for a reply hears of its request's fate.
    ThreadFifos* t = threads_[f.sender];
    ++deliveries_;
    (void)t->failures.push(f.failure);  // full: counted only (Thread::tx_failures())
    t->tx_failed.fetch_add(1, std::memory_order_release);
    // After tx_failed, and read before it: a reader never sees more rejected than failed.
    if (f.failure.reason == TxFailureReason::kRejected) t->tx_rejected.fetch_add(1, std::memory_order_release);
    if (params_.adaptive_poll) to_wake_ |= uint64_t{1} << t->worker;
    t->signals->on_delivery(t->priority.load(std::memory_order_relaxed), now_);
  }
  // A line per episode, not per message: a dead peer fails many at once.
  NANOPU_LOG_EVERY(kWarning, 1.0,
                   "%s (to %s context %u; nic.tx_msgs_failed; its sender hears of it by tag: "
                   "Thread::next_failure())",
                   give_up_words(f.failure.reason), format_ipv4(f.failure.dst_ip).c_str(), f.failure.dst_context);
}

void NicCore::peer_restarted(uint32_t peer_ip) {
  // To every thread: the NIC does not know which of them wait on the peer
  // (a Client fails its calls to it sent before at_ns; rpc.h). Rare: once
  // per restart of a peer.
  const TxFailure notice{0, peer_ip, 0, TxFailureReason::kPeerRestarted,
                         static_cast<uint64_t>(static_cast<double>(now_) * clock::ns_per_tick())};
  ++counters_.peer_restarts;
  ++deliveries_;
  for (ThreadFifos* t : threads_) {
    (void)t->failures.push(notice);
    if (params_.adaptive_poll) to_wake_ |= uint64_t{1} << t->worker;
    t->signals->on_delivery(t->priority.load(std::memory_order_relaxed), now_);
  }
  NANOPU_LOG(kInfo, "peer %s restarted (a new run): what its previous run took and did not answer "
                    "will not be (nic.peer_restarts; threads hear of it: TxFailureReason::kPeerRestarted)",
             format_ipv4(peer_ip).c_str());
}

void NicCore::wake_workers() {
  // One fence and one load per worker delivered to in this poll, not per message.
  for (uint64_t m = to_wake_; m != 0; m &= m - 1)
    workers_[static_cast<size_t>(__builtin_ctzll(m))]->wake_if_sleeping();
  to_wake_ = 0;
}

absl::Status NicCore::start_spin_hpus(uint32_t n, const std::string& name) {
  return spin().start_hpus(n, pool_, name);
}

void NicCore::finish_spin_hpus() {
  spin_->finish_hpus(*this);
  spin_->flush(*this);
  if (!staged_.empty()) push_all_staged();
}

bool NicCore::spin_sends_can_go() const {
  // Those a transport had no slot for wait for an acknowledgement, or a
  // tick's give-up, to free one: an event of its own, not every instant.
  bool room = false;
  for (const auto& t : transports_) room |= t->tx_capacity() != 0;
  if (!room) return false;
  for (rte_mbuf* m : spin_->sends()) {
    const uint32_t ip = AppHeader::from_word(msg_meta(m)->app_header).ip;
    if (transports_[transport_index(peer_protocols_.lookup(ip))]->tx_capacity() != 0) return true;
  }
  return false;
}

bool NicCore::quiescent() const {
  if (spin_ != nullptr && spin_->in_flight()) return false;
  // A message being received is paced by PULLs and timed by the reassembly
  // sweep; JBSQ-held messages wait for credits the NIC must see; the
  // fault-injecting wire may hold frames back. Messages being sent only wait
  // for ACKs and their retransmission timers: the sleep is bounded by the
  // next timer (idle_or_sleep), so a peer that went away (its last ACKs
  // never coming) does not keep this NIC spinning until it gives up.
  for (const auto& t : transports_)
    if (t->inbound_in_use() != 0) return false;
  return pending_.empty() && tx_.empty() && stash_n_ == 0 && faults_ == nullptr;
}

uint64_t NicCore::next_event_ticks() const {
  // (Control deferred to the next poll's start, on a shared core: TxBatches.)
  if (!pending_.empty() || !staged_.empty() || stash_n_ != 0 || !tx_.empty()) return 0;
  if (spin_ != nullptr && spin_sends_can_go()) return 0;
  uint64_t t = next_tx_ready();
  for_active([&](const Transport& tr) { t = std::min(t, tr.next_tick_work()); });
  if (faults_) t = std::min(t, faults_->next_release());
  return t;
}

uint64_t NicCore::next_timer_deadline() const {
  uint64_t d = UINT64_MAX;
  for_active([&](const Transport& t) { d = std::min(d, t.next_timer_deadline()); });
  return d;
}

bool NicCore::still_idle() {
  stash_n_ = link_.port_started() ? io_->rx_burst(stash_, kBurst) : 0;
  if (stash_n_ != 0) return false;
  if (os_.active() && os_.has_frames()) return false;
  for (ThreadFifos* t : threads_)
    if (!tx_fifo(t).empty()) return false;
  return true;
}

void NicCore::idle_or_sleep(unsigned work, bool workers_idle) {
  if (!idle_.adaptive()) return;
  const uint64_t now = clock::ticks();
  IdleState s;
  s.work = work;
  s.workers_idle = workers_idle;
  if (work == 0 && workers_idle) {
    s.holding = holding_for_link(now);
    s.quiescent = quiescent();
    s.next_timer = next_timer_deadline();
  }
  const uint64_t sleeps = counters_.nic_sleeps;
  idle_.after_poll(s, now, &counters_, [this] { return still_idle(); });
  if (counters_.nic_sleeps != sleeps) stall_probe_.resume(clock::ticks());  // slept: not watched
}

bool NicCore::send_from_nic(rte_mbuf* msg) {
  Transport& t = transport_to(msg);
  // A thread's message waits in its TX FIFO while the transport is full; a
  // handler's waits in the engine (given up here it would be lost).
  if (t.tx_capacity() == 0) return false;
  ++counters_.tx_msgs;
  t.on_message(msg, now_, *this);
  return true;
}

void NicCore::send_data(rte_mbuf* m, uint32_t dst_ip, const wire::TransportHeader& h,
                        size_t payload_bytes) {
  packetizer_.frame_data(m, dst_ip, h, payload_bytes);
  ++counters_.tx_data_packets;
  tx_.data(m);
}

void NicCore::send_control_with(uint32_t dst_ip, const wire::TransportHeader& h,
                                const wire::ControlPayload& payload) {
  emit_control(dst_ip, h, &payload);
}

void NicCore::send_control(uint32_t dst_ip, const wire::TransportHeader& h) {
  emit_control(dst_ip, h, nullptr);
}

void NicCore::emit_control(uint32_t dst_ip, const wire::TransportHeader& h,
                           const wire::ControlPayload* payload) {
  // nic_buggify(): simulation only (lib/base/nic_buggify.h), no buffer for it.
  rte_mbuf* m = nic_buggify() ? nullptr : packetizer_.make_control(dst_ip, h, payload);
  if (m == nullptr) {
    ++counters_.tx_drop_no_mbuf;
    return;
  }
  ++counters_.tx_control_packets;
  tx_.control(m);
}

}  // namespace nanopu
