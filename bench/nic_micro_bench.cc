// Google Benchmark microbenchmarks of NIC-core building blocks, each beside a
// raw reference in the same run: header encode/decode (reference: a 64-byte
// memcpy), the message FIFO (reference: the bare rte_ring it wraps), the
// timer module (reference: bare rte_timer_reset/stop), the exactly-once
// memory (reference: the bounded hash map every message paid before, still
// the prototype peers' path), and per packet the
// ingress pipeline and the NDP transport (reference: making and freeing the
// packet they consume).
#include <benchmark/benchmark.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_timer.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "bench/micro_main.h"
#include "lib/contract/msg_fifo.h"
#include "lib/wire/frame.h"
#include "lib/wire/frame_template.h"
#include "nic/pipeline/pipeline.h"
#include "nic/pipeline/swx_program.h"
#include "nic/reassembly/delivered_ids.h"
#include "nic/timers/timer_module.h"
#include "nic/transport/ndp/ndp_transport.h"
#include "runtime/platform/eal.h"

namespace nanopu {
namespace {

wire::FrameHeader sample_header() {
  wire::FrameHeader h;
  h.protocol = wire::kIpProtoNdp;
  h.src_ip = 0x0a000001;
  h.dst_ip = 0x0a000002;
  h.ndp.flags = wire::kFlagData;
  h.ndp.msg_len = 64;
  h.ndp.src_context = 1;
  h.ndp.dst_context = 2;
  return h;
}

void BM_EncodeFrameHeader(benchmark::State& state) {
  alignas(64) uint8_t out[128];
  const wire::FrameHeader h = sample_header();
  for (auto _ : state) {
    wire::encode_frame_header(h, 64, out);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_EncodeFrameHeader);

void BM_DecodeFrameHeader(benchmark::State& state) {
  alignas(64) uint8_t frame[128] = {};
  wire::encode_frame_header(sample_header(), 64, frame);
  wire::FrameHeader h;
  size_t payload = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(wire::decode_frame_header(frame, sizeof frame, &h, &payload));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_DecodeFrameHeader);

// Framing a packet as the packetizer does, from a transport header and the
// peer's address: from the peer's prebuilt Ethernet/IPv4 template (now) ...
void BM_FrameFromTemplate(benchmark::State& state) {
  alignas(64) uint8_t out[128];
  const wire::FrameHeader h = sample_header();
  const wire::TransportHeader t = wire::TransportHeader::of(h.ndp);
  const wire::FrameTemplate tmpl =
      wire::make_frame_template(h.dst_mac, h.src_mac, h.src_ip, h.dst_ip, h.protocol);
  for (auto _ : state) {
    wire::encode_frame_from(tmpl, t, 64, out);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_FrameFromTemplate);

// ... and, the reference, from the whole header built for each packet
// (what the packetizer did before the template).
void BM_FrameFromWholeHeader(benchmark::State& state) {
  alignas(64) uint8_t out[128];
  const wire::FrameHeader base = sample_header();
  const wire::TransportHeader t = wire::TransportHeader::of(base.ndp);
  for (auto _ : state) {
    wire::FrameHeader f;
    f.dst_mac = base.dst_mac;
    f.src_mac = base.src_mac;
    f.src_ip = base.src_ip;
    f.dst_ip = base.dst_ip;
    f.protocol = t.protocol;
    f.tos = t.tos;
    f.ndp = t.ndp;
    benchmark::DoNotOptimize(f);
    wire::encode_frame_header(f, 64, out);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_FrameFromWholeHeader);

// Reference for both: copying the 64 header bytes.
void BM_RawCopy64(benchmark::State& state) {
  alignas(64) uint8_t a[64] = {1}, b[64];
  for (auto _ : state) {
    std::memcpy(b, a, 64);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_RawCopy64);

void BM_MsgFifoPushPop(benchmark::State& state) {
  static int n = 0;
  auto f = MsgFifo::create("bm_fifo" + std::to_string(n++), 1024);
  rte_mbuf* token = reinterpret_cast<rte_mbuf*>(uintptr_t{0x1000});
  for (auto _ : state) {
    (void)f->push(token);
    benchmark::DoNotOptimize(f->pop());
  }
  // MsgFifo's destructor would free what is left: nothing is.
}
BENCHMARK(BM_MsgFifoPushPop);

// Reference: the bare SP/SC rte_ring.
void BM_RawRteRingSpScPushPop(benchmark::State& state) {
  static int n = 0;
  rte_ring* r = rte_ring_create(("bm_raw" + std::to_string(n++)).c_str(), 1024, SOCKET_ID_ANY,
                                RING_F_SP_ENQ | RING_F_SC_DEQ);
  void* token = reinterpret_cast<void*>(uintptr_t{0x1000});
  void* out = nullptr;
  for (auto _ : state) {
    (void)rte_ring_sp_enqueue(r, token);
    benchmark::DoNotOptimize(rte_ring_sc_dequeue(r, &out));
  }
  rte_ring_free(r);
}
BENCHMARK(BM_RawRteRingSpScPushPop);

void nothing(void*, uint32_t, uint64_t) {}

void BM_TimerModuleScheduleCancel(benchmark::State& state) {
  TimerModule t(1024, 1000, nothing, nullptr);
  uint32_t slot = 0;
  for (auto _ : state) {
    t.schedule(slot, rte_rdtsc() + 1000000);
    t.cancel(slot);
    slot = (slot + 1) & 1023;
  }
}
BENCHMARK(BM_TimerModuleScheduleCancel);

void raw_cb(rte_timer*, void*) {}

// Reference: bare rte_timer.
void BM_RawRteTimerResetStop(benchmark::State& state) {
  rte_timer tim;
  rte_timer_init(&tim);
  for (auto _ : state) {
    (void)rte_timer_reset(&tim, 1000000, SINGLE, rte_lcore_id(), raw_cb, nullptr);
    (void)rte_timer_stop(&tim);
  }
}
BENCHMARK(BM_RawRteTimerResetStop);

// --- per packet: pipeline and transport ---------------------------------

rte_mempool* packet_pool() {
  static rte_mempool* pool = rte_pktmbuf_pool_create("bm_pkts", 8191, 256, 64,
                                                     RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  return pool;
}

// A 64-byte-payload DATA frame for context 2 of host 10.0.0.2, message id `id`.
rte_mbuf* make_data_packet(uint32_t id) {
  rte_mbuf* m = rte_pktmbuf_alloc(packet_pool());
  auto* p = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, 128));
  wire::FrameHeader h = sample_header();
  h.ndp.tx_msg_id = static_cast<uint16_t>(id);
  h.ndp.buf_ptr = static_cast<uint16_t>(id >> 16);
  wire::encode_frame_header(h, 64, p);
  std::memset(p + wire::kFrameHeaderBytes, 0, 64);
  return m;
}

// The host side both benchmarks need: a context table with context 2 bound.
struct BenchHost {
  ContextTable contexts{900, 4096};
  ThreadFifos fifos;
  CoreSignals signals;
  NicCounters counters;
  NeighborTable neighbors{wire::kBroadcastMac};
  BenchHost() {
    static int n = 0;
    fifos.rx = *MsgFifo::create("bm_rx" + std::to_string(n), 4096);
    fifos.tx[0] = *MsgFifo::create("bm_tx" + std::to_string(n++), 4096);
    fifos.signals = &signals;
    (void)contexts.bind(2, &fifos);
  }
};

// A sink that frees what it is given (the NIC core would queue it).
class FreeingSink final : public TransportSink {
 public:
  bool deliver(rte_mbuf* msg, ContextEntry* dst) override {
    dst->packets -= msg->nb_segs;
    rte_pktmbuf_free(msg);
    return true;
  }
  void send_data(rte_mbuf* m, uint32_t, const wire::TransportHeader&, size_t) override { rte_pktmbuf_free(m); }
  void send_control(uint32_t, const wire::TransportHeader&) override { ++controls; }
  uint64_t controls = 0;
};

// Reference for both: making the packet (alloc + 128-byte frame) and freeing it.
// Exactly-once memory per delivered single-packet message: look up, then
// remember, 8 senders interleaved, ids rising (as NdpReceiver does).
// Arg 0: the per-sender window; 1: the hash map of (source, buffer, id) with
// a ring of 16384 (incarnation 0 routes there), the reference.
void BM_DeliveredIdsSeenRemember(benchmark::State& state) {
  DeliveredIds d(16384, 256, ~0ull >> 1);
  const uint32_t epoch = state.range(0) == 0 ? (uint32_t{9} << 8 | 9) : 9;
  uint64_t now = 1;
  uint16_t next[8] = {};
  uint64_t seen = 0;
  for (auto _ : state) {
    const auto sender = static_cast<uint32_t>(now & 7);
    const uint16_t id_no = next[sender]++;
    const DeliveredId id{0x0a000000u + sender, static_cast<uint16_t>(id_no & 255), id_no, 1, 64, epoch};
    seen += d.seen(id, now) ? 1 : 0;
    d.remember(id, now);
    ++now;
  }
  benchmark::DoNotOptimize(seen);
  state.SetLabel(state.range(0) == 0 ? "window" : "hash map (reference)");
}
BENCHMARK(BM_DeliveredIdsSeenRemember)->Arg(0)->Arg(1);

void BM_RawPacketMakeFree(benchmark::State& state) {
  uint32_t id = 0;
  for (auto _ : state) rte_pktmbuf_free(make_data_packet(id++));
}
BENCHMARK(BM_RawPacketMakeFree);

void BM_PipelineClassifyPerPacket(benchmark::State& state) {
  BenchHost host;
  Pipeline pipeline(0x0a000002, &host.contexts, &host.neighbors, &host.counters);
  uint32_t id = 0;
  for (auto _ : state) {
    rte_mbuf* m = make_data_packet(id++);
    wire::FrameHeader h;
    size_t payload = 0;
    benchmark::DoNotOptimize(pipeline.classify(m, &h, &payload));
    rte_pktmbuf_free(m);
  }
}
BENCHMARK(BM_PipelineClassifyPerPacket);

// The pipeline's decision for a burst of 32 frames, fast path or OS: the
// fixed C++ classifier (Arg 0) against nanopu's program on DPDK's SWX
// engine (Arg 1: nic/pipeline/programs/nanopu.spec, its frames through the
// engine's ring ports), each with making and freeing the frames (the
// reference above, per frame). Issue 73: which is the hot path's, measured.
void BM_PipelineDecisionBurst32(benchmark::State& state) {
  constexpr uint16_t kBurst = 32;
  BenchHost host;
  Pipeline pipeline(0x0a000002, &host.contexts, &host.neighbors, &host.counters, 0, /*os_path=*/true);
  std::unique_ptr<SwxProgram> program;
  if (state.range(0) == 1) {
    std::ifstream f(NANOPU_PROGRAM_SPEC);
    std::stringstream text;
    text << f.rdbuf();
    absl::StatusOr<std::unique_ptr<SwxProgram>> p = SwxProgram::load(text.str(), NANOPU_PROGRAM_SPEC, 2, "bmswx");
    if (!p.ok() || !(*p)->add_entry("transport", "match 0x99 action fast_path").ok()) {
      state.SkipWithError(p.ok() ? "the program's entry" : std::string(p.status().message()).c_str());
      return;
    }
    program = std::move(*p);
  }
  rte_mbuf* burst[kBurst];
  std::vector<std::vector<rte_mbuf*>> out;
  uint32_t id = 0;
  uint64_t fast = 0;
  for (auto _ : state) {
    for (rte_mbuf*& m : burst) m = make_data_packet(id++);
    if (program == nullptr) {
      for (rte_mbuf* m : burst) {
        wire::FrameHeader h;
        size_t payload = 0;
        fast += pipeline.classify(m, &h, &payload).kind == PipelineResult::Kind::kData;
        rte_pktmbuf_free(m);
      }
    } else {
      (void)program->run(burst, kBurst, &out);
      fast += out[0].size();
      for (std::vector<rte_mbuf*>& o : out)
        for (rte_mbuf* m : o) rte_pktmbuf_free(m);
    }
  }
  if (fast != static_cast<uint64_t>(state.iterations()) * kBurst) state.SkipWithError("a frame missed the fast path");
  state.SetItemsProcessed(state.iterations() * kBurst);
  state.SetLabel(state.range(0) == 0 ? "fixed C++ pipeline" : "SWX program (nanopu.spec)");
}
BENCHMARK(BM_PipelineDecisionBurst32)->Arg(0)->Arg(1);

// DATA in (a whole single-packet message), ACK|PULL out, message delivered.
void BM_NdpTransportDataInAckOut(benchmark::State& state) {
  BenchHost host;
  TransportParams c;
  c.rto_ticks = rte_get_tsc_hz() / 1000;
  c.completion_memory_ticks = rte_get_tsc_hz();
  NdpTransport transport(c, NdpParams{}, packet_pool(), &host.counters);
  Pipeline pipeline(0x0a000002, &host.contexts, &host.neighbors, &host.counters);
  FreeingSink sink;
  uint32_t id = 0;
  for (auto _ : state) {
    rte_mbuf* m = make_data_packet(id++);
    wire::FrameHeader h;
    size_t payload = 0;
    const PipelineResult r = pipeline.classify(m, &h, &payload);
    transport.on_data(m, h, payload, r.dst, rte_rdtsc(), sink);
  }
  if (sink.controls != static_cast<uint64_t>(state.iterations())) state.SkipWithError("an ACK was not sent");
}
BENCHMARK(BM_NdpTransportDataInAckOut);

}  // namespace
}  // namespace nanopu

int main(int argc, char** argv) {
  return nanopu::bench::run_micro_benchmarks(argc, argv, [] { return rte_timer_subsystem_init() == 0; });
}
