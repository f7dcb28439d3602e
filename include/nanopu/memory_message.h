// The traditional NIC's path, beside the register file (nanoPU (OSDI'21) §2
// and Figure 1; §5.1 compares the two): a message is copied whole into
// memory, as a DMA engine leaves it in a receive buffer, and the application
// works on memory; a reply is assembled in memory and handed to the NIC in
// one go. nanopu offers it so that a service can be *measured* both ways on
// the same host (`--app_mode=traditional` in nanopu-server and
// nanopu-loadgen), not only modelled.
//
//   nanopu::serve_from_memory(t, [&](const nanopu::MemoryMessage& m) {
//     (void)t.send_message(nanopu::AppHeader{m.header.ip, m.header.context, m.header.len}, m.payload);
//   });
//
// Thread::receive_message() takes the message off the RX queue at once
// (msg_done): the core-selection credit goes back and the hardware thread
// scheduler no longer sees the thread as serving it — as with a NIC that
// knows nothing of the application's threads.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "nanopu/app_header.h"
#include "nanopu/thread.h"

namespace nanopu {

struct MemoryMessage {
  AppHeader header;                // source (ip, context) and length in bytes
  std::vector<uint64_t> payload;   // ceil(len/8) words, host order, the last zero-padded
  uint64_t rx_tsc = 0;             // when the NIC core took it (Thread::rx_tsc(): the runtime's clock)
  double sender_core_ns = 0;       // as Thread::sender_core_ns(), kept past msg_done

  [[nodiscard]] std::span<const uint64_t> words() const { return payload; }
};

// Serves t's bound context on the traditional path until the runtime stops:
// every message is copied to memory and handed to handler(const
// MemoryMessage&); the handler answers, if it does, with
// Thread::send_message(). One MemoryMessage is reused: no allocation per
// message once it has grown to the largest message.
template <class Handler>
void serve_from_memory(Thread& t, Handler&& handler) {
  MemoryMessage m;
  while (t.wait())
    while (t.receive_message(&m) == ApiError::kOk) handler(std::as_const(m));
}

}  // namespace nanopu
