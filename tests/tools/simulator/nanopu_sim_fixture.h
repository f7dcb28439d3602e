// nanopu-sim as its tests run it (nanopu_sim_test.cc, nanopu_sim_faults_test.cc):
// the binary in a scratch directory of the test's own, topologies written
// there, and what its output says (trace hash, results, latency columns).
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/sanitizers.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/subprocess.h"
#include "nanopu_test_paths.h"  // generated: the programs' paths (tests/CMakeLists.txt)

namespace nanopu::testing::sim_cli {

using nanopu::testing::read_file;
using nanopu::testing::spawn;
using nanopu::testing::wait_for;

class NanopuSimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "nanopu-sim-" + std::to_string(getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    mkdir(dir_.c_str(), 0755);
  }
  void TearDown() override { nanopu::testing::remove_if_passed(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  // Runs nanopu-sim; its exit status, stdout in *out, stderr in *err.
  // launcher: a command line before the binary (mpirun's).
  int sim(const std::vector<std::string>& args, std::string* out, std::string* err = nullptr,
          const std::string& launcher = "") {
    static int run = 0;
    const std::string o = dir_ + "/out" + std::to_string(run) + ".txt", e = dir_ + "/err" + std::to_string(run++) + ".txt";
    std::vector<std::string> argv = {"/bin/sh", "-c", "exec " + launcher + NANOPU_SIM_BIN};
    for (const std::string& a : args) argv[2] += " '" + a + "'";
    argv[2] += " >" + o;
    const pid_t p = spawn(argv, e);
    const int rc = wait_for(p, std::chrono::seconds(240));
    *out = read_file(o);
    if (err != nullptr) *err = read_file(e);
    return rc;
  }
  std::string dir_;
};

// Under AddressSanitizer, whose programs run several times slower, runs
// of Raft's millisecond timers (the examples' and the crash test's) poll
// an idle host every 10 us instead of every 1 us (nothing checked here
// depends on it).
inline std::vector<std::string> idle_steps_under_asan(std::vector<std::string> args) {
  if (nanopu::testing::kUnderAddressSanitizer) args.push_back("--idle_step_ns=10000");
  return args;
}
inline std::vector<std::string> example(const std::string& name) {
  return idle_steps_under_asan({std::string(NANOPU_SOURCE_DIR "/deploy/netns/examples/") + name});
}

// The trace hash from the last line.
inline std::string hash_of(const std::string& out) {
  const size_t at = out.rfind("trace hash ");
  return at == std::string::npos ? "" : out.substr(at + 11, 16);
}
// The load generators' results: everything before the summary lines (the
// first has the wall time, not part of the run).
inline std::string results_of(const std::string& out) { return out.substr(0, out.find("\nnanopu-sim: ")); }
// Two runs that are one run, event for event: the same trace hash and the
// same load generators' results.
inline ::testing::AssertionResult same_run(const std::string& a, const std::string& b) {
  if (hash_of(a) != hash_of(b))
    return ::testing::AssertionFailure() << "trace hashes differ: " << hash_of(a) << " and " << hash_of(b);
  if (results_of(a) != results_of(b))
    return ::testing::AssertionFailure() << "the same seed, other numbers:\n" << results_of(a) << "\n" << results_of(b);
  return ::testing::AssertionSuccess();
}
// A load generator's result line when each of its `n` requests was answered
// once and right.
inline std::string all_answered(const std::string& n) {
  return "sent " + n + "  received " + n + "  lost 0  given-up 0  bad 0  duplicated 0";
}

// The first load generator's p50 round trip, us (its latency table's third column).
// A column of the first latency row: min, mean, p50, p90, p99, ...
inline double latency_column_us(const std::string& out, int column) {
  const size_t head = out.find("p50");
  const size_t row = out.find('\n', head);
  if (head == std::string::npos || row == std::string::npos) return -1;
  std::istringstream in(out.substr(row + 1));
  double v = -1;
  for (int i = 0; i <= column; ++i) in >> v;
  return v;
}
inline double p50_us(const std::string& out) { return latency_column_us(out, 2); }
inline double p99_us(const std::string& out) { return latency_column_us(out, 4); }

}  // namespace nanopu::testing::sim_cli
