#include "apps/compute/word_service.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <string>

namespace nanopu::apps {
namespace {

// The application header's 16-bit length bounds a reply (a service's
// max_reply_words says it never comes near; this keeps a bug from wrapping it).
constexpr size_t kMaxReplyWords = 0xffff / 8;

void write_reply(Thread& t, const AppHeader& to, const std::vector<uint64_t>& reply) {
  (void)t.write(AppHeader{to.ip, to.context, static_cast<uint16_t>(8 * reply.size())}.word());
  for (uint64_t w : reply) (void)t.write(w);
}

}  // namespace

bool serve_words(Thread& t, uint16_t context, uint8_t priority, WordService& service, MessagePath path,
                 ComputeStats* stats) {
  if (absl::Status s = t.bind(context, priority); !s.ok()) {
    std::fprintf(stderr, "nanopu: compute service: %s\n", std::string(s.message()).c_str());
    return false;
  }
  std::array<uint64_t, kRegisterFileWords> regs{};
  std::vector<uint64_t> in_memory;   // kMemory: the request as a DMA would leave it
  std::vector<uint64_t> out_memory;  // kMemory: the reply message, header first
  std::vector<uint64_t> reply;
  reply.reserve(service.max_reply_words());
  while (t.wait()) {
    const AppHeader h = AppHeader::from_word(t.read());
    const uint32_t words = h.payload_words();
    reply.clear();
    Outcome o;
    if (path == MessagePath::kRegisters && words <= kRegisterFileWords) {
      for (uint32_t i = 0; i < words; ++i) regs[i] = t.read();
      o = service.answer({regs.data(), words}, &reply);
      if (reply.size() > kMaxReplyWords) reply.clear(), o = Outcome::kDropped;
      if (!reply.empty()) write_reply(t, h, reply);
    } else {
      in_memory.resize(words);
      for (uint32_t i = 0; i < words; ++i) in_memory[i] = t.read();
      o = service.answer(in_memory, &reply);
      if (reply.size() > kMaxReplyWords) reply.clear(), o = Outcome::kDropped;
      if (!reply.empty()) {
        out_memory.resize(1 + reply.size());
        out_memory[0] = AppHeader{h.ip, h.context, static_cast<uint16_t>(8 * reply.size())}.word();
        std::memcpy(out_memory.data() + 1, reply.data(), 8 * reply.size());
        for (uint64_t w : out_memory) (void)t.write(w);
      }
    }
    t.msg_done();  // after the reply, as Listing 1: the message's time includes answering it
    stats->count(o);
  }
  return true;
}

}  // namespace nanopu::apps
