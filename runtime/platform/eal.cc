#include "runtime/platform/eal.h"
#include "lib/base/log.h"

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/platform/crash_report.h"
#include "runtime/platform/runtime_dir.h"

namespace nanopu {
namespace {

constexpr uint64_t kHugeMemoryNeededMb = 512;
constexpr uint64_t kHugePageMb = 2;

std::mutex g_eal_mu;
bool g_eal_done = false;
std::vector<unsigned> g_eal_lcores;

}  // namespace

HugepageInfo probe_hugepages() {
  HugepageInfo info;
  std::ifstream mounts("/proc/mounts");
  std::string line;
  while (std::getline(mounts, line)) {
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    // A hugetlbfs mount without pagesize= uses the default (2 MiB here).
    if (f.size() >= 4 && f[2] == "hugetlbfs" &&
        (f[3].find("pagesize=") == std::string::npos || f[3].find("pagesize=2M") != std::string::npos))
      info.mounted = true;
  }
  std::ifstream meminfo("/proc/meminfo");
  while (std::getline(meminfo, line)) {
    if (line.rfind("HugePages_Free:", 0) == 0) {
      std::istringstream in(line.substr(15));
      in >> info.free_pages;
    }
  }
  return info;
}

std::string file_prefix_of(const EalParams& params) {
  return params.file_prefix.empty() ? absl::StrCat("nanopu-", getpid()) : params.file_prefix;
}

std::string floating_lcore_map(const std::vector<unsigned>& lcores, long cpus) {
  const std::string where = cpus > 1 ? absl::StrCat("@(0-", cpus - 1, ")") : "@0";
  return absl::StrJoin(lcores, ",", [&](std::string* out, unsigned l) { absl::StrAppend(out, l, where); });
}

std::vector<std::string> build_eal_args(const EalParams& config, bool use_huge) {
  std::vector<std::string> args = {"nanopu"};
  if (config.eal_lcore_map.empty() && !config.pin) {
    args.push_back(absl::StrCat("--lcores=", floating_lcore_map(config.lcores, sysconf(_SC_NPROCESSORS_ONLN))));
  } else if (config.eal_lcore_map.empty()) {
    args.push_back("-l");
    args.push_back(absl::StrJoin(config.lcores, ","));
  } else {
    args.push_back(absl::StrCat("--lcores=", config.eal_lcore_map));
  }
  args.push_back(absl::StrCat("--main-lcore=", config.lcores.front()));
  args.push_back(absl::StrCat("--file-prefix=", file_prefix_of(config)));
  if (config.pci_devices.empty()) args.push_back("--no-pci");
  for (const std::string& d : config.pci_devices) {
    args.push_back("-a");
    args.push_back(d);
  }
  if (!config.telemetry) args.push_back("--no-telemetry");
  args.push_back(absl::StrCat("--log-level=", config.eal_log_level));
  if (use_huge) {
    // --in-memory: no hugepage files, so no other process's files are touched.
    args.push_back("--in-memory");
  } else {
    args.push_back("--no-huge");
    // No shared files: without it DPDK writes a 13 MB map of this memory
    // into its runtime directory (runtime_dir.h).
    args.push_back("--no-shconf");
    args.push_back("-m");
    args.push_back(absl::StrCat(config.no_huge_memory_mb));
  }
  for (const std::string& v : config.vdevs) args.push_back(absl::StrCat("--vdev=", v));
  for (absl::string_view a : absl::StrSplit(config.extra_eal_args, ' ', absl::SkipEmpty()))
    args.emplace_back(a);
  return args;
}

absl::Status eal_init(const EalParams& config) {
  std::lock_guard<std::mutex> lock(g_eal_mu);
  if (g_eal_done) {
    for (unsigned l : config.lcores) {
      bool found = false;
      for (unsigned have : g_eal_lcores) found |= (have == l);
      if (!found)
        return absl::FailedPreconditionError(absl::StrCat(
            "EAL already initialised in this process without lcore ", l,
            "; DPDK starts once per process"));
    }
    return absl::OkStatus();
  }
  // Pinned, an lcore is its CPU; floating (--pin=off), any lcore runs on any
  // CPU and there may be more lcores than CPUs.
  if (config.eal_lcore_map.empty() && config.pin) {
    const long cpus = sysconf(_SC_NPROCESSORS_CONF);
    for (unsigned l : config.lcores)
      if (cpus > 0 && l >= static_cast<unsigned>(cpus))
        return absl::InvalidArgumentError(absl::StrCat(
            "--lcores: lcore ", l, " does not exist; this machine has CPUs 0..", cpus - 1,
            " (with --pin=off lcores float over the CPUs and may outnumber them)"));
  }
  bool use_huge = false;
  if (config.huge != HugePages::kOff) {
    const HugepageInfo hp = probe_hugepages();
    const bool enough = hp.mounted && hp.free_pages * kHugePageMb >= kHugeMemoryNeededMb;
    if (config.huge == HugePages::kOn && !enough)
      return absl::FailedPreconditionError(absl::StrCat(
          "--huge=on but only ", hp.free_pages, " free 2 MiB hugepages",
          hp.mounted ? "" : " and no hugetlbfs mount",
          "; run deploy/setup.sh or use --huge=auto"));
    use_huge = enough;
    NANOPU_LOG(kInfo, "%s",
                 use_huge ? "using 2 MiB hugepages (in-memory EAL)"
                          : "no 2 MiB hugepages reserved and mounted; running with --no-huge "
                            "(deploy/setup.sh reserves them)");
  }
  // A vhost/memif control socket whose peer has gone must not kill the
  // process with SIGPIPE (seen when a memif client exits first): the PMD
  // handles EPIPE itself.
  std::signal(SIGPIPE, SIG_IGN);
  std::vector<std::string> args = build_eal_args(config, use_huge);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int rc = rte_eal_init(static_cast<int>(args.size()), argv.data());
  if (rc < 0) {
    const bool bad_vdev = rte_errno == ENODEV && !config.vdevs.empty();
    return absl::InternalError(absl::StrCat(
        "rte_eal_init failed: ", rte_strerror(rte_errno),
        bad_vdev ? "; check --vdev (PMDs here: net_ring, net_memif, net_null, net_af_packet, ...)"
                 : "",
        " (args: ", absl::StrJoin(args, " "), ")"));
  }
  g_eal_done = true;
  g_eal_lcores = config.lcores;
  install_crash_report();
  tidy_runtime_dirs();
  return absl::OkStatus();
}

}  // namespace nanopu
