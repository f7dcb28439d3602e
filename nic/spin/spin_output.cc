#include "nic/spin/spin_output.h"

#include <algorithm>
#include <cstring>

#include "lib/contract/message.h"
#include "lib/contract/tx_message.h"
#include "lib/wire/frame.h"
#include "nanopu/app_header.h"

namespace nanopu {

rte_mbuf* make_host_message(rte_mempool* pool, const SpinRun& run, uint64_t now) {
  const std::span<const uint8_t> bytes = run.host_bytes();
  const auto n = static_cast<unsigned>((bytes.size() + wire::kSegmentBytes - 1) / wire::kSegmentBytes);
  rte_mbuf* segs[wire::kMaxPacketsPerMessage];
  if (rte_pktmbuf_alloc_bulk(pool, segs, n) != 0) return nullptr;
  size_t at = 0;
  for (unsigned i = 0; i < n; ++i) {
    const auto len = static_cast<uint16_t>(std::min<size_t>(wire::kSegmentBytes, bytes.size() - at));
    std::memcpy(rte_pktmbuf_append(segs[i], len), bytes.data() + at, len);
    at += len;
    if (i > 0) (void)rte_pktmbuf_chain(segs[0], segs[i]);
  }
  const spin::MessageInfo& m = run.message();
  MsgMeta* meta = msg_meta(segs[0]);
  *meta = MsgMeta{};
  meta->app_header = AppHeader{m.src_ip, m.src_context, static_cast<uint16_t>(bytes.size())}.word();
  meta->nic_tsc = now;
  meta->run = m.src_run;
  return segs[0];
}

rte_mbuf* make_send(rte_mempool* pool, const SpinRun& run, const SpinSend& send, uint16_t src_context,
                    uint64_t now) {
  rte_mbuf* m = rte_pktmbuf_alloc(pool);
  if (m == nullptr) return nullptr;
  (void)rte_pktmbuf_append(m, static_cast<uint16_t>(wire::kFrameHeaderBytes + send.len));
  std::memcpy(tx_segment_payload(m), run.send_bytes(send), send.len);
  MsgMeta* meta = msg_meta(m);
  *meta = MsgMeta{};
  meta->app_header = AppHeader{send.ip, send.context, send.len}.word();
  meta->src_context = src_context;
  meta->sender = UINT16_MAX;  // no thread: a give-up is logged and counted only
  meta->run = send.run;
  meta->ready_tsc = now;
  return m;
}

}  // namespace nanopu
