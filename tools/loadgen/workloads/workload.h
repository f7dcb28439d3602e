// A compute service's client side for nanopu-loadgen (word_load.h): how to
// draw a request, how to find which request a reply answers, and the
// reference computation that says whether the reply is right. Each
// reference is written apart from the service it checks (a brute-force scan
// where the service uses an index, the formula where it uses a table).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nanopu/seeded_draw.h"
#include "tools/loadgen/modelled_latency.h"

namespace nanopu::apps {

// What a request's check needs, kept while it is in flight.
struct Expected {
  std::vector<uint64_t> reply;  // the exact reply payload, unless check() is overridden
  uint64_t aux = 0;             // a workload's own note
};

class Workload {
 public:
  virtual ~Workload() = default;
  // Messages sent once before the measured run (a CONFIG), not answered.
  [[nodiscard]] virtual std::vector<std::vector<uint64_t>> prologue() const { return {}; }
  // Draws one request carrying `sent_time` (payload words into *request)
  // and what its reply must be.
  virtual void make(SeededDraw& rng, uint64_t sent_time, std::vector<uint64_t>* request, Expected* e) = 0;
  // The tag of the request sent at sent_time, and the tag a reply carries
  // (nullopt: a reply too short to carry one).
  [[nodiscard]] virtual uint64_t tag_of(uint64_t sent_time) const { return sent_time; }
  [[nodiscard]] virtual std::optional<uint64_t> reply_tag(std::span<const uint64_t> reply) const {
    return reply.size() >= 2 ? std::optional<uint64_t>(reply[1]) : std::nullopt;
  }
  // Whether `reply` is the right answer.
  [[nodiscard]] virtual bool check(std::span<const uint64_t> reply, const Expected& e) {
    return std::equal(reply.begin(), reply.end(), e.reply.begin(), e.reply.end());
  }
  // Whether `reply` is one of the service's error replies (counted apart
  // among the bad ones): the status-word convention by default.
  [[nodiscard]] virtual bool is_error_reply(std::span<const uint64_t> reply) const {
    return reply.size() == 4 && reply[2] == ~uint64_t{0};
  }
  // The service's declared work for this request, cycles (modelled column).
  [[nodiscard]] virtual double declared_cycles(std::span<const uint64_t> request) const = 0;
  // One line: what the requests are.
  [[nodiscard]] virtual std::string describe() const = 0;
};

struct WorkloadOptions {
  std::string corpus_dir;          // setint
  uint32_t setint_documents = 100;  // setint: load_corpus's documents and words
  uint32_t setint_words = 200;
  uint32_t classifier_rules = 0;   // classifier
  double zipf_s = 0.99;            // setint: word choice exponent
  uint32_t int_flows = 1000;       // int: distinct flows drawn
  uint64_t int_heavy_threshold = 64;  // int: the collector's --int_heavy_threshold
};

// `n` requests drawn as the client draws them (from `seed`), each as the
// timing model's kind: its bytes each way and its declared work.
[[nodiscard]] std::vector<ComputeSample> compute_samples(Workload& w, uint64_t seed, int n = 200);

// "setint", "hdsearch", "nbody", "classifier" or "int".
[[nodiscard]] absl::StatusOr<std::unique_ptr<Workload>> make_workload(const std::string& service,
                                                                      const WorkloadOptions& o);

absl::StatusOr<std::unique_ptr<Workload>> make_setint_workload(const WorkloadOptions& o);
std::unique_ptr<Workload> make_hd_workload();
std::unique_ptr<Workload> make_nbody_workload();
std::unique_ptr<Workload> make_classifier_workload(const WorkloadOptions& o);
std::unique_ptr<Workload> make_int_workload(const WorkloadOptions& o);

}  // namespace nanopu::apps
