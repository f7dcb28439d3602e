// nanopu::Thread — one nanoPU thread as an application sees it (nanoPU §2.1,
// §3.4). The netRX/netTX registers become read()/write() of one 8-byte word;
// the CSRs lcurport/lcurpriority/lniccmd, lmsgsrdy, lidle and lmsgdone become
// bind(), msgs_ready(), idle() and msg_done().
//
// A Thread is handed to the body function given to Runtime::spawn() and is
// only ever touched from that body: it sees only its own FIFOs, so it needs
// no locks (thread safety by construction, §2.1.1).
#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <span>

#include "absl/status/status.h"
#include "nanopu/app_header.h"
#include "nanopu/error.h"
#include "nanopu/tx_failure.h"

struct rte_mbuf;
struct rte_mempool;

namespace nanopu {

struct ThreadFifos;
class MsgFifo;
struct ThreadCounters;
struct MemoryMessage;
class ContextTable;
namespace sched {
class Worker;
}

class Thread {
 public:
  Thread(const Thread&) = delete;
  Thread& operator=(const Thread&) = delete;
  ~Thread();

  // lcurport + lcurpriority + lniccmd: receive messages for `context` at
  // `priority` (0 is best). Fails if another thread holds the context or this
  // thread is already bound.
  [[nodiscard]] absl::Status bind(uint16_t context, uint8_t priority = 0);
  [[nodiscard]] bool bound() const { return bound_; }
  [[nodiscard]] uint16_t context() const { return context_; }
  [[nodiscard]] uint8_t priority() const { return priority_; }
  [[nodiscard]] uint32_t id() const { return id_; }

  // lmsgsrdy: a message is waiting (or partly read).
  // (Not const: it may take the next message from the FIFO to look at it.)
  [[nodiscard]] bool msgs_ready() { return arm(has_message()); }
  // When the NIC core took the current message (or, before its first read,
  // the message at the head of the RX queue), on the runtime's clock: the
  // host TSC, or modelled picoseconds in a simulation; 0 if none.
  [[nodiscard]] uint64_t rx_tsc() const;
  // For the same message: the on-core time its sender's thread had spent on
  // the message it was serving when it wrote this one — for a reply, the
  // server's time on the request (nanopu peers stamp it, docs/wire.md "Core
  // time"; the load generator's modelled column is built from it). ns, in
  // steps of 1/16 ns; 0 when unknown (a prototype peer, or no message served).
  [[nodiscard]] double sender_core_ns() const;
  // For the same message: its sender's run (sender incarnation,
  // docs/wire.md), for a reply written later than the next message from
  // that peer (a deferred one) to name with write_header(..., run). 0: no
  // message, or a peer that sends none.
  [[nodiscard]] uint16_t rx_run() const;
  // Messages waiting in this thread's local RX queue, besides the one being read.
  [[nodiscard]] uint32_t queued() const;
  // Blocks (yielding the core to other threads and, on a shared core, to the
  // NIC loop) until a message is ready — or, with watch_failures(true), a
  // failure notice is pending. Returns false when the runtime stops, at
  // once, messages still queued or not (they are freed with the host).
  [[nodiscard]] bool wait();
  // wait() for at most `timeout`: true when a message is ready (or a watched
  // failure notice pending), false when the time passed first or the
  // runtime stops. For services with timers (Raft's heartbeats and
  // elections) that must still give the core back while idle. The wake-up
  // is late by up to the idle core's sleep step (about 1 ms on a shared
  // core, 10 ms on a worker lcore of its own).
  // Any std::chrono duration; nanoseconds so that a modelled clock
  // (nanopu-sim) wakes the thread at its deadline exactly.
  [[nodiscard]] bool wait_for(std::chrono::nanoseconds timeout);

  // Failure notices (nanopu/tx_failure.h): each message this thread writes
  // has a tag (tx_tag(), numbered 1, 2, ... in the order their headers are
  // written); a message the transport gives up, or a restarted peer
  // refuses, comes back as a notice naming its tag. next_failure() takes
  // the next one (false: none). Every give-up is also counted
  // (tx_failures()); a notice is kept until read, up to twice the NIC's
  // packetization slots.
  [[nodiscard]] uint64_t tx_tag() const { return tx_tag_; }
  [[nodiscard]] bool next_failure(TxFailure* f);
  [[nodiscard]] bool failures_pending() const;
  // With on, wait() and wait_for() also return for a pending notice (then
  // msgs_ready() may be false): for a client that must hear of a request
  // that will get no reply. Off by default, so a server's wait()-then-read()
  // loop only ever wakes for messages.
  void watch_failures(bool on) { watch_failures_ = on; }

  // netRX: the next word of the current message. The first word of each
  // message is its AppHeader; then ceil(len/8) payload words, the last one
  // zero-padded. Reading an empty FIFO or past the message's end returns 0
  // and records the error (last_error(), counters) — never stale data.
  // Inline fast path: a word of the run of full payload words the last
  // out-of-line read granted (inside one packet, at most
  // kFastWordsPerSafePoint): one test and a load, no atomic. The run is an
  // end pointer and a negative index counting up to 0, so a word moves one
  // field (the index) through memory, where the possible out-of-line call
  // keeps it in a loop. The run's end is the next safe point:
  // a preemption raised meanwhile is seen at most kFastWordsPerSafePoint
  // words later (tens of ns). Everything else (headers, segment ends,
  // errors) takes the out-of-line path, which settles the run's words into
  // the message's counts first. (The hardware reads a word a cycle: this is
  // the emulator's hottest call, measured by nanopu-bench-thread-api.)
  [[nodiscard]] uint64_t read() {
    if (rx_run_idx_ != 0) {
      uint64_t be;
      std::memcpy(&be, rx_run_end_ + 8 * rx_run_idx_, 8);
      ++rx_run_idx_;
      return from_wire(be);
    }
    uint64_t w = 0;
    (void)read(&w);
    return w;
  }
  ApiError read(uint64_t* word);
  // Words of the current message not yet read (header included).
  [[nodiscard]] uint32_t rx_words_left() const { return rx_words_left_ - rx_run_used(); }
  // Bulk netRX: the same as words.size() read() calls (the header first if
  // the message is new), copied a packet segment at a time instead of a
  // call per word. Stops at the first error (kRxEmpty, or kReadPastEnd at
  // the message's end, recorded once) and zeroes the words not read.
  ApiError read_words(std::span<uint64_t> words);

  // lmsgdone: finished with the current message (the one being read, else
  // the one wait() or msgs_ready() just reported). Unread words are flushed
  // (footnote 9) and counted; the core-selection credit goes back to the
  // NIC. Misuse is named, never silent (last_error(), a counter, one log
  // line per kind per thread): with no message being read or reported
  // since the last msg_done(), kNoMessage and nothing is flushed (a second
  // msg_done() would otherwise drop the next request unread); with a TX
  // message half-written, kIncomplete and that message is dropped.
  void msg_done();

  // netTX: the first word of a message is its AppHeader (destination, len);
  // writing it reserves a buffer for the whole message — for one of up to
  // 96 bytes, a slot its TX FIFO entry points to (Config::register_path) —
  // or fails cleanly (kNoBuffers, kBadLength: the rest of that message's
  // words are then discarded). The message leaves when its last word is
  // written.
  ApiError write(uint64_t word) {
    // Inline fast path: a word of the run the last out-of-line write
    // granted (payload words that neither open a packet nor end the
    // message; bounded and without an atomic, as read()'s run).
    if (tx_run_idx_ != 0) {
      const uint64_t be = from_wire(word);
      std::memcpy(tx_run_end_ + 8 * tx_run_idx_, &be, 8);
      ++tx_run_idx_;
      return ApiError::kOk;
    }
    return write_slow(word);
  }
  // Whether a header written now is taken at once: the TX FIFO of every
  // NIC core has an entry free. Writing a header with none waits (the core
  // stalls on netTX, as the hardware's would) until the NIC core makes
  // room — which it may not, while the peer refuses what it sends because
  // this thread has not read its replies. A thread that sends faster than
  // it is answered (an open-loop load generator) asks first and reads
  // meanwhile.
  [[nodiscard]] bool tx_ready() const;
  // Waits as a header's write() would for TX room, but also returns for a
  // message to read: true when tx_ready(), false when a message is ready
  // (or the runtime stops). On a modelled clock the wait is charged to the
  // core, as write()'s is.
  bool wait_tx_room();
  // Words still owed to the message being written (0: none open).
  [[nodiscard]] uint32_t tx_words_left() const { return tx_words_left_ - tx_run_used(); }
  // A header checked where it is made: reserves the message as
  // write(AppHeader{...}.word()) does, but takes the length as a size and
  // names each misuse: kTooLong past 65535 bytes or --max_message_bytes,
  // kBadHeader for destination 0.0.0.0, kBadLength for 0 bytes (nothing
  // begun), and kIncomplete when a message is still half-written: that one
  // is dropped (never sent with this one's words), and this one begins.
  ApiError write_header(uint32_t dst_ip, uint16_t dst_context, size_t len_bytes);
  // The same for the reply to a message taken earlier: names `run` (that
  // message's rx_run()) as the receiver's run, whatever this thread took
  // from the peer since, so a peer restarted meanwhile refuses it. 0: as
  // without it (the first message back to a peer names the run of the last
  // message taken from it; a later one, the run its NIC last heard).
  ApiError write_header(uint32_t dst_ip, uint16_t dst_context, size_t len_bytes, uint16_t run);
  // Bulk netTX: the same as words.size() write() calls — a word where no
  // message is open is a header, and one span may finish a message and
  // begin the next — with the payload copied a packet segment at a time.
  // Returns the first error (the words of a failed header's message are
  // discarded, as write() does).
  ApiError write_words(std::span<const uint64_t> words);

  // The traditional NIC's path (nanopu/memory_message.h), whole messages
  // instead of words, for comparison with the register file:
  //
  // Copies the current message (the one being read, else the next) into
  // *m at once and finishes with it (msg_done). A message partly read with
  // read() gives the words not yet read. kRxEmpty when none is waiting
  // (a poll's answer: neither counted nor reported as misuse).
  ApiError receive_message(MemoryMessage* m);
  // Sends a message assembled in memory: `header` (destination, len) and
  // exactly ceil(len/8) payload words, copied to the TX buffer in one go.
  // Fails cleanly as write() of a header does (kNotBound, kBadLength,
  // kNoBuffers, kStopped), with kBadLength if the word count does not match
  // len, and with kMessageOpen while write() has a message unfinished.
  ApiError send_message(AppHeader header, std::span<const uint64_t> payload);

  // lidle: nothing to do right now; lets other threads (and, on a shared
  // core, the NIC loop) run, then returns.
  void idle();

  // Work a service declares rather than does (a modelled service time):
  // `cycles` of the nanoPU's 3.2 GHz core (nanoPU OSDI'21 §5). Live, the
  // thread spins that long on this machine's clock; in a simulation
  // (nanopu-sim) they are charged to the core's modelled time instead. Not
  // a safe point: as the work it stands for, only asynchronous preemption
  // interrupts it.
  void compute(uint64_t cycles);
  // The work the code just did, as cycles of the nanoPU's core, counted by
  // the service from its own operations (postings merged, values copied,
  // at cycles per operation it declares): in a simulation with counted
  // time (nanopu-sim), charged to the core's modelled time like compute(),
  // so that a compute-heavy service's curve has a knee and the run still
  // replays. Live, and under nanopu-sim --charge=measured (which times the
  // code itself), it costs nothing.
  void charge_work(double cycles);

  // A safe point for code that computes for long without other API calls:
  // the scheduler may switch to a better thread here (cheap when it need not).
  void preempt_point();
  // Lets the NIC core's signal switch this thread out anywhere in its own
  // code (asynchronous preemption). Only for code that holds no locks and
  // calls nothing non-reentrant (malloc, stdio) while computing.
  void allow_async_preemption(bool allow);
  [[nodiscard]] bool async_preemptible() const { return async_preemptible_; }

  [[nodiscard]] bool stopping() const;
  // Whether the calling code runs on this thread (its fiber): objects that
  // belong to a thread (a deferred reply) refuse to be used from another.
  [[nodiscard]] bool is_current() const;
  // The runtime's clock in ns, from an arbitrary start: for deadlines and
  // timestamps that follow the runtime's time (the host's TSC here; fast or
  // slow by Config::clock_drift_ppm, as wait_for()'s timeouts are).
  [[nodiscard]] uint64_t now_ns() const;
  [[nodiscard]] ApiError last_error() const { return last_error_; }
  // Messages of this thread that the transport gave up: sent, never
  // acknowledged, their peer silent for --peer_dead_ms (down or
  // unreachable), or refused by its new run. Counted by the NIC core as it gives each up; the
  // application decides what a failure means (retry, report, stop).
  [[nodiscard]] uint64_t tx_failures() const;
  // Of tx_failures(): messages a receiver rejected for load (its context
  // over the queue its SLO allows: TxFailureReason::kRejected), counted
  // even when their notices overflowed.
  [[nodiscard]] uint64_t tx_rejections() const;
  [[nodiscard]] const ThreadCounters& counters() const { return *counters_; }

 private:
  friend class sched::Worker;
  Thread(uint32_t id, size_t slot, ThreadFifos* fifos, rte_mempool* pool, ContextTable* contexts,
         sched::Worker* worker, uint32_t max_message_bytes);
  ApiError fail(ApiError e);
  // Says so once per kind per thread (the log), besides counting it.
  void report_misuse(ApiError e, const char* what);
  bool arm(bool ready) {
    rx_armed_ |= ready;
    return ready;
  }
  // A half-written TX message is dropped and reported (kIncomplete).
  ApiError drop_incomplete_tx(const char* when);
  // The thread's body returned (the worker calls it).
  void on_end();
  // A message ready, or a watched failure notice pending (the scheduler's view).
  [[nodiscard]] bool has_work() { return has_message() || (watch_failures_ && failures_pending()); }
  bool next_rx_message();
  // The next payload word is at the start of seg (caches its data for read()).
  void enter_rx_segment(rte_mbuf* seg);
  void unbind();
  // For the scheduler: a message is queued or being read; when it arrived.
  // One look at a full TX FIFO: the core stalls a slice (write() and wait_tx_room()).
  void stall_on_tx();
  [[nodiscard]] bool has_message();
  [[nodiscard]] uint64_t head_tsc() const;
  [[nodiscard]] bool in_runtime() const { return runtime_depth_ != 0; }
  ApiError read_word(uint64_t* word);
  ApiError write_word(uint64_t word);
  ApiError continue_message(uint64_t word);  // write_word() with a message open: a payload word
  void hand_over_message();                  // its last word written: to the NIC core
  ApiError begin_message(uint64_t word);     // write_word() with none: `word` is a header
  ApiError write_slow(uint64_t word);
  // The bulk copies of read_words/write_words and the traditional path: n
  // payload words of the current RX message into dst (host order, a short
  // last word zero-padded; n <= the words left, header already taken), and
  // n words into the open TX message that do not end it (write_word() sends
  // the last).
  void copy_rx_words(uint64_t* dst, uint32_t n);
  void copy_tx_words(const uint64_t* src, uint32_t n);
  // This thread's on-core time on its current message, in 1/16 ns, >= 1.
  [[nodiscard]] uint32_t core_time_16ths() const;
  // Runs of words for the inline read()/write() (their fast paths): granted
  // at the end of an out-of-line read or write, settled — the words taken
  // counted into the message's offsets and counts — when any out-of-line
  // call begins (RuntimeScope), so everything out of line sees exact state.
  void grant_rx_run();
  void grant_tx_run();
  [[nodiscard]] uint32_t rx_run_used() const { return rx_run_granted_ - static_cast<uint32_t>(-rx_run_idx_); }
  [[nodiscard]] uint32_t tx_run_used() const { return tx_run_granted_ - static_cast<uint32_t>(-tx_run_idx_); }
  void settle_runs() {
    if (rx_run_granted_ != 0) {
      const uint32_t used = rx_run_used();
      rx_seg_off_ += 8 * used;
      rx_bytes_left_ -= 8 * used;
      rx_words_left_ -= used;
      rx_run_granted_ = 0;
      rx_run_idx_ = 0;
    }
    if (tx_run_granted_ != 0) {
      const uint32_t used = tx_run_used();
      tx_next_ += 8 * used;
      tx_seg_words_left_ -= used;
      tx_words_left_ -= used;
      tx_run_granted_ = 0;
      tx_run_idx_ = 0;
    }
  }
  // Wire words are big-endian (docs/wire.md); the swap is its own inverse.
  [[nodiscard]] static uint64_t from_wire(uint64_t w) {
    if constexpr (std::endian::native == std::endian::little) return __builtin_bswap64(w);
    return w;
  }
  static constexpr uint32_t kFastWordsPerSafePoint = 64;
  // Virtual time: a thread that spends core time without an event to wait
  // for (declared work, a spin for room in its TX FIFO) charges it a slice
  // at a time and gives the loop the core between slices, so that the clock
  // moves. A slice runs to the core's next decision of its own
  // (Worker::slice_cycles: the t0 deadline, a TIS tick, another thread's
  // wake) and is cut short when the NIC core does anything meanwhile
  // (Worker::yield_for_time), so an arrival still preempts it at once, as
  // the hardware's scheduler would (nanoPU OSDI'21 §3.3). A slice is never
  // shorter than this (31 ns at 3.2 GHz): work shorter than it is charged
  // whole, without giving the core back.
  static constexpr double kSliceCycles = 100;

  // Marks nanopu code on this thread's stack (async preemption must not
  // switch inside it).
  struct RuntimeScope {
    // Signal fences: the handler runs on this thread, so only the compiler
    // must not move code across the marks.
    explicit RuntimeScope(Thread* t) : t_(t) {
      t_->settle_runs();
      if (t_->measure_app_ && t_->runtime_depth_ == 0) t_->app_code_ends();
      ++t_->runtime_depth_;
      std::atomic_signal_fence(std::memory_order_seq_cst);
    }
    ~RuntimeScope() {
      std::atomic_signal_fence(std::memory_order_seq_cst);
      if (--t_->runtime_depth_ == 0) {
        // Both directions' runs again, whichever call this was: a reply
        // written word for word as its request is read (write(read()))
        // would otherwise have each call end the other's run, and every
        // word take the out-of-line path (18 such calls for a 64-byte echo).
        t_->grant_rx_run();
        t_->grant_tx_run();
        if (t_->measure_app_) t_->app_code_begins();
      }
    }
    RuntimeScope(const RuntimeScope&) = delete;
    RuntimeScope& operator=(const RuntimeScope&) = delete;
    Thread* t_;
  };

  uint32_t id_;
  size_t slot_;
  ThreadFifos* fifos_;
  rte_mempool* pool_;
  ContextTable* contexts_;
  sched::Worker* worker_;
  uint32_t max_message_bytes_;
  ThreadCounters* counters_;
  bool bound_ = false;
  uint16_t context_ = 0;
  uint8_t priority_ = 0;
  ApiError last_error_ = ApiError::kOk;
  bool async_preemptible_ = false;
  bool reported_misuse_ = false;
  uint32_t reported_kinds_ = 0;  // bit per ApiError already logged
  bool watch_failures_ = false;
  bool rx_armed_ = false;        // wait()/msgs_ready() reported a message since the last msg_done()
  uint64_t tx_tag_ = 0;
  uint32_t runtime_depth_ = 0;
  // Measured time in a simulation (nanopu-sim --charge=measured): the
  // thread's own code between API calls is charged to its core.
  bool measure_app_ = false;
  uint64_t app_code_since_tsc_ = 0;  // the last API call's return (0: none yet)
  void app_code_begins();
  void spend_modelled_cycles(double cycles);  // virtual time: compute() and charge_work()
  void app_code_ends();
  uint64_t msg_start_tsc_ = 0;
  // On-core time of the message being (or last) served, stamped on each
  // message this thread sends (MsgMeta::core_time): from when it took the
  // message, less the time it was switched out (away_tsc_, kept by the worker).
  uint64_t msg_begin_tsc_ = 0;
  uint64_t away_tsc_ = 0;
  uint64_t away_at_begin_ = 0;
  // read()'s and write()'s runs (settle_runs()): the next word is at
  // end + 8 * idx; idx counts up from -granted to 0 (0: no run).
  int64_t rx_run_idx_ = 0;
  const uint8_t* rx_run_end_ = nullptr;
  uint32_t rx_run_granted_ = 0;
  int64_t tx_run_idx_ = 0;
  uint8_t* tx_run_end_ = nullptr;  // tx_next_ + 8 * granted: tx_next_ moves when the run settles
  uint32_t tx_run_granted_ = 0;

  // RX: the message being read, and the next one taken from the FIFO early
  // so the scheduler can see when it arrived.
  rte_mbuf* rx_msg_ = nullptr;
  rte_mbuf* rx_next_ = nullptr;
  rte_mbuf* rx_seg_ = nullptr;   // segment holding the next payload word
  uint32_t rx_seg_off_ = 0;      // byte offset of that word in the segment
  const uint8_t* rx_seg_data_ = nullptr;  // that segment's data (for the inline read)
  uint32_t rx_seg_len_ = 0;               // and its length
  uint32_t rx_bytes_left_ = 0;   // payload bytes not yet read
  uint32_t rx_words_left_ = 0;   // words not yet read, header included
  uint64_t rx_header_ = 0;
  bool rx_header_pending_ = false;
  // The run (sender incarnation, docs/wire.md) of the last message taken
  // from each (ip, context), direct-mapped, until a message is written
  // back: that one — the reply — names the run it answers, so a reply to a
  // process that has since restarted on the same address is refused by its
  // successor rather than taken for the answer to the successor's own
  // request. Used once: a later message to the same peer is a new request,
  // for whichever run the NIC knows now (a run that refused us is not named
  // again). A collision forgets (0: the NIC's run, as for a request).
  struct SourceRun {
    uint32_t ip = 0;
    uint16_t context = 0;
    uint16_t run = 0;
  };
  static constexpr uint32_t kSourceRuns = 16;
  std::array<SourceRun, kSourceRuns> source_runs_{};
  [[nodiscard]] static uint32_t source_slot(uint32_t ip, uint16_t context) {
    return ((ip ^ (uint32_t{context} << 16)) * 0x9e3779b1u) >> 28;
  }
  // The run the header being written names — write_header(..., run)'s, else
  // the peer's entry — using the entry up if it is that run.
  uint16_t tx_run_named_ = 0;
  [[nodiscard]] uint16_t run_for(uint32_t ip, uint16_t context) {
    SourceRun& e = source_runs_[source_slot(ip, context)];
    const bool peers = e.ip == ip && e.context == context;
    const uint16_t run = tx_run_named_ != 0 ? tx_run_named_ : peers ? e.run : uint16_t{0};
    if (peers && e.run == run) e.run = 0;
    return run;
  }

  // TX: the message being written.
  rte_mbuf* tx_msg_ = nullptr;
  MsgFifo* tx_fifo_ = nullptr;   // its NIC core's TX FIFO (the owner of its destination)
  rte_mbuf* tx_seg_ = nullptr;   // segment (packet) being filled
  uint8_t* tx_next_ = nullptr;   // where the next payload word goes
  uint32_t tx_seg_words_left_ = 0;
  uint32_t tx_words_left_ = 0;
  uint32_t tx_msg_words_ = 0;  // the open message's words, header included (counted time)
  uint32_t tx_slot_next_ = 0;  // the next inline TX slot (lib/contract/inline_msg.h)
  bool tx_discarding_ = false;   // the header failed: swallow its payload words
  ApiError tx_discard_error_ = ApiError::kOk;  // why (what each swallowed word returns)
};

}  // namespace nanopu
