// nanopu-loadgen's client for the prototype packet tester's layouts: its
// service-time sequence (--service=tester-service against nanopu-server
// --app=service-tester: CONFIG, then DATA {1, service_time, seq, fill...,
// sent_time}, each echoed after its service time) and its throughput
// sequence (--service=tester-throughput; nanopu-server --app=loopback-throughput,
// docs/apps.md): a CONFIG {0, num_msgs, timestamp} first, then num_msgs
// DATA {1, seq, fill..., sent_time}, each echoed; the num_msgs-th reply
// carries the CONFIG's timestamp in its last word instead of its own. The
// client checks every reply word for word and that the last one carries the
// CONFIG's timestamp. The CONFIG is not answered: the client waits
// kConfigSettleMs after sending it before the first DATA, so that a CONFIG
// does not arrive behind the DATA it counts.
#pragma once

#include <cstdint>

#include "tools/loadgen/loadgen.h"

namespace nanopu::apps {

inline constexpr int kConfigSettleMs = 20;

struct TesterLoadOptions {
  // The service-time layout (--app=service-tester): DATA {1, service_time,
  // seq, fill..., sent_time}, each echoed after its service time; no CONFIG
  // stamp expected. Else the throughput layout.
  bool service = false;
};

struct TesterLoadResult {
  uint64_t checked = 0;          // DATA replies equal to the request
  bool config_stamp_seen = false;  // the last reply carried the CONFIG's timestamp
};

// Needs o.count (num_msgs) >= 1 and o.msg_bytes >= 24 (32 for the service
// layout).
void run_tester_client(Thread& t, const LoadGenOptions& o, const TesterLoadOptions& to, LoadGenResult* r,
                       TesterLoadResult* tr);

}  // namespace nanopu::apps
