#include "runtime/client_main/load_flags.h"

#include <cstdio>
#include <fstream>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "model/timing/timing_model.h"
#include "nanopu/address.h"
#include "nanopu/loadgen_main.h"
#include "nanopu/program_flags.h"

ABSL_DECLARE_FLAG(std::string, ip);

ABSL_FLAG(std::string, server_ip, "10.0.0.1", "Server's IPv4 address.");
ABSL_FLAG(uint32_t, server_context, 1, "Server's context (L4 port).");
ABSL_FLAG(std::string, more_servers, "",
          "A client on calls: further servers of the same context, a.b.c.d[,...]; its requests go round robin "
          "over --server_ip and these.");
ABSL_FLAG(uint32_t, retry_rejected, 0,
          "A client on calls: a call a server rejects for load (its context over the queue its SLO allows, "
          "--context_slo) is sent again at once to the next server, up to this many times, before it counts as "
          "rejected (0: never).");
ABSL_FLAG(double, rate, 0, "Open loop: Poisson arrivals at this many requests/s. 0 = closed loop.");
ABSL_FLAG(uint32_t, outstanding, 1, "Closed loop: requests kept in flight.");
ABSL_FLAG(uint32_t, max_in_flight, 0,
          "Open loop: at most this many requests in flight (0: no bound); an arrival that finds them all out "
          "waits for one to complete, its latency counted from its arrival.");
ABSL_FLAG(uint64_t, count, 0, "Requests to send; 0 = run for --duration.");
ABSL_FLAG(double, duration, 5, "Seconds to send for (when --count is 0).");
ABSL_FLAG(double, drain_timeout, 1,
          "Seconds without any reply after which in-flight requests count as lost (and, "
          "at the end, how long to wait for the last replies).");
ABSL_FLAG(std::string, json, "",
          "Also write the result as JSON to this file ('-' = stdout); tools/plot_latency.py draws it.");
ABSL_FLAG(bool, progress, true, "Print a line at the first reply, then one progress line per second on runs longer than 2 s.");
ABSL_FLAG(std::string, timing_params, "osdi21",
          "Parameter set of the modelled nanoPU latencies printed beside the measured ones "
          "(model): osdi21 (17/69 ns fast path, nanoPU OSDI'21) or tail (13/65 ns, the tail-latency version), or a "
          ".params file of one's own (model/timing/nanopu-osdi21.params shows the keys and where each value comes "
          "from).");
ABSL_FLAG(bool, calibrate, true,
          "At start-up, measure this host's thread switch, FIFO hand-off, header and register-file "
          "API costs and print them beside the modelled hardware's (about 15 ms). The modelled "
          "column is built from this run's replies only with it (the API cost is taken out of "
          "each reply's measured server time); without it, from the service's declared work.");

namespace nanopu::loadgen {

absl::StatusOr<Options> options_from_flags(const Config& c) {
  Options o;
  const std::optional<uint32_t> server_ip = parse_ipv4(absl::GetFlag(FLAGS_server_ip));
  if (!server_ip) return absl::InvalidArgumentError("--server_ip: expected a.b.c.d");
  o.server_ip = *server_ip;
  for (absl::string_view ip : absl::StrSplit(absl::GetFlag(FLAGS_more_servers), ',', absl::SkipEmpty())) {
    const std::optional<uint32_t> more = parse_ipv4(std::string_view(ip.data(), ip.size()));
    if (!more) return absl::InvalidArgumentError(absl::StrCat("--more_servers: '", ip, "' is not a.b.c.d"));
    o.more_servers.push_back(*more);
  }
  o.retry_rejected = absl::GetFlag(FLAGS_retry_rejected);
  if (absl::GetFlag(FLAGS_server_context) > 0xffff || absl::GetFlag(FLAGS_context) > 0xffff)
    return absl::InvalidArgumentError("--server_context and --context must be < 65536");
  o.server_context = static_cast<uint16_t>(absl::GetFlag(FLAGS_server_context));
  o.context = static_cast<uint16_t>(absl::GetFlag(FLAGS_context));
  o.rate = absl::GetFlag(FLAGS_rate);
  if (!(o.rate >= 0)) return absl::InvalidArgumentError("--rate must be >= 0");
  o.outstanding = absl::GetFlag(FLAGS_outstanding);
  if (o.outstanding == 0 || o.outstanding >= c.fifo_messages)
    return absl::InvalidArgumentError(absl::StrCat("--outstanding must be 1..", c.fifo_messages - 1,
                                                   " (below --fifo_messages)"));
  o.max_in_flight = absl::GetFlag(FLAGS_max_in_flight);
  if (o.max_in_flight >= c.fifo_messages)
    return absl::InvalidArgumentError(absl::StrCat("--max_in_flight must be 0..", c.fifo_messages - 1,
                                                   " (below --fifo_messages)"));
  o.count = absl::GetFlag(FLAGS_count);
  o.duration_s = absl::GetFlag(FLAGS_duration);
  if (o.count == 0 && !(o.duration_s > 0))
    return absl::InvalidArgumentError("give --count or a positive --duration");
  o.drain_timeout_s = absl::GetFlag(FLAGS_drain_timeout);
  if (!(o.drain_timeout_s > 0)) return absl::InvalidArgumentError("--drain_timeout must be > 0 seconds");
  o.progress = absl::GetFlag(FLAGS_progress);
  o.seed = absl::GetFlag(FLAGS_seed) == 0 ? 1 : absl::GetFlag(FLAGS_seed);  // the arrivals' seed
  return o;
}

absl::StatusOr<model::TimingParams> timing_from_flags() {
  absl::StatusOr<model::TimingParams> t = model::named_timing_params(absl::GetFlag(FLAGS_timing_params));
  if (!t.ok()) return absl::InvalidArgumentError(absl::StrCat("--timing_params: ", t.status().message()));
  return t;
}

Calibration calibrate_if_asked(const model::TimingParams& p, const std::string& prefix) {
  return calibrate_if(absl::GetFlag(FLAGS_calibrate), p, prefix);
}

bool calibrate_flag() { return absl::GetFlag(FLAGS_calibrate); }

Calibration calibrate_if(bool asked, const model::TimingParams& p, const std::string& prefix) {
  Calibration c;
  if (!asked) return c;
  const model::TimingModel model(p);
  c.costs = model::calibrate_host();
  std::fprintf(stderr, "%s: %s\n", prefix.c_str(), model::describe_calibration(*c.costs, model).c_str());
  c.json = model::calibration_json(*c.costs, model);
  return c;
}

std::string json_path_flag() { return absl::GetFlag(FLAGS_json); }
void set_client_defaults() {
  absl::SetFlag(&FLAGS_ip, "10.0.0.2");
  absl::SetFlag(&FLAGS_context, 2);
}

bool stats_flag() { return absl::GetFlag(FLAGS_stats); }
bool check_flags_flag() { return absl::GetFlag(FLAGS_check_flags); }

bool write_json(const std::string& path, const std::string& result_json, const std::string& members,
                const std::string& calibration_json) {
  std::string js = result_json;
  js.insert(js.size() - 1, members);
  if (!calibration_json.empty()) js.insert(js.size() - 1, ",\"calibration\":" + calibration_json);
  js += "\n";
  if (path == "-") {
    std::fputs(js.c_str(), stdout);
    return true;
  }
  std::ofstream f(path);
  f << js;
  return static_cast<bool>(f);
}

}  // namespace nanopu::loadgen
