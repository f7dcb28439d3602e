// A message through an execution context's handlers, in sPIN's order —
// header on the first packet, payload on each packet, completion after the
// last (PsPIN §II) — whole, or a packet at a time as they arrive (streamed:
// nic/spin/spin_stream.cc), each call timed against the
// context's budget and shielded from exceptions. Shared by the NIC core's
// engine (packets in mbufs) and spin::LocalContext (packets in memory).
#pragma once

#include <rte_cycles.h>

#include <chrono>
#include <cstdint>
#include <exception>
#include <span>
#include <string>

#include "absl/strings/str_cat.h"
#include "nanopu/spin.h"
#include "nic/spin/spin_run.h"

namespace nanopu {

// The TSC's rate: the EAL's once it is up; before (spin::LocalContext in a
// program without one), measured once against the steady clock.
[[nodiscard]] inline double handler_tsc_hz() {
  if (const uint64_t hz = rte_get_tsc_hz(); hz != 0) return static_cast<double>(hz);
  static const double measured = [] {
    const auto t0 = std::chrono::steady_clock::now();
    const uint64_t c0 = rte_rdtsc();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(20)) {
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return static_cast<double>(rte_rdtsc() - c0) / s;
  }();
  return measured;
}

struct HandlerTally {
  uint64_t budget_tsc = 0;
  uint64_t handler_tsc = 0;    // summed over calls
  std::string fault_detail;    // the last fault's words
  [[nodiscard]] static uint64_t budget_tsc_of(uint64_t budget_ns) {
    return static_cast<uint64_t>(static_cast<double>(budget_ns) * handler_tsc_hz() / 1e9);
  }
  // What a report says of fault f: the words the runner kept, or its name.
  [[nodiscard]] std::string detail_of(spin::Fault f) const {
    return fault_detail.empty() ? spin::fault_name(f) : fault_detail;
  }
};

class HandlerRunner {
 public:
  // Runs the packets (one message's, in order) through ctx's handlers on
  // run (begun for the message); the fault, if any, is run.fault().
  static void run(const spin::ExecutionContext& ctx, SpinRun& run, std::span<const std::span<const uint8_t>> packets,
                  HandlerTally& tally, spin::ContextReport& report) {
    uint32_t offset = 0, index = 0;
    for (const std::span<const uint8_t> bytes : packets) {
      packet(ctx, run, spin::Packet{bytes, offset, index}, tally, report);
      offset += static_cast<uint32_t>(bytes.size());
      ++index;
    }
    complete(ctx, run, tally, report);
  }
  // One packet: the header handler first if it is the message's first,
  // then the payload handler. Streamed (nic/spin/spin_stream.cc), packet 0
  // comes first and the others in the order they arrive.
  static void packet(const spin::ExecutionContext& ctx, SpinRun& run, const spin::Packet& p, HandlerTally& tally,
                     spin::ContextReport& report) {
    if (run.fault() != spin::Fault::kNone) return;
    if (p.index == 0 && ctx.header) invoke(ctx, run, tally, report, [&] { ctx.header(run, p); });
    if (ctx.payload && run.fault() == spin::Fault::kNone) invoke(ctx, run, tally, report, [&] { ctx.payload(run, p); });
    report.bytes += p.payload.size();
    ++report.packets;
    report.handler_ns = ns_of(tally.handler_tsc);
  }
  // After every packet: the completion handler (not after a fault).
  static void complete(const spin::ExecutionContext& ctx, SpinRun& run, HandlerTally& tally,
                       spin::ContextReport& report) {
    if (ctx.completion && run.fault() == spin::Fault::kNone)
      invoke(ctx, run, tally, report, [&] { ctx.completion(run); });
    ++report.messages;
    report.declared_cycles += run.cycles();
    report.handler_ns = ns_of(tally.handler_tsc);
  }

 private:
  [[nodiscard]] static uint64_t ns_of(uint64_t tsc) {
    return static_cast<uint64_t>(static_cast<double>(tsc) * 1e9 / handler_tsc_hz());
  }
  template <typename Call>
  static void invoke(const spin::ExecutionContext& ctx, SpinRun& run, HandlerTally& tally,
                     spin::ContextReport& report, const Call& call) {
    const uint64_t t0 = rte_rdtsc();
    try {
      call();
    } catch (const std::exception& e) {
      run.set_fault(spin::Fault::kThrew);
      tally.fault_detail = e.what();
    } catch (...) {
      run.set_fault(spin::Fault::kThrew);
      tally.fault_detail = "not a std::exception";
    }
    const uint64_t spent = rte_rdtsc() - t0;
    tally.handler_tsc += spent;
    ++report.invocations;
    if (spent > tally.budget_tsc && run.fault() == spin::Fault::kNone) {
      run.set_fault(spin::Fault::kOverBudget);
      tally.fault_detail = absl::StrCat("one call took ", ns_of(spent), " ns; its budget is ", ctx.budget_ns, " ns");
    }
  }
};

}  // namespace nanopu
