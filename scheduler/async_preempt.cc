#include "scheduler/async_preempt.h"

#include <cerrno>
#include <mutex>

#include "scheduler/worker.h"

namespace nanopu::sched {
namespace {

void handler(int) {
  const int saved = errno;
  Worker::on_async_signal();
  errno = saved;
}

}  // namespace

void install_preempt_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(kPreemptSignal, &sa, nullptr);
  });
}

void unblock_preempt_signal() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, kPreemptSignal);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}


}  // namespace nanopu::sched
