// What the fault-injecting wire in front of a host's port does to the frames
// it receives (tests and soak runs; the NIC side lives in nic/fault/).
//
//   drop=P      lose the frame
//   dup=P       deliver it twice
//   reorder=P   hold it back behind the next frames
//   delay_us=D  hold every frame D microseconds
//   ack_delay_us=D  hold every control frame (ACK, NACK, PULL, GRANT, ...)
//               D microseconds more: a peer that acknowledges late, as the
//               nanoPU's Python packet tester does
//   corrupt=P   damage the frame on the wire: the emulated MAC's FCS check
//               discards it (as a real NIC does), counted as a corruption
//   mangle=P    flip a bit in the IPv4 header, which the pipeline's checksum
//               check must catch (exercises the parser with damaged frames)
//   trim=P      cut a DATA frame to 72 bytes and set CHOP, as an NDP switch
//               does when its queue is full (docs/wire.md)
//   drop_once=1 / trim_once=1   do it to every DATA packet the first time it
//               is seen (recovery tests)
//   no_echo=1   NDP control frames arrive with no echoed send stamp (bytes
//               28-29 zeroed, docs/wire.md "Send stamps"): a peer that
//               echoes none, as the nanoPU prototype's tester
//   seed=N
#pragma once

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"

namespace nanopu {

struct FaultSpec {
  double drop = 0, dup = 0, reorder = 0, corrupt = 0, mangle = 0, trim = 0;
  double delay_us = 0, ack_delay_us = 0;
  bool drop_once = false, trim_once = false, no_echo = false;
  uint64_t seed = 1;

  [[nodiscard]] bool any() const {
    return drop > 0 || dup > 0 || reorder > 0 || corrupt > 0 || mangle > 0 || trim > 0 ||
           delay_us > 0 || ack_delay_us > 0 || drop_once || trim_once || no_echo;
  }
  // Probabilities within 0..1, the delays >= 0; the error names the field.
  [[nodiscard]] absl::Status validate() const;
};

// "drop=0.1,dup=0.05,seed=7" (the keys above); an empty string is no faults.
[[nodiscard]] absl::StatusOr<FaultSpec> parse_fault_spec(std::string_view text);

}  // namespace nanopu
