// The reply convention of the compute services that use the load
// generator's layout ({service_time, sent_time, ...}; docs/apps.md): the
// reply starts with the request's first two words, and the third word is
// the result's first word, or kStatusError followed by an error code. No
// result's first word can be kStatusError (a set size, a rule id, a vector
// id are all far below it).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "apps/compute/word_service.h"

namespace nanopu::apps {

inline constexpr uint64_t kStatusError = ~uint64_t{0};

enum ComputeError : uint64_t {
  kErrBadLength = 1,    // the length disagrees with the request's counts
  kErrBadCount = 2,     // a count outside the service's range
  kErrUnknownType = 3,  // a type word the service does not know
  kErrNoConfig = 4,     // a request before the CONFIG it needs
  kErrBadValue = 5,     // a field outside its domain (an index, a NaN)
};

// {service_time, sent_time, kStatusError, code}; a request too short to
// carry the two echoed words is dropped.
[[nodiscard]] inline Outcome error_reply(std::span<const uint64_t> request, uint64_t code,
                                         std::vector<uint64_t>* reply) {
  if (request.size() < 2) return Outcome::kDropped;
  reply->assign({request[0], request[1], kStatusError, code});
  return Outcome::kError;
}

}  // namespace nanopu::apps
