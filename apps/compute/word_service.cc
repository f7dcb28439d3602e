#include "apps/compute/word_service.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <string>

#include "apps/boot/bind_service.h"
#include "nanopu/memory_message.h"

namespace nanopu::apps {
namespace {

// The application header's 16-bit length bounds a reply (a service's
// max_reply_words says it never comes near; this keeps a bug from wrapping it).
constexpr size_t kMaxReplyWords = 0xffff / 8;

void write_reply(Thread& t, const AppHeader& to, const std::vector<uint64_t>& reply) {
  (void)t.write(AppHeader{to.ip, to.context, static_cast<uint16_t>(8 * reply.size())}.word());
  (void)t.write_words(reply);  // the register writes, a packet segment per copy
}

}  // namespace

bool serve_words(Thread& t, uint16_t context, uint8_t priority, WordService& service, MessagePath path,
                 ComputeStats* stats) {
  if (!bind_service(t, context, priority, "compute service")) return false;
  std::vector<uint64_t> reply;
  reply.reserve(service.max_reply_words());
  if (path == MessagePath::kMemory) {
    // The traditional path: the request copied to memory whole (and off the
    // RX queue), the reply assembled in memory and handed over whole.
    serve_from_memory(t, [&](const MemoryMessage& m) {
      reply.clear();
      service.clear_work();
      Outcome o = service.answer(m.words(), &reply);
      if (reply.size() > kMaxReplyWords) reply.clear(), o = Outcome::kDropped;
      // The service's work and the copies through memory (counted time only).
      t.charge_work(service.work_cycles() +
                    kMemoryPathCyclesPerWord * static_cast<double>(m.words().size() + reply.size()));
      if (!reply.empty())
        (void)t.send_message(AppHeader{m.header.ip, m.header.context, static_cast<uint16_t>(8 * reply.size())},
                             reply);
      stats->count(o);
    });
    return true;
  }
  std::array<uint64_t, kRegisterFileWords> regs{};
  std::vector<uint64_t> in_memory;  // a request longer than the register block
  while (t.wait()) {
    const AppHeader h = AppHeader::from_word(t.read());
    const uint32_t words = h.payload_words();
    reply.clear();
    const bool fits = words <= kRegisterFileWords;
    if (!fits) in_memory.resize(words);
    uint64_t* in = fits ? regs.data() : in_memory.data();
    (void)t.read_words({in, words});  // the register reads, a packet segment per copy
    service.clear_work();
    Outcome o = service.answer({in, words}, &reply);
    t.charge_work(service.work_cycles());  // counted time only (Thread::charge_work)
    if (reply.size() > kMaxReplyWords) reply.clear(), o = Outcome::kDropped;
    if (!reply.empty()) write_reply(t, h, reply);
    t.msg_done();  // after the reply, as Listing 1: the message's time includes answering it
    stats->count(o);
  }
  return true;
}

}  // namespace nanopu::apps
