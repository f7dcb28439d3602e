// A small message in the register path (nanoPU OSDI'21 §2.1: netRX is a
// register the core reads, not a buffer in memory). A received message of
// at most kInlineBytes travels from the NIC core to its thread inside a
// slot of two cache lines the NIC core writes: the RX FIFO entry is then a
// tagged pointer to that slot rather than an mbuf, the worker reads two
// lines the NIC core wrote instead of the mbuf's header, its private area
// and its data (three or four), and never frees an mbuf another core
// allocated — the NIC core frees it into its own mempool cache.
//
// Slots are one ring per thread (ThreadFifos::rx_inline), written by one NIC
// core: a slot is taken again only once the thread's msg_done() count shows
// the message that held it finished (messages finish in the order the FIFO
// gives them). Larger messages, multi-segment ones and hosts with several
// NIC cores (several producers) take the mbuf path as before.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>

#include "lib/contract/message.h"

namespace nanopu {

struct alignas(64) InlineMsg {
  uint64_t app_header = 0;  // as MsgMeta::app_header
  uint64_t nic_tsc = 0;     // as MsgMeta::nic_tsc
  uint32_t core_time = 0;   // as MsgMeta::core_time
  uint16_t run = 0;         // as MsgMeta::run
  uint16_t unused = 0;
  uint8_t payload[104];     // the message's bytes as the wire had them (a short last word's tail unread)
};
static_assert(sizeof(InlineMsg) == 128);

inline constexpr uint32_t kInlineBytes = sizeof(InlineMsg::payload);

// The other way (netTX): a message of at most kInlineTxBytes the thread
// writes into a slot of its own (ThreadFifos::tx_inline, one ring per
// thread, the worker's to fill) and hands over as a tagged TX FIFO entry;
// the NIC core copies it into an mbuf of its own pool and frames it there.
// A slot is written again only after the FIFO's capacity and a burst more
// messages: by then the NIC core has taken it (it finishes each burst it
// pops before popping the next).
struct alignas(64) InlineTxMsg {
  uint64_t app_header = 0;  // as MsgMeta's fields
  uint64_t tag = 0;
  uint64_t ready_tsc = 0;
  uint32_t core_time = 0;
  uint16_t src_context = 0;
  uint16_t run = 0;
  uint8_t payload[96];      // in wire order
};
static_assert(sizeof(InlineTxMsg) == 128);

inline constexpr uint32_t kInlineTxBytes = sizeof(InlineTxMsg::payload);

// An RX FIFO entry is an rte_mbuf* or, with its low bit set, an InlineMsg*
// (both are at least 2-byte aligned).
[[nodiscard]] inline bool is_inline(const void* entry) {
  return (reinterpret_cast<uintptr_t>(entry) & 1) != 0;
}
[[nodiscard]] inline InlineMsg* inline_of(const void* entry) {
  return reinterpret_cast<InlineMsg*>(reinterpret_cast<uintptr_t>(entry) & ~uintptr_t{1});
}
[[nodiscard]] inline InlineTxMsg* inline_tx_of(const void* entry) {
  return reinterpret_cast<InlineTxMsg*>(reinterpret_cast<uintptr_t>(entry) & ~uintptr_t{1});
}
template <typename Slot>
[[nodiscard]] inline rte_mbuf* inline_entry(Slot* slot) {
  return reinterpret_cast<rte_mbuf*>(reinterpret_cast<uintptr_t>(slot) | 1);
}
// A TX entry's ready time (simulation: when its core finished it).
[[nodiscard]] inline uint64_t entry_ready_tsc(const rte_mbuf* e) {
  return is_inline(e) ? inline_tx_of(e)->ready_tsc : msg_meta(const_cast<rte_mbuf*>(e))->ready_tsc;
}
// An entry's MsgMeta fields, wherever it keeps them.
[[nodiscard]] inline uint64_t entry_app_header(const rte_mbuf* e) {
  return is_inline(e) ? inline_of(e)->app_header : msg_meta(const_cast<rte_mbuf*>(e))->app_header;
}
[[nodiscard]] inline uint64_t entry_nic_tsc(const rte_mbuf* e) {
  return is_inline(e) ? inline_of(e)->nic_tsc : msg_meta(const_cast<rte_mbuf*>(e))->nic_tsc;
}
[[nodiscard]] inline uint16_t entry_run(const rte_mbuf* e) {
  return is_inline(e) ? inline_of(e)->run : msg_meta(const_cast<rte_mbuf*>(e))->run;
}
[[nodiscard]] inline uint32_t entry_core_time(const rte_mbuf* e) {
  return is_inline(e) ? inline_of(e)->core_time : msg_meta(const_cast<rte_mbuf*>(e))->core_time;
}

// Frees an RX or TX FIFO entry's mbuf; an inline slot is reused by its ring's writer.
inline void free_fifo_entry(rte_mbuf* entry) {
  if (entry != nullptr && !is_inline(entry)) rte_pktmbuf_free(entry);
}

}  // namespace nanopu
