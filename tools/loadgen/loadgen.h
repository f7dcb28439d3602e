// nanopu-loadgen's engine: a nanopu thread that sends requests in the
// load-generator format of docs/apps.md ({service_time, sent_time, seq, fill...})
// to a server context and measures each reply's round trip.
//
// Open loop (rate > 0): Poisson arrivals; sent_time is the *scheduled* send
// time, so client-side backlog counts as latency (no coordinated omission).
// Closed loop (rate == 0): `outstanding` requests in flight at all times.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tools/loadgen/histogram.h"
#include "apps/paths/message_path.h"
#include "nanopu/thread.h"

namespace nanopu::apps {

enum class Expect : uint8_t { kEcho, kIncrement, kNone };

struct LoadGenOptions {
  uint32_t server_ip = 0x0a000001;
  uint16_t server_context = 1;
  uint16_t context = 2;  // this client's context: replies come back here
  uint32_t msg_bytes = 16;
  double rate = 0;           // requests/s, open loop; 0 = closed loop
  uint32_t outstanding = 1;  // closed loop: requests in flight
  uint64_t count = 0;        // stop after this many requests (0: use duration)
  double duration_s = 5;     // stop sending after this long (when count == 0)
  uint64_t service_cycles = 1;  // service_time word; ≥ 1 (0 tells a service server to exit)
  Expect expect = Expect::kEcho;
  double drain_timeout_s = 1;  // give up on a request after this long without any reply
  bool progress = true;        // one stderr line per second on runs longer than 2 s
  bool stop_server = false;    // finally send service_time 0 (ends a service-mode server)
  MessagePath path = MessagePath::kRegisters;  // the client's own path (--app_mode)
  uint64_t seed = 1;
};

// Where the modelled column comes from: the service's declared work
// (tools/loadgen/modelled_latency.h) or this run's replies
// (tools/loadgen/measured_model.h). JSON: "declared" / "measured".
enum class ModelSource : uint8_t { kDeclared, kMeasured };

// The modelled column beside the measured one (tools/loadgen/modelled_latency.h).
struct ModelledLatency {
  double min_ns = 0, mean_ns = 0, p50_ns = 0, p90_ns = 0, p99_ns = 0, p999_ns = 0, max_ns = 0;
  std::string how;  // one line: what was modelled; empty: not modelled
  ModelSource source = ModelSource::kDeclared;
  uint64_t messages = 0;              // measured: replies modelled
  double measured_core_p50_ns = 0;    // measured: the server's on-core time per request
  double modelled_core_p50_ns = 0;    // measured: the same, as the nanoPU core would take it
  std::vector<std::pair<double, double>> cdf;  // measured: [fraction, ns] points, as the measured CDF's
};

// One answered request as measured, the input of the modelled column built
// from the run (tools/loadgen/measured_model.h).
struct ReplySample {
  double sent_ns = 0;         // when it was (scheduled to be) sent, from the run's start
  double rtt_ns = 0;          // measured round trip
  double server_core_ns = 0;  // the server thread's on-core time on it (Thread::sender_core_ns); 0: unknown
  uint32_t request_bytes = 0;
  uint32_t reply_bytes = 0;
};
// The fractions a latency CDF in the JSON has a point at, measured and
// modelled alike: every percentile, then the tail more finely, then 1 (the
// maximum).
[[nodiscard]] const std::vector<double>& cdf_fractions();

// Samples kept per run (24 MB); later replies are counted, not kept.
inline constexpr size_t kMaxReplySamples = 1u << 20;

struct LoadGenResult {
  uint64_t sent = 0;
  uint64_t received = 0;
  uint64_t bad_replies = 0;     // wrong length, source or payload
  uint64_t send_failures = 0;   // write() refused (no buffers)
  uint64_t lost = 0;            // no reply within drain_timeout (counted when given up)
  uint64_t given_up = 0;        // requests the transport gave up (Thread::tx_failures())
  uint64_t duplicates = 0;      // a second reply to one request (exactly-once broken)
  double elapsed_s = 0;         // first send to last reply
  Histogram latency_ns;         // measured round trip, client TSC
  std::vector<ReplySample> samples;  // the first kMaxReplySamples answered requests
  uint64_t samples_dropped = 0;      // answered requests beyond them
  ModelledLatency modelled;     // filled by the caller (model_latency), printed beside it
  std::string error;            // set if the run could not start
};

// Thread body: binds opts.context, runs, fills *result. Returns when done or
// when the runtime stops.
void run_loadgen(Thread& t, const LoadGenOptions& opts, LoadGenResult* result);

// One answered request, measured: its round trip (sent_tsc to now_tsc) into
// the histogram and, with request_bytes (a service whose reply comes from
// the core that served it), a ReplySample for the modelled column, timed
// from start_tsc (counted past kMaxReplySamples). Both clients' engines
// (loadgen.cc, load_schedule.cc) record through it.
void record_measured_reply(LoadGenResult* r, uint64_t sent_tsc, uint64_t now_tsc, uint64_t start_tsc,
                           double tsc_hz, double server_core_ns, uint32_t request_bytes,
                           uint32_t reply_bytes);

// The once-a-second progress line (--progress) of a run that started at
// start_tsc, if *next_s (seconds into the run) has come; advances *next_s.
// Both engines print through it.
void print_progress(const LoadGenResult& r, uint64_t start_tsc, uint64_t now_tsc, double tsc_hz,
                    uint64_t* next_s);

// The payload word i (≥ 3) of request seq, before any transformation.
[[nodiscard]] uint64_t fill_word(uint64_t seq, uint32_t i);

// Human-readable table and JSON of a result.
void print_result(FILE* out, const LoadGenOptions& o, const LoadGenResult& r);
[[nodiscard]] std::string result_json(const LoadGenOptions& o, const LoadGenResult& r);

}  // namespace nanopu::apps
