// The lnic.h C shim: each call acts on the thread whose fiber is running.
#include "nanopu/lnic.h"
#include "lib/base/log.h"

#include <cstdio>
#include <cstdlib>

#include "nanopu/thread.h"
#include "scheduler/worker.h"

namespace {

nanopu::Thread& current() {
  nanopu::Thread* t = nanopu::sched::Worker::current();
  if (t == nullptr) {
    // Not inside a nanopu thread: there are no registers to use. This is a
    // programming error with no sensible fallback.
    NANOPU_LOG(kError, "lnic_* called outside a thread spawned by nanopu::Runtime");
    std::abort();
  }
  return *t;
}

}  // namespace

extern "C" {

int nanopu_lnic_add_context(uint64_t context, uint64_t priority) {
  if (context > 0xffff || priority > 0xff) {
    NANOPU_LOG(kError, "lnic_add_context(%llu, %llu): context must be < 65536, priority < 256",
                 static_cast<unsigned long long>(context), static_cast<unsigned long long>(priority));
    return -1;
  }
  absl::Status s = current().bind(static_cast<uint16_t>(context), static_cast<uint8_t>(priority));
  if (!s.ok()) {
    NANOPU_LOG(kError, "lnic_add_context: %s", std::string(s.message()).c_str());
    return -1;
  }
  return 0;
}

void nanopu_lnic_wait(void) {
  nanopu::Thread& t = current();
  // On shutdown, park for good: the runtime unwinds this fiber's stack.
  while (!t.wait()) t.idle();
}

int nanopu_lnic_ready(void) { return current().msgs_ready() ? 1 : 0; }
uint64_t nanopu_lnic_read(void) { return current().read(); }
void nanopu_lnic_write(uint64_t word) { (void)current().write(word); }
void nanopu_lnic_msg_done(void) { current().msg_done(); }
void nanopu_lnic_idle(void) { current().idle(); }
void nanopu_lnic_read_words(uint64_t* words, size_t n) { (void)current().read_words({words, n}); }
void nanopu_lnic_write_words(const uint64_t* words, size_t n) { (void)current().write_words({words, n}); }

}  // extern "C"
