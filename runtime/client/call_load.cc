// nanopu/loadgen.h: a load on calls (nanopu/rpc.h). The call's deadline is
// the drain timeout, so a request that gets no reply completes as lost, and
// one the transport gives up completes as given up, each by its id.
#include <chrono>
#include <cstddef>

#include "nanopu/loadgen.h"

namespace nanopu::loadgen {
namespace {

constexpr uint64_t kNotSent = UINT64_MAX;  // a call id rpc::Client::call() never gives

}  // namespace

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
  uint64_t id = kNotSent;
  // The call's user word is its sequence number; its latency counts from
  // the scheduled send time, kept with it. A call whose header went out is
  // in flight even if a word did not (the thread dropped the message short):
  // it ends by its deadline or a failure notice, counted then, once.
  if (client_.call(destination(seq), words_, bytes, call_deadline(), seq, &id) != ApiError::kOk && id == kNotSent) {
    ++r_->send_failures;
    return false;
  }
  Sent& s = sent_[seq];
  s.sent_ns = next_sent_time(sent_ns);
  s.call_id = id;
  if (opts_.retry_rejected != 0) {  // kept only when it may be sent again
    s.bytes = bytes;
    s.words.assign(words_.begin(), words_.begin() + static_cast<std::ptrdiff_t>((bytes + 7) / 8));
  }
  ++next_seq_;
  return true;
}

rpc::Peer CallLoad::destination(uint64_t seq) {
  const size_t n = 1 + opts_.more_servers.size();
  const size_t i = seq % n;
  return {i == 0 ? opts_.server_ip : opts_.more_servers[i - 1], opts_.server_context};
}

rpc::Peer CallLoad::retry_destination(uint64_t seq, rpc::Peer rejected_by) {
  (void)seq;
  if (rejected_by.ip == opts_.server_ip)
    return {opts_.more_servers.empty() ? opts_.server_ip : opts_.more_servers.front(),
            rejected_by.context};
  for (size_t i = 0; i < opts_.more_servers.size(); ++i)
    if (opts_.more_servers[i] == rejected_by.ip)
      return {i + 1 < opts_.more_servers.size() ? opts_.more_servers[i + 1] : opts_.server_ip,
              rejected_by.context};
  return rejected_by;
}

bool CallLoad::retry(const rpc::Completion& c, Sent& s) {
  // A full TX FIFO is not waited for here, among the replies this thread
  // must read to free it: the call then counts as rejected.
  if (s.retries >= opts_.retry_rejected || !t_.tx_ready()) return false;
  uint64_t id = kNotSent;
  if (client_.call(retry_destination(c.user, c.to), s.words, s.bytes, call_deadline(), c.user, &id) != ApiError::kOk &&
      id == kNotSent)
    return false;  // not sent: it counts as rejected (one whose header went out is in flight, as in send_next)
  ++s.retries;
  s.call_id = id;
  ++r_->retried;
  return true;
}

void CallLoad::receive_all(bool measure) {
  rpc::Completion c;
  while (client_.next(&c, std::chrono::microseconds(0))) {
    auto it = sent_.find(c.user);
    if (c.status == rpc::CallStatus::kRejected && it != sent_.end() && retry(c, it->second))
      continue;
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
