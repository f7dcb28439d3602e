// What the emulator's register-file API costs a thread per message, measured
// on this host with the real thing: a nanopu Thread on a Worker of its own,
// fed prepared messages through its FIFOs (no NIC, no port), echoing each
// one. The thread's own stamp (Thread::sender_core_ns, the header's
// core_time) is read off each echo, so what is measured is exactly what a
// server's reply carries when its application does no work of its own.
#pragma once

namespace nanopu::model {

struct ApiCost {
  double message_ns = 0;  // per message: taking it, the reply's buffer, msg_done, safe points
  double word_ns = 0;     // per word read or written (header words included)
  bool ok = false;        // false: could not be measured (no buffers); the costs are 0
};

// Echoes `rounds` messages of 64 and of 1024 bytes (the EAL must be up);
// medians of each, then a line through the two. About 5 ms.
[[nodiscard]] ApiCost measure_api_cost(int rounds = 2000);

}  // namespace nanopu::model
