// nanopu-loadgen's client for the compute services (set intersection, HD
// search, N-body, packet classifier, INT collector): the shared open- or
// closed-loop schedule (load_schedule.h) sending a Workload's requests
// (workloads/workload.h) and checking every reply against its reference
// answer. A workload's prologue (N-body's CONFIG) goes first, and one
// request is answered correctly before measuring starts, so a CONFIG still
// in flight cannot be overtaken by the measured requests.
#pragma once

#include <cstdint>

#include "tools/loadgen/loadgen.h"
#include "tools/loadgen/workloads/workload.h"

namespace nanopu::apps {

struct WordLoadResult {
  uint64_t checked = 0;       // replies equal to the reference answer
  uint64_t error_replies = 0; // of the bad replies, those that were error replies
};

void run_word_client(Thread& t, const LoadGenOptions& o, Workload& w, LoadGenResult* r, WordLoadResult* wr);

}  // namespace nanopu::apps
