// The loop of a simulation (docs/design.md §11): real hosts and switches,
// each a node with a modelled clock of its own, joined by SimLinks, run in
// conservative windows on one thread or several.
//
// A node is what runs as one: a host's cores (its NIC core, then its worker
// cores' fibers) or a switch. It lives through instants of its own: at
// each, its cores are polled until none does anything (or
// kMaxRoundsPerInstant rounds: a thread that polls in a loop must not hold
// time still); then its clock jumps to its next frame's arrival, its own
// next event (next_due, a wakeup, a core's charged work ending), or to the
// next multiple of `idle_step` when nothing is due sooner (a safety net for
// what next_due does not say; the same grid for every node). Nothing but its own events and
// the frames that reach it decides when a node runs, so a node does the
// same whichever other nodes share its thread.
//
// Nodes meet only through links, and a frame cannot arrive sooner than its
// link's lookahead (latency and a minimal frame's serialization) after it
// is sent. So the loop runs every node up to the end of a window [t, t+L),
// L the least lookahead of any link and t the earliest time any node has
// something due, and only then hands the frames sent meanwhile to their
// links' far ends (the null-message-free "window" scheme of ns-3's
// distributed simulator and SimBricks' synchronised channels, with the
// lookahead fixed by the topology): the windows are the same for any split
// of the nodes across threads, and so is every node's run, frame for frame
// (the trace hash does not move). Whatever runs between windows (run's
// `done`, events: a crash) sees every node stopped.
//
// Within an instant a node's cores share its group: an idle core is
// polled only if something is due for the node then — a frame arriving,
// its own next event, one of its cores doing anything (then all of them,
// until none does), a core's charged work ending — or an idle step has
// passed since its last poll. Polling a node with nothing due changes
// nothing, so skipping it does not move the trace hash.
//
// Counted time (design §11): what a node's poll charges to its core
// (clock::charge_cycles: a message's work, a thread switch, declared
// compute) makes that core busy until the work is done; the loop takes the
// charge after each poll and polls that core again only then.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/contract/clock.h"
#include "model/network/rank_frames.h"
#include "model/network/sim_link.h"
#include "model/network/sim_peers.h"

namespace nanopu::model {

class SimLoop {
 public:
  static constexpr int kMaxRoundsPerInstant = 64;
  // Instants in a row at which some core of a node was still working after
  // kMaxRoundsPerInstant rounds (its clock then moves 1 ps): a thread that
  // loops without waiting for a time ahead. run() gives up then: crawled().
  static constexpr uint64_t kMaxCrawlInstants = 200'000;

  SimLoop(clock::VirtualClock& clock, uint64_t idle_step_ticks) : clock_(clock), idle_step_(idle_step_ticks) {}

  // A node; next_due says when it next has something to do (its own
  // events and its frames' arrivals; null: the loop takes the arrivals at
  // the ports given by add_link, and its wakeups). Null, or poll_always: its cores are all polled at
  // every one of its instants (a check that skipping them changes
  // nothing). Returns its id.
  size_t add_node(std::function<uint64_t()> next_due, bool poll_always = false);
  // A core of node `node`. poll: runs it once; true if it did anything.
  // What a poll charges (counted time: clock::charge_cycles) keeps the core
  // busy: it is not polled again until that work is done.
  //
  // cut_from: a core whose charged work may end early (a worker computing
  // in slices: an arrival preempts it) says from when; it is polled at the
  // node's first instant from then on, busy or not, and what it charges
  // then replaces what was left. max(): not now.
  void add_core(size_t node, std::function<bool()> poll, std::function<uint64_t()> cut_from = nullptr);
  // Something with events of its own (a switch's queues, a host's start):
  // when it next needs node `node` polled, max() if it does not.
  void add_wakeup(size_t node, std::function<uint64_t()> next_event);
  // A link: end a is node_a's port, end b node_b's.
  void add_link(SimLink* link, size_t node_a, size_t node_b);
  // Events of the whole run at exact times (a crash, a restart), applied
  // between windows with every node stopped, the clock at their time: a
  // window ends at the next one. next: its time, max() for none.
  // The end of the window last run: between windows, the time every node
  // has run to (an event that depends on what a node did falls then).
  [[nodiscard]] uint64_t window_end() const { return window_end_; }
  void set_events(std::function<uint64_t()> next, std::function<void()> apply) {
    next_event_ = std::move(next);
    apply_events_ = std::move(apply);
  }
  // Several processes (MPI ranks), each running a share of the nodes, in
  // step: `peers` says which this is. Before run(); with one thread a rank.
  void set_peers(SimPeers* peers) { peers_ = peers; }
  // Whether node `node` runs in this process (while run() runs; always
  // without peers).
  [[nodiscard]] bool runs_here(size_t node) const {
    return peers_ == nullptr || part_of_.empty() || part_of_[node] == static_cast<uint32_t>(peers_->rank());
  }
  // Whether the node of link end `end` runs in this process.
  [[nodiscard]] bool end_runs_here(const SimPort* end) const { return runs_here(end_of_.at(end).node); }
  // A frame from another rank that could not be made again here (its pool
  // missing or empty), in words: the run stopped at it.
  [[nodiscard]] const std::string& rank_error() const { return rank_error_; }
  // Node `node` is polled at the clock's time (between windows: an event
  // restarted its host), its cores all.
  void stir(size_t node);

  // Runs until done() (asked between windows) or the clock passes
  // until_ticks; returns done(). threads: the nodes are split in that many
  // runs of consecutive ids of about equal weight (cores and ports), each
  // run by a thread of its own (this one the first); the run is the same
  // for any count.
  bool run(const std::function<bool()>& done, uint64_t until_ticks, int threads = 1);

  [[nodiscard]] uint64_t instants() const;
  [[nodiscard]] uint64_t polls() const;
  [[nodiscard]] uint64_t windows() const { return windows_; }
  // Instants at which a node's clock went back (a frame handed to it after
  // its arrival): none, or the windows are wrong.
  [[nodiscard]] uint64_t clock_regressions() const;
  // The latest instant any node reached.
  [[nodiscard]] uint64_t last_instant_ps() const;
  // run() stopped because a node's clock crawled (kMaxCrawlInstants): when.
  [[nodiscard]] bool crawled() const { return crawled_at_ps_ != 0; }
  [[nodiscard]] uint64_t crawled_at_ps() const { return crawled_at_ps_; }

 private:
  struct Core {
    std::function<bool()> poll;
    std::function<uint64_t()> cut_from;  // may be empty
    uint64_t busy_until_ps = 0;
    bool owes_poll = false;  // charged work: polled when it ends, node due or not
    [[nodiscard]] uint64_t cut_at() const { return cut_from ? cut_from() : UINT64_MAX; }
  };
  struct Node {
    std::function<uint64_t()> next_due;  // empty: always due
    bool poll_always = false;
    std::vector<Core> cores;
    std::vector<std::function<uint64_t()>> wakeups;
    std::vector<SimPort*> ports;  // its ends of links
    uint64_t now_ps = 0;                // its clock: its latest instant
    uint64_t next_ps = 0;               // its next instant
    uint64_t polled_at_ps = 0;
    uint64_t crawling = 0;  // busy instants in a row
    uint64_t crawled_at_ps = 0;
    uint64_t instants = 0, polls = 0;
    uint64_t backwards = 0;  // instants before the one before (clock_regressions)
    bool active = false;   // its idle cores are polled at this instant
    bool stirred = true;   // active at its next instant
  };
  [[nodiscard]] static bool takes_poll(const Node& n, const Core& c);
  // Node n's instants before window_end, on this thread.
  void run_node(Node& n, uint64_t window_end);
  void instant(Node& n);
  [[nodiscard]] uint64_t next_instant(const Node& n, bool busy) const;
  // Between windows (one thread, every node stopped): delivers what was
  // sent, applies events, and sets the next window or stop_.
  void between_windows(const std::function<bool()>& done, uint64_t until_ticks);
  [[nodiscard]] std::vector<size_t> split(size_t parts) const;
  // Node `node` has something due at t (a frame delivered, a stir).
  void due_at(size_t node, uint64_t t);
  // Delivers what this process's nodes sent in the window: to its own
  // nodes' ends here, to other ranks' through peers_ (and theirs here).
  void deliver();
  // What every rank agrees on between two windows: the earliest next
  // instant of any node, whether every rank is done, whether one failed
  // (rank_error); and the earliest crawl (crawled_at_ps_).
  struct Agreed {
    uint64_t start;
    bool done, failed;
  };
  [[nodiscard]] Agreed agree(const std::function<bool()>& done);

  clock::VirtualClock& clock_;
  uint64_t idle_step_;
  std::vector<Node> nodes_;
  struct End {
    size_t node;
    uint32_t index;  // in ends_: the same in every rank
  };
  absl::flat_hash_map<const SimPort*, End> end_of_;  // every link end's
  std::vector<SimPort*> ends_;                 // in the order added
  SimPeers* peers_ = nullptr;
  RankFrames rank_frames_;
  std::string rank_error_;
  std::vector<std::vector<SimPort*>> sent_;  // per thread: its ends that sent in this window
  std::vector<uint32_t> part_of_;            // while run() runs: each node's thread
  std::vector<uint64_t> part_next_;          // per thread: its nodes' earliest next instant
  uint64_t lookahead_ = UINT64_MAX;
  std::function<uint64_t()> next_event_;
  std::function<void()> apply_events_;
  uint64_t window_end_ = 0;
  uint64_t windows_ = 0;
  bool stop_ = false, done_ = false;
  std::atomic<bool> any_crawled_{false};
  uint64_t crawled_at_ps_ = 0;
};

}  // namespace nanopu::model
