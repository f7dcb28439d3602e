// libFuzzer target for the pipeline program reader (nic/pipeline/swx_spec.h,
// --pipeline and --egress_pipeline): any text reads as a spec or is refused
// with its file (and, for a line's fault, the line) named — never a crash,
// never a table without its actions or default action, never a table size
// past the cap. DPDK's own reading of the instructions and of the spec's
// names (configure_swx, at load) is DPDK's code and is not fuzzed here.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "nic/pipeline/swx_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<nanopu::SwxSpec> spec = nanopu::read_swx_spec(text, "fuzz.spec");
  if (!spec.ok()) {
    if (spec.status().message().rfind("fuzz.spec:", 0) != 0) std::abort();  // the file named
    return 0;
  }
  if (spec->apply.empty() && spec->apply_line == 0) std::abort();  // read without its apply block
  for (const nanopu::SwxSpec::Table& t : spec->tables)
    if (t.actions.empty() || t.default_action.empty() || t.size > nanopu::kSwxMaxTableSize) std::abort();
  return 0;
}
