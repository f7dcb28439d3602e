#include "lib/contract/tx_message.h"

#include "lib/contract/message.h"
#include "nanopu/app_header.h"
#include "lib/wire/frame.h"

namespace nanopu {

rte_mbuf* alloc_tx_message(rte_mempool* pool, uint64_t app_header, uint16_t src_context) {
  const uint16_t len = AppHeader::from_word(app_header).len;
  const auto nseg = static_cast<unsigned>(wire::packets_for(len));
  if (nseg == 0 || nseg > wire::kMaxPacketsPerMessage) return nullptr;
  rte_mbuf* segs[wire::kMaxPacketsPerMessage];
  if (rte_pktmbuf_alloc_bulk(pool, segs, nseg) != 0) return nullptr;
  for (unsigned i = 0; i < nseg; ++i) {
    const size_t payload = wire::segment_payload_bytes(len, static_cast<uint8_t>(i));
    (void)rte_pktmbuf_append(segs[i], static_cast<uint16_t>(wire::kFrameHeaderBytes + payload));
    if (i > 0) segs[i - 1]->next = segs[i];
  }
  segs[0]->nb_segs = static_cast<uint16_t>(nseg);
  segs[0]->pkt_len = len + nseg * wire::kFrameHeaderBytes;
  MsgMeta* meta = msg_meta(segs[0]);
  meta->app_header = app_header;
  meta->src_context = src_context;
  meta->core_time = 0;
  meta->run = 0;  // (a pool's buffers keep their private area from their last use)
  return segs[0];
}

uint8_t* tx_segment_payload(rte_mbuf* seg) {
  return rte_pktmbuf_mtod(seg, uint8_t*) + wire::kFrameHeaderBytes;
}

uint32_t tx_segment_words(const rte_mbuf* seg) {
  return static_cast<uint32_t>((seg->data_len - wire::kFrameHeaderBytes + 7) / 8);
}

}  // namespace nanopu
