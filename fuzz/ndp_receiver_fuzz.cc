// libFuzzer target for the NDP receive state machine: an input is a sequence
// of packets (any flags, lengths, offsets, ids, payload sizes, arrival times)
// fed to NdpReceiver exactly as the pipeline would (only frames the parser
// accepts), half of them from a sender that takes held and bitmap ACKs
// (docs/wire.md), some of those whole-message ACKs and ACK lists too.
// Invariants: no crash; every delivered message is whole
// (pkt_len == msg_len, segments add up) and for the context it was sent to;
// a bitmap ACK names at least one packet and none past its message; a list
// names 1..15 messages; nothing
// leaks (the mempool is full again once the receiver is gone).
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "fuzz/fuzz_eal.h"
#include "lib/contract/message.h"
#include "lib/wire/ack_list.h"
#include "nanopu/app_header.h"
#include "nic/timers/timer_module.h"
#include "nic/transport/common/transport_peers.h"
#include "nic/transport/ndp/ndp_receiver.h"

namespace {

rte_mempool* g_pool = nullptr;

class CheckingSink final : public nanopu::TransportSink {
 public:
  bool deliver(rte_mbuf* msg, nanopu::ContextEntry*) override {
    const nanopu::AppHeader h = nanopu::AppHeader::from_word(nanopu::msg_meta(msg)->app_header);
    uint32_t sum = 0;
    for (rte_mbuf* s = msg; s != nullptr; s = s->next) sum += s->data_len;
    if (h.len == 0 || msg->pkt_len != h.len || sum != h.len) std::abort();
    rte_pktmbuf_free(msg);
    return true;
  }
  void send_data(rte_mbuf* m, uint32_t, const nanopu::wire::TransportHeader&, size_t) override {
    rte_pktmbuf_free(m);
  }
  void send_control(uint32_t, const nanopu::wire::TransportHeader& t) override {
    if (!(t.ndp.options & nanopu::wire::kOptAckBitmap)) return;
    const uint64_t npkts = nanopu::wire::packets_for(t.ndp.msg_len);
    if (t.ndp.acked_bitmap == 0 || (npkts < 64 && (t.ndp.acked_bitmap >> npkts) != 0)) std::abort();
  }
  [[nodiscard]] bool frames_payloads() const override { return true; }
  void send_control_with(uint32_t ip, const nanopu::wire::TransportHeader& t,
                         const nanopu::wire::ControlPayload& payload) override {
    nanopu::wire::AckList more;  // the list as a receiver reads it (decode refuses 0 or > kMax)
    if (!(t.ndp.options & nanopu::wire::kOptAckList) ||
        !nanopu::wire::decode_ack_list(payload.data(), payload.size(), &more))
      std::abort();
    send_control(ip, t);  // the first ACK's own checks
  }
};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  nanopu::fuzz::init_eal();
  g_pool = rte_pktmbuf_pool_create("fuzz_pool", 8191, 0, nanopu::kMsgMetaBytes,
                                   RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  if (g_pool == nullptr) std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nanopu;
  TransportParams c;
  c.reassembly_slots = 8;
  c.remembered_completions = 64;
  c.remembered_senders = 4;  // small: a new sender forgets the least recent
  c.reassembly_expiry_ticks = 1000000;
  c.completion_memory_ticks = 1000000;
  c.reserved_priority0_slots = 2;
  c.context_slots = 6;
  c.context_packets = 256;
  c.incarnation = 1;
  NdpParams p;
  p.rtt_packets = 2;
  p.pull_interval_ticks = 100;
  p.coalesce_acks = true;
  p.ack_hold_ticks = 5000;
  NicCounters counters;
  CheckingSink sink;
  {
    ContextEntry ctx;
    ctx.context = 7;
    auto held = MsgFifo::create("fuzz_held", 64);
    if (!held.ok()) std::abort();
    ctx.held = std::move(*held);
    TransportPeers<HeldAcks> peers(c, 8, p.ack_hold_ticks, &counters);
    NdpReceiver rx(c, p, &counters, &peers);
    uint64_t now = 1;
    // Each record: 8 bytes.
    for (size_t i = 0; i + 8 <= size; i += 8) {
      const uint8_t* r = data + i;
      wire::FrameHeader h;
      h.protocol = wire::kIpProtoNdp;
      h.src_ip = 0x0a000000u | (r[0] & 3);
      h.dst_ip = 0x0a0000ffu;
      h.ndp.flags = (r[1] & 1) ? wire::kFlagData : static_cast<uint8_t>(r[1] & 0x1f);
      if (r[1] & 0x80) h.ndp.flags |= wire::kFlagChop;
      h.ndp.src_context = r[2] & 1;
      h.ndp.dst_context = 7;
      h.ndp.msg_len = static_cast<uint16_t>((r[3] << 8 | r[4]) % 5000 + (r[3] & 0x80 ? 60000 : 0));
      h.ndp.pkt_offset = r[5] & 0x3f;
      h.ndp.options = (r[5] & 0x40) ? wire::kOptTakesAcks : 0;
      if ((r[5] & 0x40) && (r[0] & 0x80))
        h.ndp.options |= wire::kOptTakesWholeAcks | wire::kOptTakesAckLists;
      h.ndp.tx_msg_id = r[6] & 7;
      h.ndp.buf_ptr = r[7] & 3;
      // Sender runs (a restart mid-message supersedes) and the run named as
      // receiver (ours is 1: anything else is refused with GONE).
      h.ndp.incarnation = static_cast<uint16_t>(1 + ((r[6] >> 3) & 1));
      h.ndp.buf_size_class = static_cast<uint8_t>(h.ndp.incarnation);
      h.ndp.dst_incarnation = (r[6] & 0x30) == 0x30 ? 2 : (r[6] >> 4) & 1;
      now += (r[2] >> 1) * 1000;
      size_t payload = wire::segment_payload_bytes(h.ndp.msg_len, h.ndp.pkt_offset);
      if (h.ndp.flags & wire::kFlagChop) payload = 8;
      rte_mbuf* m = rte_pktmbuf_alloc(g_pool);
      if (m == nullptr) break;
      auto* buf = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, static_cast<uint16_t>(wire::kFrameHeaderBytes + payload)));
      if (buf == nullptr) {
        rte_pktmbuf_free(m);
        continue;
      }
      wire::encode_frame_header(h, payload, buf);
      std::memset(buf + wire::kFrameHeaderBytes, r[7], payload);
      wire::FrameHeader parsed;
      size_t parsed_payload = 0;
      // Only what the pipeline lets through reaches the transport.
      if (wire::decode_frame_header(buf, m->pkt_len, &parsed, &parsed_payload) != wire::ParseError::kOk ||
          !(parsed.ndp.flags & wire::kFlagData)) {
        rte_pktmbuf_free(m);
        continue;
      }
      rx.on_data(m, parsed, parsed_payload, &ctx, now, sink);
      if (r[0] & 0x80) {
        rx.tick(now, sink);
        peers.held.expire(now, sink);
      }
    }
    rx.tick(now + 10000000, sink);  // expiry frees abandoned partial messages
    peers.held.expire(now + 10000000, sink);
  }
  if (rte_mempool_in_use_count(g_pool) != 0) std::abort();  // a leaked packet
  return 0;
}
