// nanopu-server: the services of apps/ on one emulated nanoPU host.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <utility>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "apps/boot/boot_message.h"
#include "apps/chain/chain_replica.h"
#include "apps/dot/dot_service.h"
#include "apps/loopback/loopback.h"
#include "apps/mica/kv_service.h"
#include "apps/othello/othello_service.h"
#include "apps/raft/raft_service.h"
#include "apps/rdma/rdma_service.h"
#include "apps/server/compute_apps.h"
#include "nanopu/address.h"
#include "nanopu/flags.h"
#include "nanopu/runtime.h"

ABSL_FLAG(bool, check_flags, false,
          "Check every flag, then exit: 0 if they are all good, 2 with one line naming the bad "
          "one (deployment scripts validate a topology this way; nothing is started).");
ABSL_FLAG(std::string, app, "echo",
          "Service to run: 'echo' (reply = request), 'increment' (every word + 1), 'service' "
          "(docs/apps.md load-generator service: spin service_time cycles at 3.2 GHz, then echo; "
          "service_time 0 ends the thread), 'lnic-increment' (the paper's Listing 1 written "
          "with lnic.h), 'kv' (MICA key-value store, register-file variant: values move "
          "between FIFOs and the store's log directly), 'kv-naive' (the same store, values "
          "copied through memory first), 'chain' (a chain-replication replica: stores WRITEs, "
          "forwards them down the chain the message names, acknowledges at the tail, answers "
          "READs; run one per host), 'rdma' (one-sided read, write, compare-and-swap, "
          "fetch-and-add and indirect read on a registered region of --rdma_region_kb, every "
          "access bounds-checked; all threads share the region), 'raft' (a Raft server of "
          "--raft_cluster with a 16-byte-key, 64-byte-value store), 'dot' (dot product against "
          "weight[i] = i, words multiplied as they are read from the FIFO; the packet tester's "
          "and Listing 2's layouts), 'dot-naive' (the same, the message copied to memory first), "
          "'service-tester' (the packet tester's service-time layout: CONFIG {0, ...} not "
          "answered, DATA {1, service_time, ...} spun then echoed), 'loopback-throughput' (the "
          "tester's throughput layout: DATA echoed, the last of a CONFIG's num_msgs carrying its "
          "timestamp), and the compute services 'setint' (set intersection: an inverted index over "
          "--setint_corpus), 'hdsearch' (nearest of 256 stored 16-dimension vectors), 'nbody' (a "
          "Barnes-Hut node's force on a body), 'classifier' (--classifier_rules 5-tuple rules by "
          "tuple space search), 'int' (INT telemetry collector: path latency, heavy-hitter "
          "flows), each also as NAME-traditional (the message copied to memory first, the reply "
          "built in memory), and 'othello' (game-tree search as map/reduce: with --othello_workers "
          "this host fans a MAP's children out to them and reduces their minimax values; without, "
          "it searches). docs/apps.md has the message layouts.");
ABSL_FLAG(std::string, app_mode, "register-file",
          "How messages reach the service: 'register-file' (the nanoPU's path: words read from the "
          "RX FIFO and written to the TX FIFO one at a time) or 'traditional' (a traditional NIC's: "
          "each request copied whole into memory, the reply built there and handed over whole; "
          "nanopu/memory_message.h). 'traditional' serves echo, increment, service, service-tester, "
          "loopback-throughput and the compute services (for those the same as NAME-traditional); "
          "compare the two with nanopu-loadgen --app_mode on the client too.");
ABSL_FLAG(std::string, othello_workers, "",
          "othello: the worker hosts a MAP's children go to, round-robin, as IP:CONTEXT,... (each "
          "running --app=othello). Empty: search every MAP here.");
ABSL_FLAG(uint32_t, othello_fanout_depth, 1,
          "othello: fan out MAPs whose cur_depth is below this (with --othello_workers).");
ABSL_FLAG(std::string, setint_corpus, "/usr/share/common-licenses",
          "setint: the documents' directory; each paragraph of each regular file is a document "
          "(default: the license texts of base-files, the same on every Debian 12 host).");
ABSL_FLAG(uint32_t, setint_documents, 100,
          "setint: documents indexed, spread evenly over the corpus's paragraphs (0: all); the "
          "default is the paper's scale, 100 articles.");
ABSL_FLAG(uint32_t, setint_words, 200,
          "setint: words indexed, the commonest (0: all); the paper's scale is 200.");
ABSL_FLAG(uint32_t, classifier_rules, 10000, "classifier: rules drawn by the ClassBench-style generator.");
ABSL_FLAG(uint64_t, int_heavy_threshold, 64, "int: reports from which a flow is a heavy hitter.");
ABSL_FLAG(bool, jbsq, false,
          "compute services: every thread binds --context, and the NIC spreads requests over "
          "the workers by JBSQ (at most one thread per worker core). Default: thread i binds "
          "--context + i.");
ABSL_FLAG(std::string, raft_cluster, "",
          "raft: every server of the cluster as IP:CONTEXT,... in the same order on each; this "
          "server is the entry with its --ip and --context (e.g. "
          "10.0.0.1:5,10.0.0.3:5,10.0.0.4:5). State is in memory only: a restarted server must "
          "not rejoin under the same entry.");
ABSL_FLAG(double, raft_election_ms, 300,
          "raft: election timeout, drawn uniformly from [this, 2 x this] ms after the last word "
          "from a leader.");
ABSL_FLAG(double, raft_heartbeat_ms, 20, "raft: a leader's heartbeat period, ms.");
ABSL_FLAG(uint32_t, rdma_region_kb, 1024, "rdma: the registered region, KiB (zeroed at start).");
ABSL_FLAG(bool, kv_jbsq, false,
          "kv: every thread binds --context (JBSQ spreads requests over the workers, each "
          "with its own partition, as the paper measured it: a GET may then miss a SET "
          "another core served). Default: thread i binds --context + i and owns the keys a "
          "client sends there (static partitioning by key hash).");
ABSL_FLAG(std::string, boot_msg, "",
          "IP:CONTEXT (e.g. 10.0.0.2:7): once at start, send the nanoPU test applications' boot "
          "message there (docs/apps.md: 8 bytes of zero from context 0), so a tester knows the "
          "service is up. Empty: none.");
ABSL_FLAG(uint32_t, kv_log_mb, 16, "kv: each partition's circular log, MiB (items are 536 bytes).");
ABSL_FLAG(uint32_t, context, 1, "First context (L4 port) served.");
ABSL_FLAG(uint32_t, threads, 1,
          "Threads to run; thread i serves context + i, spread round-robin over the workers.");
ABSL_FLAG(uint32_t, priority, 0, "Priority of the service threads (0 is best).");
ABSL_FLAG(bool, stats, true, "Print the NIC and thread counters on exit.");

int main(int argc, char** argv) {
  nanopu::init_flags_usage(
      "run loopback services on an emulated nanoPU host.\n"
      "Example (server end of a net_memif pair, NIC and worker on lcore 1):\n"
      "  nanopu-server --lcores=1 --vdev='net_memif0,role=server,socket=/tmp/nanopu.sock'\n"
      "Stop with Ctrl-C (SIGINT) or SIGTERM; counters are printed on exit.");
  absl::ParseCommandLine(argc, argv);
  absl::StatusOr<nanopu::Config> config = nanopu::Config::from_flags();
  if (!config.ok()) {
    std::fprintf(stderr, "nanopu-server: %s\n", std::string(config.status().message()).c_str());
    return 2;
  }
  const std::string app = absl::GetFlag(FLAGS_app);
  nanopu::apps::LoopbackMode mode = nanopu::apps::LoopbackMode::kEcho;
  bool lnic = false;
  if (app == "echo") mode = nanopu::apps::LoopbackMode::kEcho;
  else if (app == "increment") mode = nanopu::apps::LoopbackMode::kIncrement;
  else if (app == "service") mode = nanopu::apps::LoopbackMode::kService;
  else if (app == "service-tester") mode = nanopu::apps::LoopbackMode::kServiceTester;
  else if (app == "loopback-throughput") mode = nanopu::apps::LoopbackMode::kThroughput;
  else if (app == "lnic-increment") lnic = true;
  const bool dot = app == "dot" || app == "dot-naive";
  const bool kv = app == "kv" || app == "kv-naive";
  const bool chain = app == "chain";
  const bool rdma = app == "rdma";
  const bool raft = app == "raft";
  const bool compute = nanopu::apps::is_compute_app(app);
  const bool othello = app == "othello";
  if (!kv && !chain && !rdma && !raft && !dot && !compute && !othello && app != "echo" && app != "increment" &&
      app != "service" && app != "service-tester" && app != "loopback-throughput" &&
      app != "lnic-increment") {
    std::fprintf(stderr,
                 "nanopu-server: --app='%s': use echo, increment, service, service-tester, "
                 "loopback-throughput, lnic-increment, kv, kv-naive, chain, rdma, raft, dot, "
                 "dot-naive, setint, hdsearch, nbody, classifier, int (each of these five "
                 "also as NAME-traditional) or othello\n",
                 app.c_str());
    return 2;
  }
  const std::optional<nanopu::apps::MessagePath> app_mode =
      nanopu::apps::parse_app_mode(absl::GetFlag(FLAGS_app_mode));
  if (!app_mode) {
    std::fprintf(stderr, "nanopu-server: --app_mode='%s': use register-file or traditional\n",
                 absl::GetFlag(FLAGS_app_mode).c_str());
    return 2;
  }
  const bool traditional = *app_mode == nanopu::apps::MessagePath::kMemory;
  const bool loopback = !kv && !chain && !rdma && !raft && !dot && !compute && !othello && !lnic;
  if (traditional && !loopback && !compute) {
    std::fprintf(stderr,
                 "nanopu-server: --app_mode=traditional: --app=%s has no traditional variant; it serves "
                 "echo, increment, service, service-tester, loopback-throughput and the compute services "
                 "(dot and kv have the paper's software-copy variants instead: --app=dot-naive, "
                 "--app=kv-naive)\n",
                 app.c_str());
    return 2;
  }
  std::optional<std::pair<uint32_t, uint16_t>> boot;
  if (const std::string b = absl::GetFlag(FLAGS_boot_msg); !b.empty()) {
    const size_t colon = b.rfind(':');
    const std::optional<uint32_t> ip =
        colon == std::string::npos ? std::nullopt : nanopu::parse_ipv4(b.substr(0, colon));
    char* end = nullptr;
    const unsigned long ctx = colon == std::string::npos ? 0 : std::strtoul(b.c_str() + colon + 1, &end, 10);
    if (!ip || end == nullptr || *end != '\0' || end == b.c_str() + colon + 1 || ctx > 0xffff) {
      std::fprintf(stderr, "nanopu-server: --boot_msg='%s': expected IP:CONTEXT, e.g. 10.0.0.2:7\n",
                   b.c_str());
      return 2;
    }
    boot = std::make_pair(*ip, static_cast<uint16_t>(ctx));
  }
  const bool kv_jbsq = absl::GetFlag(FLAGS_kv_jbsq);
  const uint32_t kv_log_mb = absl::GetFlag(FLAGS_kv_log_mb);
  if (kv && (kv_log_mb == 0 || kv_log_mb > 65536)) {
    std::fprintf(stderr, "nanopu-server: --kv_log_mb must be 1..65536\n");
    return 2;
  }
  const uint32_t first = absl::GetFlag(FLAGS_context);
  const uint32_t threads = absl::GetFlag(FLAGS_threads);
  const uint32_t priority = absl::GetFlag(FLAGS_priority);
  if (threads == 0 || first + threads > 0x10000 || priority > 0xff) {
    std::fprintf(stderr, "nanopu-server: --context + --threads must stay below 65536, --threads >= 1, "
                         "--priority <= 255\n");
    return 2;
  }

  const uint32_t workers = static_cast<uint32_t>(config->worker_count());
  const bool jbsq = compute && absl::GetFlag(FLAGS_jbsq);
  if (jbsq && threads > workers) {
    std::fprintf(stderr, "nanopu-server: --jbsq: %u threads share one context, but there are %u worker cores\n",
                 threads, workers);
    return 2;
  }
  nanopu::apps::ComputeApp compute_app;
  std::vector<nanopu::apps::ComputeStats> compute_stats(compute ? threads : 0);
  if (compute) {
    nanopu::apps::ComputeAppOptions co;
    co.corpus_dir = absl::GetFlag(FLAGS_setint_corpus);
    co.setint_documents = absl::GetFlag(FLAGS_setint_documents);
    co.setint_words = absl::GetFlag(FLAGS_setint_words);
    co.classifier_rules = absl::GetFlag(FLAGS_classifier_rules);
    co.int_heavy_threshold = absl::GetFlag(FLAGS_int_heavy_threshold);
    absl::StatusOr<nanopu::apps::ComputeApp> c = nanopu::apps::make_compute_app(app, threads, co);
    if (!c.ok()) {
      std::fprintf(stderr, "nanopu-server: %s\n", std::string(c.status().message()).c_str());
      return 2;
    }
    compute_app = std::move(*c);
    if (traditional) compute_app.path = nanopu::apps::MessagePath::kMemory;
    std::fprintf(stderr, "nanopu-server: %s: %s\n", app.c_str(), compute_app.what.c_str());
  }
  nanopu::apps::OthelloOptions othello_options;
  std::vector<nanopu::apps::OthelloStats> othello_stats(othello ? threads : 0);
  if (othello) {
    if (const std::string workers_flag = absl::GetFlag(FLAGS_othello_workers); !workers_flag.empty()) {
      absl::StatusOr<std::vector<nanopu::apps::Peer>> w = nanopu::apps::parse_peer_list(workers_flag);
      if (!w.ok()) {
        std::fprintf(stderr, "nanopu-server: --othello_workers: %s\n", std::string(w.status().message()).c_str());
        return 2;
      }
      othello_options.workers = std::move(*w);
    }
    othello_options.fanout_depth = absl::GetFlag(FLAGS_othello_fanout_depth);
  }
  if (absl::GetFlag(FLAGS_check_flags)) return 0;  // every flag checked; nothing started
  absl::StatusOr<std::unique_ptr<nanopu::Runtime>> rt = nanopu::Runtime::create(*config);
  if (!rt.ok()) {
    std::fprintf(stderr, "nanopu-server: %s\n", std::string(rt.status().message()).c_str());
    return 1;
  }
  if (kv && kv_jbsq && threads > workers) {
    std::fprintf(stderr,
                 "nanopu-server: --kv_jbsq: %u threads share one context, but there are %u "
                 "worker cores and threads on one core cannot share a context\n",
                 threads, workers);
    return 2;
  }
  // One store and one set of counters per kv thread (its partition).
  std::vector<std::unique_ptr<nanopu::apps::MicaTable>> tables;
  std::vector<nanopu::apps::KvServiceStats> kv_stats(threads);
  for (uint32_t i = 0; kv && i < threads; ++i) {
    nanopu::apps::MicaTableParams tp;
    tp.log_bytes = size_t{kv_log_mb} << 20;
    tables.push_back(std::make_unique<nanopu::apps::MicaTable>(tp));
  }
  // One replica store per chain thread (each a replica of its own chain).
  std::vector<nanopu::apps::ChainStore> chain_stores(chain ? threads : 0);
  std::vector<nanopu::apps::ChainReplicaStats> chain_stats(chain ? threads : 0);
  const uint32_t rdma_kb = absl::GetFlag(FLAGS_rdma_region_kb);
  if (rdma && (rdma_kb == 0 || rdma_kb > (16u << 20))) {
    std::fprintf(stderr, "nanopu-server: --rdma_region_kb must be 1..16777216\n");
    return 2;
  }
  std::vector<nanopu::apps::RaftServer> raft_cluster;
  nanopu::apps::RaftNodeConfig raft_config;
  nanopu::apps::RaftStats raft_stats;
  if (raft) {
    absl::StatusOr<std::vector<nanopu::apps::RaftServer>> c =
        nanopu::apps::parse_peer_list(absl::GetFlag(FLAGS_raft_cluster));
    if (!c.ok()) {
      std::fprintf(stderr, "nanopu-server: --raft_cluster: %s\n", std::string(c.status().message()).c_str());
      return 2;
    }
    raft_cluster = *c;
    const auto self = std::find_if(raft_cluster.begin(), raft_cluster.end(), [&](const auto& r) {
      return r.ip == config->ip && r.context == first;
    });
    if (self == raft_cluster.end() || threads != 1) {
      std::fprintf(stderr, "nanopu-server: --raft_cluster must name this server (--ip, --context), "
                           "and a raft server runs one thread\n");
      return 2;
    }
    raft_config.self = static_cast<uint32_t>(self - raft_cluster.begin());
    raft_config.servers = static_cast<uint32_t>(raft_cluster.size());
    raft_config.election_min_ms = absl::GetFlag(FLAGS_raft_election_ms);
    raft_config.election_max_ms = 2 * raft_config.election_min_ms;
    raft_config.heartbeat_ms = absl::GetFlag(FLAGS_raft_heartbeat_ms);
    raft_config.seed = config->ip ^ static_cast<uint64_t>(getpid());
    if (!(raft_config.heartbeat_ms > 0) || raft_config.election_min_ms < 2 * raft_config.heartbeat_ms) {
      std::fprintf(stderr, "nanopu-server: --raft_heartbeat_ms must be > 0 and at most half of "
                           "--raft_election_ms\n");
      return 2;
    }
  }
  std::unique_ptr<nanopu::apps::RdmaRegion> region =
      rdma ? std::make_unique<nanopu::apps::RdmaRegion>(size_t{rdma_kb} << 10) : nullptr;
  std::vector<nanopu::apps::RdmaServiceStats> rdma_stats(rdma ? threads : 0);
  std::vector<nanopu::apps::DotStats> dot_stats(dot ? threads : 0);
  const auto dot_variant = app == "dot" ? nanopu::apps::DotVariant::kOptimal : nanopu::apps::DotVariant::kNaive;
  const auto variant = app == "kv" ? nanopu::apps::KvVariant::kRegisterFile
                                   : nanopu::apps::KvVariant::kNaive;
  for (uint32_t i = 0; i < threads; ++i) {
    const auto ctx = static_cast<uint16_t>((kv && kv_jbsq) || jbsq ? first : first + i);
    nanopu::apps::WordService* ws = compute ? compute_app.threads[i].get() : nullptr;
    nanopu::apps::ComputeStats* cmst = compute ? &compute_stats[i] : nullptr;
    const nanopu::apps::MessagePath path = compute_app.path;
    nanopu::apps::OthelloStats* ost = othello ? &othello_stats[i] : nullptr;
    const uint32_t self_ip = config->ip;
    nanopu::apps::MicaTable* table = kv ? tables[i].get() : nullptr;
    nanopu::apps::KvServiceStats* st = &kv_stats[i];
    nanopu::apps::ChainStore* cstore = chain ? &chain_stores[i] : nullptr;
    nanopu::apps::ChainReplicaStats* cst = chain ? &chain_stats[i] : nullptr;
    nanopu::apps::RdmaRegion* reg = region.get();
    nanopu::apps::RaftStats* raft_st = &raft_stats;
    nanopu::apps::RdmaServiceStats* rst = rdma ? &rdma_stats[i] : nullptr;
    nanopu::apps::DotStats* dst = dot ? &dot_stats[i] : nullptr;
    auto body = [=](nanopu::Thread& t) {
      if (lnic) nanopu_lnic_loopback_plus1(ctx);
      else if (rdma) (void)nanopu::apps::serve_rdma(t, ctx, static_cast<uint8_t>(priority), reg, rst);
      else if (raft)
        (void)nanopu::apps::serve_raft(t, static_cast<uint8_t>(priority), raft_cluster, raft_config,
                                       raft_st);
      else if (chain) (void)nanopu::apps::serve_chain(t, ctx, static_cast<uint8_t>(priority), cstore, cst);
      else if (ost != nullptr)
        (void)nanopu::apps::serve_othello(t, self_ip, ctx, static_cast<uint8_t>(priority), othello_options, ost);
      else if (ws != nullptr) (void)nanopu::apps::serve_words(t, ctx, static_cast<uint8_t>(priority), *ws, path, cmst);
      else if (dot) (void)nanopu::apps::serve_dot(t, ctx, static_cast<uint8_t>(priority), dot_variant, dst);
      else if (kv) (void)nanopu::apps::serve_kv(t, ctx, static_cast<uint8_t>(priority), variant, table, st);
      else (void)nanopu::apps::serve_loopback(t, ctx, static_cast<uint8_t>(priority), mode, *app_mode);
    };
    if (absl::StatusOr<nanopu::Thread*> t = (*rt)->spawn(body, i % workers); !t.ok()) {
      std::fprintf(stderr, "nanopu-server: %s\n", std::string(t.status().message()).c_str());
      return 1;
    }
  }
  if (boot) {  // after the service threads: they bind first
    const auto [ip, ctx] = *boot;
    auto announce = [ip = ip, ctx = ctx](nanopu::Thread& t) {
      if (!nanopu::apps::send_boot_message(t, ip, ctx))
        std::fprintf(stderr, "nanopu-server: could not send the boot message (is context %u free?)\n",
                     nanopu::apps::kBootContext);
    };
    if (absl::StatusOr<nanopu::Thread*> t = (*rt)->spawn(announce, 0); !t.ok()) {
      std::fprintf(stderr, "nanopu-server: %s\n", std::string(t.status().message()).c_str());
      return 1;
    }
  }
  nanopu::Runtime::install_signal_handlers();
  std::fprintf(stderr, "nanopu-server: %s on %u.%u.%u.%u contexts %u..%u, %u worker(s)%s; Ctrl-C stops\n",
               app.c_str(), config->ip >> 24, (config->ip >> 16) & 0xff, (config->ip >> 8) & 0xff,
               config->ip & 0xff, first, (kv && kv_jbsq) || jbsq ? first : first + threads - 1, workers,
               config->shared_core() ? " sharing the NIC core" : "");
  if (absl::Status s = (*rt)->run(); !s.ok()) {
    std::fprintf(stderr, "nanopu-server: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  if (absl::GetFlag(FLAGS_stats)) {
    (*rt)->print_stats(stderr);
    for (uint32_t i = 0; kv && i < threads; ++i) {
      const nanopu::apps::KvServiceStats& s = kv_stats[i];
      std::fprintf(stderr,
                   "  kv%u.gets %llu\n  kv%u.get_hits %llu\n  kv%u.sets %llu\n  kv%u.bad_requests %llu\n"
                   "  kv%u.dropped %llu\n  kv%u.evictions %llu\n  kv%u.overwritten %llu\n",
                   i, static_cast<unsigned long long>(s.gets), i,
                   static_cast<unsigned long long>(s.get_hits), i,
                   static_cast<unsigned long long>(s.sets), i,
                   static_cast<unsigned long long>(s.bad_requests), i,
                   static_cast<unsigned long long>(s.dropped), i,
                   static_cast<unsigned long long>(tables[i]->evictions()), i,
                   static_cast<unsigned long long>(tables[i]->overwritten()));
    }
    for (uint32_t i = 0; chain && i < threads; ++i) {
      const nanopu::apps::ChainReplicaStats& s = chain_stats[i];
      std::fprintf(stderr,
                   "  chain%u.writes %llu\n  chain%u.stale_writes %llu\n  chain%u.forwarded %llu\n"
                   "  chain%u.acks %llu\n  chain%u.reads %llu\n  chain%u.read_misses %llu\n"
                   "  chain%u.bad %llu\n  chain%u.dropped %llu\n  chain%u.keys %zu\n",
                   i, static_cast<unsigned long long>(s.writes), i,
                   static_cast<unsigned long long>(s.stale_writes), i,
                   static_cast<unsigned long long>(s.forwarded), i,
                   static_cast<unsigned long long>(s.acks), i, static_cast<unsigned long long>(s.reads),
                   i, static_cast<unsigned long long>(s.read_misses), i,
                   static_cast<unsigned long long>(s.bad), i, static_cast<unsigned long long>(s.dropped),
                   i, chain_stores[i].size());
    }
    if (raft) {
      const std::pair<const char*, uint64_t> counters[] = {
          {"elections", raft_stats.elections}, {"terms_led", raft_stats.terms_led},
          {"client_requests", raft_stats.client_requests}, {"redirects", raft_stats.redirects},
          {"committed", raft_stats.committed}, {"puts_applied", raft_stats.puts_applied},
          {"gets_applied", raft_stats.gets_applied}, {"resent_requests", raft_stats.resent_requests},
          {"bad", raft_stats.bad}};
      for (const auto& [name, value] : counters)
        std::fprintf(stderr, "  raft.%s %llu\n", name, static_cast<unsigned long long>(value));
    }
    for (uint32_t i = 0; dot && i < threads; ++i) {
      const nanopu::apps::DotStats& s = dot_stats[i];
      const std::pair<const char*, uint64_t> counters[] = {
          {"requests", s.requests}, {"configs", s.configs}, {"errors", s.errors}, {"dropped", s.dropped}};
      for (const auto& [name, value] : counters)
        std::fprintf(stderr, "  dot%u.%s %llu\n", i, name, static_cast<unsigned long long>(value));
    }
    for (uint32_t i = 0; othello && i < threads; ++i) {
      const nanopu::apps::OthelloStats& s = othello_stats[i];
      const std::pair<const char*, uint64_t> counters[] = {
          {"maps", s.maps},     {"searched", s.searched}, {"fanned_out", s.fanned_out},
          {"reduces", s.reduces}, {"errors", s.errors},   {"stray", s.stray},
          {"dropped", s.dropped}, {"nodes", s.nodes},     {"send_failures", s.send_failures}};
      for (const auto& [name, value] : counters)
        std::fprintf(stderr, "  othello%u.%s %llu\n", i, name, static_cast<unsigned long long>(value));
    }
    for (uint32_t i = 0; compute && i < threads; ++i) {
      const nanopu::apps::ComputeStats& s = compute_stats[i];
      const std::pair<const char*, uint64_t> counters[] = {
          {"requests", s.requests}, {"configs", s.configs}, {"errors", s.errors}, {"dropped", s.dropped}};
      for (const auto& [name, value] : counters)
        std::fprintf(stderr, "  compute%u.%s %llu\n", i, name, static_cast<unsigned long long>(value));
    }
    for (uint32_t i = 0; rdma && i < threads; ++i) {
      const nanopu::apps::RdmaServiceStats& s = rdma_stats[i];
      const std::pair<const char*, uint64_t> counters[] = {
          {"reads", s.reads}, {"writes", s.writes}, {"cas", s.cas}, {"cas_swapped", s.cas_swapped},
          {"faa", s.faa}, {"indirect_reads", s.indirect_reads}, {"out_of_range", s.out_of_range},
          {"bad_requests", s.bad_requests}, {"dropped", s.dropped}};
      for (const auto& [name, value] : counters)
        std::fprintf(stderr, "  rdma%u.%s %llu\n", i, name, static_cast<unsigned long long>(value));
    }
  }
  return 0;
}
