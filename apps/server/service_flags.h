// The flags a service's server and its load generator both read, so that
// they agree (a setint client computes its reference answers from the same
// corpus the server indexed): defined once, so one binary can hold both
// ends (nanopu-sim runs a whole topology in one process). Each is read by
// nanopu-server --app=SERVICE and nanopu-loadgen --service=SERVICE.
#pragma once

#include <cstdint>
#include <string>

#include "absl/flags/declare.h"

ABSL_DECLARE_FLAG(std::string, setint_corpus);
ABSL_DECLARE_FLAG(uint32_t, setint_documents);
ABSL_DECLARE_FLAG(uint32_t, setint_words);
ABSL_DECLARE_FLAG(uint32_t, classifier_rules);
ABSL_DECLARE_FLAG(uint64_t, int_heavy_threshold);
ABSL_DECLARE_FLAG(bool, kv_jbsq);
ABSL_DECLARE_FLAG(std::string, raft_cluster);
ABSL_DECLARE_FLAG(std::string, chain);
ABSL_DECLARE_FLAG(std::string, othello_workers);
