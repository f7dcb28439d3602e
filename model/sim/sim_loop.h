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
// A host's cores form a group (add_group): the group is polled at an
// instant only if something is due for it then — a frame arriving, its
// own next event (Runtime::next_event_ticks: a timer, a wake, a reply
// held for its core), one of its cores doing anything (then all of them,
// until none does), a core's charged work ending — or an idle step has
// passed since its last poll. Polling a host with nothing due changes
// nothing, so the run is the same event for event (the trace hash does
// not move), and an 81-host incast polls a host when its frames come, not
// at each of the others' frames.
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
  // Instants in a row at which some core was still working after
  // kMaxRoundsPerInstant rounds (the clock then moves 1 ps): a thread that
  // loops without waiting for a time ahead. run() gives up then: crawled().
  static constexpr uint64_t kMaxCrawlInstants = 200'000;

  SimLoop(clock::VirtualClock& clock, uint64_t idle_step_ticks) : clock_(clock), idle_step_(idle_step_ticks) {}

  // poll: runs the host once; true if it did anything. What a poll
  // charges (counted time: clock::charge_cycles) keeps the host's core
  // busy: it is not polled again until that work is done.
  //
  // cut_from: a host whose charged work may end early (a worker core
  // computing in slices: an arrival preempts it) says from when; it is
  // polled at the first instant from then on, busy or not, and what it
  // charges then replaces what was left. max(): not now.
  //
  // group: the host's group (add_group), or kNoGroup: polled at every
  // instant (a switch, the crash schedule).
  static constexpr size_t kNoGroup = SIZE_MAX;
  void add_host(std::function<bool()> poll, std::function<uint64_t()> cut_from = nullptr,
                size_t group = kNoGroup) {
    hosts_.push_back({std::move(poll), std::move(cut_from), 0, group, false});
  }
  // The cores of one host: next_due says when the host next has something
  // to do (a frame arriving, an event of its own); polled then, and at the
  // first instant. Returns the group's id.
  size_t add_group(std::function<uint64_t()> next_due) {
    groups_.push_back({std::move(next_due), 0, true, true});
    return groups_.size() - 1;
  }
  // The group is polled at this instant (if it is running) and the next:
  // a host restarted.
  void stir(size_t group) { groups_[group].active = groups_[group].stirred = true; }
  void add_link(const SimLink* link) { links_.push_back(link); }
  // Something with events of its own (a switch's queues, a host's start):
  // when it next needs a poll, max() if it does not.
  void add_wakeup(std::function<uint64_t()> next_event) { wakeups_.push_back(std::move(next_event)); }

  // Runs until done() or the clock passes until_ticks; returns done().
  bool run(const std::function<bool()>& done, uint64_t until_ticks);

  [[nodiscard]] uint64_t instants() const { return instants_; }
  // run() stopped because the clock crawled (kMaxCrawlInstants): when.
  [[nodiscard]] bool crawled() const { return crawled_at_ps_ != 0; }
  [[nodiscard]] uint64_t crawled_at_ps() const { return crawled_at_ps_; }
  [[nodiscard]] uint64_t polls() const { return polls_; }

 private:
  clock::VirtualClock& clock_;
  uint64_t idle_step_;
  struct Host {
    std::function<bool()> poll;
    std::function<uint64_t()> cut_from;  // may be empty
    uint64_t busy_until_ps;
    size_t group;
    bool owes_poll;  // charged work: polled when it ends, group due or not
    [[nodiscard]] uint64_t cut_at() const { return cut_from ? cut_from() : UINT64_MAX; }
  };
  struct Group {
    std::function<uint64_t()> next_due;
    uint64_t polled_at_ps;
    bool active;   // polled at this instant
    bool stirred;  // stir(): active at the next instant too
  };
  // Whether host h is polled in this round of the instant `now`.
  [[nodiscard]] bool takes_poll(const Host& h, uint64_t now) const;
  void begin_instant(uint64_t now);
  std::vector<Host> hosts_;
  std::vector<Group> groups_;
  std::vector<const SimLink*> links_;
  std::vector<std::function<uint64_t()>> wakeups_;
  uint64_t instants_ = 0;
  uint64_t crawled_at_ps_ = 0;
  uint64_t polls_ = 0;
};

}  // namespace nanopu::model
