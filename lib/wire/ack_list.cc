#include "lib/wire/ack_list.h"

#include <cassert>
#include <cstring>

#include "lib/wire/big_endian.h"

namespace nanopu::wire {

using be::get16;
using be::put16;

void encode_ack_list(const AckList& list, uint8_t* payload) {
  assert(list.count >= 1 && list.count <= AckList::kMax);
  std::memset(payload, 0, kControlPayloadBytes);
  payload[0] = list.count;
  for (uint8_t i = 0; i < list.count; ++i) {
    put16(payload + 2 + 4 * i, list.msgs[i].tx_msg_id);
    put16(payload + 4 + 4 * i, list.msgs[i].buf_ptr);
  }
}

bool decode_ack_list(const uint8_t* payload, size_t len, AckList* out) {
  if (len < 2) return false;
  const uint8_t count = payload[0];
  if (count == 0 || count > AckList::kMax || payload[1] != 0 || len < 2 + size_t{4} * count)
    return false;
  out->count = count;
  for (uint8_t i = 0; i < count; ++i)
    out->msgs[i] = {get16(payload + 2 + 4 * i), get16(payload + 4 + 4 * i)};
  return true;
}

NdpHeader listed_ack(const NdpHeader& first, ListedMessage m) {
  NdpHeader a = first;  // contexts, runs, msg_len echoed
  a.flags = kFlagAck;
  a.pkt_offset = 0;
  a.pull_offset = 1;
  a.tx_msg_id = m.tx_msg_id;
  a.buf_ptr = m.buf_ptr;
  a.core_time = 0;
  a.options = kOptAckBitmap;
  a.acked_bitmap = ~uint64_t{0};
  a.acked_msg_id = a.acked_buf_ptr = 0;
  // No send stamp: first's is its own message's (or, on DATA, the carrier's own).
  a.tx_stamp = 0;
  return a;
}

}  // namespace nanopu::wire
