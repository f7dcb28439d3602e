// nanopu-loadgen: open- or closed-loop load against a nanopu (or nanoPU) server.
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "apps/chain/chain_protocol.h"
#include "apps/loadgen/chain_load.h"
#include "apps/loadgen/kv_client.h"
#include "apps/loadgen/raft_load.h"
#include "apps/raft/raft_service.h"
#include "apps/loadgen/rdma_load.h"
#include "apps/loadgen/loadgen.h"
#include "apps/loadgen/modelled_latency.h"
#include "apps/loopback/loopback.h"
#include "apps/mica/kv_protocol.h"
#include "lib/timing/calibration.h"
#include "nanopu/address.h"
#include "nanopu/flags.h"
#include "nanopu/runtime.h"

ABSL_DECLARE_FLAG(std::string, ip);

ABSL_FLAG(std::string, server_ip, "10.0.0.1", "Server's IPv4 address.");
ABSL_FLAG(uint32_t, server_context, 1, "Server's context (L4 port).");
ABSL_FLAG(uint32_t, context, 2, "This client's context: replies arrive here.");
ABSL_FLAG(uint32_t, size, 64,
          "Request payload bytes (16..max_message_bytes). Words: service_time, sent_time, "
          "sequence number, then fill words that replies are checked against.");
ABSL_FLAG(double, rate, 0,
          "Open loop: Poisson arrivals at this many requests/s. 0 = closed loop.");
ABSL_FLAG(uint32_t, outstanding, 1, "Closed loop: requests kept in flight.");
ABSL_FLAG(uint64_t, count, 0, "Requests to send; 0 = run for --duration.");
ABSL_FLAG(double, duration, 5, "Seconds to send for (when --count is 0).");
ABSL_FLAG(double, service_ns, 0,
          "Service time asked of a 'service' server, in ns (sent as 3.2 GHz cycles, at least 1).");
ABSL_FLAG(std::string, expect, "echo",
          "Reply check: 'echo' (words equal the request's), 'increment' (each word + 1), 'none'.");
ABSL_FLAG(double, drain_timeout, 1,
          "Seconds without any reply after which in-flight requests count as lost (and, "
          "at the end, how long to wait for the last replies).");
ABSL_FLAG(std::string, json, "", "Also write the result as JSON to this file ('-' = stdout).");
ABSL_FLAG(bool, progress, true, "Print one progress line per second on runs longer than 2 s.");
ABSL_FLAG(bool, stop_server, false,
          "At the end, send service_time 0, which ends a 'service' server's thread.");
ABSL_FLAG(uint64_t, seed, 1, "Seed of the Poisson arrival process.");
ABSL_FLAG(bool, stats, false, "Print the client host's NIC and thread counters on exit.");
ABSL_FLAG(std::string, timing_params, "osdi21",
          "Parameter set of the modelled nanoPU latencies printed beside the measured ones "
          "(lib/timing): osdi21 (17/69 ns fast path, nanoPU OSDI'21) or tail (13/65 ns, the tail-latency version).");
ABSL_FLAG(std::string, service, "echo",
          "What the server runs: 'echo' (echo/increment/service apps: --size, --expect) or 'kv' "
          "(nanopu-server --app=kv or kv-naive: GET/SET of 16-byte keys and 512-byte values, "
          "every reply checked against what this client wrote), or 'chain' (replicas running "
          "nanopu-server --app=chain, listed in --chain: WRITEs of 16-byte keys and 64-byte "
          "values to the head, READs at the tail, every reply checked), or 'rdma' (one-sided "
          "operations on nanopu-server --app=rdma: see --rdma_mode), or 'raft' (PUT/GET through "
          "the leader of --raft_cluster, every reply checked).");
ABSL_FLAG(std::string, rdma_mode, "mix",
          "rdma (nanopu-server --app=rdma): 'mix' (reads, writes, CAS, fetch-and-add and "
          "indirect reads on this client's slice, each checked against a reference image), "
          "'cas-counter' or 'faa-counter' (increment the word at --rdma_base by a CAS loop or "
          "by fetch-and-add, racing other clients; the final value is printed).");
ABSL_FLAG(uint64_t, rdma_base, 0, "rdma: byte offset of this client's slice in the server's region (8-aligned).");
ABSL_FLAG(uint32_t, rdma_words, 1024, "rdma: words in this client's slice (mix: 64..1048576).");
ABSL_FLAG(std::string, raft_cluster, "",
          "raft: the cluster's servers as IP:CONTEXT,... (nanopu-server --app=raft); requests go "
          "to the leader, found by redirects.");
ABSL_FLAG(uint32_t, raft_keys, 1000, "raft: keys, drawn uniformly.");
ABSL_FLAG(double, raft_put_fraction, 0.5, "raft: fraction of requests that are PUTs.");
ABSL_FLAG(bool, raft_preload, true,
          "raft: PUT every key once before measuring (not measured), so GETs see only this "
          "run's values.");
ABSL_FLAG(double, raft_retry_ms, 100,
          "raft: a request unanswered this long goes to the next server (its leader may be down).");
ABSL_FLAG(std::string, chain, "",
          "chain: the replicas, head first, as IP:CONTEXT,IP:CONTEXT,... (e.g. "
          "10.0.0.1:5,10.0.0.3:5,10.0.0.4:5). --server_ip/--server_context are not used.");
ABSL_FLAG(uint32_t, chain_keys, 1000, "chain: keys, drawn uniformly.");
ABSL_FLAG(double, chain_write_fraction, 0.5, "chain: fraction of requests that are WRITEs.");
ABSL_FLAG(bool, chain_preload, true,
          "chain: READ every key at the tail, then WRITE each once, before measuring (not "
          "measured): the WRITEs continue each key's versions from what the replicas hold. "
          "Off: the chain must be fresh.");
ABSL_FLAG(uint32_t, kv_keys, 10000, "kv: keys, drawn uniformly.");
ABSL_FLAG(double, kv_set_fraction, 0.5, "kv: fraction of requests that are SETs (the paper: 0.5).");
ABSL_FLAG(uint32_t, kv_partitions, 1,
          "kv: the server's partitions (its --threads): a key goes to context --server_context + "
          "key_hash mod this.");
ABSL_FLAG(bool, kv_jbsq, false,
          "kv: the server runs --kv_jbsq (any core takes any key): misses and older values are "
          "expected, only a wrong key's value or a corrupt one is bad.");
ABSL_FLAG(std::string, kv_variant, "register-file",
          "kv: the server's variant, 'register-file' (--app=kv) or 'naive' (--app=kv-naive); "
          "only the modelled column uses it (the naive variant's declared copy work).");
ABSL_FLAG(bool, kv_preload, true, "kv: SET every key once before measuring (not measured).");
ABSL_FLAG(bool, calibrate, true,
          "At start-up, measure this host's thread switch, FIFO hand-off and header costs and "
          "print them beside the modelled hardware's (about 10 ms).");

int main(int argc, char** argv) {
  absl::SetFlag(&FLAGS_ip, "10.0.0.2");  // the client's own address by default
  nanopu::init_flags_usage(
      "send requests to a nanopu server and report throughput and latency.\n"
      "Example (client end of a net_memif pair, on lcore 0):\n"
      "  nanopu-loadgen --lcores=0 --vdev='net_memif0,role=client,socket=/tmp/nanopu.sock' \\\n"
      "      --rate=100000 --duration=10 --json=out.json\n"
      "Exit status: 0 all replies arrived and checked, 3 some lost, given up or wrong, 1/2 errors.");
  absl::ParseCommandLine(argc, argv);
  auto fail = [](const std::string& msg) {
    std::fprintf(stderr, "nanopu-loadgen: %s\n", msg.c_str());
    return 2;
  };
  absl::StatusOr<nanopu::Config> config = nanopu::Config::from_flags();
  if (!config.ok()) return fail(std::string(config.status().message()));

  nanopu::apps::LoadGenOptions o;
  const std::optional<uint32_t> server_ip = nanopu::parse_ipv4(absl::GetFlag(FLAGS_server_ip));
  if (!server_ip) return fail("--server_ip: expected a.b.c.d");
  o.server_ip = *server_ip;
  if (absl::GetFlag(FLAGS_server_context) > 0xffff || absl::GetFlag(FLAGS_context) > 0xffff)
    return fail("--server_context and --context must be < 65536");
  o.server_context = static_cast<uint16_t>(absl::GetFlag(FLAGS_server_context));
  o.context = static_cast<uint16_t>(absl::GetFlag(FLAGS_context));
  o.msg_bytes = absl::GetFlag(FLAGS_size);
  if (o.msg_bytes < 16 || o.msg_bytes > config->max_message_bytes)
    return fail("--size must be 16.." + std::to_string(config->max_message_bytes) +
                " (the payload carries service_time and sent_time)");
  o.rate = absl::GetFlag(FLAGS_rate);
  if (o.rate < 0) return fail("--rate must be >= 0");
  o.outstanding = absl::GetFlag(FLAGS_outstanding);
  if (o.outstanding == 0 || o.outstanding >= config->fifo_messages)
    return fail("--outstanding must be 1.." + std::to_string(config->fifo_messages - 1) +
                " (below --fifo_messages)");
  o.count = absl::GetFlag(FLAGS_count);
  o.duration_s = absl::GetFlag(FLAGS_duration);
  if (o.count == 0 && o.duration_s <= 0) return fail("give --count or a positive --duration");
  const double service_ns = absl::GetFlag(FLAGS_service_ns);
  if (service_ns < 0) return fail("--service_ns must be >= 0");
  o.service_cycles = static_cast<uint64_t>(service_ns * nanopu::apps::kServiceCyclesPerNs);
  if (o.service_cycles == 0) o.service_cycles = 1;
  const std::string service = absl::GetFlag(FLAGS_service);
  if (service != "echo" && service != "kv" && service != "chain" && service != "rdma" &&
      service != "raft")
    return fail("--service: use echo, kv, chain, rdma or raft");
  const bool raft = service == "raft";
  nanopu::apps::RaftLoadOptions rao;
  rao.client_ip = config->ip;
  rao.keys = absl::GetFlag(FLAGS_raft_keys);
  rao.put_fraction = absl::GetFlag(FLAGS_raft_put_fraction);
  rao.retry_ms = absl::GetFlag(FLAGS_raft_retry_ms);
  rao.preload = absl::GetFlag(FLAGS_raft_preload);
  if (raft) {
    absl::StatusOr<std::vector<nanopu::apps::RaftServer>> c =
        nanopu::apps::parse_raft_cluster(absl::GetFlag(FLAGS_raft_cluster));
    if (!c.ok()) return fail("--raft_cluster: " + std::string(c.status().message()));
    for (const auto& s : *c) rao.cluster.push_back(uint64_t{s.context} << 32 | s.ip);
    if (rao.keys == 0 || rao.keys > (1u << 24)) return fail("--raft_keys must be 1..16777216");
    if (!(rao.put_fraction >= 0 && rao.put_fraction <= 1)) return fail("--raft_put_fraction must be 0..1");
    if (!(rao.retry_ms > 0)) return fail("--raft_retry_ms must be > 0");
    if (o.outstanding > 0xffff) return fail("--outstanding must be < 65536 with --service=raft");
  }
  const bool rdma = service == "rdma";
  nanopu::apps::RdmaLoadOptions rdo;
  rdo.base = absl::GetFlag(FLAGS_rdma_base);
  rdo.words = absl::GetFlag(FLAGS_rdma_words);
  if (rdma) {
    const std::string mode = absl::GetFlag(FLAGS_rdma_mode);
    if (mode == "mix") rdo.mode = nanopu::apps::RdmaLoadMode::kMix;
    else if (mode == "cas-counter") rdo.mode = nanopu::apps::RdmaLoadMode::kCasCounter;
    else if (mode == "faa-counter") rdo.mode = nanopu::apps::RdmaLoadMode::kFaaCounter;
    else return fail("--rdma_mode: use mix, cas-counter or faa-counter");
    if (rdo.base % 8 != 0) return fail("--rdma_base must be a multiple of 8");
    if (rdo.mode == nanopu::apps::RdmaLoadMode::kMix && (rdo.words < 64 || rdo.words > (1u << 20)))
      return fail("--rdma_words must be 64..1048576 with --rdma_mode=mix");
  }
  const bool kv = service == "kv";
  const bool chain = service == "chain";
  nanopu::apps::ChainLoadOptions cho;
  cho.client_ip = config->ip;
  cho.keys = absl::GetFlag(FLAGS_chain_keys);
  cho.write_fraction = absl::GetFlag(FLAGS_chain_write_fraction);
  cho.preload = absl::GetFlag(FLAGS_chain_preload);
  if (chain) {
    const std::string chain_flag = absl::GetFlag(FLAGS_chain);
    for (const std::string& node : std::vector<std::string>(absl::StrSplit(chain_flag, ',', absl::SkipEmpty()))) {
      const size_t colon = node.rfind(':');
      const std::optional<uint32_t> ip =
          colon == std::string::npos ? std::nullopt : nanopu::parse_ipv4(node.substr(0, colon));
      uint32_t ctx = 0;
      if (!ip || !absl::SimpleAtoi(node.substr(colon + 1), &ctx) || ctx > 0xffff)
        return fail("--chain: '" + node + "' is not IP:CONTEXT (e.g. 10.0.0.1:5)");
      cho.chain.push_back(nanopu::apps::chain_node(*ip, static_cast<uint16_t>(ctx)));
    }
    if (cho.chain.empty() || cho.chain.size() > nanopu::apps::kChainMaxNodes + 1)
      return fail("--chain: give 1..256 replicas, head first, as IP:CONTEXT,...");
    if (o.context > 0xff) return fail("--context must be < 256 with --service=chain (8 bits in its layout)");
    if (cho.keys == 0 || cho.keys > (1u << 24)) return fail("--chain_keys must be 1..16777216");
    if (!(cho.write_fraction >= 0 && cho.write_fraction <= 1))
      return fail("--chain_write_fraction must be 0..1");
    if (o.outstanding > 127) return fail("--outstanding must be <= 127 with --service=chain (8-bit seq)");
  }
  nanopu::apps::KvOptions kvo;
  kvo.keys = absl::GetFlag(FLAGS_kv_keys);
  kvo.set_fraction = absl::GetFlag(FLAGS_kv_set_fraction);
  kvo.partitions = absl::GetFlag(FLAGS_kv_partitions);
  kvo.jbsq = absl::GetFlag(FLAGS_kv_jbsq);
  kvo.preload = absl::GetFlag(FLAGS_kv_preload);
  const std::string kv_variant = absl::GetFlag(FLAGS_kv_variant);
  if (kv_variant != "register-file" && kv_variant != "naive")
    return fail("--kv_variant must be 'register-file' or 'naive'");
  const bool kv_naive = kv_variant == "naive";
  if (kv && (kvo.keys == 0 || kvo.keys > (1u << 24))) return fail("--kv_keys must be 1..16777216");
  if (kv && !(kvo.set_fraction >= 0 && kvo.set_fraction <= 1)) return fail("--kv_set_fraction must be 0..1");
  if (kv && (kvo.partitions == 0 || o.server_context + kvo.partitions > 0x10000))
    return fail("--kv_partitions must be >= 1, with --server_context + it below 65536");
  const std::string expect = absl::GetFlag(FLAGS_expect);
  if (expect == "echo") o.expect = nanopu::apps::Expect::kEcho;
  else if (expect == "increment") o.expect = nanopu::apps::Expect::kIncrement;
  else if (expect == "none") o.expect = nanopu::apps::Expect::kNone;
  else return fail("--expect: use echo, increment or none");
  o.drain_timeout_s = absl::GetFlag(FLAGS_drain_timeout);
  o.progress = absl::GetFlag(FLAGS_progress);
  o.stop_server = absl::GetFlag(FLAGS_stop_server);
  o.seed = absl::GetFlag(FLAGS_seed);
  absl::StatusOr<nanopu::timing::TimingParams> timing =
      nanopu::timing::builtin_timing_params(absl::GetFlag(FLAGS_timing_params));
  if (!timing.ok()) return fail("--timing_params: " + std::string(timing.status().message()));

  absl::StatusOr<std::unique_ptr<nanopu::Runtime>> rt = nanopu::Runtime::create(*config);
  if (!rt.ok()) {
    std::fprintf(stderr, "nanopu-loadgen: %s\n", std::string(rt.status().message()).c_str());
    return 1;
  }
  std::string calibration_json;
  if (absl::GetFlag(FLAGS_calibrate)) {
    const nanopu::timing::TimingModel model(*timing);
    const nanopu::timing::HostCosts costs = nanopu::timing::calibrate_host();
    std::fprintf(stderr, "nanopu-loadgen: %s\n", nanopu::timing::describe_calibration(costs, model).c_str());
    calibration_json = nanopu::timing::calibration_json(costs, model);
  }
  nanopu::apps::LoadGenResult result;
  nanopu::apps::KvResult kv_result;
  nanopu::apps::ChainLoadResult chain_result;
  nanopu::apps::RdmaLoadResult rdma_result;
  nanopu::apps::RaftLoadResult raft_result;
  absl::StatusOr<nanopu::Thread*> t = (*rt)->spawn([&](nanopu::Thread& th) {
    if (kv) nanopu::apps::run_kv_client(th, o, kvo, &result, &kv_result);
    else if (chain) nanopu::apps::run_chain_client(th, o, cho, &result, &chain_result);
    else if (rdma) nanopu::apps::run_rdma_client(th, o, rdo, &result, &rdma_result);
    else if (raft) nanopu::apps::run_raft_client(th, o, rao, &result, &raft_result);
    else nanopu::apps::run_loadgen(th, o, &result);
  });
  if (!t.ok()) {
    std::fprintf(stderr, "nanopu-loadgen: %s\n", std::string(t.status().message()).c_str());
    return 1;
  }
  nanopu::Runtime::install_signal_handlers();
  if (absl::Status s = (*rt)->run(); !s.ok()) {
    std::fprintf(stderr, "nanopu-loadgen: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  if (!result.error.empty()) {
    std::fprintf(stderr, "nanopu-loadgen: %s\n", result.error.c_str());
    return 1;
  }
  if (kv) {
    result.modelled = nanopu::apps::model_kv_latency(o, kvo.set_fraction, kvo.partitions, kvo.jbsq,
                                                     kv_naive, result.received, *timing);
    o.msg_bytes = nanopu::apps::kKvSetBytes;
  } else if (raft) {
    result.modelled = nanopu::apps::model_raft_latency(o, rao.cluster.size(), result.received, *timing);
    o.msg_bytes = nanopu::apps::raft_client_request_len(nanopu::apps::RaftOp::kPut);
  } else if (rdma) {
    result.modelled = nanopu::apps::model_rdma_latency(o, result.received, *timing);
    o.msg_bytes = 40;
  } else if (chain) {
    result.modelled = nanopu::apps::model_chain_latency(o, cho.chain.size(), cho.write_fraction, result.received,
                                                       *timing);
    o.msg_bytes = nanopu::apps::chain_len(static_cast<uint32_t>(cho.chain.size() - 1), true);
  } else {
    result.modelled = nanopu::apps::model_latency(o, result.received, *timing);
  }
  nanopu::apps::print_result(stdout, o, result);
  if (kv)
    std::printf("  kv: %llu GETs (%llu hits), %llu SETs over %u keys%s\n",
                static_cast<unsigned long long>(kv_result.gets),
                static_cast<unsigned long long>(kv_result.get_hits),
                static_cast<unsigned long long>(kv_result.sets), kvo.keys,
                kvo.jbsq ? " (jbsq: misses and older values expected)" : "");
  if (chain)
    std::printf("  chain: %llu WRITEs through %zu replicas, %llu READs at the tail (%llu hits) over %u keys\n",
                static_cast<unsigned long long>(chain_result.writes), cho.chain.size(),
                static_cast<unsigned long long>(chain_result.reads),
                static_cast<unsigned long long>(chain_result.read_hits), cho.keys);
  if (raft)
    std::printf("  raft: %llu PUTs, %llu GETs (%llu hits) over %u keys; %llu redirects, %llu sent "
                "again, %llu given up by the transport (and sent again)\n",
                static_cast<unsigned long long>(raft_result.puts),
                static_cast<unsigned long long>(raft_result.gets),
                static_cast<unsigned long long>(raft_result.get_hits), rao.keys,
                static_cast<unsigned long long>(raft_result.redirects),
                static_cast<unsigned long long>(raft_result.resent),
                static_cast<unsigned long long>(raft_result.transport_give_ups));
  if (rdma && rdo.mode == nanopu::apps::RdmaLoadMode::kMix)
    std::printf("  rdma: %llu reads, %llu writes, %llu CAS (%llu swapped), %llu fetch-and-add, "
                "%llu indirect reads, every reply checked against the slice's image\n",
                static_cast<unsigned long long>(rdma_result.reads),
                static_cast<unsigned long long>(rdma_result.writes),
                static_cast<unsigned long long>(rdma_result.cas),
                static_cast<unsigned long long>(rdma_result.cas_swapped),
                static_cast<unsigned long long>(rdma_result.faa),
                static_cast<unsigned long long>(rdma_result.indirect_reads));
  else if (rdma)
    std::printf("  rdma: counter at %llu: %llu increments by this client, value at the end %llu\n",
                static_cast<unsigned long long>(rdo.base),
                static_cast<unsigned long long>(rdma_result.increments),
                static_cast<unsigned long long>(rdma_result.final_value));
  if (absl::GetFlag(FLAGS_stats)) (*rt)->print_stats(stderr);
  const std::string json_path = absl::GetFlag(FLAGS_json);
  if (!json_path.empty()) {
    std::string js = nanopu::apps::result_json(o, result);
    if (kv)
      js.insert(js.size() - 1, ",\"service\":\"kv\",\"kv\":{\"gets\":" + std::to_string(kv_result.gets) +
                                   ",\"get_hits\":" + std::to_string(kv_result.get_hits) +
                                   ",\"sets\":" + std::to_string(kv_result.sets) +
                                   ",\"keys\":" + std::to_string(kvo.keys) + "}");
    if (chain)
      js.insert(js.size() - 1, ",\"service\":\"chain\",\"chain\":{\"replicas\":" +
                                   std::to_string(cho.chain.size()) +
                                   ",\"writes\":" + std::to_string(chain_result.writes) +
                                   ",\"reads\":" + std::to_string(chain_result.reads) +
                                   ",\"read_hits\":" + std::to_string(chain_result.read_hits) +
                                   ",\"keys\":" + std::to_string(cho.keys) + "}");
    if (raft)
      js.insert(js.size() - 1, ",\"service\":\"raft\",\"raft\":{\"puts\":" +
                                   std::to_string(raft_result.puts) +
                                   ",\"gets\":" + std::to_string(raft_result.gets) +
                                   ",\"get_hits\":" + std::to_string(raft_result.get_hits) +
                                   ",\"redirects\":" + std::to_string(raft_result.redirects) +
                                   ",\"resent\":" + std::to_string(raft_result.resent) + "}");
    if (rdma)
      js.insert(js.size() - 1, ",\"service\":\"rdma\",\"rdma\":{\"reads\":" +
                                   std::to_string(rdma_result.reads) +
                                   ",\"writes\":" + std::to_string(rdma_result.writes) +
                                   ",\"cas\":" + std::to_string(rdma_result.cas) +
                                   ",\"cas_swapped\":" + std::to_string(rdma_result.cas_swapped) +
                                   ",\"faa\":" + std::to_string(rdma_result.faa) +
                                   ",\"indirect_reads\":" + std::to_string(rdma_result.indirect_reads) +
                                   ",\"increments\":" + std::to_string(rdma_result.increments) +
                                   ",\"final_value\":" + std::to_string(rdma_result.final_value) + "}");
    if (!calibration_json.empty()) js.insert(js.size() - 1, ",\"calibration\":" + calibration_json);
    js += "\n";
    if (json_path == "-") {
      std::fputs(js.c_str(), stdout);
    } else {
      std::ofstream f(json_path);
      f << js;
      if (!f) return fail("cannot write --json file " + json_path);
    }
  }
  const bool clean =
      result.lost == 0 && result.given_up == 0 && result.bad_replies == 0 && result.duplicates == 0 &&
      result.received > 0;
  return clean ? 0 : 3;
}
