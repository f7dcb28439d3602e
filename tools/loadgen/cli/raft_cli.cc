// nanopu-loadgen --service=raft: the Raft client (tools/loadgen/raft_load.h).
#include "apps/server/service_flags.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "tools/loadgen/cli/service_cli.h"
#include "tools/loadgen/modelled_latency.h"
#include "tools/loadgen/raft_load.h"
#include "apps/raft/raft_service.h"

ABSL_FLAG(uint32_t, raft_keys, 1000, "raft: keys, drawn uniformly.");
ABSL_FLAG(double, raft_put_fraction, 0.5, "raft: fraction of requests that are PUTs.");
ABSL_FLAG(bool, raft_preload, true,
          "raft: PUT every key once before measuring (not measured), so GETs see only this "
          "run's values.");
ABSL_FLAG(double, raft_retry_ms, 100,
          "raft: a request unanswered this long goes to the next server (its leader may be down).");

namespace nanopu::apps {
namespace {

class RaftCli : public ServiceCli {
 public:
  std::string configure(const Config& c, LoadGenOptions* o) override {
    rao_.client_ip = c.ip;
    rao_.keys = absl::GetFlag(FLAGS_raft_keys);
    rao_.put_fraction = absl::GetFlag(FLAGS_raft_put_fraction);
    rao_.retry_ms = absl::GetFlag(FLAGS_raft_retry_ms);
    rao_.preload = absl::GetFlag(FLAGS_raft_preload);
    absl::StatusOr<std::vector<Peer>> cluster = parse_peer_list(absl::GetFlag(FLAGS_raft_cluster));
    if (!cluster.ok()) return "--raft_cluster: " + std::string(cluster.status().message());
    for (const Peer& s : *cluster) rao_.cluster.push_back(uint64_t{s.context} << 32 | s.ip);
    if (rao_.keys == 0 || rao_.keys > (1u << 24)) return "--raft_keys must be 1..16777216";
    if (!(rao_.put_fraction >= 0 && rao_.put_fraction <= 1)) return "--raft_put_fraction must be 0..1";
    if (!(rao_.retry_ms > 0)) return "--raft_retry_ms must be > 0";
    if (o->outstanding > 0xffff) return "--outstanding must be < 65536 with --service=raft";
    return "";
  }
  void run(Thread& t, const LoadGenOptions& o, LoadGenResult* r) override { run_raft_client(t, o, rao_, r, &rr_); }
  ModelledLatency model(LoadGenOptions* o, uint64_t samples, const model::TimingParams& p) const override {
    o->msg_bytes = raft_client_request_len(RaftOp::kPut);
    return model_raft_latency(*o, rao_.cluster.size(), samples, p);
  }
  std::string summary() const override {
    return absl::StrFormat(
        "  raft: %u PUTs, %u GETs (%u hits) over %u keys; %u redirects, %u sent again, %u given up by the "
        "transport (and sent again)",
        rr_.puts, rr_.gets, rr_.get_hits, rao_.keys, rr_.redirects, rr_.resent, rr_.transport_give_ups);
  }
  std::string json() const override {
    return service_json("raft", {{"puts", rr_.puts},
                                 {"gets", rr_.gets},
                                 {"get_hits", rr_.get_hits},
                                 {"redirects", rr_.redirects},
                                 {"resent", rr_.resent}});
  }

 private:
  RaftLoadOptions rao_;
  RaftLoadResult rr_;
};

}  // namespace

std::unique_ptr<ServiceCli> make_raft_cli() { return std::make_unique<RaftCli>(); }

}  // namespace nanopu::apps
