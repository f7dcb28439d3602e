// A sender's 16-bit send stamps (docs/wire.md, "Send stamps"): each DATA
// transmission carries the time it left, the receiver echoes it in its ACK,
// and the sender times the round trip of that very transmission — sent once
// or resent (TCP's timestamps, RFC 7323 §3-4). Without it Karn's rule takes
// no sample from a resent packet, so a peer whose ACKs all come later than
// the timeout teaches the estimator nothing until the backoff has grown past
// its round trip (rtt_estimator.h); with it the first ACK that comes back
// does.
//
// The stamp is the sender's clock in units of 2^shift ticks, the largest
// power of two not above rto/16 (a quantisation far below the timeout's
// floor), modulo 2^16: it wraps after 4096 to 8192 timeouts (0.2-0.4 s at the
// default 50 us). An echo is read only while its message is younger than
// that (every stamp it echoes was written at or after the message's first
// transmission, so the difference is then exact) and only if it is not
// older than the message; otherwise it is ignored and Karn's rule applies.
// Pure: ticks in, ticks out; 0 is never a stamp (0 on the wire: none).
#pragma once

#include <cstdint>
#include <optional>

namespace nanopu {

class SendStamp {
 public:
  explicit SendStamp(uint64_t rto_ticks) {
    const uint64_t unit = rto_ticks / 16;
    shift_ = unit <= 1 ? 0 : static_cast<uint8_t>(63 - __builtin_clzll(unit));
  }

  // The stamp of a transmission leaving at now.
  [[nodiscard]] uint16_t at(uint64_t now) const {
    const auto s = static_cast<uint16_t>(now >> shift_);
    return s == 0 ? 1 : s;  // one unit late rather than "none"
  }

  // The round trip an echoed stamp names, for a message first sent at
  // first_sent and answered at now; nothing when there is no echo or it
  // cannot be read unambiguously.
  [[nodiscard]] std::optional<uint64_t> round_trip(uint16_t echo, uint64_t first_sent,
                                                   uint64_t now) const {
    const uint64_t unit = uint64_t{1} << shift_;
    if (echo == 0 || now < first_sent || now - first_sent >= (uint64_t{1} << (16 + shift_)) - unit)
      return std::nullopt;
    const auto units = static_cast<uint16_t>(static_cast<uint16_t>(now >> shift_) - echo);
    const uint64_t rtt = uint64_t{units} << shift_;
    if (rtt > now - first_sent + unit) return std::nullopt;  // older than its message: not its stamp
    return rtt;
  }

  [[nodiscard]] uint64_t unit_ticks() const { return uint64_t{1} << shift_; }

 private:
  uint8_t shift_ = 0;
};

}  // namespace nanopu
