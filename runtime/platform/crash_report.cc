#include "runtime/platform/crash_report.h"

#include <dlfcn.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>

namespace nanopu {
namespace {

std::atomic<bool> g_installed{false};

void put(const char* s) { (void)!::write(STDERR_FILENO, s, std::strlen(s)); }

void put_hex(uintptr_t v) {
  char buf[2 + 16 + 1];
  char* p = buf + sizeof buf - 1;
  *p = '\0';
  do {
    *--p = "0123456789abcdef"[v & 0xf];
    v >>= 4;
  } while (v != 0 && p > buf + 2);
  *--p = 'x';
  *--p = '0';
  put(p);
}

void on_crash(int sig, siginfo_t*, void* context) {
  uintptr_t pc = 0;
#if defined(__x86_64__)
  pc = static_cast<uintptr_t>(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  pc = static_cast<uintptr_t>(static_cast<ucontext_t*>(context)->uc_mcontext.pc);
#else
  (void)context;
#endif
  Dl_info info{};
  const char* where = pc != 0 && dladdr(reinterpret_cast<void*>(pc), &info) != 0 && info.dli_fname != nullptr
                          ? info.dli_fname
                          : "an unknown object";
  put("nanopu: ");
  put(sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : "SIGILL");
  put(" in ");
  put(where);
  put(" (pc ");
  put_hex(pc);
  put(")\n");
  // Die of the same signal, as without this handler (exit status 128 + sig,
  // a core dump where enabled).
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void install_crash_report() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return;
#else
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  return;
#endif
#endif
  if (g_installed.exchange(true)) return;
  struct sigaction sa {};
  sa.sa_sigaction = on_crash;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL}) sigaction(sig, &sa, nullptr);
#endif
}

}  // namespace nanopu
