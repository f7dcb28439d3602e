// The packet classifier service (nanoPU OSDI'21 Table 1): a header tuple
// in, the id of the highest-priority rule it matches out (tuple_space.h
// over rule_set.h's rules).
//
//   request  {service_time, sent_time, header word 0, header word 1}  (rule_set.h)
//   reply    {service_time, sent_time, rule id or kNoMatch}
//   error    {service_time, sent_time, kStatusError, code}            (status_words.h)
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "apps/classifier/tuple_space.h"
#include "apps/compute/word_service.h"

namespace nanopu::apps {

inline constexpr uint64_t kNoMatch = ~uint64_t{0} - 1;

// Declared work for the modelled column (nanopu's estimate at 3.2 GHz): a
// hash probe or a rule check, 25 cycles each on the in-order core (a hash,
// a cache-resident load chain and compares), times the probes the search
// makes for that header.
inline constexpr double kClassifierCyclesPerProbe = 25;

// The header of a request's two words; false if word 1 has bits outside
// its fields.
[[nodiscard]] bool parse_header(uint64_t w0, uint64_t w1, Header* h);

class ClassifierService : public WordService {
 public:
  explicit ClassifierService(std::shared_ptr<const TupleSpace> rules) : rules_(std::move(rules)) {}
  [[nodiscard]] Outcome answer(std::span<const uint64_t> request, std::vector<uint64_t>* reply) override;
  [[nodiscard]] uint32_t max_reply_words() const override { return 4; }

 private:
  std::shared_ptr<const TupleSpace> rules_;
};

}  // namespace nanopu::apps
