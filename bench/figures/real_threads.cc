#include "bench/figures/real_threads.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "bench/figures/sim_run.h"

namespace nanopu::figures {

std::vector<double> two_thread_p99_us(const FigureOptions& o, const std::string& name,
                                      const std::string& server_flags, const std::string (&client_flags)[2],
                                      double rate_each) {
  std::string topo = absl::StrCat("switch sw\nhost srv 10.0.0.1 02:00:00:00:00:01 server --app=service --context=1 ",
                                  "--threads=2 ", server_flags, "\n");
  for (int k = 0; k < 2; ++k)
    absl::StrAppend(&topo, "host c", k, " 10.0.0.", k + 2, " 02:00:00:00:00:0", k + 2,
                    " loadgen --server_context=", k + 1, " --outstanding=200 --progress=false --count=20000 --rate=",
                    static_cast<uint64_t>(rate_each), " ", client_flags[k], "\n");
  topo += "link srv sw\nlink c0 sw\nlink c1 sw\n";
  const SimRun r = simulate(o, name, topo, Net{}, Charge::kCounted);
  if (!r.ok || r.clients.size() != 2) {
    std::fprintf(stderr, "  %s: %s\n", name.c_str(), r.error.c_str());
    return {};
  }
  return {static_cast<double>(r.clients[0].latency_ns.quantile(0.99)) / 1000,
          static_cast<double>(r.clients[1].latency_ns.quantile(0.99)) / 1000};
}

double four_core_p99_us(const FigureOptions& o, const std::string& policy, double rate) {
  const std::string topo = absl::StrCat(
      "host srv 10.0.0.1 02:00:00:00:00:01 server --app=service --context=1 --threads=4 --shared_context "
      "--shared_workers=4 --jbsq_n=2 --core_select=", policy, "\n",
      "host cli 10.0.0.2 02:00:00:00:00:02 loadgen --server_context=1 --service_ns=500 --service_long_ns=5000 "
      "--service_long_fraction=0.005 --outstanding=200 --progress=false --rate=", static_cast<uint64_t>(rate),
      " --count=40000\nlink srv cli\n");
  const SimRun r = simulate(o, absl::StrCat("jbsq real threads, ", policy), topo, Net{}, Charge::kCounted);
  if (!r.ok) {
    std::fprintf(stderr, "  %s\n", r.error.c_str());
    return -1;
  }
  return static_cast<double>(r.result.latency_ns.quantile(0.99)) / 1000;
}

}  // namespace nanopu::figures
