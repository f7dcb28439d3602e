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
  if (!recording_) {  // not in the constructor: recorder() is the derived class's
    recording_ = true;
    if (opts_.history != nullptr)
      if (rpc::CallRecorder r = recorder(); r.invoke) client_.record(opts_.history, std::move(r));
  }
  const uint64_t seq = next_seq_;
  const uint32_t bytes = request(seq, &words_);
  uint64_t id = 0;
  const auto deadline =
      std::chrono::microseconds(static_cast<int64_t>(opts_.drain_timeout_s * 1e6));
  // The call's user word is its sequence number; its latency counts from
  // the scheduled send time, kept with it.
  if (client_.call(destination(seq), words_, bytes, deadline, seq, &id) != ApiError::kOk) {
    ++r_->send_failures;
    return false;
  }
  sent_.emplace(seq, Sent{next_sent_time(sent_ns), id});
  ++next_seq_;
  return true;
}

void CallLoad::receive_all(bool measure) {
  rpc::Completion c;
  while (client_.next(&c, std::chrono::microseconds(0))) {
    auto it = sent_.find(c.user);
    const uint64_t sent = it != sent_.end() ? it->second.sent_ns : 0;
    if (it != sent_.end()) sent_.erase(it);
    switch (c.status) {
      case rpc::CallStatus::kOk:
        if (!check(c.user, c.reply, c.reply_bytes)) {
          ++r_->bad_replies;
        } else if (measure) {
          // Both messages as the server's thread read and wrote them: the
          // call word and the payload. A reply written after other work
          // (a call to another server) stamps its last step only: not a
          // sample of the request's core time.
          r_->after_other_work += c.after_other_work;
          set_stamp(c.after_other_work ? 0 : c.server_core_ns, c.reply_bytes + 8);
          record_reply(sent, c.request_bytes + 8);
        }
        break;
      case rpc::CallStatus::kDeadlineExceeded:
        ++r_->lost;
        failed(c.user, c.id, c.status);
        break;
      case rpc::CallStatus::kRejected:  // refused unread for load: a give-up, counted apart too
        ++r_->rejected;
        count_given_up();
        failed(c.user, c.id, c.status);
        break;
      default:  // kNoAnswer, kRefused, kNoSlot, kPeerRestarted, kServerFailed
        count_given_up();
        failed(c.user, c.id, c.status);
        break;
    }
  }
}

void CallLoad::forget_in_flight() {
  for (const auto& [seq, s] : sent_) failed(seq, s.call_id, rpc::CallStatus::kDeadlineExceeded);
  sent_.clear();
  client_.abandon_all();
}

}  // namespace nanopu::loadgen
