#include "runtime/client_main/measured_model.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "absl/strings/str_format.h"
#include "runtime/client_main/modelled_service.h"

namespace nanopu::loadgen {
namespace {

uint64_t to_ps(double ns) { return static_cast<uint64_t>(std::max(0.0, ns) * 1000 + 0.5); }

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  const auto i = static_cast<size_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<long>(i), v.end());
  return v[i];
}

}  // namespace

ModelledLatency model_measured(const Options& o, const Result& r, const MeasuredService& s,
                               const model::HostCosts& h, const model::TimingParams& p,
                               std::string* why_not) {
  ModelledLatency out;
  std::vector<const ReplySample*> use;
  for (const ReplySample& x : r.samples)
    if (x.server_core_ns > 0) use.push_back(&x);
  if (use.empty()) {
    *why_not = r.samples.empty() ? "no reply was measured"
               : r.after_other_work != 0
                   ? "every reply came after the server called another server: its core-time stamp covers "
                     "the server's last step only, not the request's path through both"
                   : "no reply carried the server's core time (a prototype server?)";
    return out;
  }
  // Replayed in the order they were sent.
  std::stable_sort(use.begin(), use.end(),
                   [](const ReplySample* a, const ReplySample* b) { return a->sent_ns < b->sent_ns; });
  const model::TimingModel m(p);
  std::vector<double> outside(use.size()), measured_core(use.size()), modelled_core(use.size());
  model::VirtualHostConfig c = server_host_config(m, std::max<uint32_t>(1, s.cores), s.jbsq, {});
  c.trace_outstanding = o.rate > 0 ? 0 : o.outstanding;
  c.trace.resize(use.size());
  for (size_t i = 0; i < use.size(); ++i) {
    const ReplySample& x = *use[i];
    // Header word + payload words, read and written.
    const double words = 2 + words_of(x.request_bytes) + words_of(x.reply_bytes);
    const double own_work = std::max(0.0, x.server_core_ns - h.api_ns(words));
    // The model's loopback core for these lengths, and the unloaded round
    // trip outside that core.
    const ModelledKind loopback = rpc_kind(m, 1, x.request_bytes, x.reply_bytes, 0);
    measured_core[i] = x.server_core_ns;
    modelled_core[i] = loopback.core_ns + own_work;
    outside[i] = loopback.path_ns - loopback.core_ns;
    model::TracedRequest& t = c.trace[i];
    t.cls = s.jbsq ? 0 : static_cast<uint32_t>(i % c.cores);
    t.service_ps = to_ps(modelled_core[i]);
    t.arrival_ps = o.rate > 0 ? to_ps(x.sent_ns) : to_ps(outside[i]);
  }
  const model::VirtualHostResult v = model::run_virtual_host(c);
  model::ClassResult all;
  all.response_ps.reserve(use.size());
  for (size_t i = 0; i < use.size(); ++i)
    all.response_ps.push_back(v.trace_response_ps[i] + to_ps(outside[i]));
  fill_quantiles(all, &out);
  for (double q : cdf_fractions()) out.cdf.emplace_back(q, all.quantile_ns(q));
  out.source = ModelSource::kMeasured;
  out.messages = use.size();
  out.measured_core_p50_ns = quantile(measured_core, 0.5);
  out.modelled_core_p50_ns = quantile(modelled_core, 0.5);
  const double mean_words =
      std::accumulate(use.begin(), use.end(), 0.0, [](double a, const ReplySample* x) {
        return a + 2 + words_of(x->request_bytes) + words_of(x->reply_bytes);
      }) / static_cast<double>(use.size());
  out.how = absl::StrFormat(
      "%s: %s replies of this run, server on-core time measured (p50 %.0f ns) less the emulator's "
      "register-file cost (calibrated, %.0f ns) plus the model's (p50 core %.1f ns); queueing replayed on "
      "%u modelled core(s) by HtsPolicy and CoreSelector, %s; unloaded path from parameter set %s",
      s.what,
      r.samples_dropped == 0
          ? absl::StrFormat("the %zu", use.size())
          : absl::StrFormat("the first %zu (of %u answered)", use.size(), r.samples.size() + r.samples_dropped),
      out.measured_core_p50_ns, h.api_ns(mean_words), out.modelled_core_p50_ns, c.cores,
      o.rate > 0 ? "at the measured send times"
                 : absl::StrFormat("closed loop, %u outstanding", o.outstanding).c_str(),
      p.name);
  if (r.after_other_work != 0)
    out.how += absl::StrFormat(
        "; one server hop: %u replies written after the server called another server are left out (their "
        "stamp covers its last step only)",
        r.after_other_work);
  return out;
}

}  // namespace nanopu::loadgen
