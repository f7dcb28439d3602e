// A sender's message ids, numbered per receiver and kept within what the
// receiver remembers (docs/wire.md, "Message ids").
//
// A receiver tells a copy of a delivered message (its ACK was lost) from a
// new one by a window of the sender's last wire::kIdWindow ids
// (delivered_ids.h). A sender numbering every message from one counter let
// a message outlive that window: at 100 k messages/s, 16,384 ids pass in
// ~160 ms, while a message whose packets and ACKs keep being lost is
// retransmitted for seconds; its late copy looked new and was delivered
// twice (the fault soak, docs/status.md). So, as TCP's send window bounds
// its sequence space (RFC 9293 §3.3.2), a message takes an id only while
// its receiver's ids in flight span less than wire::kIdsInFlight; else it
// is held here, with every later message to the same stream, until the
// oldest leaves (acknowledged or given up).
//
// Ids come from one of kStreams counters, chosen by the receiver's address,
// as PeerRuns and RttEstimator pick their entries: each receiver sees its
// ids in order (gaps left by the others on its stream do no harm), a slow
// receiver holds up only those that share its stream, and the state is the
// same size whatever the number of peers.
#pragma once

#include <rte_mbuf.h>

#include <array>
#include <cstdint>
#include <vector>

#include "lib/wire/frame.h"
#include "nic/packetizer/packetization_buffer.h"

namespace nanopu {

class IdWindow {
 public:
  static constexpr uint32_t kStreams = 256;

  // buffer: the sender's slots, where the messages in flight and their ids are.
  explicit IdWindow(const PacketizationBuffer& buffer) : buffer_(buffer) {}
  ~IdWindow();  // frees the messages still held
  IdWindow(const IdWindow&) = delete;
  IdWindow& operator=(const IdWindow&) = delete;

  [[nodiscard]] static uint32_t stream_of(uint32_t dst_ip) { return (dst_ip * 0x9e3779b1u) >> 24; }

  // The id of a new message to dst_ip, false when it must wait (hold() it):
  // its stream's window is full, or earlier messages on it wait already.
  [[nodiscard]] bool try_take(uint32_t dst_ip, uint16_t* id);
  // Keeps msg (to dst_ip) until its stream's window opens.
  void hold(rte_mbuf* msg, uint32_t dst_ip);
  // Messages held: each will need a slot of the buffer.
  [[nodiscard]] uint32_t held() const { return static_cast<uint32_t>(held_.size()); }
  // Calls fn(msg, id) for each held message whose window has opened, in the
  // order they were held (per stream: the order they were sent). fn must
  // not call back into this window.
  template <typename Fn>
  void release_ready(Fn&& fn);

 private:
  struct Stream {
    uint16_t next = 0;    // the next id
    uint16_t oldest = 0;  // no id in flight on the stream is older (a bound until rescanned)
    uint32_t oldest_slot = UINT32_MAX;  // where `oldest` was found in flight, if it was
  };
  struct Held {
    rte_mbuf* msg;
    uint32_t dst_ip;
  };
  [[nodiscard]] bool take_from(uint32_t stream, uint16_t* id);
  // The oldest message in flight on the stream, found in the buffer.
  void rescan(uint32_t stream);

  const PacketizationBuffer& buffer_;
  std::array<Stream, kStreams> streams_{};
  std::array<uint32_t, kStreams> held_on_{};  // per stream: messages held
  std::vector<Held> held_;                    // in the order held
};

template <typename Fn>
void IdWindow::release_ready(Fn&& fn) {
  if (held_.empty()) return;
  std::array<bool, kStreams> blocked{};  // a stream stays in order: once one waits, the rest do
  size_t kept = 0;
  for (const Held h : held_) {
    const uint32_t s = stream_of(h.dst_ip);
    uint16_t id = 0;
    if (!blocked[s] && take_from(s, &id)) {
      --held_on_[s];
      fn(h.msg, id);
    } else {
      blocked[s] = true;
      held_[kept++] = h;
    }
  }
  held_.resize(kept);
}

}  // namespace nanopu
