// nanopu/nanopu_main.h: a C program's main. Here rather than in the
// runtime proper because it reads the command line (nanopu::flags).
#include "nanopu/nanopu_main.h"

#include <errno.h>  // program_invocation_short_name (GNU)

#include <cstdio>
#include <memory>
#include <string>

#include "nanopu/flags.h"
#include "nanopu/runtime.h"

namespace {

int fail(const std::string& why, int code) {
  std::fprintf(stderr, "%s: %s\n", program_invocation_short_name, why.c_str());
  return code;
}

}  // namespace

extern "C" int nanopu_main(int argc, char** argv, const char* usage, const nanopu_thread_body* bodies,
                           size_t count) {
  nanopu::init_flags_usage(usage != nullptr ? usage : "a nanopu service");
  nanopu::parse_flags(argc, argv);
  if (count != 0 && bodies == nullptr) return fail("nanopu_main: bodies is NULL", 1);
  for (size_t i = 0; i < count; ++i)
    if (bodies[i].fn == nullptr) return fail("nanopu_main: bodies[" + std::to_string(i) + "].fn is NULL", 1);
  absl::StatusOr<nanopu::Config> config = nanopu::Config::from_flags();
  if (!config.ok()) return fail(std::string(config.status().message()), 2);
  absl::StatusOr<std::unique_ptr<nanopu::Runtime>> rt = nanopu::Runtime::create(*config);
  if (!rt.ok()) return fail(std::string(rt.status().message()), 1);
  const size_t workers = config->worker_count();
  for (size_t i = 0; i < count; ++i) {
    const nanopu_thread_body b = bodies[i];
    if (absl::StatusOr<nanopu::Thread*> t = (*rt)->spawn([b](nanopu::Thread&) { b.fn(b.arg); }, i % workers);
        !t.ok())
      return fail(std::string(t.status().message()), 1);
  }
  nanopu::Runtime::install_signal_handlers();
  std::fprintf(stderr, "%s: %zu thread(s) on %zu worker(s); Ctrl-C stops\n", program_invocation_short_name, count,
               workers);
  const absl::Status s = (*rt)->run();
  (*rt)->print_stats(stderr);
  return s.ok() ? 0 : fail(std::string(s.message()), 1);
}
