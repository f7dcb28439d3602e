// Sizes fixed by the nanoPU's wire format and by this emulator's tables.
// Header-only vocabulary shared by every layer (docs/design.md, "Layers").
#pragma once

#include <cstddef>
#include <cstdint>

namespace nanopu {

// Worker cores one emulated host may have (the context table keeps one
// binding slot per worker core for each context).
inline constexpr size_t kMaxWorkerCores = 64;
// NIC cores of one host (Config::nic_lcores; docs/design.md §7, "Several NIC cores").
inline constexpr uint32_t kMaxNicCores = 8;
// The application header's and the transport header's msg_len is 16 bits
// (docs/wire.md): 65535 bytes in at most 64 packets of 1024 bytes.
inline constexpr uint32_t kMaxMessageBytes = 65535;

}  // namespace nanopu
