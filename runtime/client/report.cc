// nanopu/loadgen.h: a load's result as a table and as JSON
// (tools/plot_latency.py reads the JSON's CDFs).
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/contract/clock.h"
#include "nanopu/loadgen.h"

namespace nanopu::loadgen {
namespace {

std::string modelled_json(const ModelledLatency& m) {
  if (m.how.empty()) return "";
  std::string cdf;
  for (const auto& [q, ns] : m.cdf) absl::StrAppend(&cdf, cdf.empty() ? "" : ",", "[", q, ",", ns, "]");
  return absl::StrFormat(
      ",\"latency_ns_modelled\":{\"kind\":\"modelled\",\"source\":\"%s\",\"how\":\"%s\",\"messages\":%u,"
      "\"server_core_p50_ns\":{\"measured\":%.1f,\"modelled\":%.1f},\"min\":%.1f,\"mean\":%.1f,"
      "\"p50\":%.1f,\"p90\":%.1f,\"p99\":%.1f,\"p999\":%.1f,\"max\":%.1f,\"cdf\":[%s]}",
      m.source == ModelSource::kMeasured ? "measured" : "declared", m.how, m.messages, m.measured_core_p50_ns,
      m.modelled_core_p50_ns, m.min_ns, m.mean_ns, m.p50_ns, m.p90_ns, m.p99_ns, m.p999_ns, m.max_ns, cdf);
}

// The measured distribution as [fraction, ns] points: every percentile,
// then the tail more finely.
std::string cdf_json(const Histogram& h) {
  std::string out = "[";
  if (h.count() > 0)
    for (double q : cdf_fractions())
      absl::StrAppend(&out, out.size() > 1 ? "," : "", "[", q, ",", q < 1 ? h.quantile(q) : h.max(), "]");
  return out + "]";
}

LoadShape load_shape(const Options& o, const Result& r) {
  const Histogram& h = r.latency_ns;
  return {.requests = r.received,
          .elapsed_s = r.elapsed_s,
          .mean_latency_ns = h.mean(),
          .open_loop = o.rate > 0,
          .p99_ns = h.quantile(0.99),
          .p999_ns = h.quantile(0.999),
          .max_ns = h.max()};
}

}  // namespace

const std::vector<double>& cdf_fractions() {
  static const std::vector<double> kFractions = [] {
    std::vector<double> f;
    for (int i = 1; i < 100; ++i) f.push_back(i / 100.0);
    for (double q : {0.995, 0.999, 0.9995, 0.9999, 1.0}) f.push_back(q);
    return f;
  }();
  return kFractions;
}

void print(FILE* out, const Options& o, const Result& r, std::string_view what, std::string_view note) {
  const Histogram& h = r.latency_ns;
  auto us = [](uint64_t ns) { return static_cast<double>(ns) / 1e3; };
  std::fprintf(out, "%.*s: %s, %u-byte requests%.*s\n", static_cast<int>(what.size()), what.data(),
               o.rate > 0 ? absl::StrFormat("open loop, Poisson %.0f req/s", o.rate).c_str()
                          : absl::StrFormat("closed loop, %u outstanding", o.outstanding).c_str(),
               o.msg_bytes, static_cast<int>(note.size()), note.data());
  std::fprintf(out, "  sent %llu  received %llu  lost %llu  given-up %llu  bad %llu  duplicated %llu  send-failures %llu\n",
               static_cast<unsigned long long>(r.sent), static_cast<unsigned long long>(r.received),
               static_cast<unsigned long long>(r.lost), static_cast<unsigned long long>(r.given_up),
               static_cast<unsigned long long>(r.bad_replies), static_cast<unsigned long long>(r.duplicates),
               static_cast<unsigned long long>(r.send_failures));
  if (r.rejected != 0)
    std::fprintf(out, "  of the given-up, rejected for load %llu (a server's context over the queue its SLO allows)\n",
                 static_cast<unsigned long long>(r.rejected));
  if (r.retried != 0)
    std::fprintf(out, "  rejected for load and sent again to the next server %llu (--retry_rejected; answered or counted above)\n",
                 static_cast<unsigned long long>(r.retried));
  if (r.lost + r.given_up + r.bad_replies + r.duplicates + r.send_failures != 0)
    std::fprintf(out,
                 "    lost: no reply within --drain_timeout of the last reply;\n"
                 "    given-up: the transport gave the request up (server down?) or a restarted\n"
                 "    server refused a request meant for its predecessor, named by the NIC;\n"
                 "    bad: a reply with a wrong header, length or word; duplicated: a second reply\n"
                 "    to one request (exactly-once broken); send-failures: no buffer\n");
  // Under a modelled clock (nanopu-sim: every host on one clock) the
  // times are the model's, not this machine's.
  const char* kind = clock::is_virtual() ? "modelled" : "measured";
  std::fprintf(out, "  throughput  %.0f msg/s over %.3f s (%s)\n",
               r.elapsed_s > 0 ? static_cast<double>(r.received) / r.elapsed_s : 0.0, r.elapsed_s,
               clock::is_virtual() ? "modelled time, nanopu-sim" : "measured");
  std::fprintf(out, "  latency (%s round trip, us)\n", kind);
  std::fprintf(out, "    %8s %8s %8s %8s %8s %8s %8s\n", "min", "mean", "p50", "p90", "p99", "p99.9", "max");
  std::fprintf(out, "    %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f\n", us(h.min()), h.mean() / 1e3,
               us(h.quantile(0.5)), us(h.quantile(0.9)), us(h.quantile(0.99)), us(h.quantile(0.999)), us(h.max()));
  if (const ModelledLatency& m = r.modelled; !m.how.empty()) {
    std::fprintf(out, "  latency (modelled nanoPU hardware, us; %s; %s)\n",
                 m.source == ModelSource::kMeasured ? "per message, from this run's replies" : "from the declared work",
                 m.how.c_str());
    std::fprintf(out, "    %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f\n", m.min_ns / 1e3, m.mean_ns / 1e3,
                 m.p50_ns / 1e3, m.p90_ns / 1e3, m.p99_ns / 1e3, m.p999_ns / 1e3, m.max_ns / 1e3);
  }
  if (r.host_noise.measured) std::fputs(describe_host_noise(r.host_noise, load_shape(o, r)).c_str(), out);
}

std::string json(const Options& o, const Result& r, std::string_view app_mode) {
  const Histogram& h = r.latency_ns;
  return absl::StrFormat(
      "{\"mode\":\"%s\",\"app_mode\":\"%s\",\"rate\":%.1f,\"outstanding\":%u,\"msg_bytes\":%u,"
      "\"sent\":%u,\"received\":%u,\"lost\":%u,\"given_up\":%u,\"bad_replies\":%u,"
      "\"duplicates\":%u,\"send_failures\":%u,\"after_other_work\":%u,\"rejected\":%u,\"retried\":%u,"
      "\"elapsed_s\":%.6f,\"throughput_msgs_per_s\":%.1f,"
      "\"latency_ns\":{\"kind\":\"measured\",\"min\":%u,\"mean\":%.1f,\"p50\":%u,\"p90\":%u,"
      "\"p99\":%u,\"p999\":%u,\"max\":%u,\"cdf\":%s}%s%s}",
      o.rate > 0 ? "open" : "closed", app_mode, o.rate, o.outstanding, o.msg_bytes, r.sent, r.received, r.lost,
      r.given_up, r.bad_replies, r.duplicates, r.send_failures, r.after_other_work, r.rejected, r.retried, r.elapsed_s,
      r.elapsed_s > 0 ? static_cast<double>(r.received) / r.elapsed_s : 0.0, h.min(), h.mean(), h.quantile(0.5),
      h.quantile(0.9), h.quantile(0.99), h.quantile(0.999), h.max(), cdf_json(h), modelled_json(r.modelled),
      r.host_noise.measured ? ",\"host_noise\":" + host_noise_json(r.host_noise, load_shape(o, r)) : std::string());
}

}  // namespace nanopu::loadgen
