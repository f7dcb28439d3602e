// nanopu-loadgen's options and its echo/increment/service client, on the
// public load engine (nanopu/loadgen.h): requests in the load-generator
// format of docs/apps.md ({service_time, sent_time, seq, fill...}) to a
// server context, every reply word checked.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "apps/paths/message_path.h"
#include "nanopu/loadgen.h"
#include "nanopu/thread.h"

namespace nanopu::apps {

using loadgen::Histogram;
using loadgen::kMaxReplySamples;
using loadgen::ModelledLatency;
using loadgen::ModelSource;
using loadgen::ReplySample;
using LoadGenResult = loadgen::Result;

enum class Expect : uint8_t { kEcho, kIncrement, kNone };

// The engine's options and what nanopu's own request format adds.
struct LoadGenOptions : loadgen::Options {
  uint64_t service_cycles = 1;  // service_time word; >= 1 (0 tells a service server to exit)
  // A bimodal service time: this fraction of requests asks service_long_cycles.
  uint64_t service_long_cycles = 0;
  double service_long_fraction = 0;
  Expect expect = Expect::kEcho;
  bool stop_server = false;     // finally send service_time 0 (ends a service-mode server)
  MessagePath path = MessagePath::kRegisters;  // the client's own path (--app_mode)
  // Keys other clients write too (--shared_keys): a read is checked for
  // being a whole value of its key, any writer's and version (the history,
  // checked for linearizability, is what holds the order); this client's
  // versions carry writer_id (--writer_id) in their high bits, so every
  // value written in a run is unique.
  bool shared_keys = false;
  uint32_t writer_id = 0;
};

// Thread body: binds opts.context, runs the echo client, fills *result.
// Returns when done or when the runtime stops.
void run_loadgen(Thread& t, const LoadGenOptions& opts, LoadGenResult* result);

// The payload word i (>= 3) of request seq, before any transformation.
[[nodiscard]] uint64_t fill_word(uint64_t seq, uint32_t i);

// nanopu-loadgen's table and JSON of a result (loadgen::print and json).
void print_result(FILE* out, const LoadGenOptions& o, const LoadGenResult& r);
[[nodiscard]] std::string result_json(const LoadGenOptions& o, const LoadGenResult& r);

}  // namespace nanopu::apps
