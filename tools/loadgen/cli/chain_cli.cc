// nanopu-loadgen --service=chain: the chain-replication client (tools/loadgen/chain_load.h).
#include <optional>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "apps/chain/chain_config.h"
#include "apps/chain/chain_protocol.h"
#include "apps/server/service_flags.h"
#include "tools/loadgen/chain_load.h"
#include "tools/loadgen/cli/service_cli.h"
#include "tools/loadgen/modelled_latency.h"
#include "nanopu/address.h"

ABSL_FLAG(uint32_t, chain_keys, 1000, "chain: keys, drawn uniformly.");
ABSL_FLAG(double, chain_write_fraction, 0.5, "chain: fraction of requests that are WRITEs.");
ABSL_FLAG(bool, chain_preload, true, "chain: WRITE every key once before measuring (not measured).");
ABSL_FLAG(double, chain_retry_ms, 0,
          "chain: a request unanswered this long ends (lost; info in a history) and the next goes to the "
          "next replica it knows (a chain a master runs: its replicas fail and are replaced). 0: a request "
          "waits for --drain_timeout.");

namespace nanopu::apps {
namespace {

class ChainCli : public ServiceCli {
 public:
  std::string configure(const Config& c, LoadGenOptions* o) override {
    cho_.client_ip = c.ip;
    cho_.keys = absl::GetFlag(FLAGS_chain_keys);
    cho_.write_fraction = absl::GetFlag(FLAGS_chain_write_fraction);
    cho_.preload = absl::GetFlag(FLAGS_chain_preload);
    for (const std::string& node : std::vector<std::string>(absl::StrSplit(absl::GetFlag(FLAGS_chain), ',',
                                                                          absl::SkipEmpty()))) {
      const size_t colon = node.rfind(':');
      const std::optional<uint32_t> ip =
          colon == std::string::npos ? std::nullopt : parse_ipv4(node.substr(0, colon));
      uint32_t ctx = 0;
      if (!ip || !absl::SimpleAtoi(node.substr(colon + 1), &ctx) || ctx > 0xffff)
        return "--chain: '" + node + "' is not IP:CONTEXT (e.g. 10.0.0.1:5)";
      cho_.chain.push_back(chain_node(*ip, static_cast<uint16_t>(ctx)));
    }
    if (cho_.chain.empty() || cho_.chain.size() > kChainMaxMembers)
      return "--chain: give 1.." + std::to_string(kChainMaxMembers) + " replicas, head first, as IP:CONTEXT,...";
    if (cho_.keys == 0 || cho_.keys > (1u << 24)) return "--chain_keys must be 1..16777216";
    if (!(cho_.write_fraction >= 0 && cho_.write_fraction <= 1)) return "--chain_write_fraction must be 0..1";
    cho_.retry_ms = absl::GetFlag(FLAGS_chain_retry_ms);
    if (!(cho_.retry_ms >= 0)) return "--chain_retry_ms must be >= 0";
    return "";
  }
  void run(Thread& t, const LoadGenOptions& o, LoadGenResult* r) override {
    run_chain_client(t, o, cho_, r, &cr_);
  }
  ModelledLatency model(LoadGenOptions* o, uint64_t samples, const model::TimingParams& p) const override {
    o->msg_bytes = chain_len(true);
    return model_chain_latency(*o, cho_.chain.size(), cho_.write_fraction, samples, p);
  }
  std::string summary() const override {
    return absl::StrFormat("  chain: %u WRITEs through %u replicas, %u READs at the tail (%u hits) over %u keys; "
                           "%u refused, %u new chains learned",
                           cr_.writes, cho_.chain.size(), cr_.reads, cr_.read_hits, cho_.keys, cr_.refused,
                           cr_.reconfigured);
  }
  std::string json() const override {
    return service_json("chain", {{"replicas", cho_.chain.size()}, {"writes", cr_.writes}, {"reads", cr_.reads},
                                  {"read_hits", cr_.read_hits}, {"keys", cho_.keys}});
  }

 private:
  ChainLoadOptions cho_;
  ChainLoadResult cr_;
};

}  // namespace

std::unique_ptr<ServiceCli> make_chain_cli() { return std::make_unique<ChainCli>(); }

}  // namespace nanopu::apps
