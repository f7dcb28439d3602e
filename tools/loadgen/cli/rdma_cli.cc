// nanopu-loadgen --service=rdma: the one-sided RDMA client (tools/loadgen/rdma_load.h).
#include <algorithm>
#include <iterator>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "tools/loadgen/cli/service_cli.h"
#include "tools/loadgen/modelled_latency.h"
#include "tools/loadgen/rdma_load.h"
#include "apps/rdma/rdma_protocol.h"

ABSL_FLAG(std::string, rdma_mode, "mix",
          "rdma (nanopu-server --app=rdma): 'mix' (reads, writes, CAS, fetch-and-add and "
          "indirect reads on this client's slice, each checked against a reference image), "
          "one of them alone, the same way ('read', 'write', 'cas', 'faa', 'indirect': nanoPU "
          "Table 2's rows), the two operations its section 4.1 proposes beyond them alone ('scan': "
          "scan-and-read, a 16-key table; 'max': return-max of 1..4 words), or 'cas-counter' "
          "or 'faa-counter' (increment the word at "
          "--rdma_base by a CAS loop or by fetch-and-add, racing other clients; the final value "
          "is printed).");
ABSL_FLAG(uint64_t, rdma_base, 0, "rdma: byte offset of this client's slice in the server's region (8-aligned).");
ABSL_FLAG(uint32_t, rdma_words, 1024, "rdma: words in this client's slice (mix: 64..1048576).");

namespace nanopu::apps {
namespace {

class RdmaCli : public ServiceCli {
 public:
  std::string configure(const Config&, LoadGenOptions*) override {
    rdo_.base = absl::GetFlag(FLAGS_rdma_base);
    rdo_.words = absl::GetFlag(FLAGS_rdma_words);
    const std::string mode = absl::GetFlag(FLAGS_rdma_mode);
    static constexpr const char* kAlone[] = {"read", "write", "cas", "faa", "indirect", "scan", "max"};
    const auto alone = std::find(std::begin(kAlone), std::end(kAlone), mode);
    rdo_.only = alone == std::end(kAlone) ? -1 : static_cast<int>(alone - std::begin(kAlone));
    if (mode == "mix" || rdo_.only >= 0) rdo_.mode = RdmaLoadMode::kMix;
    else if (mode == "cas-counter") rdo_.mode = RdmaLoadMode::kCasCounter;
    else if (mode == "faa-counter") rdo_.mode = RdmaLoadMode::kFaaCounter;
    else return "--rdma_mode: use mix, read, write, cas, faa, indirect, scan, max, cas-counter or faa-counter";
    if (rdo_.base % 8 != 0) return "--rdma_base must be a multiple of 8";
    if (rdo_.mode == RdmaLoadMode::kMix && (rdo_.words < 64 || rdo_.words > (1u << 20)))
      return "--rdma_words must be 64..1048576 with --rdma_mode=" + mode;
    return "";
  }
  void run(Thread& t, const LoadGenOptions& o, LoadGenResult* r) override { run_rdma_client(t, o, rdo_, r, &rr_); }
  ModelledLatency model(LoadGenOptions* o, uint64_t samples, const model::TimingParams& p) const override {
    o->msg_bytes = rdma_request_len(RdmaOp::kRead, 1);
    return model_rdma_latency(*o, samples, p);
  }
  std::optional<MeasuredService> measured_service(const LoadGenOptions&) const override {
    return MeasuredService{1, false, "rdma"};
  }
  std::string summary() const override {
    if (rdo_.mode != RdmaLoadMode::kMix)
      return absl::StrFormat("  rdma: counter at %u: %u increments by this client, value at the end %u", rdo_.base,
                             rr_.increments, rr_.final_value);
    return absl::StrFormat(
        "  rdma: %u reads, %u writes, %u CAS (%u swapped), %u fetch-and-add, %u indirect reads, %u scans, %u "
        "maxes, every reply checked against the slice's image",
        rr_.reads, rr_.writes, rr_.cas, rr_.cas_swapped, rr_.faa, rr_.indirect_reads, rr_.scans, rr_.maxes);
  }
  std::string json() const override {
    return service_json("rdma", {{"reads", rr_.reads},
                                 {"writes", rr_.writes},
                                 {"cas", rr_.cas},
                                 {"cas_swapped", rr_.cas_swapped},
                                 {"faa", rr_.faa},
                                 {"indirect_reads", rr_.indirect_reads},
                                 {"scans", rr_.scans},
                                 {"maxes", rr_.maxes},
                                 {"increments", rr_.increments},
                                 {"final_value", rr_.final_value}});
  }

 private:
  RdmaLoadOptions rdo_;
  RdmaLoadResult rr_;
};

}  // namespace

std::unique_ptr<ServiceCli> make_rdma_cli() { return std::make_unique<RdmaCli>(); }

}  // namespace nanopu::apps
