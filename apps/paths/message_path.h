// How a service's messages reach its code (--app_mode of nanopu-server and
// nanopu-loadgen), the comparison of nanoPU (OSDI'21) §2 and §5.1:
//   kRegisters  the register file: words read from the RX FIFO and written
//               to the TX FIFO one at a time (Thread::read/write), the
//               nanoPU's path;
//   kMemory     a traditional NIC's: each message copied whole into memory
//               and handed to the code, the reply handed back whole
//               (nanopu/memory_message.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace nanopu::apps {

enum class MessagePath : uint8_t { kRegisters, kMemory };

// --app_mode's spellings: "register-file" (also "registers") and
// "traditional" (also "memory"); nullopt for anything else.
[[nodiscard]] inline std::optional<MessagePath> parse_app_mode(std::string_view s) {
  if (s == "register-file" || s == "registers") return MessagePath::kRegisters;
  if (s == "traditional" || s == "memory") return MessagePath::kMemory;
  return std::nullopt;
}

[[nodiscard]] inline std::string_view app_mode_name(MessagePath p) {
  return p == MessagePath::kRegisters ? "register-file" : "traditional";
}

}  // namespace nanopu::apps
