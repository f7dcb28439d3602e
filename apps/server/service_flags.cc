#include "apps/server/service_flags.h"

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, setint_corpus, "/usr/share/common-licenses",
          "setint: the documents' directory; each paragraph of each regular file is a document "
          "(default: the license texts of base-files, the same on every Debian 12 host). A client "
          "computes every answer from it: give it the server's.");
ABSL_FLAG(uint32_t, setint_documents, 100,
          "setint: documents indexed, spread evenly over the corpus's paragraphs (0: all); the "
          "default is the paper's scale, 100 articles. A client: the server's.");
ABSL_FLAG(uint32_t, setint_words, 200,
          "setint: words indexed, the commonest (0: all); the paper's scale is 200. A client: the server's.");
ABSL_FLAG(uint32_t, classifier_rules, 10000,
          "classifier: rules drawn by the ClassBench-style generator. A client: the server's.");
ABSL_FLAG(uint64_t, int_heavy_threshold, 64,
          "int: reports from which a flow is a heavy hitter. A client: the server's.");
ABSL_FLAG(bool, kv_jbsq, false,
          "kv: every thread binds --context (JBSQ spreads requests over the workers, each with its "
          "own partition, as the paper measured it: a GET may then miss a SET another core served). "
          "Default: thread i binds --context + i and owns the keys a client sends there (static "
          "partitioning by key hash). A client of such a server: misses and older values are "
          "expected, only a wrong key's value or a corrupt one is bad.");
ABSL_FLAG(std::string, raft_cluster, "",
          "raft: every server of the cluster as IP:CONTEXT,... in the same order on each; a server "
          "is the entry with its --ip and --context (e.g. 10.0.0.1:5,10.0.0.3:5,10.0.0.4:5), a "
          "client sends to the leader, found by redirects. State is in memory only: a restarted "
          "server must not rejoin under the same entry.");
ABSL_FLAG(std::string, othello_workers, "",
          "othello: a root server's worker hosts, to which a MAP's children go round-robin, as "
          "IP:CONTEXT,... (each running --app=othello; empty: search every MAP here). A client: "
          "the root's list, or just how many workers it has, for the modelled column (0 or empty: "
          "the root searches).");
ABSL_FLAG(std::string, chain, "",
          "chain: the replicas, head first, as IP:CONTEXT,... (e.g. 10.0.0.1:5,10.0.0.3:5,10.0.0.4:5). A "
          "replica: its static chain (it must be listed; no --chain_master), or, with a master, the "
          "master's members. A client: where it starts (it learns the current chain from the "
          "replicas' refusals).");
