// sPIN on the emulated NIC (docs/design.md §12; docs/services.md, "Packet
// handlers on the NIC"): a host installs an *execution context* — a rule
// matching messages, a header handler run on a message's first packet, a
// payload handler run on each of its packets, a completion handler run after
// the last, and a handler memory — and the NIC core runs the handlers on every
// matching message before anything reaches a thread (sPIN's model as PsPIN
// implements it: "PsPIN: A high-performance low-power architecture for
// flexible in-network compute", §II–III). The handlers run as the packets
// arrive, each packet's once however often the network delivered it: the
// header handler when the first packet is in (a packet that overtook it
// waits for it), a payload handler on each packet then, in arrival order,
// and the completion once the message is whole.
//
//   nanopu::spin::ExecutionContext ctx;
//   ctx.name = "histogram";
//   ctx.match.context = 7;                     // messages to context 7
//   ctx.memory_bytes = 1024 * 4;
//   ctx.payload = [](spin::Handle& h, const spin::Packet& p) {
//     for (uint32_t i = 0; i + 4 <= p.payload.size(); i += 4)
//       h.memory().add<uint32_t>(4 * (load_le32(p.payload, i) % 1024), 1);
//     h.charge_cycles(3 * p.payload.size() / 4);   // for the PsPIN model
//   };
//   ctx.completion = [](spin::Handle& h) { h.host_write_memory(0, 4096); };
//   (void)rt.install(std::move(ctx));          // before run()
//
// What a handler may do is what sPIN's API gives it: read its packet, read and
// write its context's handler memory and its message's scratch area (checked:
// isolation, PsPIN §III-B S7), write into the message the host receives (DMA
// to host), let the original message through, and send a packet to any host.
// A handler that reads or writes outside its memory, throws, or runs past its
// budget disables its context (reported, counted); the NIC and every other
// context go on, and the messages it would have taken reach its thread as
// they came.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <type_traits>

namespace nanopu::spin {

// A message's bytes are in wire order: each 8-byte word a thread writes
// (Thread::write) is big-endian, as is every field of nanopu's own services
// (docs/wire.md). These read and write such fields in a packet or buffer.
template <typename T>
[[nodiscard]] constexpr T byteswap_if_little(T v) {
  static_assert(std::is_unsigned_v<T> && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8));
  if constexpr (std::endian::native == std::endian::big || sizeof(T) == 1) {
    return v;
  } else if constexpr (sizeof(T) == 2) {
    return __builtin_bswap16(v);
  } else if constexpr (sizeof(T) == 4) {
    return __builtin_bswap32(v);
  } else {
    return __builtin_bswap64(v);
  }
}
template <typename T>
[[nodiscard]] inline T load_be(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return byteswap_if_little(v);
}
template <typename T>
inline void store_be(uint8_t* p, T v) {
  v = byteswap_if_little(v);
  std::memcpy(p, &v, sizeof(T));
}

// Why a context was disabled.
enum class Fault : uint8_t {
  kNone = 0,
  kOutOfBounds = 1,   // a handler memory or scratch access outside its size
  kThrew = 2,         // a handler threw an exception
  kOverBudget = 3,    // a handler ran longer than ExecutionContext::budget_ns
  kBadCommand = 4,    // a command with bad arguments (a host write past 64 KiB, a send too long)
};
[[nodiscard]] const char* fault_name(Fault f);

// A region of handler memory or a message's scratch area. Every access is
// checked against its size: one outside it does nothing (a load reads 0),
// and the handler's context is disabled when the handler returns. (PsPIN
// checks with RISC-V's physical memory protection; this is the software
// equivalent. A handler that dereferences raw pointers of its own is not
// contained: it shares the NIC core's address space.)
class Memory {
 public:
  Memory() = default;
  Memory(uint8_t* base, uint32_t size_bytes, Fault* fault) : base_(base), size_(size_bytes), fault_(fault) {}

  [[nodiscard]] uint32_t size_bytes() const { return size_; }
  template <typename T>
  [[nodiscard]] T load(uint32_t offset) const {
    static_assert(std::is_trivially_copyable_v<T>);
    T v{};
    if (check(offset, sizeof(T))) std::memcpy(&v, base_ + offset, sizeof(T));
    return v;
  }
  template <typename T>
  void store(uint32_t offset, T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (check(offset, sizeof(T))) std::memcpy(base_ + offset, &v, sizeof(T));
  }
  // A big-endian (wire-order) word: what a thread reads as one word when the
  // handler copies it to the host (Handle::host_write_memory).
  template <typename T = uint64_t>
  [[nodiscard]] T load_be(uint32_t offset) const {
    return check(offset, sizeof(T)) ? spin::load_be<T>(base_ + offset) : T{};
  }
  template <typename T = uint64_t>
  void store_be(uint32_t offset, T v) {
    if (check(offset, sizeof(T))) spin::store_be<T>(base_ + offset, v);
  }
  // *offset += v (an atomic add on PsPIN's HPUs; handlers run one at a
  // time on a NIC core here).
  template <typename T>
  T add(uint32_t offset, T v) {
    const T now = static_cast<T>(load<T>(offset) + v);
    store<T>(offset, now);
    return now;
  }
  // Bytes [offset, offset + len): copied in or out, checked as a whole.
  void write(uint32_t offset, std::span<const uint8_t> bytes) {
    if (check(offset, bytes.size()) && !bytes.empty()) std::memcpy(base_ + offset, bytes.data(), bytes.size());
  }
  void read(uint32_t offset, std::span<uint8_t> out) const {
    if (check(offset, out.size()) && !out.empty()) std::memcpy(out.data(), base_ + offset, out.size());
  }
  // A view of [offset, offset + len), or an empty one (and a fault) if it
  // does not fit. For reading in bulk; writes through it are the handler's
  // own responsibility to keep within len.
  [[nodiscard]] std::span<const uint8_t> view(uint32_t offset, uint32_t len) const {
    if (!check(offset, len)) return {};
    return {base_ + offset, len};
  }

 private:
  [[nodiscard]] bool check(uint64_t offset, uint64_t len) const {
    if (offset + len <= size_) [[likely]]
      return true;
    if (fault_ != nullptr && *fault_ == Fault::kNone) *fault_ = Fault::kOutOfBounds;
    return false;
  }
  uint8_t* base_ = nullptr;
  uint32_t size_ = 0;
  Fault* fault_ = nullptr;
};

// The message a handler runs for (sPIN's handler_args_t task fields).
struct MessageInfo {
  uint32_t src_ip = 0;
  uint16_t src_context = 0;
  uint16_t dst_context = 0;
  uint16_t src_run = 0;        // the sender's run (a reply names it: Handle::reply)
  uint32_t size_bytes = 0;
  uint32_t packets = 0;
  uint64_t seq = 0;            // the context's count of messages whose handlers began before this one's
};

// One packet of it: its payload (the message's bytes at offset_bytes).
struct Packet {
  std::span<const uint8_t> payload;
  uint32_t offset_bytes = 0;
  uint32_t index = 0;          // 0 .. packets - 1 (payload handlers see them in arrival order)
};

// What a handler is given and may do (sPIN's handler API).
class Handle {
 public:
  virtual ~Handle() = default;
  [[nodiscard]] virtual const MessageInfo& message() const = 0;
  // The context's handler memory (kept across messages, zeroed at install;
  // PsPIN's L2 handler memory) and this message's scratch area (zeroed
  // before its header handler; PsPIN's L1 scratchpad).
  [[nodiscard]] virtual Memory& memory() = 0;
  [[nodiscard]] virtual Memory& scratch() = 0;
  // DMA to the host: bytes into the message the context's thread receives
  // when the completion handler has run (its length: the furthest byte
  // written, at most 65535; its source: this message's). False, and the
  // context disabled, past that.
  virtual bool host_write(uint32_t offset, std::span<const uint8_t> bytes) = 0;
  // One word in wire order: the thread reads it back as `word`.
  bool host_write_word(uint32_t offset, uint64_t word) {
    uint8_t b[8];
    store_be<uint64_t>(b, word);
    return host_write(offset, b);
  }
  // The same from handler memory [mem_offset, mem_offset + len), as it is.
  virtual bool host_write_memory(uint32_t offset, uint32_t mem_offset, uint32_t len) = 0;
  // The original message also reaches the thread, as it came (after the
  // host message, if any).
  virtual void forward() = 0;
  // A message of one packet (at most 1024 bytes; at most 16 per message) from this context to
  // (ip, context), sent by the NIC's transport once the handler returns
  // (sPIN's PtlHandlerPutFromDevice). `run`: the destination's run the
  // message answers (0: the one the NIC last heard).
  virtual bool send(uint32_t ip, uint16_t context, std::span<const uint8_t> bytes, uint16_t run = 0) = 0;
  // send() to this message's sender, naming its run.
  bool reply(std::span<const uint8_t> bytes) {
    const MessageInfo& m = message();
    return send(m.src_ip, m.src_context, bytes, m.src_run);
  }
  // The handler's cost on a PsPIN HPU (1 GHz RISC-V cycles), for the
  // modelled column (spin_model.h); like Thread::charge_work for services.
  virtual void charge_cycles(uint64_t cycles) = 0;
};

using PacketHandler = std::function<void(Handle&, const Packet&)>;
using CompletionHandler = std::function<void(Handle&)>;

// Which messages a context takes: those to `context`, and, if field_bytes is
// not 0, whose bytes [field_offset, field_offset + field_bytes) of the
// message (little-endian, at most 8) masked by field_mask equal field_value.
struct Match {
  uint16_t context = 0;
  uint16_t field_offset = 0;
  uint8_t field_bytes = 0;
  uint64_t field_mask = ~uint64_t{0};
  uint64_t field_value = 0;
};

inline constexpr uint32_t kMaxMemoryBytes = 16u << 20;   // handler memory (PsPIN's L2: 4 MiB; kept roomier)
inline constexpr uint32_t kMaxScratchBytes = 64u << 10;  // per-message scratch
inline constexpr uint32_t kMaxSendBytes = 1024;          // Handle::send: one packet
inline constexpr uint32_t kMaxSendsPerMessage = 16;      // Handle::send's per message

struct ExecutionContext {
  std::string name;             // in reports and errors
  Match match;
  PacketHandler header;         // any of the three may be empty
  PacketHandler payload;
  CompletionHandler completion;
  uint32_t memory_bytes = 0;    // handler memory (<= kMaxMemoryBytes)
  // Fills the handler memory at install (zeroed before): a table the host
  // prepares (sPIN's host-side setup of handler memory through the driver).
  std::function<void(Memory&)> init;
  uint32_t scratch_bytes = 0;   // per-message scratch (<= kMaxScratchBytes)
  // A handler invocation that takes longer than this (measured) disables the
  // context. A stall of the host's own (docs/running.md, "Reading a tail")
  // counts too: keep it above the host's longest.
  uint64_t budget_ns = 100'000'000;
};

// A context's figures, measured on the NIC core.
struct ContextReport {
  std::string name;
  uint16_t context = 0;
  uint64_t messages = 0;        // taken by the handlers
  uint64_t streamed = 0;        // of them, multi-packet ones handled packet by packet as they arrived
  uint64_t abandoned = 0;       // streamed, then freed incomplete by the transport: no completion ran
  uint64_t packets = 0;
  uint64_t bytes = 0;
  uint64_t invocations = 0;     // handler calls (header + payload + completion)
  uint64_t handler_ns = 0;      // their measured time on the NIC core
  uint64_t declared_cycles = 0; // Handle::charge_cycles, summed
  uint64_t host_messages = 0;   // messages written to the host (host_write)
  uint64_t forwarded = 0;       // originals let through (forward)
  uint64_t sends = 0;           // Handle::send's, handed to the transport
  uint64_t lost = 0;            // host messages or sends with no buffer (also a NIC counter)
  uint64_t bypassed = 0;        // messages that reached the thread untouched, disabled
  Fault fault = Fault::kNone;   // why it was disabled (kNone: it is not)
  std::string fault_detail;
};

}  // namespace nanopu::spin
