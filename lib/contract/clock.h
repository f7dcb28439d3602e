// The one clock the NIC core, the workers and the threads read: the TSC, or,
// while a VirtualClock lives, modelled time in picoseconds (docs/design.md
// §11: every host of a simulation runs its real code on one modelled clock).
//
// Why a global and not a clock handed to each part: the hot paths that read
// it (a message's start and end on a worker, each NIC poll) would otherwise
// pay an indirect call; a load of a pointer that is null outside a
// simulation and a predicted branch cost under a nanosecond beside the
// TSC read itself (nanopu-bench-thread-api). The ports, the EAL and the
// platform's waits for a link keep reading the TSC: they are the real
// world's, not the model's.
#pragma once

#include <rte_cycles.h>

#include <cstdint>

namespace nanopu::clock {

inline constexpr uint64_t kVirtualHz = 1'000'000'000'000;  // a virtual tick is a picosecond

// What a core's work costs in a simulation (docs/design.md §11, counted
// time), in cycles of the modelled core clock; cycle_ps 0: work takes no
// modelled time.
struct WorkCosts {
  double cycle_ps = 0;               // one cycle of the modelled clock
  double msg_fixed_cycles = 0;       // a message taken: header read and write, msg_done
  double word_cycles = 0;            // a word read and written (half charged on each side)
  double context_switch_cycles = 0;  // the core switching to another thread
  // Measured time: a thread's own code between its API calls, on this
  // host's TSC, charged at this many picoseconds a tick (0: not measured).
  double measured_ps_per_tsc = 0;
};

namespace detail {
// The modelled time; null: the TSC. Written only while no core runs.
// Per OS thread: a simulation's threads each run nodes of their own, each
// node at its own instant (model::SimLoop, conservative windows). Initial
// exec: a load at a fixed offset from %fs, no call, on the hot path.
#define NANOPU_TLS_FAST __attribute__((tls_model("initial-exec")))
inline thread_local const uint64_t* g_virtual_now NANOPU_TLS_FAST = nullptr;
// Work charged by the core being polled, on top of the modelled time (the
// simulation takes it after each poll: that core is busy until then).
inline thread_local uint64_t g_charged_ps NANOPU_TLS_FAST = 0;
// The TSC as ticks() last read it on this OS thread (last_read()).
inline thread_local uint64_t g_last_read NANOPU_TLS_FAST = 0;
#undef NANOPU_TLS_FAST
inline WorkCosts g_work_costs;
// The last run number a host took under the VirtualClock.
inline uint16_t* g_virtual_runs = nullptr;
}  // namespace detail

[[nodiscard]] inline bool is_virtual() { return detail::g_virtual_now != nullptr; }

// Now, in ticks of hz().
[[nodiscard]] inline uint64_t ticks() {
  if (const uint64_t* v = detail::g_virtual_now; v != nullptr) [[unlikely]]
    return *v + detail::g_charged_ps;
  const uint64_t t = rte_rdtsc();
  detail::g_last_read = t;
  return t;
}

// The TSC as ticks() last read it on this OS thread, without a read of its
// own (one costs 10-25 ns on this VM, and a shared core's RPC paid six).
// For stamps that may be that read's age: a caller takes it only where a
// read surely happened moments before on its thread (a shared core's NIC
// poll before its workers run; a thread's last message before it parks).
// In a simulation: ticks().
[[nodiscard]] inline uint64_t last_read() {
  if (detail::g_virtual_now != nullptr) [[unlikely]]
    return ticks();
  return detail::g_last_read;
}

// A simulation's time at this instant, before what the core being polled
// was charged (the NIC core's view); ticks() outside one.
[[nodiscard]] inline uint64_t instant_ticks() {
  if (const uint64_t* v = detail::g_virtual_now; v != nullptr) [[unlikely]]
    return *v;
  return rte_rdtsc();
}

// The costs a simulation charges (all 0 outside one).
[[nodiscard]] inline const WorkCosts& work_costs() { return detail::g_work_costs; }

// Charges `ps` of modelled time to the core being polled.
inline void charge_ps(uint64_t ps) {
  if (detail::g_virtual_now != nullptr) [[unlikely]]
    detail::g_charged_ps += ps;
}

// Charges `cycles` of the modelled clock to the core being polled: its
// ticks() move on by them. Nothing outside a simulation.
inline void charge_cycles(double cycles) {
  if (detail::g_virtual_now != nullptr) [[unlikely]]
    detail::g_charged_ps += static_cast<uint64_t>(cycles * detail::g_work_costs.cycle_ps + 0.5);
}

// Ticks per second.
[[nodiscard]] inline uint64_t hz() { return is_virtual() ? kVirtualHz : rte_get_tsc_hz(); }

// Nanoseconds per tick (the TSC's worked out once).
[[nodiscard]] inline double ns_per_tick() {
  if (is_virtual()) return 1e9 / static_cast<double>(kVirtualHz);
  static const double kTsc = 1e9 / static_cast<double>(rte_get_tsc_hz());
  return kTsc;
}

// The clock's time now in nanoseconds (a modelled clock's exactly).
[[nodiscard]] inline uint64_t now_ns() {
  if (is_virtual()) return ticks() / (kVirtualHz / 1'000'000'000);
  return static_cast<uint64_t>(static_cast<double>(ticks()) * ns_per_tick());
}

// While one lives, ticks() is its time (picoseconds) and hz() 10^12: a
// simulation's modelled clock, moved by the simulation alone. One at a
// time; create it before the hosts it times (they convert their timeouts to
// ticks when built) and destroy it after them.
class VirtualClock {
 public:
  // start_ps > 0: some state takes a time of 0 for "never".
  explicit VirtualClock(uint64_t start_ps = 1);
  ~VirtualClock();
  VirtualClock(const VirtualClock&) = delete;
  VirtualClock& operator=(const VirtualClock&) = delete;

  [[nodiscard]] uint64_t now_ps() const { return now_ps_; }
  // Its time, for clock::InstantScope (a thread of a simulation between
  // its windows: crashes applied, the run's end asked).
  [[nodiscard]] const uint64_t* now_ptr() const { return &now_ps_; }
  void advance_ps(uint64_t ps) { now_ps_ += ps; }
  // Time never runs backwards: an earlier `ps` is ignored.
  void set_ps(uint64_t ps) { now_ps_ = ps > now_ps_ ? ps : now_ps_; }
  // What work costs from now on (default: nothing).
  void set_work_costs(const WorkCosts& c) { detail::g_work_costs = c; }
  // The work charged since the last call (by the core polled since) on
  // this thread, and back to none: the simulation polls one core at a
  // time on each of its threads.
  static uint64_t take_charged_ps() {
    const uint64_t c = detail::g_charged_ps;
    detail::g_charged_ps = 0;
    return c;
  }

 private:
  uint64_t now_ps_;
  uint16_t runs_ = 0;
};

// While it lives, this thread's modelled time is `*now_ps` (a simulation
// node's own instant: model::SimLoop runs each node of a window on one of
// its threads); then what it was.
class InstantScope {
 public:
  explicit InstantScope(const uint64_t* now_ps) : saved_(detail::g_virtual_now) { detail::g_virtual_now = now_ps; }
  ~InstantScope() { detail::g_virtual_now = saved_; }
  InstantScope(const InstantScope&) = delete;
  InstantScope& operator=(const InstantScope&) = delete;

 private:
  const uint64_t* saved_;
};

// A host's run number (docs/wire.md, "Sender incarnation") under the
// VirtualClock: 1, 2, ... in the order hosts are made, so a simulation
// replayed gives its hosts the same runs (live hosts take the wall clock's).
[[nodiscard]] inline uint16_t next_virtual_run() {
  uint16_t& r = *detail::g_virtual_runs;
  r = static_cast<uint16_t>(r == 0xffff ? 1 : r + 1);
  return r;
}

}  // namespace nanopu::clock
