// libFuzzer target for the Homa receive state machine (HomaTransport): an
// input is a sequence of packets — DATA with any lengths, offsets, ids,
// senders, priorities and trims, and control packets (GRANT beyond msg_len,
// RESEND for unknown messages, BUSY, ACK ...) — fed exactly as the pipeline
// would (only frames the parser accepts), with ticks between. Invariants: no
// crash; every delivered message is whole and once (pkt_len == msg_len,
// segments add up); never more senders holding scheduled grants than
// `overcommit` (+1 for the FIFO grant); nothing leaks (the mempool is full again afterwards).
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "fuzz/fuzz_eal.h"
#include "lib/contract/message.h"
#include "nanopu/app_header.h"
#include "nic/transport/homa/homa_transport.h"

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
  void send_data(rte_mbuf* m, uint32_t, const nanopu::wire::TransportHeader& h, size_t) override {
    if (h.protocol != nanopu::wire::kIpProtoHoma || h.tos >= nanopu::wire::kHomaPriorities) std::abort();
    rte_pktmbuf_free(m);
  }
  void send_control(uint32_t, const nanopu::wire::TransportHeader& h) override {
    if (h.protocol != nanopu::wire::kIpProtoHoma || h.homa.grant_offset > h.homa.msg_len) std::abort();
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
  HomaParams p;
  c.reassembly_slots = 8;
  c.outbound_slots = 4;
  c.remembered_completions = 64;
  c.remembered_senders = 4;
  c.rto_ticks = 5000;
  c.peer_dead_ticks = 30000;  // a few RESENDs, then the partial message is dropped
  c.reassembly_expiry_ticks = 1000000;
  c.completion_memory_ticks = 1000000;
  c.reserved_priority0_slots = 2;
  c.context_slots = 6;
  c.context_packets = 256;
  c.incarnation = 1;
  p.rtt_bytes = 2048;
  p.overcommit = 2;
  p.resend_ticks = 3000;
  p.fifo_grant_every = 4;
  NicCounters counters;
  CheckingSink sink;
  {
    ContextEntry ctx;
    ctx.context = 7;
    auto held = MsgFifo::create("fuzz_held", 64);
    if (!held.ok()) std::abort();
    ctx.held = std::move(*held);
    p.grant_when_core_free = size > 0 && (data[0] & 0x40);
    HomaTransport homa(c, p, g_pool, &counters);
    uint64_t now = 1;
    // Each record: 9 bytes.
    for (size_t i = 0; i + 9 <= size; i += 9) {
      const uint8_t* r = data + i;
      wire::FrameHeader h;
      h.protocol = wire::kIpProtoHoma;
      h.src_ip = 0x0a000000u | (r[0] & 3);
      h.dst_ip = 0x0a0000ffu;
      h.tos = r[8] & 0x0f;  // > 7 must be refused by the parser
      wire::HomaHeader& x = h.homa;
      x.flags = (r[1] & 1) ? wire::kHomaData : static_cast<uint8_t>(r[1] & 0xfe);
      if ((r[1] & 1) && (r[1] & 0x80)) x.flags |= wire::kHomaChop;
      x.src_context = r[2] & 1;
      x.dst_context = 7;
      x.msg_len = static_cast<uint16_t>((r[3] << 8 | r[4]) % 5000 + (r[3] & 0x80 ? 60000 : 0));
      x.pkt_offset = r[5] & 0x3f;
      x.tx_msg_id = r[6] & 7;
      x.buf_ptr = r[7] & 3;
      x.grant_offset = static_cast<uint16_t>(r[8] << 8 | r[4]);  // often beyond msg_len
      x.grant_prio = r[8] >> 4;
      x.incarnation = static_cast<uint16_t>(1 + ((r[6] >> 3) & 1));
      x.buf_size_class = static_cast<uint8_t>(x.incarnation);
      x.dst_incarnation = (r[6] & 0x30) == 0x30 ? 2 : (r[6] >> 4) & 1;
      now += (r[2] >> 1) * 100;
      const bool is_data = x.flags & wire::kHomaData;
      size_t payload = is_data ? wire::segment_payload_bytes(x.msg_len, x.pkt_offset) : 64;
      if (x.flags & wire::kHomaChop) payload = 8;
      rte_mbuf* m = rte_pktmbuf_alloc(g_pool);
      if (m == nullptr) break;
      auto* buf = reinterpret_cast<uint8_t*>(
          rte_pktmbuf_append(m, static_cast<uint16_t>(wire::kFrameHeaderBytes + payload)));
      if (buf == nullptr) {
        rte_pktmbuf_free(m);
        continue;
      }
      wire::encode_frame_header(h, payload, buf);
      std::memset(buf + wire::kFrameHeaderBytes, r[7], payload);
      wire::FrameHeader parsed;
      size_t parsed_payload = 0;
      if (wire::decode_frame_header(buf, m->pkt_len, &parsed, &parsed_payload) != wire::ParseError::kOk) {
        rte_pktmbuf_free(m);
        continue;
      }
      if (parsed.is_data()) homa.on_data(m, parsed, parsed_payload, &ctx, now, sink);
      else homa.on_control(m, parsed, now, sink);
      if (r[0] & 0x80) homa.on_tick(now, sink);
      // The bound: overcommit senders by SRPT, plus one FIFO grant.
      if (counters.rx_granted_senders_peak > p.overcommit + 1) std::abort();
    }
    for (int k = 0; k < 8; ++k) homa.on_tick(now += 1000000, sink);  // RESENDs run out, partials go
  }
  if (rte_mempool_in_use_count(g_pool) != 0) std::abort();  // a leaked packet
  return 0;
}
