#include "model/queueing/virtual_host.h"

#include "nanopu/seeded_draw.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <queue>

#include "model/timing/picoseconds.h"

namespace nanopu::model {
namespace {

struct Msg {
  uint64_t arrival = 0;  // at the NIC
  uint64_t left = 0;     // service still to do
  bool measured = false;
  uint64_t trace_index = UINT64_MAX;  // trace replay: which request
};

// A thread: one request class bound on one core.
struct Binding {
  uint32_t cls = 0;
  uint32_t core = 0;
  size_t local = 0;      // index among the core's threads
  std::deque<Msg> q;     // delivered, not done; the front is being served once started
  uint64_t after_until = 0;  // ServiceTime::after_ns: busy after its last message until here
};

struct Core {
  std::vector<size_t> bindings;
  std::vector<sched::ThreadState> ts;
  int running = -1;      // local index of the thread on the core, or -1 (idle)
  int last = -1;         // the thread whose context is loaded
  uint64_t run_from = 0; // the running thread executes from here (after a switch)
  uint64_t last_tick = 0;
  uint64_t wake_seq = 0;
};

struct Event {
  enum class Kind : uint8_t { kArrival, kDeliver, kWake };
  uint64_t t = 0;
  uint64_t seq = 0;
  Kind kind = Kind::kArrival;
  size_t target = 0;     // binding (deliver) or core (wake)
  uint64_t wake_seq = 0;
  Msg msg;
  bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

class Model {
 public:
  explicit Model(const VirtualHostConfig& c)
      : c_(c),
        rng_(c.seed),
        selector_(c.core_select, c.jbsq_n),
        policy_(sched::HtsParams{c.mode, c.bounded, ps(c.t0_ns), UINT64_MAX / 4, ps(c.tis_period_ns),
                                 c.demotion}),
        cores_(c.cores),
        held_(c.classes.size()),
        class_bindings_(c.classes.size()),
        served_(c.classes.size(), 0) {
    result_.classes.resize(c.classes.size());
    double total = 0;
    for (const RequestClass& rc : c.classes) total += rc.share;
    double acc = 0;
    size_t max_class_bindings = 0;
    for (uint32_t k = 0; k < c.classes.size(); ++k) {
      acc += c.classes[k].share / total;
      cumulative_.push_back(acc);
      std::vector<uint32_t> on = c.classes[k].cores;
      if (on.empty())
        for (uint32_t i = 0; i < c.cores; ++i) on.push_back(i);
      for (uint32_t core : on) {
        Binding b;
        b.cls = k;
        b.core = core;
        b.local = cores_[core].ts.size();
        sched::ThreadState s;
        s.present = true;
        s.priority = c.classes[k].priority;
        cores_[core].ts.push_back(s);
        cores_[core].bindings.push_back(bindings_.size());
        class_bindings_[k].push_back(bindings_.size());
        bindings_.push_back(std::move(b));
      }
      max_class_bindings = std::max(max_class_bindings, on.size());
    }
    in_flight_.assign(bindings_.size(), 0);
    outstanding_.resize(max_class_bindings);
    bound_ = std::make_unique<bool[]>(max_class_bindings);
    std::fill_n(bound_.get(), max_class_bindings, true);
  }

  VirtualHostResult run() {
    if (!c_.trace.empty()) return run_trace();
    const uint64_t total = c_.warmup_requests + c_.requests;
    const double mean_gap_ps = 1e12 / c_.load_rps;
    auto gap = [&] { return static_cast<uint64_t>(rng_.exponential(1.0 / mean_gap_ps)); };
    uint64_t generated = 0;
    push({gap(), 0, Event::Kind::kArrival, 0, 0, {}});
    return loop(c_.requests, [&](const Event&, uint64_t now) {
      arrive(now, generated >= c_.warmup_requests);
      if (++generated < total) push({now + gap(), 0, Event::Kind::kArrival, 0, 0, {}});
    });
  }

 private:
  // Runs events until `measured` requests are answered; on_arrival handles
  // the arrival events (Poisson or trace), the rest is shared.
  template <typename OnArrival>
  VirtualHostResult loop(uint64_t measured, OnArrival on_arrival) {
    uint64_t now = 0;
    while (!events_.empty() && measured_done_ < measured) {
      Event e = events_.top();
      events_.pop();
      now = e.t;
      ++result_.events;
      switch (e.kind) {
        case Event::Kind::kArrival:
          on_arrival(e, now);
          break;
        case Event::Kind::kDeliver:
          deliver(e.target, e.msg, now);
          break;
        case Event::Kind::kWake:
          if (e.wake_seq == cores_[e.target].wake_seq) step(e.target, now, false);
          break;
      }
    }
    result_.simulated_s = static_cast<double>(now) * 1e-12;
    return std::move(result_);
  }

  // The trace's requests instead of Poisson arrivals; open loop pushes them
  // one after another, closed loop one more at each completion (complete()).
  VirtualHostResult run_trace() {
    const std::vector<TracedRequest>& tr = c_.trace;
    result_.trace_response_ps.assign(tr.size(), 0);
    const uint64_t first = c_.trace_outstanding == 0 ? 1 : std::min<uint64_t>(c_.trace_outstanding, tr.size());
    for (uint64_t i = 0; i < first; ++i) push_trace_arrival(i, tr[i].arrival_ps);
    next_trace_ = first;
    return loop(tr.size(), [&](const Event& e, uint64_t now) {
      const uint64_t i = e.msg.trace_index;
      arrive_msg(tr[i].cls, Msg{now, tr[i].service_ps, true, i});
      if (c_.trace_outstanding == 0 && next_trace_ < tr.size()) {
        push_trace_arrival(next_trace_, std::max(now, tr[next_trace_].arrival_ps));
        ++next_trace_;
      }
    });
  }

  void push_trace_arrival(uint64_t i, uint64_t at) {
    Msg m;
    m.trace_index = i;
    push({at, 0, Event::Kind::kArrival, 0, 0, m});
  }

  void push(Event e) {
    e.seq = next_seq_++;
    events_.push(e);
  }

  uint64_t draw_service(uint32_t k) {
    const ServiceTime& s = c_.classes[k].service;
    if (s.misbehave_every != 0 && ++served_[k] % s.misbehave_every == 0) return ps(s.misbehave_ns);
    switch (s.kind) {
      case ServiceTime::Kind::kFixed: return ps(s.mean_ns);
      case ServiceTime::Kind::kExponential:
        return ps(rng_.exponential(1.0 / s.mean_ns));
      case ServiceTime::Kind::kBimodal:
        return ps(rng_.chance(s.p_long) ? s.long_ns : s.short_ns);
    }
    return ps(s.mean_ns);
  }

  void arrive(uint64_t now, bool measured) {
    const double u = rng_.unit();
    uint32_t k = 0;
    while (k + 1 < cumulative_.size() && u > cumulative_[k]) ++k;
    arrive_msg(k, Msg{now, draw_service(k), measured});
  }

  void arrive_msg(uint32_t k, const Msg& m) {
    const uint64_t now = m.arrival;
    if (held_[k].empty()) {
      const int b = select(k);
      if (b >= 0) {
        push({now + ps(c_.nic_rx_ns), 0, Event::Kind::kDeliver, static_cast<size_t>(b), 0, m});
        ++in_flight_[static_cast<size_t>(b)];
        return;
      }
    }
    held_[k].push_back(m);  // JBSQ: every core at n; waits for a credit
  }

  // The binding of class k core selection picks, or -1 (hold).
  int select(uint32_t k) {
    const std::vector<size_t>& bs = class_bindings_[k];
    for (size_t i = 0; i < bs.size(); ++i) outstanding_[i] = static_cast<uint32_t>(in_flight_[bs[i]]);
    const int i = selector_.select(outstanding_.data(), bound_.get(), bs.size(), rng_.next());
    return i == CoreSelector::kHold ? -1 : static_cast<int>(bs[static_cast<size_t>(i)]);
  }

  void deliver(size_t b, const Msg& m, uint64_t now) {
    Binding& bd = bindings_[b];
    Core& core = cores_[bd.core];
    settle(bd.core, now);
    const ServiceTime& st = c_.classes[bd.cls].service;
    Msg msg = m;
    if (!bd.q.empty()) {
      const int64_t left = static_cast<int64_t>(msg.left) + std::llround(st.queued_delta_ns * 1000);
      msg.left = static_cast<uint64_t>(std::max<int64_t>(0, left));
    } else if (now < bd.after_until) {
      msg.left += bd.after_until - now;
    }
    bd.q.push_back(msg);
    sched::ThreadState& s = core.ts[bd.local];
    if (!s.has_msg) s.head_ts = m.arrival;
    s.has_msg = true;
    step(bd.core, now, false);
  }

  // Accounts the running thread's progress up to now; completes its message
  // if it is done (then decides at msg_done).
  void settle(uint32_t c, uint64_t now) {
    Core& core = cores_[c];
    if (core.running < 0 || now <= core.run_from) return;
    Binding& b = bindings_[core.bindings[static_cast<size_t>(core.running)]];
    if (b.q.empty()) return;
    Msg& m = b.q.front();
    const uint64_t used = std::min(m.left, now - core.run_from);
    m.left -= used;
    core.run_from = now;
  }

  void complete(uint32_t c, uint64_t now) {
    Core& core = cores_[c];
    const size_t bi = core.bindings[static_cast<size_t>(core.running)];
    Binding& b = bindings_[bi];
    const Msg m = b.q.front();
    b.q.pop_front();
    --in_flight_[bi];
    if (m.measured) {
      result_.classes[b.cls].response_ps.push_back(now - m.arrival + ps(c_.fixed_response_ns));
      ++measured_done_;
    }
    if (m.trace_index != UINT64_MAX) {
      result_.trace_response_ps[m.trace_index] = now - m.arrival + ps(c_.fixed_response_ns);
      if (c_.trace_outstanding > 0 && next_trace_ < c_.trace.size()) {  // closed loop: the slot's next
        push_trace_arrival(next_trace_, now + c_.trace[next_trace_].arrival_ps);
        ++next_trace_;
      }
    }
    if (const double after = c_.classes[b.cls].service.after_ns; after > 0) {
      if (b.q.empty()) {
        b.after_until = now + ps(after);
      } else {
        b.q.front().left += ps(after);
      }
    }
    sched::ThreadState& s = core.ts[b.local];
    policy_.on_msg_done(s);
    s.has_msg = !b.q.empty();
    if (s.has_msg) s.head_ts = b.q.front().arrival;
    // The credit comes back: the class's next held message goes out (JBSQ).
    std::deque<Msg>& held = held_[b.cls];
    while (!held.empty()) {
      const int nb = select(b.cls);
      if (nb < 0) break;
      push({now + ps(c_.nic_rx_ns), 0, Event::Kind::kDeliver, static_cast<size_t>(nb), 0, held.front()});
      ++in_flight_[static_cast<size_t>(nb)];
      held.pop_front();
    }
  }

  void switch_to(uint32_t c, int target, uint64_t now) {
    Core& core = cores_[c];
    core.running = target;
    if (target != core.last) {
      core.run_from = now + ps(c_.context_switch_ns);
      ++result_.context_switches;
    } else {
      core.run_from = now;
    }
    core.last = target;
  }

  // The core's scheduling decision at now (HTS: at every event; TIS: at
  // ticks, or when the core has nothing to run).
  void step(uint32_t c, uint64_t now, bool at_msg_done) {
    Core& core = cores_[c];
    settle(c, now);
    if (core.running >= 0 && now >= core.run_from) {
      Binding& b = bindings_[core.bindings[static_cast<size_t>(core.running)]];
      if (!b.q.empty() && b.q.front().left == 0) {
        complete(c, now);
        at_msg_done = true;
      }
    }
    const size_t n = core.ts.size();
    if (core.running >= 0 && now < core.run_from) {
      // Mid-switch: decide when it lands (an arrival during a switch is
      // seen at the thread's first safe point, as on the runtime's worker).
      ++core.wake_seq;
      push({core.run_from, 0, Event::Kind::kWake, c, core.wake_seq, {}});
      return;
    }
    if (c_.mode == sched::SchedMode::kTis) {
      // TIS (nanoPU (OSDI'21) §5.2.2): the kernel swaps in the highest-priority active
      // thread only at its periodic tick; between ticks the loaded thread
      // keeps the core, serving its own messages or idling.
      uint64_t tick = 0;
      const bool boot = core.last < 0;
      if (boot || policy_.tis_tick_due(core.last_tick, now, &tick)) {
        if (!boot) core.last_tick = tick;
        // The tick is at `tick`, not now: it swaps in a thread only for a
        // message already there then. A message that arrived since (the core
        // idle, no event between the tick and it) waits for the next tick,
        // as it would on a core whose timer fires on time.
        const uint64_t seen_at = boot ? now : tick;
        int best = sched::HtsPolicy::kNone;
        for (size_t i = 0; i < n; ++i) {
          const sched::ThreadState& t = core.ts[i];
          if (!t.present || !t.has_msg || t.head_ts > seen_at) continue;
          if (best == sched::HtsPolicy::kNone || sched::HtsPolicy::better(t, core.ts[static_cast<size_t>(best)]))
            best = static_cast<int>(i);
        }
        if (best != sched::HtsPolicy::kNone && best != core.last) switch_to(c, best, now);
      }
      if (core.running < 0 && core.last >= 0) core.running = core.last;
    } else {
      if (core.running >= 0 && !core.ts[static_cast<size_t>(core.running)].has_msg) core.running = -1;
      if (core.running >= 0) {
        sched::ThreadState& r = core.ts[static_cast<size_t>(core.running)];
        const bool was_demoted = r.demoted;
        if (policy_.should_switch(core.ts.data(), n, core.running, now, at_msg_done)) {
          const int other = policy_.best_active(core.ts.data(), n, core.running);
          if (other != sched::HtsPolicy::kNone) switch_to(c, other, now);
        }
        if (r.demoted && !was_demoted) ++result_.demotions;
      } else {
        const int next = policy_.best_active(core.ts.data(), n);
        if (next != sched::HtsPolicy::kNone) switch_to(c, next, now);
      }
    }
    if (core.running >= 0) {  // its next message starts when it runs (message timer, t0)
      sched::ThreadState& s = core.ts[static_cast<size_t>(core.running)];
      if (s.has_msg && !s.in_msg) sched::HtsPolicy::on_msg_start(s, std::max(now, core.run_from));
    }
    schedule_wake(c, now);
  }

  void schedule_wake(uint32_t c, uint64_t now) {
    Core& core = cores_[c];
    ++core.wake_seq;
    if (core.running < 0) return;  // an arrival wakes it
    const sched::ThreadState& r = core.ts[static_cast<size_t>(core.running)];
    const Binding& b = bindings_[core.bindings[static_cast<size_t>(core.running)]];
    uint64_t at = b.q.empty() ? UINT64_MAX : core.run_from + b.q.front().left;
    if (c_.mode == sched::SchedMode::kHts) {
      const uint64_t dl = policy_.time_deadline(r);
      if (dl != UINT64_MAX && dl + 1 > now && dl + 1 < at) at = dl + 1;  // just past t0
    } else if (policy_.best_active(core.ts.data(), core.ts.size(), core.running) != sched::HtsPolicy::kNone) {
      const uint64_t period = policy_.params().tis_period;
      const uint64_t next_tick = core.last_tick + ((now - core.last_tick) / period + 1) * period;
      if (next_tick < at) at = next_tick;
    }
    if (at == UINT64_MAX) return;
    push({std::max(at, now), 0, Event::Kind::kWake, c, core.wake_seq, {}});
  }

  const VirtualHostConfig& c_;
  SeededDraw rng_;  // one seed, one run with any standard library
  CoreSelector selector_;
  sched::HtsPolicy policy_;
  std::vector<Core> cores_;
  std::vector<Binding> bindings_;
  std::vector<size_t> in_flight_;      // per binding: delivered, not done (JBSQ's count)
  std::vector<uint32_t> outstanding_;  // select()'s scratch, one class's bindings
  std::unique_ptr<bool[]> bound_;      // all true: every binding has its thread
  std::vector<std::deque<Msg>> held_;
  std::vector<std::vector<size_t>> class_bindings_;
  std::vector<uint64_t> served_;
  std::vector<double> cumulative_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  uint64_t next_seq_ = 0;
  uint64_t measured_done_ = 0;
  uint64_t next_trace_ = 0;
  VirtualHostResult result_;
};

}  // namespace

VirtualHostResult run_virtual_host(const VirtualHostConfig& c) { return Model(c).run(); }

double ClassResult::quantile_ns(double q) {
  if (response_ps.empty()) return 0;
  if (!sorted_) {
    std::sort(response_ps.begin(), response_ps.end());
    sorted_ = true;
  }
  const auto i = static_cast<size_t>(std::ceil(q * static_cast<double>(response_ps.size()))) ;
  return static_cast<double>(response_ps[std::min(response_ps.size() - 1, i == 0 ? 0 : i - 1)]) / 1000;
}

double ClassResult::mean_ns() const {
  if (response_ps.empty()) return 0;
  double sum = 0;
  for (uint64_t v : response_ps) sum += static_cast<double>(v);
  return sum / static_cast<double>(response_ps.size()) / 1000;
}

}  // namespace nanopu::model
