#include "nanopu/error.h"

namespace nanopu {

std::string_view api_error_name(ApiError e) {
  switch (e) {
    case ApiError::kOk: return "ok";
    case ApiError::kRxEmpty: return "rx_empty";
    case ApiError::kReadPastEnd: return "read_past_end";
    case ApiError::kBadLength: return "bad_length";
    case ApiError::kNoBuffers: return "no_buffers";
    case ApiError::kNotBound: return "not_bound";
    case ApiError::kStopped: return "stopped";
    case ApiError::kMessageOpen: return "message_open";
    case ApiError::kBadHeader: return "bad_header";
    case ApiError::kTooLong: return "too_long";
    case ApiError::kIncomplete: return "incomplete";
    case ApiError::kNoMessage: return "no_message";
    case ApiError::kBadArgument: return "bad_argument";
    case ApiError::kWrongThread: return "wrong_thread";
  }
  return "unknown";
}

}  // namespace nanopu
