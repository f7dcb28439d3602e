#include "scheduler/worker.h"

#include <algorithm>
#include <cstdio>
#include <exception>

#include "absl/strings/str_cat.h"
#include "nanopu/stats.h"

namespace nanopu::sched {
namespace {
thread_local Thread* tls_current = nullptr;
}  // namespace

Worker::Worker(uint32_t index, uint32_t max_threads, const std::atomic<bool>* stop)
    : index_(index), max_threads_(max_threads), stop_(stop) {
  slots_.reserve(max_threads);
}

Worker::~Worker() {
  // Fibers still suspended are cancelled (their stacks unwound) here, before
  // their Thread objects go.
  for (Slot& s : slots_) s.fiber.reset();
}

Thread* Worker::current() { return tls_current; }

absl::StatusOr<Thread*> Worker::add_thread(uint32_t id, ThreadFifos* fifos, rte_mempool* pool,
                                           ContextTable* contexts, uint32_t max_message_bytes,
                                           ThreadBody body) {
  if (slots_.size() >= max_threads_)
    return absl::ResourceExhaustedError(absl::StrCat(
        "worker ", index_, " already runs ", max_threads_,
        " threads; raise --max_threads_per_core or add a worker lcore"));
  Slot& slot = slots_.emplace_back();
  slot.thread.reset(new Thread(id, fifos, pool, contexts, this, max_message_bytes));
  Thread* t = slot.thread.get();
  slot.fiber = std::make_unique<Fiber>([t, body = std::move(body)] {
    try {
      body(*t);
    } catch (const FiberCancelled&) {
      throw;  // shutdown unwinding a parked thread: let the fiber finish it
    } catch (const boost::context::detail::forced_unwind&) {
      throw;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "nanopu: thread %u ended by exception: %s\n", t->id(), e.what());
    } catch (...) {
      std::fprintf(stderr, "nanopu: thread %u ended by an unknown exception\n", t->id());
    }
  });
  order_dirty_ = true;
  return t;
}

void Worker::sort_order() {
  order_.resize(slots_.size());
  for (size_t i = 0; i < order_.size(); ++i) order_[i] = i;
  std::stable_sort(order_.begin(), order_.end(), [this](size_t a, size_t b) {
    return slots_[a].thread->priority() < slots_[b].thread->priority();
  });
  order_dirty_ = false;
}

bool Worker::run_once() {
  if (order_dirty_) sort_order();
  bool ran = false;
  const bool stop = stopping();
  for (size_t i : order_) {
    Slot& s = slots_[i];
    if (s.state == State::kFinished) continue;
    if (s.state == State::kWaiting && !stop && !s.thread->msgs_ready()) continue;
    running_ = &s;
    tls_current = s.thread.get();
    s.state = State::kRunnable;
    s.fiber->resume();
    tls_current = nullptr;
    running_ = nullptr;
    if (s.fiber->finished()) {
      s.state = State::kFinished;
      s.thread->unbind();
    }
    ran = true;
    if (order_dirty_) break;  // a bind changed priorities: re-sort next round
  }
  return ran;
}

bool Worker::all_finished() const {
  return std::all_of(slots_.begin(), slots_.end(),
                     [](const Slot& s) { return s.state == State::kFinished; });
}

void Worker::park() {
  running_->state = State::kWaiting;
  running_->fiber->suspend();
}

void Worker::yield() {
  running_->state = State::kRunnable;
  running_->fiber->suspend();
}

}  // namespace nanopu::sched
