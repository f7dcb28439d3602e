// nanopu-loadgen --service=kv: the MICA key-value client (tools/loadgen/kv_client.h).
#include "apps/server/service_flags.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "tools/loadgen/cli/service_cli.h"
#include "tools/loadgen/kv_client.h"
#include "tools/loadgen/modelled_latency.h"
#include "apps/mica/kv_protocol.h"

ABSL_FLAG(uint32_t, kv_keys, 10000, "kv: keys, drawn uniformly.");
ABSL_FLAG(double, kv_set_fraction, 0.5, "kv: fraction of requests that are SETs (the paper: 0.5).");
ABSL_FLAG(uint32_t, kv_partitions, 1,
          "kv: the server's partitions (its --threads): a key goes to context --server_context + "
          "key_hash mod this.");
ABSL_FLAG(std::string, kv_variant, "register-file",
          "kv: the server's variant, 'register-file' (--app=kv) or 'naive' (--app=kv-naive); "
          "only the modelled column uses it (the naive variant's declared copy work).");
ABSL_FLAG(bool, kv_preload, true, "kv: SET every key once before measuring (not measured).");

namespace nanopu::apps {
namespace {

class KvCli : public ServiceCli {
 public:
  std::string configure(const Config&, LoadGenOptions* o) override {
    kvo_.keys = absl::GetFlag(FLAGS_kv_keys);
    kvo_.set_fraction = absl::GetFlag(FLAGS_kv_set_fraction);
    kvo_.partitions = absl::GetFlag(FLAGS_kv_partitions);
    kvo_.jbsq = absl::GetFlag(FLAGS_kv_jbsq);
    kvo_.preload = absl::GetFlag(FLAGS_kv_preload);
    const std::string variant = absl::GetFlag(FLAGS_kv_variant);
    if (variant != "register-file" && variant != "naive")
      return "--kv_variant must be 'register-file' or 'naive'";
    naive_ = variant == "naive";
    if (kvo_.keys == 0 || kvo_.keys > (1u << 24)) return "--kv_keys must be 1..16777216";
    if (!(kvo_.set_fraction >= 0 && kvo_.set_fraction <= 1)) return "--kv_set_fraction must be 0..1";
    if (kvo_.partitions == 0 || o->server_context + kvo_.partitions > 0x10000)
      return "--kv_partitions must be >= 1, with --server_context + it below 65536";
    return "";
  }
  void run(Thread& t, const LoadGenOptions& o, LoadGenResult* r) override { run_kv_client(t, o, kvo_, r, &kr_); }
  ModelledLatency model(LoadGenOptions* o, uint64_t samples, const model::TimingParams& p) const override {
    o->msg_bytes = kKvSetBytes;
    return model_kv_latency(*o, kvo_.set_fraction, kvo_.partitions, kvo_.jbsq, naive_, samples, p);
  }
  std::optional<MeasuredService> measured_service(const LoadGenOptions&) const override {
    return MeasuredService{kvo_.partitions, kvo_.jbsq,
                           absl::StrFormat("kv %s, %u partition(s)", naive_ ? "naive" : "register-file",
                                           kvo_.partitions)};
  }
  std::string summary() const override {
    return absl::StrFormat("  kv: %u GETs (%u hits), %u SETs over %u keys%s", kr_.gets, kr_.get_hits, kr_.sets,
                           kvo_.keys, kvo_.jbsq ? " (jbsq: misses and older values expected)" : "");
  }
  std::string json() const override {
    return service_json("kv", {{"gets", kr_.gets}, {"get_hits", kr_.get_hits}, {"sets", kr_.sets},
                               {"keys", kvo_.keys}});
  }

 private:
  KvOptions kvo_;
  KvResult kr_;
  bool naive_ = false;
};

}  // namespace

std::unique_ptr<ServiceCli> make_kv_cli() { return std::make_unique<KvCli>(); }

}  // namespace nanopu::apps
