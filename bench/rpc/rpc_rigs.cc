#include "bench/rpc/rpc_rigs.h"

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <valgrind/valgrind.h>

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "apps/loopback/loopback.h"
#include "bench/e2e/request_peer.h"
#include "bench/rpc/mem_io.h"
#include "lib/contract/context_table.h"
#include "lib/contract/message.h"
#include "lib/contract/thread_fifos.h"
#include "lib/contract/tx_message.h"
#include "nanopu/app_header.h"
#include "nanopu/config.h"
#include "nanopu/runtime.h"
#include "nic/packetizer/packetizer.h"
#include "nic/pipeline/neighbor_table.h"
#include "nic/pipeline/pipeline.h"
#include "nic/transport/ndp/ndp_transport.h"

namespace nanopu::bench {
namespace {

constexpr uint16_t kPayload = 64;

rte_mempool* make_pool(const char* name) {
  return rte_pktmbuf_pool_create(name, 8191, 256, kMsgMetaBytes, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
}

// A request from the peer: a fresh buffer with its frame (and the ACK it owes).
rte_mbuf* next_request(RequestPeer& peer, rte_mempool* pool) {
  rte_mbuf* m = rte_pktmbuf_alloc(pool);
  if (m != nullptr && peer.fill(&m, 1) == 1) return m;
  if (m != nullptr) rte_pktmbuf_free(m);
  return nullptr;
}

// The reply as a thread hands it to the NIC: payload after the header's
// room, MsgMeta naming its destination (as NicCore::frame_inline builds it).
rte_mbuf* make_reply(rte_mempool* pool, const rte_mbuf* request, const PeerParams& p) {
  rte_mbuf* m = rte_pktmbuf_alloc(pool);
  if (m == nullptr) return nullptr;
  (void)rte_pktmbuf_append(m, static_cast<uint16_t>(wire::kFrameHeaderBytes + kPayload));
  std::memcpy(tx_segment_payload(m), rte_pktmbuf_mtod(request, const uint8_t*), kPayload);
  MsgMeta* meta = msg_meta(m);
  *meta = MsgMeta{};
  meta->app_header = AppHeader{p.peer_ip, p.peer_context, kPayload}.word();
  meta->src_context = p.server_context;
  return m;
}

// The transport's sink: delivered messages kept for the "thread", DATA
// framed as the NIC core frames it and handed to the peer.
class PeerSink final : public TransportSink {
 public:
  PeerSink(RequestPeer* peer, const Packetizer* packetizer) : peer_(peer), packetizer_(packetizer) {}
  bool deliver(rte_mbuf* msg, ContextEntry* dst) override {
    dst->packets -= msg->nb_segs;
    delivered_ = msg;
    return true;
  }
  void send_data(rte_mbuf* m, uint32_t dst_ip, const wire::TransportHeader& h, size_t payload_bytes) override {
    packetizer_->frame_data(m, dst_ip, h, payload_bytes);
    peer_->absorb(&m, 1);
    rte_pktmbuf_free(m);
  }
  void send_control(uint32_t, const wire::TransportHeader&) override { ++controls_; }
  [[nodiscard]] rte_mbuf* take_delivered() { return std::exchange(delivered_, nullptr); }
  [[nodiscard]] uint64_t controls() const { return controls_; }

 private:
  RequestPeer* peer_;
  const Packetizer* packetizer_;
  rte_mbuf* delivered_ = nullptr;
  uint64_t controls_ = 0;
};

class TransportRig final : public RpcRig {
 public:
  explicit TransportRig(bool reference)
      : reference_(reference),
        pool_(make_pool(reference ? "rpc_tref" : "rpc_t")),
        peer_(params()),
        pipeline_(params().server_ip, &contexts_, &neighbors_, &counters_),
        packetizer_(params().server_ip, wire::MacAddr{}, &neighbors_, pool_),
        transport_(transport_params(), ndp_params(), pool_, &counters_),
        sink_(&peer_, &packetizer_) {
    static int n = 0;
    fifos_.rx = *MsgFifo::create(absl::StrCat("rpc_rx", n), 64);
    fifos_.tx[0] = *MsgFifo::create(absl::StrCat("rpc_tx", n++), 64);
    fifos_.signals = &signals_;
    (void)contexts_.bind(params().server_context, &fifos_);
  }
  void run(uint64_t n) override {
    for (uint64_t i = 0; i < n; ++i) reference_ ? reference_rpc() : rpc();
  }
  [[nodiscard]] uint64_t answered() const override { return reference_ ? made_ : peer_.completed(); }
  [[nodiscard]] uint64_t controls() const { return sink_.controls(); }
  [[nodiscard]] bool ready() const { return pool_ != nullptr && fifos_.rx.capacity() != 0; }

 private:
  static PeerParams params() {
    PeerParams p;
    p.window = 1;
    return p;
  }
  static TransportParams transport_params() {
    TransportParams c;
    c.rto_ticks = rte_get_tsc_hz() / 10;  // never due: a run is RPCs, not retransmissions (under callgrind too)
    c.completion_memory_ticks = rte_get_tsc_hz();
    c.reassembly_expiry_ticks = rte_get_tsc_hz();
    return c;
  }
  static NdpParams ndp_params() {
    NdpParams p;
    p.ack_hold_ticks = rte_get_tsc_hz() / 50;  // as the host's: the request's ACK rides on its reply
    return p;
  }
  void rpc() {
    rte_mbuf* req = next_request(peer_, pool_);
    wire::FrameHeader h;
    size_t payload = 0;
    const PipelineResult r = pipeline_.classify(req, &h, &payload);
    const uint64_t now = rte_rdtsc();
    transport_.on_data(req, h, payload, r.dst, now, sink_);
    rte_mbuf* msg = sink_.take_delivered();
    if (msg == nullptr) return;
    rte_mbuf* reply = make_reply(pool_, msg, params());
    rte_pktmbuf_free(msg);
    if (reply != nullptr) transport_.on_message(reply, now, sink_);
  }
  void reference_rpc() {
    rte_mbuf* req = next_request(peer_, pool_);
    if (req == nullptr) return;
    rte_mbuf* reply = make_reply(pool_, req, params());
    peer_.absorb(&req, 1);  // its own request back, as from io-forward: the peer's reply work
    rte_pktmbuf_free(req);
    if (reply != nullptr) {
      rte_pktmbuf_free(reply);
      ++made_;
    }
  }

  bool reference_;
  rte_mempool* pool_;
  RequestPeer peer_;
  ContextTable contexts_{900, 4096};
  ThreadFifos fifos_;
  CoreSignals signals_;
  NicCounters counters_;
  NeighborTable neighbors_{wire::kBroadcastMac};
  Pipeline pipeline_;
  Packetizer packetizer_;
  NdpTransport transport_;
  PeerSink sink_;
  uint64_t made_ = 0;
};

// A whole host stepped on this thread, or (reference) the peer against a
// port that sends each frame straight back.
class HostRig final : public RpcRig {
 public:
  static absl::StatusOr<std::unique_ptr<HostRig>> create(bool reference, const char* pool_name) {
    std::unique_ptr<HostRig> r(new HostRig(reference, pool_name));
    if (r->pool_ == nullptr) return absl::ResourceExhaustedError("nanopu-bench-rpc: no mempool for the peer");
    if (reference) return r;
    Config c;
    c.lcores = {rte_lcore_id()};
    c.ip = r->peer_params_.server_ip;
    c.poll = PollMode::kBusy;
    c.rto_us = 100000;     // never due in a run (under callgrind too)
    c.ack_hold_us = 20000;  // the request's ACK rides on its reply, as live
    c.link_wait_s = 0;
    // Under callgrind a run is ~50x slower: the scheduler's clocks (t0, the
    // shared core's NIC polls from safe points, the idle rotation) scaled
    // by as much, so that the instructions counted are the live path's,
    // not those of deadlines a 1 us RPC never meets live.
    if (RUNNING_ON_VALGRIND) {
      constexpr double kSlow = 100;
      c.t0_ns *= kSlow;
      c.shared_nic_poll_ns *= kSlow;
      c.idle_timeout_ns *= kSlow;
      c.tis_period_ns *= kSlow;
      c.async_preempt_us *= kSlow;
    }
    absl::StatusOr<std::unique_ptr<Runtime>> rt = Runtime::create(c, &r->io_);
    if (!rt.ok()) return rt.status();
    r->rt_ = std::move(*rt);
    const uint16_t context = r->peer_params_.server_context;
    absl::StatusOr<Thread*> t = r->rt_->spawn(
        [context](Thread& th) { (void)apps::serve_loopback(th, context, 0, apps::LoopbackMode::kEcho); });
    if (!t.ok()) return t.status();
    for (int i = 0; i < 8; ++i) (void)r->rt_->poll_shared_turn();  // the thread binds its context
    return r;
  }
  ~HostRig() override {
    if (rt_) {
      rt_->stop();
      for (int i = 0; i < 64 && !rt_->all_threads_finished(); ++i) (void)rt_->poll_shared_turn();
      rt_->release_buffers();
    }
  }
  void run(uint64_t n) override {
    if (idle_) {
      for (uint64_t i = 0; i < n; ++i) (void)rt_->poll_shared_turn();
      turns_ += n;
      return;
    }
    for (uint64_t i = 0; i < n; ++i) {
      rte_mbuf* req = next_request(peer_, pool_);
      if (req == nullptr) return;
      const uint64_t before = peer_.completed();
      if (!rt_) {  // reflected, as io-forward would
        peer_.absorb(&req, 1);
        rte_pktmbuf_free(req);
        continue;
      }
      io_.put(&req, 1);
      for (int turn = 0; turn < 16 && peer_.completed() == before; ++turn) (void)rt_->poll_shared_turn();
    }
  }
  [[nodiscard]] uint64_t answered() const override { return idle_ ? turns_ : peer_.completed(); }
  void make_idle() { idle_ = true; }

 private:
  explicit HostRig(bool reference, const char* pool_name)
      : peer_params_(params()), peer_(peer_params_), io_(&peer_), pool_(make_pool(pool_name)) {}
  static PeerParams params() {
    PeerParams p;
    p.window = 1;
    return p;
  }
  PeerParams peer_params_;
  RequestPeer peer_;
  MemIo io_;
  rte_mempool* pool_;
  std::unique_ptr<Runtime> rt_;
  bool idle_ = false;
  uint64_t turns_ = 0;
};

}  // namespace

const char* rpc_loop_name(RpcLoop l) {
  switch (l) {
    case RpcLoop::kTransport: return "transport";
    case RpcLoop::kTransportRef: return "transport-ref";
    case RpcLoop::kHost: return "host";
    case RpcLoop::kHostRef: return "host-ref";
    case RpcLoop::kIdleTurn: return "idle-turn";
  }
  return "?";
}

bool parse_rpc_loop(std::string_view s, RpcLoop* l) {
  for (RpcLoop x : kRpcLoops)
    if (rpc_loop_name(x) == s) {
      *l = x;
      return true;
    }
  return false;
}

absl::StatusOr<std::unique_ptr<RpcRig>> make_rpc_rig(RpcLoop which) {
  switch (which) {
    case RpcLoop::kTransport:
    case RpcLoop::kTransportRef: {
      auto r = std::make_unique<TransportRig>(which == RpcLoop::kTransportRef);
      if (!r->ready()) return absl::ResourceExhaustedError("nanopu-bench-rpc: no mempool or FIFO for the transport rig");
      return r;
    }
    case RpcLoop::kHost:
    case RpcLoop::kHostRef:
    case RpcLoop::kIdleTurn: {
      absl::StatusOr<std::unique_ptr<HostRig>> r =
          HostRig::create(which == RpcLoop::kHostRef, which == RpcLoop::kHost      ? "rpc_h"
                                                      : which == RpcLoop::kHostRef ? "rpc_href"
                                                                                   : "rpc_idle");
      if (!r.ok()) return r.status();
      if (which == RpcLoop::kIdleTurn) (*r)->make_idle();
      return std::unique_ptr<RpcRig>(std::move(*r));
    }
  }
  return absl::InvalidArgumentError("nanopu-bench-rpc: unknown loop");
}

}  // namespace nanopu::bench
