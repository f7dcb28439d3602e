// Error codes of the per-word application API. The hot path returns these
// instead of absl::Status (no allocation per word); edges use absl::Status.
#pragma once

#include <cstdint>
#include <string_view>

namespace nanopu {

enum class [[nodiscard]] ApiError : uint8_t {
  kOk = 0,
  kRxEmpty,         // read() with no message in the RX FIFO
  kReadPastEnd,     // read() after the last word of the current message
  kBadLength,       // TX header length 0 or above the configured maximum
  kNoBuffers,       // TX: no buffer for the whole message (the paper's exception, §3.4)
  kNotBound,        // TX before bind(): the NIC would not know the source context
  kStopped,         // the runtime is shutting down
  kMessageOpen,     // send_message() while a message written with write() is unfinished
  kBadHeader,       // TX header to 0.0.0.0: no message is begun, no word is discarded
                    // (a stray payload word taken for a header, most likely)
  kTooLong,         // write_header(): a length over 65535 bytes or the configured maximum
  kIncomplete,      // a message left half-written (msg_done(), a new write_header(), the
                    // thread's end): it is dropped, never sent with another's words
  kNoMessage,       // msg_done() with no message being read: nothing is flushed
  kBadArgument,     // an argument out of its range (a call's deadline <= 0): nothing is done
  kWrongThread,     // called from another thread than the one the object belongs to
};

[[nodiscard]] std::string_view api_error_name(ApiError e);

}  // namespace nanopu
