#include "model/timing/calibration.h"

#include <rte_cycles.h>

#include <atomic>

#include "absl/strings/str_format.h"
#include "lib/contract/msg_fifo.h"
#include "model/timing/api_cost.h"
#include "lib/wire/frame.h"
#include "scheduler/fiber.h"

namespace nanopu::model {
namespace {

constexpr int kRounds = 200000;

double ns_per(uint64_t tsc, uint64_t n) {
  return static_cast<double>(tsc) * 1e9 / static_cast<double>(rte_get_tsc_hz()) / static_cast<double>(n);
}

}  // namespace

double measure_fiber_switch_ns(int rounds) {
  sched::Fiber* self = nullptr;
  bool stop = false;
  sched::Fiber f([&] {
    while (!stop) self->suspend();
  });
  self = &f;
  const uint64_t t0 = rte_rdtsc();
  for (int i = 0; i < rounds; ++i) f.resume();
  const uint64_t t = rte_rdtsc() - t0;
  stop = true;
  f.resume();
  return ns_per(t, 2 * static_cast<uint64_t>(rounds));
}

namespace {

double fifo_hop_ns() {
  static std::atomic<int> n{0};
  absl::StatusOr<MsgFifo> f = MsgFifo::create("calib" + std::to_string(n++), 64);
  if (!f.ok()) return 0;
  auto* token = reinterpret_cast<rte_mbuf*>(uintptr_t{64});
  const uint64_t t0 = rte_rdtsc();
  for (int i = 0; i < kRounds; ++i) {
    (void)f->push(token);
    if (f->pop() == nullptr) return 0;
  }
  return ns_per(rte_rdtsc() - t0, kRounds);
}

double frame_codec_ns() {
  alignas(64) uint8_t frame[128] = {};
  wire::FrameHeader h;
  h.protocol = wire::kIpProtoNdp;
  h.src_ip = 0x0a000001;
  h.dst_ip = 0x0a000002;
  h.ndp.flags = wire::kFlagData;
  h.ndp.msg_len = 64;
  wire::FrameHeader out;
  size_t payload = 0;
  uint64_t sink = 0;
  const uint64_t t0 = rte_rdtsc();
  for (int i = 0; i < kRounds; ++i) {
    h.ndp.tx_msg_id = static_cast<uint16_t>(i);
    wire::encode_frame_header(h, 64, frame);
    sink += static_cast<uint64_t>(wire::decode_frame_header(frame, sizeof frame, &out, &payload));
    sink += out.ndp.tx_msg_id;
  }
  const uint64_t t = rte_rdtsc() - t0;
  return sink == UINT64_MAX ? 0 : ns_per(t, kRounds);  // sink keeps the loop
}

}  // namespace

HostCosts calibrate_host() {
  HostCosts h;
  h.fiber_switch_ns = measure_fiber_switch_ns(kRounds);
  h.fifo_hop_ns = fifo_hop_ns();
  h.frame_codec_ns = frame_codec_ns();
  const ApiCost api = measure_api_cost();
  h.message_io_ns = api.message_ns;
  h.word_io_ns = api.word_ns;
  h.tsc_ghz = static_cast<double>(rte_get_tsc_hz()) / 1e9;
  return h;
}

namespace {

// The nanoPU's cost of each step HostCosts measures, in the same fields, so
// the printed line and the JSON compare like with like.
HostCosts modelled_costs(const TimingModel& m) {
  const TimingParams& p = m.params();
  HostCosts hw;
  hw.fiber_switch_ns = m.context_switch_ns();
  hw.fifo_hop_ns = m.cycles_ns(p.rx_fifo_cycles + p.tx_fifo_cycles);
  hw.frame_codec_ns = m.cycles_ns(p.rx_pipeline_cycles + p.tx_pipeline_cycles);
  hw.message_io_ns = m.cycles_ns(p.app_fixed_cycles);
  hw.word_io_ns = m.cycles_ns(p.app_cycles_per_word) / 2;  // a read and a write per instruction
  hw.tsc_ghz = p.clock_ghz;
  return hw;
}

// nanoPU cycles per host TSC cycle of application work (equal wall time).
double nanopu_cycles_per_tsc(const HostCosts& h, const TimingParams& p) {
  return h.tsc_ghz > 0 ? p.clock_ghz / h.tsc_ghz : 0;
}

}  // namespace

std::string describe_calibration(const HostCosts& h, const TimingModel& m) {
  const TimingParams& p = m.params();
  const HostCosts hw = modelled_costs(m);
  return absl::StrFormat(
      "calibration: host (measured) vs nanoPU (modelled, set %s): thread switch %.1f vs %.1f ns "
      "(%.2fx), FIFO hand-off %.1f vs %.2f ns (%.1fx), header parse+build %.1f vs %.2f ns (%.1fx), "
      "register-file API %.1f ns per message + %.2f ns per word vs %.2f + %.2f ns; host TSC %.3f GHz, "
      "one TSC cycle of application work = %.3f nanoPU cycles at %.1f GHz",
      p.name, h.fiber_switch_ns, hw.fiber_switch_ns, h.fiber_switch_ns / hw.fiber_switch_ns, h.fifo_hop_ns,
      hw.fifo_hop_ns, h.fifo_hop_ns / hw.fifo_hop_ns, h.frame_codec_ns, hw.frame_codec_ns,
      h.frame_codec_ns / hw.frame_codec_ns, h.message_io_ns, h.word_io_ns, hw.message_io_ns, hw.word_io_ns,
      h.tsc_ghz, nanopu_cycles_per_tsc(h, p), p.clock_ghz);
}

std::string calibration_json(const HostCosts& h, const TimingModel& m) {
  const TimingParams& p = m.params();
  const auto costs = [](const HostCosts& c) {
    return absl::StrFormat(
        "{\"thread_switch\":%.2f,\"fifo_handoff\":%.2f,\"header_parse_build\":%.2f,\"api_per_message\":%.2f,"
        "\"api_per_word\":%.3f}",
        c.fiber_switch_ns, c.fifo_hop_ns, c.frame_codec_ns, c.message_io_ns, c.word_io_ns);
  };
  return absl::StrFormat(
      "{\"params\":\"%s\",\"measured_ns\":%s,\"modelled_ns\":%s,\"tsc_ghz\":%.3f,"
      "\"nanopu_cycles_per_tsc_cycle\":%.4f}",
      p.name, costs(h), costs(modelled_costs(m)), h.tsc_ghz, nanopu_cycles_per_tsc(h, p));
}

}  // namespace nanopu::model
