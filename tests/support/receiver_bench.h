// Test support for driving a transport's receiver by hand: a pool of
// message mbufs (with MsgMeta room, as the runtime's) and one context entry
// with its global RX queue; on teardown every mbuf must be back. deliver()
// hands an NDP receiver one DATA packet through the wire codec.
#pragma once

#include <gtest/gtest.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstring>
#include <string>

#include "lib/contract/context_table.h"
#include "lib/contract/message.h"
#include "lib/wire/frame.h"
#include "nic/transport/common/transport_params.h"

namespace nanopu::testing {

class ReceiverBench {
 public:
  // Call from SetUp (ASSERTs inside). tag names the pool; mbufs its size.
  void open(const std::string& tag, unsigned mbufs, uint16_t context) {
    static int n = 0;
    const std::string id = tag + std::to_string(n++);
    pool = rte_pktmbuf_pool_create(id.c_str(), mbufs, 0, kMsgMetaBytes, RTE_MBUF_DEFAULT_BUF_SIZE,
                                   SOCKET_ID_ANY);
    ASSERT_NE(pool, nullptr);
    auto queue = MsgFifo::create(id + "_q", 64);
    ASSERT_TRUE(queue.ok());
    ctx.context = context;
    ctx.held = std::move(*queue);
  }
  // Call from TearDown, after the receiver is gone.
  void close() {
    while (rte_mbuf* m = ctx.held.pop()) rte_pktmbuf_free(m);
    EXPECT_EQ(rte_mempool_in_use_count(pool), 0) << "a packet leaked";
    rte_mempool_free(pool);
    pool = nullptr;
  }

  // A receiver's buffers, as these tests want them: `slots` reassembly
  // slots, all open to any context, `packets` packets in its custody, and
  // nothing expired or forgotten before `horizon_ticks`.
  [[nodiscard]] static TransportParams receiver_params(uint32_t slots, uint32_t packets,
                                                       uint64_t horizon_ticks) {
    TransportParams c;
    c.reassembly_slots = slots;
    c.reserved_priority0_slots = 0;
    c.context_slots = slots;
    c.context_packets = packets;
    c.reassembly_expiry_ticks = horizon_ticks;
    c.completion_memory_ticks = horizon_ticks;
    return c;
  }

  // A DATA packet's header: packet pkt_offset of message id (msg_len
  // bytes) from 10.0.0.1's context 3 to 10.0.0.2's context 7, sent by a
  // nanopu run `incarnation` (its low byte in buf_size_class, as nanopu's).
  [[nodiscard]] static wire::FrameHeader data_header(uint16_t id, uint16_t msg_len,
                                                     uint8_t pkt_offset, uint16_t incarnation) {
    wire::FrameHeader h;
    h.protocol = wire::kIpProtoNdp;
    h.src_ip = 0x0a000001;
    h.dst_ip = 0x0a000002;
    h.ndp.flags = wire::kFlagData;
    h.ndp.src_context = 3;
    h.ndp.dst_context = 7;
    h.ndp.msg_len = msg_len;
    h.ndp.pkt_offset = pkt_offset;
    h.ndp.tx_msg_id = id;
    h.ndp.incarnation = incarnation;
    h.ndp.buf_size_class = static_cast<uint8_t>(incarnation);
    return h;
  }
  // The DATA packet with header h as a port would hand it over (its
  // payload the length h names, filled with `fill`), through the wire
  // codec, to rx->on_data at `now`. ASSERTs inside: call through
  // ASSERT_NO_FATAL_FAILURE where a failure must stop the test.
  template <class Receiver, class Sink>
  void deliver(Receiver& rx, const wire::FrameHeader& h, uint64_t now, Sink& sink,
               uint8_t fill = 0x5a) {
    const size_t payload = wire::segment_payload_bytes(h.ndp.msg_len, h.ndp.pkt_offset);
    rte_mbuf* m = rte_pktmbuf_alloc(pool);
    ASSERT_NE(m, nullptr);
    auto* buf = reinterpret_cast<uint8_t*>(
        rte_pktmbuf_append(m, static_cast<uint16_t>(wire::kFrameHeaderBytes + payload)));
    ASSERT_NE(buf, nullptr);
    wire::encode_frame_header(h, payload, buf);
    std::memset(buf + wire::kFrameHeaderBytes, fill, payload);
    wire::FrameHeader parsed;
    size_t parsed_payload = 0;
    ASSERT_EQ(wire::decode_frame_header(buf, m->pkt_len, &parsed, &parsed_payload),
              wire::ParseError::kOk);
    rx.on_data(m, parsed, parsed_payload, &ctx, now, sink);
  }

  rte_mempool* pool = nullptr;
  ContextEntry ctx;
};

}  // namespace nanopu::testing
