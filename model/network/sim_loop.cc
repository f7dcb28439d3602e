#include "model/network/sim_loop.h"

#include <emmintrin.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <utility>

namespace nanopu::model {
namespace {

// The threads of a run meet at the end of every window, some 10^4 times a
// modelled millisecond: std::barrier's sleep in the kernel costs a wakeup
// (tens of microseconds on a VM) a window, so the last to arrive runs the
// completion and the others spin on a generation count for a few
// microseconds before they sleep on it (futex): a machine busy with other
// work, or more threads than cores, still moves.
class SpinBarrier {
 public:
  explicit SpinBarrier(size_t parties) : parties_(parties) {}
  template <typename F>
  void arrive_and_wait(const F& completion) {
    const uint32_t gen = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == parties_) {
      completion();
      arrived_.store(0, std::memory_order_relaxed);
      generation_.store(gen + 1, std::memory_order_seq_cst);  // before sleepers_ is read
      if (sleepers_.load(std::memory_order_seq_cst) != 0) generation_.notify_all();
      return;
    }
    for (uint32_t spins = 0; spins < 2048; ++spins) {
      if (generation_.load(std::memory_order_acquire) != gen) return;
      _mm_pause();
    }
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    while (generation_.load(std::memory_order_acquire) == gen) generation_.wait(gen, std::memory_order_acquire);
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
  }

 private:
  const size_t parties_;
  std::atomic<size_t> arrived_{0};
  std::atomic<uint32_t> generation_{0};  // 32 bits: a futex's own word
  std::atomic<uint32_t> sleepers_{0};
};

// A thread inherits its maker's CPUs, and the EAL pins the main thread to
// one: the loop's other threads may run on any.
void unpin_this_thread() {
  cpu_set_t all;
  CPU_ZERO(&all);
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  for (long c = 0; c < cpus && c < CPU_SETSIZE; ++c) CPU_SET(static_cast<int>(c), &all);
  (void)pthread_setaffinity_np(pthread_self(), sizeof(all), &all);  // best effort: pinned still runs
}

}  // namespace

size_t SimLoop::add_node(std::function<uint64_t()> next_due, bool poll_always) {
  Node& n = nodes_.emplace_back();
  n.poll_always = poll_always || !next_due;
  n.next_due = std::move(next_due);
  n.now_ps = n.next_ps = clock_.now_ps();
  return nodes_.size() - 1;
}

void SimLoop::add_core(size_t node, std::function<bool()> poll, std::function<uint64_t()> cut_from) {
  nodes_[node].cores.push_back({std::move(poll), std::move(cut_from)});
}

void SimLoop::add_wakeup(size_t node, std::function<uint64_t()> next_event) {
  nodes_[node].wakeups.push_back(std::move(next_event));
}

void SimLoop::add_link(SimLink* link, size_t node_a, size_t node_b) {
  nodes_[node_a].ports.push_back(&link->a());
  nodes_[node_b].ports.push_back(&link->b());
  for (auto [end, node] : {std::pair{&link->a(), node_a}, std::pair{&link->b(), node_b}}) {
    end_of_[end] = {node, static_cast<uint32_t>(ends_.size())};
    ends_.push_back(end);
  }
  lookahead_ = std::min(lookahead_, std::max<uint64_t>(1, link->lookahead_ticks()));
}

void SimLoop::stir(size_t node) {
  nodes_[node].stirred = true;
  due_at(node, std::max(nodes_[node].now_ps, clock_.now_ps()));
}

void SimLoop::due_at(size_t node, uint64_t t) {
  nodes_[node].next_ps = std::min(nodes_[node].next_ps, t);
  if (!part_of_.empty()) part_next_[part_of_[node]] = std::min(part_next_[part_of_[node]], t);
}

uint64_t SimLoop::instants() const {
  uint64_t s = 0;
  for (const Node& n : nodes_) s += n.instants;
  return s;
}

uint64_t SimLoop::clock_regressions() const {
  uint64_t s = 0;
  for (const Node& n : nodes_) s += n.backwards;
  return s;
}

uint64_t SimLoop::polls() const {
  uint64_t s = 0;
  for (const Node& n : nodes_) s += n.polls;
  return s;
}

uint64_t SimLoop::last_instant_ps() const {
  uint64_t t = clock_.now_ps();
  for (const Node& n : nodes_) t = std::max(t, n.now_ps);
  return t;
}

bool SimLoop::takes_poll(const Node& n, const Core& c) {
  const bool cut = n.now_ps >= c.cut_at();
  if (n.now_ps < c.busy_until_ps && !cut) return false;
  return c.owes_poll || cut || n.active;
}

void SimLoop::instant(Node& n) {
  const uint64_t now = n.now_ps;
  ++n.instants;
  n.active = n.poll_always || std::exchange(n.stirred, false) || now - n.polled_at_ps >= idle_step_ ||
             n.next_due() <= now;
  bool busy = false;  // still working after kMaxRoundsPerInstant rounds
  for (int round = 0; round < kMaxRoundsPerInstant; ++round) {
    bool any = false;
    for (Core& c : n.cores) {
      if (!takes_poll(n, c)) continue;
      const bool did = c.poll();
      any |= did;
      const uint64_t charged = clock::VirtualClock::take_charged_ps();
      c.busy_until_ps = now + charged;
      c.owes_poll = charged != 0;
      n.polled_at_ps = now;
      n.active |= did;  // its other cores run in this round or the next
      ++n.polls;
    }
    busy = any;
    if (!any) break;
  }
  n.crawling = busy ? n.crawling + 1 : 0;
  if (n.crawling >= kMaxCrawlInstants) {
    n.crawled_at_ps = std::max<uint64_t>(1, now);
    n.next_ps = UINT64_MAX;
    any_crawled_.store(true, std::memory_order_relaxed);  // read after the window's barrier
    return;
  }
  n.next_ps = next_instant(n, busy);
}

// The next time anything is due for n. A frame already due that it did not
// take waits for it (booting, or busy with work charged): its wakeup is
// among these. A node still working after the round limit gets the
// smallest step: time must pass for a poller.
uint64_t SimLoop::next_instant(const Node& n, bool busy) const {
  const uint64_t now = n.now_ps;
  // Idle steps fall on multiples of idle_step, the same for every node: the
  // loop's windows then skip from one to the next while all is idle, not
  // through each node's own.
  uint64_t next = busy ? now + 1 : (now / idle_step_ + 1) * idle_step_;
  auto take = [&](uint64_t t) {
    if (t > now) next = std::min(next, t);
  };
  if (n.next_due) take(n.next_due());  // its frames' arrivals among them
  else
    for (const SimPort* p : n.ports) take(p->next_arrival());
  for (const auto& w : n.wakeups) take(w());
  for (const Core& c : n.cores) {
    take(c.busy_until_ps);
    if (const uint64_t cut = c.cut_at(); cut < c.busy_until_ps) take(cut);
  }
  return next;
}

void SimLoop::run_node(Node& n, uint64_t window_end) {
  const clock::InstantScope at(&n.now_ps);
  while (n.next_ps < window_end) {
    // A frame reached n after it had passed the frame's arrival: a window
    // longer than the lookahead. Counted (a test asserts none), never hidden.
    n.backwards += n.next_ps < n.now_ps ? 1 : 0;
    n.now_ps = n.next_ps;
    instant(n);
  }
}

void SimLoop::deliver() {
  std::vector<std::string> out(peers_ != nullptr ? static_cast<size_t>(peers_->ranks()) : 0);
  for (std::vector<SimPort*>& sent : sent_) {
    for (SimPort* port : sent) {
      const End& to = end_of_.at(&port->peer());
      if (runs_here(to.node)) {
        due_at(to.node, port->deliver());
      } else {
        port->drain_outbox([&](uint64_t at, rte_mbuf* frame) {
          rank_frames_.write(to.index, at, frame, &out[part_of_[to.node]]);
        });
      }
    }
    sent.clear();
  }
  if (peers_ == nullptr) return;
  const std::vector<std::string> in = peers_->exchange(std::move(out));
  for (const std::string& bytes : in) {
    absl::Status s = rank_frames_.read(bytes, [&](uint32_t index, uint64_t at, rte_mbuf* frame) {
      ends_[index]->arrive(at, frame);
      due_at(end_of_.at(ends_[index]).node, at);
    });
    if (!s.ok() && rank_error_.empty()) rank_error_ = std::string(s.message());
  }
}

SimLoop::Agreed SimLoop::agree(const std::function<bool()>& done) {
  if (any_crawled_.load(std::memory_order_relaxed))
    for (const Node& n : nodes_)
      if (n.crawled_at_ps != 0 && (crawled_at_ps_ == 0 || n.crawled_at_ps < crawled_at_ps_))
        crawled_at_ps_ = n.crawled_at_ps;
  const uint64_t earliest = peers_ != nullptr ? part_next_[static_cast<size_t>(peers_->rank())]
                                              : *std::min_element(part_next_.begin(), part_next_.end());
  // One reduction a window, every rank's least of each: the next instant,
  // the first crawl, whether all are done, whether none failed.
  std::vector<uint64_t> v{earliest, crawled_at_ps_ == 0 ? UINT64_MAX : crawled_at_ps_, done() ? 1u : 0u,
                          rank_error_.empty() ? 1u : 0u};
  if (peers_ != nullptr) peers_->reduce(v, SimPeers::Reduce::kMin);
  crawled_at_ps_ = v[1] == UINT64_MAX ? 0 : v[1];
  return {v[0], v[2] == 1, v[3] == 0};
}

void SimLoop::between_windows(const std::function<bool()>& done, uint64_t until_ticks) {
  const clock::InstantScope at(clock_.now_ptr());  // on whichever thread arrived last
  // What was sent in the window reaches its far end (its arrival time was
  // fixed when it was sent, and is at or after the window's end).
  deliver();
  Agreed a = agree(done);
  // Events due by then (the same in every rank) happen first, at their
  // times, and may make a node due sooner (a host restarted).
  for (uint64_t event; next_event_ && (event = next_event_()) <= a.start;) {
    clock_.set_ps(event);
    apply_events_();
    a = agree(done);
  }
  done_ = a.done;
  if (done_ || crawled_at_ps_ != 0 || a.failed || a.start > until_ticks || a.start == UINT64_MAX) {
    stop_ = true;
    return;
  }
  clock_.set_ps(a.start);
  const uint64_t event = next_event_ ? next_event_() : UINT64_MAX;
  // No link: windows of an idle step, so that done() is asked now and then.
  const uint64_t length = lookahead_ == UINT64_MAX ? std::max<uint64_t>(1, idle_step_) : lookahead_;
  auto sat_add = [](uint64_t x, uint64_t y) { return y > UINT64_MAX - x ? UINT64_MAX : x + y; };
  window_end_ = std::min({sat_add(a.start, length), event, sat_add(until_ticks, 1)});
  ++windows_;
}

// Thread p runs nodes [first[p], first[p+1]): runs of consecutive ids of
// about equal weight, a node's weight its cores and ports (a switch's
// ports are its work: every frame crosses two).
std::vector<size_t> SimLoop::split(size_t parts) const {
  std::vector<size_t> weight(nodes_.size());
  size_t total = 0;
  for (size_t i = 0; i < nodes_.size(); ++i) total += weight[i] = nodes_[i].cores.size() + nodes_[i].ports.size();
  std::vector<size_t> first(parts + 1, nodes_.size());
  first[0] = 0;
  size_t sum = 0, p = 1;
  for (size_t i = 0; i < nodes_.size() && p < parts; ++i) {
    // Node i starts thread p's run once the weight before it reaches p/parts of the whole, leaving
    // at least one node for each thread after.
    if ((sum * parts >= p * total && i > first[p - 1]) || nodes_.size() - i == parts - p) first[p++] = i;
    sum += weight[i];
  }
  return first;
}

bool SimLoop::run(const std::function<bool()>& done, uint64_t until_ticks, int threads) {
  stop_ = done_ = false;
  // With peers, a part a rank (each with one thread; a rank may have no
  // node): this one runs its own. Threads: no more than the nodes.
  const size_t parts = peers_ != nullptr
                           ? static_cast<size_t>(peers_->ranks())
                           : std::min(static_cast<size_t>(std::max(threads, 1)),
                                      std::max<size_t>(1, nodes_.size()));
  const std::vector<size_t> first = split(parts);
  // What each thread's nodes send is noted on its own list; anything sent
  // before the run (a test's first frame) is delivered first.
  sent_.assign(parts + 1, {});
  for (SimPort* port : ends_)
    if (port->has_outbox()) sent_[parts].push_back(port);
  part_of_.assign(nodes_.size(), 0);
  part_next_.assign(parts, UINT64_MAX);
  for (size_t p = 0; p < parts; ++p)
    for (size_t i = first[p]; i < first[p + 1]; ++i) {
      part_of_[i] = static_cast<uint32_t>(p);
      part_next_[p] = std::min(part_next_[p], nodes_[i].next_ps);
      for (SimPort* port : nodes_[i].ports) port->set_sent_list(&sent_[p]);
    }
  // A thread's nodes' next instant, worked out by that thread (its nodes are in its cache).
  auto run_part = [&](size_t p) {
    uint64_t next = UINT64_MAX;
    for (size_t i = first[p]; i < first[p + 1]; ++i) {
      run_node(nodes_[i], window_end_);
      next = std::min(next, nodes_[i].next_ps);
    }
    part_next_[p] = next;
  };
  if (parts == 1 || peers_ != nullptr) {
    const size_t mine = peers_ != nullptr ? static_cast<size_t>(peers_->rank()) : 0;
    for (between_windows(done, until_ticks); !stop_; between_windows(done, until_ticks)) run_part(mine);
  } else {
    SpinBarrier sync(parts);
    auto worker = [&](size_t p) {
      for (;;) {
        sync.arrive_and_wait([&] { between_windows(done, until_ticks); });  // by the last to arrive
        if (stop_) return;
        run_part(p);
      }
    };
    std::vector<std::jthread> others;
    for (size_t p = 1; p < parts; ++p)
      others.emplace_back([&worker, p] {
        unpin_this_thread();
        worker(p);
      });
    worker(0);
  }
  for (SimPort* port : ends_) port->set_sent_list(nullptr);
  std::vector<uint64_t> last{last_instant_ps()};  // every rank's latest
  if (peers_ != nullptr) peers_->reduce(last, SimPeers::Reduce::kMax);
  clock_.set_ps(last[0]);
  return done_;
}

}  // namespace nanopu::model
