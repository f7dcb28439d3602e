// nanopu-bench-homa: Homa against NDP in real time, through nanopu-switch
// over net_memif (issue 15): short messages' round-trip p50/p99 from one
// client while a second client keeps a stream of 64 KB messages going to the
// same server, and the same short messages alone (the reference, same run).
// Five processes (switch, echo server, two clients): the switch runs eight
// strict priorities by TOS (--priorities; NDP sends everything at 0, so for
// NDP it is a FIFO) at a low link rate (--switch_gbps), so that the 64 KB
// stream, not the emulator's own speed, fills the queue the short messages
// must cross. "homa-core" is Homa with --grant_when_core_free on every host.
// Every process polls adaptively: on a 2-CPU machine they share
// the CPUs, and the absolute numbers include that.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "bench/bench_table.h"
#include "nanopu/flags.h"
#include "tests/support/subprocess.h"

ABSL_FLAG(double, seconds, 3, "Seconds each short-message client measures for.");
ABSL_FLAG(uint32_t, short_bytes, 1000, "Short message size (the issue: <= 1 KB).");
ABSL_FLAG(uint32_t, stream_outstanding, 8, "64 KB messages the stream keeps in flight.");
ABSL_FLAG(double, switch_gbps, 1, "nanopu-switch link rate, Gb/s.");
ABSL_FLAG(uint32_t, spin_us, 200,
          "Every process's --poll_spin_us: how long it polls without work before it sleeps.");
ABSL_FLAG(double, host_rto_us, 2000,
          "Every host's --rto_us: a slow switch queues for milliseconds, and a timeout below "
          "that resends what is still queued.");
ABSL_FLAG(std::string, json, "build/bench-homa.json", "Write the table here as JSON.");
ABSL_FLAG(std::string, dir, "/tmp", "Where the processes' sockets and logs go.");

namespace {

using nanopu::testing::json_number;
using nanopu::testing::read_file;
using nanopu::testing::spawn;
using nanopu::testing::wait_for;
using nanopu::testing::wait_for_line;

struct Latency {
  double p50 = -1, p99 = -1;
  bool ok = false;
};

// One configuration: switch, server, [stream client], short client.
// variant: "ndp", "homa", or "homa-core" (Homa with --grant_when_core_free).
Latency run(const std::string& dir, const std::string& variant, bool stream) {
  const std::string transport = variant == "ndp" ? "ndp" : "homa";
  const std::string core_free = variant == "homa-core" ? "--grant_when_core_free" : "--grant_when_core_free=false";
  const std::string lcore = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? "1" : "0";
  const std::string spin = std::to_string(absl::GetFlag(FLAGS_spin_us));
  std::string vdevs;
  for (int i = 0; i < 3; ++i)
    vdevs += (i ? ";" : "") + std::string("net_memif") + std::to_string(i) + ",role=server,socket=" +
             dir + "/h" + std::to_string(i) + ".sock";
  const pid_t sw = spawn({NANOPU_SWITCH_BIN, "--lcores=" + lcore, "--vdev=" + vdevs,
                          "--routes=10.0.0.1=0,10.0.0.2=1,10.0.0.3=2", "--priorities",
                          "--switch_gbps=" + absl::StrCat(absl::GetFlag(FLAGS_switch_gbps)),
                          "--queue_bytes=1000000", "--poll=adaptive", "--poll_spin_us=" + spin},
                         dir + "/switch.log");
  Latency l;
  if (sw <= 0 || !wait_for_line(dir + "/switch.log", "Ctrl-C stops", std::chrono::seconds(60))) {
    std::fprintf(stderr, "nanopu-bench-homa: the switch did not start:\n%s", read_file(dir + "/switch.log").c_str());
    if (sw > 0) kill(sw, SIGKILL), (void)wait_for(sw, std::chrono::seconds(5));
    return l;
  }
  const pid_t server = spawn({NANOPU_SERVER_BIN, "--lcores=" + lcore, "--huge=off",
                              "--vdev=net_memif0,role=client,socket=" + dir + "/h0.sock", "--app=echo",
                              "--context=1", "--poll=adaptive", "--poll_spin_us=" + spin, "--stats",
                              core_free, "--rto_us=" + absl::StrCat(absl::GetFlag(FLAGS_host_rto_us))},
                             dir + "/server.log");
  const bool up = server > 0 && wait_for_line(dir + "/server.log", "Ctrl-C stops", std::chrono::seconds(60));
  const double seconds = absl::GetFlag(FLAGS_seconds);
  auto client = [&](int c, const std::string& tag, uint32_t size, uint32_t outstanding, double duration) {
    return spawn({NANOPU_LOADGEN_BIN, "--lcores=0", "--huge=off",
                  "--vdev=net_memif0,role=client,socket=" + dir + "/h" + std::to_string(c) + ".sock",
                  "--ip=10.0.0." + std::to_string(c + 1), "--transport=" + transport,
                  "--server_context=1", "--size=" + std::to_string(size),
                  "--outstanding=" + std::to_string(outstanding), "--duration=" + absl::StrCat(duration),
                  "--progress=false", "--drain_timeout=10", "--poll=adaptive", "--poll_spin_us=" + spin,
                  core_free, "--stats", "--rto_us=" + absl::StrCat(absl::GetFlag(FLAGS_host_rto_us)),
                  "--json=" + dir + "/" + tag + ".json"},
                 dir + "/" + tag + ".log");
  };
  pid_t bulk = -1;
  if (up && stream) {
    bulk = client(2, "stream", 65535, absl::GetFlag(FLAGS_stream_outstanding), seconds + 2);
    std::this_thread::sleep_for(std::chrono::milliseconds(700));  // the stream fills the queue first
  }
  if (up) {
    const pid_t s = client(1, "short", absl::GetFlag(FLAGS_short_bytes), 1, seconds);
    if (s > 0 && wait_for(s, std::chrono::seconds(static_cast<int>(seconds) + 120)) == 0) {
      const std::string json = read_file(dir + "/short.json");
      const size_t at = json.find("\"latency_ns\"");
      l.p50 = json_number(json, "p50", at);
      l.p99 = json_number(json, "p99", at);
      l.ok = at != std::string::npos && l.p50 > 0;
    } else {
      std::fprintf(stderr, "nanopu-bench-homa: the short client failed:\n%s", read_file(dir + "/short.log").c_str());
    }
  }
  if (bulk > 0) (void)wait_for(bulk, std::chrono::seconds(static_cast<int>(seconds) + 120));
  for (pid_t p : {server, sw}) {
    if (p <= 0) continue;
    kill(p, SIGTERM);
    (void)wait_for(p, std::chrono::seconds(30));
  }
  return l;
}

}  // namespace

int main(int argc, char** argv) {
  nanopu::init_flags_usage(
      "Homa vs NDP in real time: short-message RTT p50/p99 beside a 64 KB stream through\n"
      "nanopu-switch --priorities over net_memif (five processes), each beside the same\n"
      "short messages alone. Usage: nanopu-bench-homa [--seconds=3] [--json=FILE]");
  absl::ParseCommandLine(argc, argv);
  const std::string dir = absl::GetFlag(FLAGS_dir) + "/nanopu-bench-homa-" + std::to_string(getpid());
  mkdir(dir.c_str(), 0755);
  std::vector<nanopu::bench::Row> rows;
  bool all_ok = true;
  for (const std::string t : {"ndp", "homa", "homa-core"}) {
    std::printf("%s: short messages alone ...\n", t.c_str());
    std::fflush(stdout);
    const Latency alone = run(dir, t, false);
    std::printf("%s: short messages beside the 64 KB stream ...\n", t.c_str());
    std::fflush(stdout);
    const Latency loaded = run(dir, t, true);
    all_ok = all_ok && alone.ok && loaded.ok;
    const std::string n = absl::StrCat(absl::GetFlag(FLAGS_short_bytes), " B RTT ");
    rows.push_back({t + " " + n + "p50, 64 KB stream", loaded.p50 / 1000, "us", "same, no stream", alone.p50 / 1000, ""});
    rows.push_back({t + " " + n + "p99, 64 KB stream", loaded.p99 / 1000, "us", "same, no stream", alone.p99 / 1000, ""});
  }
  nanopu::bench::print_table("Homa vs NDP through nanopu-switch (net_memif, real time)", rows);
  const std::string json = absl::GetFlag(FLAGS_json);
  if (!json.empty() && nanopu::bench::write_json(json, "homa vs ndp through the switch", rows))
    std::printf("wrote %s\n", json.c_str());
  if (!all_ok) std::fprintf(stderr, "nanopu-bench-homa: a run failed (logs in %s)\n", dir.c_str());
  return all_ok ? 0 : 1;
}
