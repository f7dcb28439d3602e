// The one way a message to send is laid out (the NIC↔worker contract, TX
// side): one mbuf per packet, chained, each with kFrameHeaderBytes of room
// before its payload so the NIC frames every packet in place, with MsgMeta
// in the first mbuf. The thread API fills it word by word; the virtual-time
// model builds the same shape, so the transport sees one format.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>

namespace nanopu {

// Allocates and chains the buffers of a message of app_header's length
// (1..65535 bytes), all or nothing, and records app_header and src_context in
// its MsgMeta. Returns nullptr when the pool has too few buffers.
[[nodiscard]] rte_mbuf* alloc_tx_message(rte_mempool* pool, uint64_t app_header,
                                         uint16_t src_context);

// Where the payload of the packet held by `seg` starts, and how many 8-byte
// words it holds (the last one may be partly padding).
[[nodiscard]] uint8_t* tx_segment_payload(rte_mbuf* seg);
[[nodiscard]] uint32_t tx_segment_words(const rte_mbuf* seg);

}  // namespace nanopu
