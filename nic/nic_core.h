// The emulated nanoPU NIC (docs/design.md §2): one loop that takes a burst from the
// port, runs the pipeline and the transport, hands complete messages to core
// selection (JBSQ/RSS/static) which places them in thread RX FIFOs or holds
// them in the context's global RX queue, gathers complete messages from
// thread TX FIFOs, frames them and sends a burst. Control packets leave
// before data (docs/wire.md). Runs on its own lcore, or interleaved with a worker
// on a shared one.
#pragma once

#include <rte_mbuf.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "nanopu/seeded_draw.h"
#include "lib/base/stall_probe.h"
#include "lib/contract/clock.h"
#include "lib/contract/context_table.h"
#include "lib/contract/message.h"
#include "lib/contract/core_signals.h"
#include "lib/contract/nic_cores.h"
#include "lib/contract/thread_fifos.h"
#include "lib/contract/wakeup.h"
#include "nanopu/app_header.h"
#include "nanopu/stats.h"
#include "nic/core_select/core_selector.h"
#include "nic/dispatch/peer_dispatch.h"
#include "nic/fault/fault_injector.h"
#include "nic/idle/idle_sleep.h"
#include "nic/link/link_watch.h"
#include "nic/link/os_path.h"
#include "nic/link/packet_io.h"
#include "nic/packetizer/packetizer.h"
#include "nic/pipeline/neighbor_table.h"
#include "nic/pipeline/pipeline.h"
#include "nic/pipeline/swx_program.h"
#include "nic/spin/spin_engine.h"
#include "nic/spin/spin_sink.h"
#include "nic/stages/stage_clock.h"
#include "nic/transport/common/peer_protocols.h"
#include "nic/transport/factory.h"
#include "nic/transport/transport.h"
#include "nic/tx/tx_batches.h"
#include "nic/watch/worker_watch.h"

namespace nanopu {

struct NicParams {
  // Every transport runs in every NIC core (factory.h); a thread's message
  // goes in the protocol its destination last spoke to us, else in this one.
  TransportConfig transports;
  uint8_t protocol = wire::kIpProtoNdp;
  FaultSpec faults;  // the wire in front of this port's receive path
  uint16_t port_id = 0;
  // Not a DPDK port (the io_uring backend): frames come and go through this;
  // port_id is then unused, and the link is the socket's (always up).
  PacketIo* io = nullptr;
  // The OS's exception port (Config::os_port, nic/link/os_path.h); null:
  // none. os_port_id: its DPDK port, whose RX interrupt wakes an idle NIC core.
  PacketIo* os_io = nullptr;
  int32_t os_port_id = -1;
  // The port checks received IPv4 header checksums (RX offload:
  // Port::checks_ipv4_checksums()); the pipeline takes its verdict when
  // nothing rewrites a frame before it (no program, no fault injection).
  bool port_checks_ipv4 = false;
  // The ingress pipeline as a program (Config::pipeline_program; not owned):
  // every frame runs through it first — port 0 the fast path, 1 the OS, 2
  // dropped, counted. Null: the fixed pipeline alone.
  SwxProgram* program = nullptr;
  // The egress pipeline as a program (Config::egress_program; not owned):
  // every frame sent runs through it last (nic/tx/tx_batches.h). Null: none.
  SwxProgram* egress_program = nullptr;
  uint32_t host_ip = 0;
  wire::MacAddr host_mac{};
  wire::MacAddr gateway_mac = wire::kBroadcastMac;
  CoreSelectPolicy core_select = CoreSelectPolicy::kJbsq;
  uint32_t jbsq_n = 2;
  // The threads' RX FIFO depth (Config::fifo_messages): JBSQ's bound for a
  // context with one binding on a live host (core_selector.h); 0: a burst.
  uint32_t fifo_messages = 0;
  uint32_t workers = 1;
  // Asynchronous preemption: signal a worker whose raised preempt word (or
  // passed t0 deadline) has gone unanswered this long. 0 disables it.
  uint64_t async_preempt_after_tsc = 0;
  // Watchdog: count (and report once) a worker whose thread has been on one
  // message this long without msg_done. 0 disables it.
  uint64_t watchdog_tsc = 0;
  // Shared core: control packets (ACKs, PULLs) built in one poll leave at
  // the start of the next, after the worker has run the messages this poll
  // delivered, so sending them is not on those messages' critical path.
  bool defer_control = false;
  // A kernel-socket port (io_uring): data leaves before control. Each
  // datagram costs the sender the whole kernel path, receiver's delivery
  // included (microseconds on loopback), so an ACK sent first delays the
  // reply behind it by one send; the peer's transport does not depend on the
  // order of an ACK and a DATA packet. A NIC port keeps control first (a
  // switch's priority for control, docs/wire.md).
  bool control_after_data = false;
  // Adaptive polling (docs/design.md §9): after idle_spin_tsc without work
  // and with nothing in flight, sleep until a packet, a thread's doorbell or
  // kMaxSleepUs; and wake the worker cores this NIC delivers to.
  bool adaptive_poll = false;
  // The context whose messages the NIC stamps as the prototype's tester did
  // (nic/pipeline/tester_stamp.h; the application's choice, Config::tester_timestamps):
  // none unless set, and never a 16-bit context then.
  static constexpr uint32_t kNoStampContext = 0x10000;
  uint32_t stamp_context = kNoStampContext;
  uint64_t idle_spin_tsc = 0;
  // The port's link: reported when it drops; restarted until it is back
  // when the port must reconnect by itself (nic/link/link_watch.h).
  bool reconnect_link = false;
  std::string link_kernel_iface;  // a kernel interface whose carrier is the link ("": the PMD's word)
  // While the link is down the NIC holds its messages this long (their
  // retransmit timers paused, and their give-up clocks restarted when it is
  // back), then lets them time out and be given up as usual.
  uint64_t link_hold_tsc = 0;
  // Several NIC cores (docs/design.md §7, "Several NIC cores"): this one's
  // index among nic_cores; the port queue it receives from (kNoRxQueue: none,
  // a one-queue PMD, where core 0 receives for every core) and the one it
  // sends on; and every core's inbox, where a core puts the frames it
  // received from a peer another core owns (nic_core_for_peer).
  static constexpr uint16_t kNoRxQueue = EthdevIo::kNoRx;
  uint32_t nic_core = 0;
  uint32_t nic_cores = 1;
  uint16_t rx_queue = 0;
  uint16_t tx_queue = 0;
  // The worker sharing this NIC core's lcore (several NIC cores, each
  // sharing one), JBSQ's pick among tied cores; -1: none.
  int32_t local_worker = -1;
  std::array<MsgFifo*, kMaxNicCores> inboxes{};
};

class NicCore final : public TransportSink, private SpinSink {
 public:
  static constexpr unsigned kBurst = 32;
  static constexpr uint32_t kMaxSleepUs = IdleSleep::kMaxSleepUs;

  NicCore(const NicParams& params, rte_mempool* pool, const ContextTable* contexts);
  ~NicCore() override;
  NicCore(const NicCore&) = delete;
  NicCore& operator=(const NicCore&) = delete;

  // Threads whose TX FIFOs this NIC drains, and worker interrupt lines.
  // Call before the first poll().
  void add_thread(ThreadFifos* fifos) {
    threads_.push_back(fifos);
    not_ready_.push_back(nullptr);
    held_tx_.emplace_back();
    staged_.reserve(threads_.size());  // push_to never allocates
  }
  void add_worker(CoreSignals* signals) { workers_.push_back(signals); }

  // One iteration. Returns the number of packets and messages handled.
  unsigned poll();
  // poll() in two halves, for a core the NIC shares with its workers: the
  // frames received and their messages handed to the threads, then (after
  // the workers ran them) the threads' messages sent, the timers, the link.
  // So a request's reply leaves in the poll that delivered the request,
  // rather than after the next poll's receive, timers and link checks
  // (issue 37). `fresh_clock`: the workers ran in between, on this OS
  // thread: take the clock as they last read it (clock::last_read), and
  // send what they wrote at once.
  unsigned poll_receive();
  unsigned poll_finish(unsigned received, bool fresh_clock);
  // Adaptive polling, after each poll(): sleeps once the NIC has had no work
  // for idle_spin_tsc, holds nothing in flight, and no thread runs on any
  // worker core (workers_idle; a running thread is watched for t0 and the
  // watchdog). No-op in busy mode.
  void idle_or_sleep(unsigned work, bool workers_idle);
  // The doorbell threads ring after handing over a message (adaptive mode on
  // a dedicated NIC core; else null).
  [[nodiscard]] Doorbell* doorbell() { return idle_.doorbell(); }
  // For a worker sharing this core (single-lcore mode): polls this NIC.
  [[nodiscard]] NicPollHook poll_hook() {
    return {[](void* nic) { return static_cast<NicCore*>(nic)->poll(); }, this};
  }

  // In a simulation: when the earliest message a worker core finished
  // ahead of this core's clock may be taken (max(): none waits).
  [[nodiscard]] uint64_t next_tx_ready() const;
  // In a simulation, which polls a host only when it has something to do
  // (model::SimLoop): the first time at which poll() would do anything
  // that no frame arriving and no thread writing brings — a reply held
  // for its core's work, a transport's tick work, a frame the fault
  // injector holds back, messages not yet handed over, control packets
  // deferred to the next poll. 0: now.
  [[nodiscard]] uint64_t next_event_ticks() const;

  [[nodiscard]] const NicCounters& counters() const { return counters_; }
  // Messages and notices this core has handed to threads so far (pushed
  // into an RX FIFO, a failure notice): a shared core's loop runs its
  // workers after a poll that moved it, or while they have work of their
  // own (Worker::quiet).
  [[nodiscard]] uint64_t deliveries() const { return deliveries_; }
  // TSC ticks per stage of every poll so far (all 0 unless built with
  // NANOPU_STAGE_CLOCK: nic/stages/stage_clock.h).
  [[nodiscard]] const std::array<uint64_t, kNicStages>& stage_ticks() const { return stages_.ticks(); }
  // This core's poll loop watched for the host's stalls (nanopu/host_noise.h):
  // started by the runtime for a measured run; a turn is a poll, and the
  // time the workers ran in a shared core's poll, or the core slept, is not
  // watched.
  [[nodiscard]] StallProbe& stall_probe() { return stall_probe_; }
  [[nodiscard]] const StallProbe& stall_probe() const { return stall_probe_; }
  // At the end of a run, on the polling thread: the port takes back what it
  // lent (PacketIo::quiesce).
  void quiesce_io() { io_->quiesce(); }

  // sPIN handlers (nanopu/spin.h, nic/spin/spin_engine.h): installed
  // before the first poll.
  [[nodiscard]] SpinEngine& spin() {
    if (!spin_) {
      spin_ = std::make_unique<SpinEngine>(&counters_, static_cast<SpinSink*>(this));
      for (auto& t : transports_) t->set_packet_tap(spin_.get());  // handlers as packets arrive
    }
    return *spin_;
  }
  [[nodiscard]] const SpinEngine* spin_engine() const { return spin_.get(); }
  // Handler sends still waiting for a packetization slot (Runtime's drain).
  [[nodiscard]] bool has_spin_sends() const { return spin_ != nullptr && spin_->has_sends(); }
  // HPU lcores (nic/spin/hpu_core.h): made here, their loops launched by
  // the caller (spin().hpu(k)), stopped with spin().stop_hpus(); after they
  // returned, finish_spin_hpus() applies what they did last.
  [[nodiscard]] absl::Status start_spin_hpus(uint32_t n, const std::string& name);
  void finish_spin_hpus();

  // TransportSink
  bool deliver(rte_mbuf* msg, ContextEntry* dst) override;
  void send_data(rte_mbuf* m, uint32_t dst_ip, const wire::TransportHeader& h,
                 size_t payload_bytes) override;
  void send_control(uint32_t dst_ip, const wire::TransportHeader& h) override;
  [[nodiscard]] bool frames_payloads() const override { return true; }
  void send_control_with(uint32_t dst_ip, const wire::TransportHeader& h,
                         const wire::ControlPayload& payload) override;
  void message_failed(const FailedMessage& f) override;
  void peer_restarted(uint32_t peer_ip) override;

 private:
  // SpinSink
  [[nodiscard]] rte_mempool* spin_pool() override { return pool_; }
  bool deliver_to_host(rte_mbuf* msg, ContextEntry* dst) override;
  [[nodiscard]] bool send_from_nic(rte_mbuf* msg) override;
  [[nodiscard]] uint64_t spin_now() const override { return now_; }
  // A control packet; payload: what it carries, or null for zeros.
  void emit_control(uint32_t dst_ip, const wire::TransportHeader& h, const wire::ControlPayload* payload);
  // The rooms of a poll, in order.
  unsigned receive();          // a burst from the port through the pipeline to the transports
  unsigned forward_from_os();  // the OS's frames out of the port (os_)
  uint16_t run_program(rte_mbuf** rx, uint16_t n);  // program_: what stays for the fast path
  unsigned gather();           // complete messages from the threads' TX FIFOs to the transports
  // Up to `room` messages of thread ti's TX FIFO into msgs; in a
  // simulation only those its core has finished by now.
  unsigned take_tx(size_t ti, rte_mbuf** msgs, unsigned room);
  unsigned take_tx_when_ready(size_t ti, rte_mbuf** msgs, unsigned room);  // a simulation's
  // An inline TX entry's message (inline_msg.h) framed into m; returns m.
  rte_mbuf* frame_inline(rte_mbuf* entry, rte_mbuf* m);
  void tick_transports(bool busy);  // timers and pacing (held while the link is down); busy: the poll did work
  void poll_link(bool was_holding);
  // The thread core selection picks for a message of e (nullptr: hold it;
  // *no_thread: nobody is bound any more).
  [[nodiscard]] ThreadFifos* choose(ContextEntry* e, uint64_t hash, bool* no_thread) const;
  // Stages msg for t (pushed at the poll's end, push_all_staged).
  bool push_to(ThreadFifos* t, rte_mbuf* msg, ContextEntry* e);
  // The staged small messages of t into its inline slots (inline_msg.h).
  void stage_inline(ThreadFifos* t, ThreadFifos::NicSide& s);
  void push_staged(ThreadFifos* t);
  void push_all_staged();
  unsigned service_pending();
  void copy_fault_counters();
  [[nodiscard]] ThreadFifos::NicSide& side(ThreadFifos* t) const {
    return t->nic[params_.nic_core];
  }
  // The thread's msg_done()s as of this poll. nanoPU §3.2 returns a credit
  // as a register write; here the worker's `done` line crosses to this core
  // once a poll rather than once a message. An older count is only lower,
  // so JBSQ's bound holds; a credit returned mid-poll is seen at the next.
  // A simulation reads it as it is (one thread runs every core).
  [[nodiscard]] uint64_t done_this_poll(ThreadFifos* t) const {
    if (clock::is_virtual()) [[unlikely]]
      return t->done.load(std::memory_order_acquire);
    ThreadFifos::NicSide& s = side(t);
    if (s.done_seen_poll != counters_.nic_polls + credit_epoch_) {
      s.done_seen = t->done.load(std::memory_order_acquire);
      s.done_seen_poll = counters_.nic_polls + credit_epoch_;
    }
    return s.done_seen;
  }
  // JBSQ's outstanding count for t. A simulation's credits come at their
  // core's own time (ThreadFifos::outstanding), read as they are.
  [[nodiscard]] uint32_t outstanding_of(ThreadFifos* t) const {
    if (clock::is_virtual()) [[unlikely]]
      return t->outstanding();
    return static_cast<uint32_t>(t->delivered() - done_this_poll(t));
  }
  [[nodiscard]] MsgFifo& tx_fifo(ThreadFifos* t) const { return t->tx[params_.nic_core]; }
  // The transport of `protocol`, marked in use: a transport no frame or
  // message has reached is neither ticked nor asked for its state (Homa
  // on an NDP-only host: nothing to do, two virtual calls a poll saved).
  [[nodiscard]] Transport& transport_for(uint8_t protocol) {
    const size_t i = transport_index(protocol);
    active_ |= 1u << i;
    return *transports_[i];
  }
  // The transport a one-packet TX message (a handler's send) goes by: its
  // destination's protocol.
  [[nodiscard]] Transport& transport_to(rte_mbuf* tx_msg) {
    const uint32_t ip = AppHeader::from_word(msg_meta(tx_msg)->app_header).ip;
    return transport_for(peer_protocols_.lookup(ip));
  }
  // Calls fn on each transport in use (transport_for); in a simulation on
  // every one, as before this economy (an idle transport's own ticks set
  // when the simulation polls the host, which its runs and trace hashes
  // keep).
  template <typename Fn>
  void for_active(Fn&& fn) const {
    const uint32_t mask = clock::is_virtual() ? (1u << kTransportProtocols.size()) - 1 : active_;
    for (uint32_t m = mask; m != 0; m &= m - 1) fn(*transports_[static_cast<size_t>(__builtin_ctz(m))]);
  }
  [[nodiscard]] uint32_t tx_room() const;
  [[nodiscard]] static uint32_t single_binding_bound(const NicParams& p);
  [[nodiscard]] bool quiescent() const;  // nothing in flight, queued or held
  [[nodiscard]] bool spin_sends_can_go() const;  // a waiting handler send has a slot now
  [[nodiscard]] uint64_t next_timer_deadline() const;
  [[nodiscard]] bool holding_for_link(uint64_t now) const {
    return !link_.up() && link_.down_for(now) < params_.link_hold_tsc;
  }
  [[nodiscard]] bool still_idle();       // after arming: nothing arrived (stashes it)
  void wake_workers();

  NicParams params_;
  rte_mempool* pool_ = nullptr;  // the port's: inline TX messages' buffers (take_tx)
  NicCounters counters_;
  NeighborTable neighbors_;
  Pipeline pipeline_;
  Packetizer packetizer_;
  CoreSelector selector_;
  PeerDispatch dispatch_;
  // --core_select=random: a core drawn per message (a count's splitmix64).
  uint64_t core_draws_ = 0;
  [[nodiscard]] uint64_t draw_core_hash() { return mix64(++core_draws_ * kGoldenGamma); }
  // Every transport, in kTransportProtocols' order (transport_for).
  std::array<std::unique_ptr<Transport>, kTransportProtocols.size()> transports_;
  uint32_t active_ = 0;        // bit i: transports_[i] is in use (transport_for)
  uint32_t idle_room_ = 0;     // the fewest slots a transport not yet in use has (all of them)
  // When a tick may have work (the transports' next_tick_work as of the last
  // poll that did anything): a poll that receives and gathers nothing
  // before then skips the transports (an idle poll is what a shared core's
  // packet waits for).
  uint64_t tick_due_ = 0;
  PeerProtocols peer_protocols_;
  std::unique_ptr<FaultInjector> faults_;
  std::unique_ptr<SpinEngine> spin_;  // null: no sPIN context installed
  uint64_t credit_epoch_ = 0;         // bumped when the workers ran mid-poll (done_this_poll)
  EthdevIo ethdev_;
  PacketIo* io_;  // params_.io, or ethdev_
  LinkWatch link_;
  TxBatches tx_;
  OsPath os_;  // frames to and from the host's OS (Config::os_port)
  SwxProgram* program_;
  std::vector<std::vector<rte_mbuf*>> program_out_;
  WorkerWatch watch_;
  IdleSleep idle_;
  StallProbe stall_probe_;
  StageClock stages_;
  uint64_t packets_at_turn_ = 0;  // packets in and out at the probe's last turn
  std::vector<ThreadFifos*> threads_;
  std::vector<CoreSignals*> workers_;
  std::vector<ContextEntry*> pending_;     // contexts with messages in their global queue
  std::vector<ThreadFifos*> staged_;       // threads with staged messages (push_to)
  uint64_t now_ = 0;
  uint64_t tsc_hz_ = clock::hz();
  uint64_t deliveries_ = 0;  // deliveries()
  rte_mbuf* stash_[kBurst];  // frames still_idle() found: the next poll's first
  uint16_t stash_n_ = 0;
  uint64_t to_wake_ = 0;     // bit i: delivered to worker i this poll
  // Per thread, in a simulation: the message taken from its TX FIFO whose
  // core finishes it later than now (MsgMeta::ready_tsc).
  std::vector<rte_mbuf*> not_ready_;
  // Per thread: TX entries taken when no buffer was to be had for their
  // inline messages (take_tx), sent first next poll.
  std::vector<std::vector<rte_mbuf*>> held_tx_;
};

}  // namespace nanopu
