// HD search (nanoPU OSDI'21 Table 1): the Euclidean nearest neighbour of a
// query among stored feature vectors. The vectors are generated at start-up
// from a fixed seed (hd_vectors()), so every server and client holds the
// same set without shipping it. Coordinates are IEEE-754 doubles carried
// as their 64-bit patterns.
//
//   request  {service_time, sent_time, dims (= kHdDims), q[dims]}
//   reply    {service_time, sent_time, nearest_id, squared distance}
//   error    {service_time, sent_time, kStatusError, code}   (status_words.h)
//
// A NaN or infinite coordinate is an error (kErrBadValue); ties go to the
// lowest id.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "apps/compute/word_service.h"

namespace nanopu::apps {

inline constexpr uint32_t kHdDims = 16;
inline constexpr uint32_t kHdVectors = 256;
inline constexpr uint64_t kHdSeed = 0x4844'5345'4152'4348;  // "HDSEARCH"

// Declared work for the modelled column (nanopu's estimate at 3.2 GHz):
// a subtract and a fused multiply-add per coordinate on the in-order core's
// pipelined FPU, 2 cycles, plus the compare per vector.
inline constexpr double kHdCyclesPerCoordinate = 2;

// kHdVectors x kHdDims coordinates, row-major, uniform in [0, 1): the
// seed's SeededDraw draws (nanopu/seeded_draw.h), each (draw >> 11) * 2^-53.
[[nodiscard]] const std::vector<double>& hd_vectors();

// The nearest vector to q (kHdDims coordinates) and its squared distance.
struct HdMatch {
  uint64_t id = 0;
  double distance2 = 0;
};
[[nodiscard]] HdMatch hd_nearest(const double* q);

class HdSearchService : public WordService {
 public:
  [[nodiscard]] Outcome answer(std::span<const uint64_t> request, std::vector<uint64_t>* reply) override;
  [[nodiscard]] uint32_t max_reply_words() const override { return 4; }
};

}  // namespace nanopu::apps
