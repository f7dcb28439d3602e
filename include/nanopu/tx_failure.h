// A message the transport could not deliver, as the NIC reports it to the
// thread that sent it (Thread::next_failure()): which message (its tag,
// Thread::tx_tag()), where it was going, and why; and, to every thread, a
// peer's restart (what it had acknowledged but not answered is lost). Nothing a thread sends
// disappears in silence: each message it writes is either acknowledged by
// its receiver's NIC or named in one of these (docs/services.md, "The
// failure model").
#pragma once

#include <cstdint>
#include <string_view>

namespace nanopu {

enum class TxFailureReason : uint8_t {
  kNoAnswer = 1,  // retransmitted until the transport gave up: the peer is down or unreachable
  kRefused,       // the peer restarted: its new run refused a message meant for the old (GONE)
  kNoSlot,        // the NIC had no room to send it (its packetization buffer was full)
  // Not one message: the peer at dst_ip restarted (its DATA now names a new
  // run). Messages its previous run acknowledged but had not answered will
  // get no answer from it; those still unacknowledged come back as kRefused.
  // tag is 0; at_ns says when the NIC heard the new run. Every thread gets it.
  kPeerRestarted,
  // The receiver's context was over the queue its SLO allows
  // (Config::context_slos; NEBULA (ISCA'20) §IV-B): it took nothing, and
  // says so at once rather than let the sender retry into the queue. Retry
  // later or elsewhere.
  kRejected,
};

struct TxFailure {
  uint64_t tag = 0;          // Thread::tx_tag() of the message
  uint32_t dst_ip = 0;
  uint16_t dst_context = 0;
  TxFailureReason reason = TxFailureReason::kNoAnswer;
  uint64_t at_ns = 0;        // kPeerRestarted: when (Thread::now_ns()'s clock)
};

[[nodiscard]] constexpr std::string_view tx_failure_reason_name(TxFailureReason r) {
  switch (r) {
    case TxFailureReason::kNoAnswer: return "no_answer";
    case TxFailureReason::kRefused: return "refused";
    case TxFailureReason::kNoSlot: return "no_slot";
    case TxFailureReason::kPeerRestarted: return "peer_restarted";
    case TxFailureReason::kRejected: return "rejected";
  }
  return "unknown";
}

}  // namespace nanopu
