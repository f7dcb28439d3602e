// nanopu/loadgen.h: a load on calls (nanopu/rpc.h). The call's deadline is
// the drain timeout, so a request that gets no reply completes as lost, and
// one the transport gives up completes as given up, each by its id.
#include "nanopu/loadgen.h"

namespace nanopu::loadgen {

CallLoad::CallLoad(Thread& t, const Options& o, Result* r) : Load(t, o, r), client_(t) {
  take_failure_notices();
  transport_give_ups_are_retried_ = true;  // the client counts them (count_given_up)
}

bool CallLoad::send_next(uint64_t sent_ns) {
  const uint64_t seq = next_seq_;
  const uint32_t bytes = request(seq, &words_);
  uint64_t id = 0;
  const auto deadline =
      std::chrono::microseconds(static_cast<int64_t>(opts_.drain_timeout_s * 1e6));
  // The call's user word is its sequence number; its latency counts from
  // the scheduled send time, kept with it.
  if (client_.call({opts_.server_ip, opts_.server_context}, words_, bytes, deadline, seq, &id) != ApiError::kOk) {
    ++r_->send_failures;
    return false;
  }
  sent_at_.emplace(seq, next_sent_time(sent_ns));
  ++next_seq_;
  return true;
}

void CallLoad::receive_all(bool measure) {
  rpc::Completion c;
  while (client_.next(&c, std::chrono::microseconds(0))) {
    auto it = sent_at_.find(c.user);
    const uint64_t sent = it != sent_at_.end() ? it->second : 0;
    if (it != sent_at_.end()) sent_at_.erase(it);
    switch (c.status) {
      case rpc::CallStatus::kOk:
        if (!check(c.user, c.reply, c.reply_bytes)) ++r_->bad_replies;
        else if (measure) record_reply(sent);
        break;
      case rpc::CallStatus::kDeadlineExceeded:
        ++r_->lost;
        break;
      default:  // kNoAnswer, kRefused, kNoSlot
        count_given_up();
        break;
    }
  }
}

}  // namespace nanopu::loadgen
