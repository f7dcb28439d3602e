#include "nanopu/stats.h"

#include "nic/wire/frame.h"

namespace nanopu {

static_assert(static_cast<size_t>(wire::ParseError::kCount) == kParseErrorKinds,
              "one counter per parse error");

std::string_view parse_error_counter_name(size_t i) {
  return wire::parse_error_name(static_cast<wire::ParseError>(i));
}

uint64_t NicCounters::rx_dropped() const {
  uint64_t n = rx_drop_not_for_host + rx_drop_unknown_context + rx_drop_fifo_full +
               rx_drop_queue_full + rx_drop_no_thread +
               rx_drop_segmented_mbuf;
  for (uint64_t e : rx_parse_errors) n += e;
  return n;
}

}  // namespace nanopu
