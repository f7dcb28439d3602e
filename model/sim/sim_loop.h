// The loop of a simulation (docs/design.md §11): real hosts, each polled as
// a whole (its NIC core, then its worker cores' fibers: Runtime::poll_once),
// on one thread and one VirtualClock, joined by SimLinks.
//
// At each instant every host is polled, in the order they were added, until
// none does anything (or kMaxRoundsPerInstant rounds: a thread that polls
// in a loop must not hold time still); then the clock jumps to the next
// frame's arrival (or wakeup: add_wakeup), or by `idle_step` when nothing
// is due sooner, so
// that timers (retransmission, held ACKs, a thread's wait_for) fire at most
// that late. No wall clock and a fixed order: the same hosts give the same
// run, event for event.
//
// Counted time (design §11): what a host's poll charges to its core
// (clock::charge_cycles: a message's work, a thread switch, declared
// compute) makes that core busy until the work is done; the loop takes the
// charge after each poll and polls the host again only then.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "lib/contract/clock.h"
#include "model/sim/sim_link.h"

namespace nanopu::model {

class SimLoop {
 public:
  static constexpr int kMaxRoundsPerInstant = 64;

  SimLoop(clock::VirtualClock& clock, uint64_t idle_step_ticks) : clock_(clock), idle_step_(idle_step_ticks) {}

  // poll: runs the host once; true if it did anything. What a poll
  // charges (counted time: clock::charge_cycles) keeps the host's core
  // busy: it is not polled again until that work is done.
  //
  // cut_from: a host whose charged work may end early (a worker core
  // computing in slices: an arrival preempts it) says from when; it is
  // polled at the first instant from then on, busy or not, and what it
  // charges then replaces what was left. max(): not now.
  void add_host(std::function<bool()> poll, std::function<uint64_t()> cut_from = nullptr) {
    hosts_.push_back({std::move(poll), std::move(cut_from), 0});
  }
  void add_link(const SimLink* link) { links_.push_back(link); }
  // Something with events of its own (a switch's queues, a host's start):
  // when it next needs a poll, max() if it does not.
  void add_wakeup(std::function<uint64_t()> next_event) { wakeups_.push_back(std::move(next_event)); }

  // Runs until done() or the clock passes until_ticks; returns done().
  bool run(const std::function<bool()>& done, uint64_t until_ticks);

  [[nodiscard]] uint64_t instants() const { return instants_; }
  [[nodiscard]] uint64_t polls() const { return polls_; }

 private:
  clock::VirtualClock& clock_;
  uint64_t idle_step_;
  struct Host {
    std::function<bool()> poll;
    std::function<uint64_t()> cut_from;  // may be empty
    uint64_t busy_until_ps;
    [[nodiscard]] uint64_t cut_at() const { return cut_from ? cut_from() : UINT64_MAX; }
  };
  std::vector<Host> hosts_;
  std::vector<const SimLink*> links_;
  std::vector<std::function<uint64_t()>> wakeups_;
  uint64_t instants_ = 0;
  uint64_t polls_ = 0;
};

}  // namespace nanopu::model
