// nanopu-server's compute services by --app name: 'setint', 'hdsearch',
// 'nbody', 'classifier' and 'int', each on the register-file path, and each
// with '-traditional' appended on the memory path (apps/compute/
// word_service.h). One service object per thread: read-only state (the
// index, the rules) is built once and shared; per-node state (N-body's
// centre of mass, the INT flow table) is each thread's own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "apps/compute/word_service.h"

namespace nanopu::apps {

struct ComputeAppOptions {
  std::string corpus_dir;
  uint32_t setint_documents = 100;  // load_corpus's documents and words (0: all)
  uint32_t setint_words = 200;
  uint32_t classifier_rules = 10000;
  uint64_t int_heavy_threshold = 64;
};

struct ComputeApp {
  std::vector<std::unique_ptr<WordService>> threads;
  MessagePath path = MessagePath::kRegisters;
  std::string what;  // one line for the start-up banner
};

[[nodiscard]] bool is_compute_app(std::string_view app);
[[nodiscard]] absl::StatusOr<ComputeApp> make_compute_app(std::string_view app, uint32_t threads,
                                                          const ComputeAppOptions& o);

}  // namespace nanopu::apps
