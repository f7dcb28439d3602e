// The compute services' common shape (set intersection, HD search, N-body,
// packet classifier, INT collector): each request is answered from its own
// payload words and the state the service built at start-up, so one server
// loop serves them all and each service is one pure function that tests
// and the fuzzer can call without a Thread.
//
// How a message reaches the function is the comparison nanoPU OSDI'21 §5.3
// and Figure 10 make:
//   kRegisters  the request is read from the RX FIFO into a small on-stack
//               block (the register file), the reply written from it to the
//               TX FIFO word by word;
//   kMemory     a traditional NIC's path (nanopu/memory_message.h): the
//               request is copied whole into memory (the DMA,
//               Thread::receive_message), the reply assembled in memory and
//               handed over whole (Thread::send_message).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "apps/paths/message_path.h"
#include "nanopu/thread.h"

namespace nanopu::apps {

enum class Outcome : uint8_t { kAnswered, kConfig, kError, kDropped };

struct ComputeStats {
  uint64_t requests = 0;  // answered with a result
  uint64_t configs = 0;   // CONFIG messages (state set, not answered)
  uint64_t errors = 0;    // answered with an error
  uint64_t dropped = 0;   // too short to answer at all
  void count(Outcome o) {
    (o == Outcome::kAnswered ? requests : o == Outcome::kConfig ? configs : o == Outcome::kError ? errors : dropped)++;
  }
};

class WordService {
 public:
  virtual ~WordService() = default;
  // Answers one request of payload words `request`: appends the reply's
  // payload words to `reply` (left empty for kConfig and kDropped). Never
  // reads outside `request`.
  [[nodiscard]] virtual Outcome answer(std::span<const uint64_t> request, std::vector<uint64_t>* reply) = 0;
  // The largest reply this service ever sends, in words.
  [[nodiscard]] virtual uint32_t max_reply_words() const = 0;
  // The declared cycles of the last answer()'s own work, from the
  // operations it did (each service's constants, docs/apps.md: nanopu's
  // estimates), for Thread::charge_work: what counted time in nanopu-sim
  // charges for the service's code. 0 when it did none.
  [[nodiscard]] double work_cycles() const { return work_cycles_; }
  void clear_work() { work_cycles_ = 0; }

 protected:
  double work_cycles_ = 0;  // set by answer() when it works; serve_words() clears it before each
};

// kRegisters reads a request of at most this many words onto the stack; a
// longer one takes the memory path (no compute service here sends one).
inline constexpr uint32_t kRegisterFileWords = 64;

// Binds `context` at `priority` and answers until the runtime stops; false
// if the bind failed.
bool serve_words(Thread& t, uint16_t context, uint8_t priority, WordService& service, MessagePath path,
                 ComputeStats* stats);

// The traditional path's copy, in the modelled column: one load and one
// store per message word on the in-order core (as kKvNaiveCopyCyclesPerWord).
inline constexpr double kMemoryPathCyclesPerWord = 2;

}  // namespace nanopu::apps
