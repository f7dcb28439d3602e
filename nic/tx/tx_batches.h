// What a NIC poll sends, batched for one tx_burst per kind and sent in the
// order the wire wants (docs/wire.md): control before data on a NIC port (a
// switch's priority for control); data before control on a socket port,
// where each datagram costs the sender the whole kernel path and an ACK sent
// first would delay the reply behind it; and, on a shared core, this poll's
// control held back to the next poll's start, after the worker has run the
// messages this poll delivered (NicParams::defer_control). With an egress
// program (Config::egress_program) every frame runs through it as its batch
// leaves, once: what the port did not take waits, already rewritten, for
// the next poll.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <vector>

#include "nanopu/stats.h"
#include "nic/link/link_watch.h"
#include "nic/link/packet_io.h"
#include "nic/pipeline/swx_program.h"

namespace nanopu {

class TxBatches {
 public:
  static constexpr unsigned kBatch = 64;

  TxBatches(PacketIo* io, const LinkWatch* link, NicCounters* counters, bool defer_control,
            bool control_after_data)
      : io_(io), link_(link), counters_(counters), defer_control_(defer_control),
        control_after_data_(control_after_data) {}
  ~TxBatches();
  TxBatches(const TxBatches&) = delete;
  TxBatches& operator=(const TxBatches&) = delete;

  // Every frame runs through program (not owned) before it leaves; copies
  // come from pool. A frame with less room before its data than every
  // header the program declares (SwxProgram::header_bytes: the most it
  // can put there; DPDK's engine writes there unchecked) is copied first;
  // a copy has RTE_PKTMBUF_HEADROOM, which the host checks a program fits.
  void set_egress(SwxProgram* program, rte_mempool* pool) {
    egress_ = program;
    copy_pool_ = pool;
    headroom_ = program->header_bytes();
  }

  void control(rte_mbuf* m) { enqueue(control_, m); }
  void data(rte_mbuf* m) { enqueue(data_, m); }
  // The poll's start: the previous poll's deferred control leaves first.
  void begin_poll() {
    if (defer_control_ && !control_after_data_) flush(deferred_);
  }
  // The poll's end: everything sendable goes, in the wire's order, and the
  // port is flushed.
  void end_poll();
  // Nothing waits to be sent (adaptive polling may sleep).
  [[nodiscard]] bool empty() const {
    return control_.n == 0 && data_.n == 0 && deferred_.n == 0 && egressed_.n == 0;
  }

 private:
  struct Batch {
    rte_mbuf* pkts[kBatch];
    unsigned n = 0;
  };
  // Inline: every packet a poll sends comes through here.
  void enqueue(Batch& b, rte_mbuf* m) {
    if (b.n == kBatch) [[unlikely]] {
      flush(b);
      if (b.n == kBatch) {  // the port still refuses: drop, counted
        ++counters_->tx_drop_port_full;
        rte_pktmbuf_free(m);
        return;
      }
    }
    b.pkts[b.n++] = m;
  }
  // Inline, and the egress program's test first: every frame a poll sends
  // comes through here, and without a program the path is as it was.
  void flush(Batch& b) {
    if (egress_ != nullptr) [[unlikely]] return flush_through_egress(b);
    send(b);
  }
  void send(Batch& b);  // to the port; what it does not take stays in b
  void flush_through_egress(Batch& b);
  // b's frames through the egress program into egressed_, as many as it has
  // room for (the rest stay in b).
  void through_egress(Batch& b);
  // m, the NIC's alone and with room before it for the program's headers:
  // itself, or a copy (null: no buffer, dropped, counted).
  rte_mbuf* own_for_egress(rte_mbuf* m);

  PacketIo* io_;
  const LinkWatch* link_;
  NicCounters* counters_;
  bool defer_control_;
  bool control_after_data_;
  Batch control_;
  Batch data_;
  Batch deferred_;  // defer_control: control packets of the previous poll
  Batch egressed_;  // through the egress program, not yet taken by the port
  SwxProgram* egress_ = nullptr;
  rte_mempool* copy_pool_ = nullptr;
  uint32_t headroom_ = 0;  // the room a frame needs before its data for the program
  std::vector<std::vector<rte_mbuf*>> egress_out_;  // the program's output ports, one burst
};

}  // namespace nanopu
