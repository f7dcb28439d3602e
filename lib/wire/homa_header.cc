#include "lib/wire/homa_header.h"

#include <cstring>

#include "lib/wire/big_endian.h"

namespace nanopu::wire {

namespace {
constexpr uint8_t kControl = kHomaAck | kHomaNack | kHomaGrant | kHomaResend | kHomaBusy | kHomaGone;
constexpr size_t kHeaderBytes = 30;
}  // namespace

bool homa_flags_valid(uint8_t flags) {
  if (flags & kHomaData) return (flags & kControl) == 0;  // DATA, maybe CHOP
  return (flags & kHomaChop) == 0 && (flags & kControl) != 0;
}

void encode_homa_header(const HomaHeader& h, uint8_t* l4) {
  l4[0] = h.flags;
  be::put16(l4 + 1, h.src_context);
  be::put16(l4 + 3, h.dst_context);
  be::put16(l4 + 5, h.msg_len);
  l4[7] = h.pkt_offset;
  be::put16(l4 + 8, h.grant_offset);
  l4[10] = h.grant_prio;
  be::put16(l4 + 11, h.tx_msg_id);
  be::put16(l4 + 13, h.buf_ptr);
  l4[15] = h.buf_size_class;
  be::put16(l4 + 16, h.incarnation);
  be::put16(l4 + 18, h.dst_incarnation);
  be::put32(l4 + 20, h.core_time);
  be::put16(l4 + 24, h.acked_msg_id);
  be::put16(l4 + 26, h.acked_buf_ptr);
  l4[28] = h.options;
  std::memset(l4 + 29, 0, kHeaderBytes - 29);
}

void decode_homa_header(const uint8_t* l4, HomaHeader* out) {
  out->flags = l4[0];
  out->src_context = be::get16(l4 + 1);
  out->dst_context = be::get16(l4 + 3);
  out->msg_len = be::get16(l4 + 5);
  out->pkt_offset = l4[7];
  out->grant_offset = be::get16(l4 + 8);
  out->grant_prio = l4[10];
  out->tx_msg_id = be::get16(l4 + 11);
  out->buf_ptr = be::get16(l4 + 13);
  out->buf_size_class = l4[15];
  out->incarnation = be::get16(l4 + 16);
  out->dst_incarnation = be::get16(l4 + 18);
  out->core_time = be::get32(l4 + 20);
  out->acked_msg_id = be::get16(l4 + 24);
  out->acked_buf_ptr = be::get16(l4 + 26);
  out->options = l4[28];
}

}  // namespace nanopu::wire
