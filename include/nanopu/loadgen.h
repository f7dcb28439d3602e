// The load generator's engine, for any service: open loop (Poisson
// arrivals) or closed loop, a drain, requests counted as answered, bad,
// duplicated, lost (no reply within the drain timeout) or given up (the
// transport's failure notices), round trips in a histogram, a progress line a
// second, the result printed and as JSON (tools/plot_latency.py draws it), and
// the *modelled* nanoPU column beside the measured one (docs/services.md,
// "A client for your service").
//
// A service's client says what to send and how to check a reply: on calls
// (nanopu/rpc.h) by deriving from CallLoad (ids, matching, deadlines and
// give-ups are done for it), or for a wire format of its own by deriving
// from Load. nanopu-loadgen's clients of nanopu's own services use the same
// engine. With nanopu/loadgen_main.h a client program is a few lines.
//
// Times are the runtime's clock in ns (Thread::now_ns()).
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "nanopu/app_header.h"
#include "nanopu/host_noise.h"
#include "nanopu/rpc.h"
#include "nanopu/seeded_draw.h"
#include "nanopu/thread.h"

namespace nanopu::loadgen {

// Latency histogram: log-linear buckets (exact below 128, then 64 buckets per
// power of two, < 1.6% relative error), fixed memory, O(1) record. Written
// here because none of the project's libraries (Abseil, DPDK, Google
// Benchmark) has a latency histogram usable outside a benchmark.
class Histogram {
 public:
  Histogram();
  void record(uint64_t value);
  void merge(const Histogram& other);
  void reset();
  // Smallest recorded-bucket value v such that at least fraction q of the
  // samples are <= v (q in [0, 1]); 0 when empty.
  [[nodiscard]] uint64_t quantile(double q) const;
  [[nodiscard]] uint64_t count() const { return count_; }
  [[nodiscard]] uint64_t min() const { return count_ ? min_ : 0; }
  [[nodiscard]] uint64_t max() const { return max_; }
  [[nodiscard]] double mean() const { return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0; }
  [[nodiscard]] static size_t bucket_of(uint64_t value);
  [[nodiscard]] static uint64_t bucket_low(size_t bucket);
  [[nodiscard]] static uint64_t bucket_high(size_t bucket);  // inclusive

 private:
  std::vector<uint64_t> buckets_;
  uint64_t count_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
  unsigned __int128 sum_ = 0;
};

struct Options {
  uint32_t server_ip = 0x0a000001;
  uint16_t server_context = 1;
  // A CallLoad's further servers of the same context: its requests go
  // round robin over server_ip and these (CallLoad::destination). They must
  // answer alike (replicas of one state, or a stateless service): a client
  // that checks replies against its model of one server's state reports
  // another's as wrong.
  std::vector<uint32_t> more_servers;
  // A CallLoad's call rejected for load (rpc::CallStatus::kRejected: the
  // server's context over the queue its SLO allows) is sent again at once
  // to the next server, up to this many times, before it counts as
  // rejected; its latency counts from its first send. A retry that finds
  // the thread's TX FIFO full is not sent (it counts as rejected). NEBULA
  // (ISCA'20) §IV-B: the client "can retry elsewhere". 0: never.
  uint32_t retry_rejected = 0;
  uint16_t context = 2;      // this client's context: replies come back here
  uint32_t msg_bytes = 16;   // the request size the printed result names
  double rate = 0;           // requests/s, open loop (Poisson); 0 = closed loop
  uint32_t outstanding = 1;  // closed loop: requests in flight
  // Open loop: at most this many in flight (0: no bound); an arrival that
  // finds them all out is sent when one completes, its latency still
  // counted from its arrival. A history is checkable when its operations'
  // concurrency is bounded (Jepsen runs a few processes per client).
  uint32_t max_in_flight = 0;
  uint64_t count = 0;        // stop after this many requests (0: use duration)
  double duration_s = 5;     // stop sending after this long (when count == 0)
  double drain_timeout_s = 1;  // a request with no reply of any request for this long is lost
  bool progress = true;        // a line at the first reply, then one a second on runs longer than 2 s
  uint64_t seed = 1;
  // Where a CallLoad records its calls (nanopu/history.h; its recorder()
  // says what each is), or nullptr. It outlives the load.
  History* history = nullptr;
};

// One answered request, for the modelled column built from the run.
struct ReplySample {
  double sent_ns = 0;         // when it was (scheduled to be) sent, from the run's start
  double rtt_ns = 0;          // measured round trip
  double server_core_ns = 0;  // the server thread's on-core time on it (Thread::sender_core_ns); 0: unknown
  uint32_t request_bytes = 0;
  uint32_t reply_bytes = 0;
};
// Samples kept per run (24 MB); later replies are counted, not kept.
inline constexpr size_t kMaxReplySamples = 1u << 20;

// Where the modelled column comes from: the service's declared work, or the
// run's replies ("declared" / "measured" in the JSON).
enum class ModelSource : uint8_t { kDeclared, kMeasured };

// The modelled column beside the measured one (*modelled*, never measured).
struct ModelledLatency {
  double min_ns = 0, mean_ns = 0, p50_ns = 0, p90_ns = 0, p99_ns = 0, p999_ns = 0, max_ns = 0;
  std::string how;  // one line: what was modelled; empty: not modelled
  ModelSource source = ModelSource::kDeclared;
  uint64_t messages = 0;              // measured: replies modelled
  double measured_core_p50_ns = 0;    // measured: the server's on-core time per request
  double modelled_core_p50_ns = 0;    // measured: the same, as the nanoPU core would take it
  std::vector<std::pair<double, double>> cdf;  // measured: [fraction, ns] points
};

struct Result {
  uint64_t sent = 0;
  uint64_t received = 0;
  uint64_t bad_replies = 0;     // wrong length, source or payload
  uint64_t send_failures = 0;   // the request could not be written (no buffers)
  uint64_t lost = 0;            // no reply within the drain timeout
  uint64_t given_up = 0;        // requests the transport gave up or a restarted server refused
  // Of given_up: requests a server's NIC rejected unread, its context over
  // the queue its SLO allows (rejected for load: TxFailureReason::kRejected).
  uint64_t rejected = 0;
  // Rejections a CallLoad sent again to another server (Options::
  // retry_rejected): not given up, each counted once a time.
  uint64_t retried = 0;
  uint64_t duplicates = 0;      // a second reply to one request (exactly-once broken)
  // Replies the server wrote after doing other work (it called another
  // server first): their core time covers its last step only, so the
  // modelled column built from replies leaves them out and says so.
  uint64_t after_other_work = 0;
  double elapsed_s = 0;         // first send to last reply
  Histogram latency_ns;         // measured round trip
  std::vector<ReplySample> samples;  // the first kMaxReplySamples answered requests
  uint64_t samples_dropped = 0;
  ModelledLatency modelled;     // filled after the run, printed beside it
  HostNoise host_noise;         // the host's stalls over the run (Runtime::host_noise), printed under it
  std::string error;            // set if the run could not start
  // When the last request left and the last replies came, on the runtime's
  // clock in ns (a simulation's: modelled ns from its start): what a
  // campaign's liveness check reads (nanopu/sim.h, FaultOptions::live_calls).
  static constexpr size_t kRecentReplies = 64;
  uint64_t last_sent_ns = 0;
  std::array<uint64_t, kRecentReplies> recent_reply_ns{};  // a ring: the last replies' times (received of them)
  // When the last reply came (0: none).
  [[nodiscard]] uint64_t last_reply_ns() const {
    return received == 0 ? 0 : recent_reply_ns[(received - 1) % kRecentReplies];
  }
  // Replies that came at or after `ns` (counted among the last kRecentReplies).
  [[nodiscard]] uint64_t replies_since(uint64_t ns) const {
    uint64_t n = 0;
    for (size_t i = 0; i < kRecentReplies && i < received; ++i) n += recent_reply_ns[i] >= ns;
    return n;
  }
  // Every request answered once and right.
  [[nodiscard]] bool clean() const {
    return lost == 0 && given_up == 0 && bad_replies == 0 && duplicates == 0 && received > 0;
  }
};

// The fractions a latency CDF in the JSON has a point at: every
// percentile, then the tail more finely, then 1 (the maximum).
[[nodiscard]] const std::vector<double>& cdf_fractions();

// The engine. A client derives from it and says how to send a request and
// take replies; run() does the rest. Its thread must be bound.
class Load {
 public:
  Load(Thread& t, const Options& o, Result* r);
  virtual ~Load() = default;
  Load(const Load&) = delete;
  Load& operator=(const Load&) = delete;

  // The measured run: fills the result's counts, histogram and elapsed time.
  void run();

 protected:
  // Sends one request whose latency counts from sent_ns (the scheduled
  // send time: a client-side backlog counts as latency, no coordinated
  // omission); false if none could be sent now (counted by the client).
  virtual bool send_next(uint64_t sent_ns) = 0;
  // Takes every waiting reply; reports each correct one with record_reply
  // when `measure` (otherwise a warm-up's replies).
  virtual void receive_all(bool measure) = 0;
  // Requests sent and not yet answered.
  [[nodiscard]] virtual size_t in_flight_count() const = 0;
  // Forgets them (the engine counts them lost).
  virtual void forget_in_flight() = 0;
  // When the client's own timer is next due (now() units; a request it
  // sends again after a timeout): the engine's waits end then, and the
  // next receive_all() runs it. UINT64_MAX: none.
  [[nodiscard]] virtual uint64_t next_timer_ns() const { return UINT64_MAX; }

  // A unique, increasing send time at or after `want`.
  [[nodiscard]] uint64_t next_sent_time(uint64_t want);
  // A correct reply to the request sent at sent_ns, measured. With
  // request_bytes (a service whose reply comes from the core that served
  // the request), it is also kept for the modelled column with the stamp
  // take_stamp() read off it.
  void record_reply(uint64_t sent_ns, uint32_t request_bytes = 0);
  // After reading a reply's header, before its msg_done: keeps the server's
  // core time on the request and the reply's length.
  void take_stamp(const AppHeader& reply) { set_stamp(t_.sender_core_ns(), reply.len); }
  // The same, said outright (a client that read the reply elsewhere).
  void set_stamp(double server_core_ns, uint32_t reply_message_bytes) {
    reply_core_ns_ = server_core_ns;
    reply_bytes_ = reply_message_bytes;
  }
  // Requests the transport gave up since the last reset (failure notices
  // are counted as they come; 0 for a client that sends them again itself).
  // A notice for a request already counted lost (its window forgotten
  // after the drain timeout; the transport gives up later) is not counted
  // again.
  [[nodiscard]] uint64_t given_up() const {
    if (transport_give_ups_are_retried_) return 0;
    const uint64_t n = t_.tx_failures() - failures_before_;
    return n - std::min(n, stale_notices_);
  }
  void reset_given_up() {
    failures_before_ = t_.tx_failures();
    stale_notices_ = 0;
    given_up_tags_.clear();
  }
  // A request can be both answered and given up: its receiver served it,
  // then died (or restarted) before its ACK reached this host, and the
  // transport gave the request up (kNoAnswer), or the receiver's next run
  // refused a retransmission (kRefused). Answered wins, either way round:
  // a client that can name the tag (Thread::tx_tag()) of the request a
  // reply answers says answered(tag) for a notice read after the reply,
  // and calls took_reply_to(tag) on each reply, which takes back a
  // give-up counted before it.
  [[nodiscard]] virtual bool answered(uint64_t tag) const {
    (void)tag;
    return false;
  }
  void took_reply_to(uint64_t tag) {
    if (!given_up_tags_.empty() && given_up_tags_.erase(tag) != 0) ++stale_notices_;
  }
  // A client that takes the failure notices itself (rpc::Client does)
  // counts its given-up requests here; the engine leaves the notices to it.
  void count_given_up(uint64_t n = 1) { given_up_by_client_ += n; }
  void take_failure_notices() { client_takes_notices_ = true; }
  [[nodiscard]] uint64_t now() const { return t_.now_ns(); }

  Thread& t_;
  const Options& opts_;
  Result* r_;
  SeededDraw rng_;  // one seed, one run with any standard library (nanopu/seeded_draw.h)
  double hz_ = 1e9;  // ticks of now() per second
  uint64_t last_sent_tsc_ = 0;
  bool transport_give_ups_are_retried_ = false;

  // Waits until a reply may have come, or `until` (ns): the thread yields its
  // core rather than spin (a spinning client starves a server that shares
  // its CPU: docs/design.md §3).
  void wait_until(uint64_t until);

 private:
  // Sends what is due (open loop: every scheduled arrival whose time has
  // come; closed loop: up to `outstanding` in flight), counting lost a
  // stuck window; returns whether more remain to be sent.
  bool send_due(uint64_t now);
  [[nodiscard]] bool more(uint64_t now) const { return opts_.count ? r_->sent < opts_.count : now < end_; }
  [[nodiscard]] uint64_t in_flight() const;
  void drain(uint64_t now);
  double rate_per_s_ = 1;  // the open loop's arrivals a second (exponential gaps)
  double next_arrival_ = 0;
  bool blocked_ = false;  // the last send_due() could not send all that was due
  bool capped_ = false;   // open loop: arrivals due wait for one of max_in_flight to complete
  bool tx_full_ = false;  // the thread's TX FIFO had no entry free (Thread::tx_ready): read, then send
  double reply_core_ns_ = 0;
  uint32_t reply_bytes_ = 0;
  uint64_t start_ = 0;
  uint64_t end_ = 0;
  uint64_t last_reply_ = 0;
  uint64_t next_progress_s_ = 2;
  bool first_reply_told_ = false;
  uint64_t failures_before_ = 0;
  uint64_t given_up_before_ = 0;  // counted before the in-flight set was last forgotten
  uint64_t forgot_through_tag_ = 0;  // the last tag (Thread::tx_tag) of the requests last forgotten
  uint64_t stale_notices_ = 0;       // notices since the last reset for requests forgotten or answered
  std::unordered_set<uint64_t> given_up_tags_;  // of the notices counted since the last reset (rare: give-ups)
  // Reads the waiting failure notices (unless the client takes them),
  // counting those that name forgotten requests.
  void take_notices();
  uint64_t given_up_by_client_ = 0;
  uint64_t rejections_before_ = t_.tx_rejections();  // Thread::tx_rejections() when the run began
  bool client_takes_notices_ = false;
};

// A client on calls (nanopu/rpc.h): say what request number `seq` is and
// whether a reply to it is right; ids, matching, deadlines (the drain
// timeout) and give-ups are the engine's. The server answers with
// rpc::serve_calls.
class CallLoad : public Load {
 public:
  CallLoad(Thread& t, const Options& o, Result* r);

 protected:
  // Request `seq`'s payload words into *words; returns its length in bytes
  // (0..rpc::kMaxCallBytes).
  virtual uint32_t request(uint64_t seq, std::vector<uint64_t>* words) = 0;
  // Whether `reply` (its payload words and bytes) is right for request seq.
  virtual bool check(uint64_t seq, std::span<const uint64_t> reply, uint32_t reply_bytes) = 0;
  // Where request `seq` goes, asked once after request(seq): by default
  // Options' servers (server_ip, then more_servers) round robin, at
  // server_context. A load over many servers (an all-to-all workload) names
  // one per request.
  [[nodiscard]] virtual rpc::Peer destination(uint64_t seq);
  // Where a request `rejected_by` a server's SLO goes next (Options::
  // retry_rejected): by default the server after it among Options' servers
  // (itself, when it is the only one or not among them).
  [[nodiscard]] virtual rpc::Peer retry_destination(uint64_t seq, rpc::Peer rejected_by);
  // Request seq, call `call_id`, got no reply: `status` says why
  // (kDeadlineExceeded: counted lost; the others: given up). The server may
  // or may not have served it: a client that keeps a model of the service's
  // state marks what it touched unknown. Default: nothing.
  virtual void failed(uint64_t seq, uint64_t call_id, rpc::CallStatus status) {
    (void)seq, (void)call_id, (void)status;
  }
  // How the calls appear in a history when Options::history is set: the
  // request's f, key and value, and what a reply says. Default: not
  // recorded.
  [[nodiscard]] virtual rpc::CallRecorder recorder() { return {}; }
  // The client underneath (its counters; a second client of the thread).
  [[nodiscard]] rpc::Client& client() { return client_; }

  bool send_next(uint64_t sent_ns) override;
  void receive_all(bool measure) override;
  [[nodiscard]] size_t in_flight_count() const override { return client_.in_flight(); }
  // A stuck window (no reply for the drain timeout): each call is failed()
  // as kDeadlineExceeded, then forgotten.
  void forget_in_flight() override;
  // The next call's deadline: a wait ends when a call completes by it (a
  // wait to a time already past would spin at one instant of a modelled
  // clock).
  [[nodiscard]] uint64_t next_timer_ns() const override { return client_.next_deadline_ns(); }

 private:
  struct Sent {
    uint64_t sent_ns = 0;
    uint64_t call_id = 0;
    uint32_t retries = 0;              // sent again after a rejection
    uint32_t bytes = 0;                // Options::retry_rejected: the request, to send again
    std::vector<uint64_t> words;
  };
  // Sends a rejected request again (true), or false when its retries are spent.
  bool retry(const rpc::Completion& c, Sent& s);
  // A call's deadline, sent or sent again: the drain timeout.
  [[nodiscard]] std::chrono::microseconds call_deadline() const {
    return std::chrono::microseconds(static_cast<int64_t>(opts_.drain_timeout_s * 1e6));
  }
  rpc::Client client_;
  bool recording_ = false;  // the recorder asked for, once
  std::vector<uint64_t> words_;
  uint64_t next_seq_ = 0;
  std::unordered_map<uint64_t, Sent> sent_;  // by sequence number
};

// The result as a table (measured, and modelled when there is a column) and
// as one JSON object (tools/plot_latency.py reads it). `what` names the load
// ("closed loop, 4 outstanding, 64-byte requests" is added to it).
void print(FILE* out, const Options& o, const Result& r, std::string_view what = "load",
           std::string_view note = "");
[[nodiscard]] std::string json(const Options& o, const Result& r, std::string_view app_mode = "register-file");

}  // namespace nanopu::loadgen
