#include "nanopu/stats.h"

namespace nanopu {

// Indexed like wire::ParseError (lib/wire/frame.h checks the count).
std::string_view parse_error_counter_name(size_t i) {
  static constexpr std::string_view kNames[kParseErrorKinds] = {
      "ok",                    "rx_drop_short_frame", "rx_drop_not_ipv4",
      "rx_drop_bad_ip_header", "rx_drop_unknown_protocol", "rx_drop_bad_checksum",
      "rx_drop_bad_length",    "rx_drop_bad_flags",        "rx_drop_bad_priority"};
  return i < kParseErrorKinds ? kNames[i] : "rx_drop_unknown_reason";
}

uint64_t NicCounters::rx_dropped() const {
  uint64_t n = rx_drop_not_for_host + rx_drop_unknown_context + rx_drop_fifo_full +
               rx_drop_queue_full + rx_drop_no_thread + rx_drop_segmented_mbuf +
               rx_drop_stale_incarnation + rx_drop_handoff_full;
  for (uint64_t e : rx_parse_errors) n += e;
  return n;
}

}  // namespace nanopu
