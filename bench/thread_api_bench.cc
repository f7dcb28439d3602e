// Google Benchmark: the per-word cost of the emulated register file — a
// thread's write() into its netTX FIFO message and read() from its netRX
// message (nanoPU §2.1: one word per cycle in hardware) — and of the same
// message moved in bulk (write_words/read_words) and whole through memory
// (the traditional path's send_message/receive_message), beside the bare
// data movement the API wraps (a big-endian 8-byte store and load).
// Second argument: 0 a call per word, 1 bulk words, 2 whole messages.
// Manual time: only the thread's writes and reads are timed, not the NIC
// that carries the message back to the thread (a net_ring loop port).
#include <benchmark/benchmark.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>

#include <cstring>
#include <string>
#include <vector>

#include "bench/micro_main.h"
#include "runtime/platform/ring_port.h"
#include "nanopu/app_header.h"
#include "nanopu/memory_message.h"
#include "nanopu/runtime.h"

namespace nanopu {
namespace {

constexpr uint32_t kIp = 0x0a000009;
constexpr uint16_t kContext = 5;

void BM_ThreadWriteReadWords(benchmark::State& state) {
  static int n = 0;
  absl::StatusOr<uint16_t> port = make_ring_loop_port("bmth" + std::to_string(n++));
  Config c;
  c.poll = nanopu::PollMode::kBusy;  // benchmarks poll: a core per poller
  c.lcores = {0};
  c.port_id = port.ok() ? *port : 0;
  c.ip = kIp;
  c.link_wait_s = 0;
  c.mbufs = 4095;
  absl::StatusOr<std::unique_ptr<Runtime>> rt = Runtime::create(c);
  if (!port.ok() || !rt.ok()) {
    state.SkipWithError("cannot start a runtime");
    return;
  }
  const auto words = static_cast<uint32_t>(state.range(0));
  const auto how = state.range(1);
  state.SetLabel(how == 0 ? "a call per word" : how == 1 ? "read_words/write_words" : "send/receive_message");
  const double ns_per_tsc = 1e9 / static_cast<double>(rte_get_tsc_hz());
  uint64_t write_tsc = 0, read_tsc = 0, sink = 0;
  const AppHeader h{kIp, kContext, static_cast<uint16_t>(words * 8)};
  std::vector<uint64_t> out(words + 1), in(words + 1);
  out[0] = h.word();
  for (uint32_t i = 0; i < words; ++i) out[i + 1] = i;
  MemoryMessage m;
  (void)(*rt)->spawn([&](Thread& t) {
    if (!t.bind(kContext).ok()) return state.SkipWithError("bind failed");
    for (auto _ : state) {
      const uint64_t t0 = rte_rdtsc();
      if (how == 0) {
        (void)t.write(h.word());
        for (uint32_t i = 0; i < words; ++i) (void)t.write(i);
      } else if (how == 1) {
        (void)t.write_words(out);
      } else {
        (void)t.send_message(h, {out.data() + 1, words});
      }
      const uint64_t t1 = rte_rdtsc();
      if (!t.wait()) break;  // the NIC loops it back (untimed)
      const uint64_t t2 = rte_rdtsc();
      if (how == 0) {
        sink += t.read();
        for (uint32_t i = 0; i < words; ++i) sink += t.read();
        t.msg_done();
      } else if (how == 1) {
        (void)t.read_words(in);
        sink += in[words];
        t.msg_done();
      } else {
        (void)t.receive_message(&m);
        sink += m.payload.back();
      }
      const uint64_t t3 = rte_rdtsc();
      write_tsc += t1 - t0;
      read_tsc += t3 - t2;
      state.SetIterationTime(static_cast<double>(t1 - t0 + t3 - t2) * ns_per_tsc * 1e-9);
    }
  });
  (void)(*rt)->run();
  benchmark::DoNotOptimize(sink);
  const double w = static_cast<double>(state.iterations()) * (words + 1);
  state.counters["write_ns_per_word"] = static_cast<double>(write_tsc) * ns_per_tsc / w;
  state.counters["read_ns_per_word"] = static_cast<double>(read_tsc) * ns_per_tsc / w;
  // What a timed region costs with nothing in it (a TSC read: ~12 ns on a
  // VM), counted once in each of the write and read times above: subtract
  // it for the API's own per-message cost.
  uint64_t empty_tsc = 0;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t a = rte_rdtsc();
    empty_tsc += rte_rdtsc() - a;
  }
  state.counters["timer_ns"] = static_cast<double>(empty_tsc) * ns_per_tsc / 1000;
}
BENCHMARK(BM_ThreadWriteReadWords)
    ->ArgsProduct({{8, 128}, {0, 1, 2}})
    ->Iterations(20000)
    ->UseManualTime();

// Reference: the same words stored big-endian into a buffer and loaded back.
void BM_RawWordStoreLoad(benchmark::State& state) {
  const auto words = static_cast<uint32_t>(state.range(0));
  std::vector<uint8_t> buf(8 * (words + 1));
  uint64_t sink = 0;
  for (auto _ : state) {
    for (uint32_t i = 0; i <= words; ++i) {
      const uint64_t be = rte_cpu_to_be_64(i);
      std::memcpy(buf.data() + 8 * i, &be, 8);
    }
    benchmark::ClobberMemory();
    for (uint32_t i = 0; i <= words; ++i) {
      uint64_t be;
      std::memcpy(&be, buf.data() + 8 * i, 8);
      sink += rte_be_to_cpu_64(be);
    }
  }
  benchmark::DoNotOptimize(sink);
  state.counters["ns_per_word_pair"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * (words + 1),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_RawWordStoreLoad)->Arg(8)->Arg(128);

}  // namespace
}  // namespace nanopu

int main(int argc, char** argv) { return nanopu::bench::run_micro_benchmarks(argc, argv); }
