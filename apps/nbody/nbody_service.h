// One Barnes-Hut tree node of an N-body simulation (nanoPU OSDI'21 Table 1)
// in the prototype tester's layout (docs/apps.md): a CONFIG gives the
// node's centre of mass, then each traversal request names a body's
// position and is answered with the force the node exerts on it.
//
//   CONFIG   {0, x_com, y_com, num_msgs, timestamp}    not answered
//   request  {1, x_pos, y_pos, timestamp}
//   reply    {2, force, timestamp32 << 32 | latency32}
//   error    {4, code, timestamp32 << 32}               (codes: status_words.h)
//
// Coordinates and the force are IEEE-754 doubles carried as their 64-bit
// patterns. The force is the softened inverse square law with unit masses
// and G = 1: 1 / (dx^2 + dy^2 + eps^2), eps = kNbodySoftening (Plummer
// softening keeps a body at the centre of mass finite). timestamp32 is the
// low half of the request's timestamp; latency32 is 0 (the prototype's NIC
// filled it; nanopu's timing model does not rewrite messages).
//
// Each server thread is one tree node: it keeps the last CONFIG it was
// sent; a request before any CONFIG is an error (kErrNoConfig).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "apps/compute/word_service.h"

namespace nanopu::apps {

inline constexpr uint64_t kNbodyConfig = 0;
inline constexpr uint64_t kNbodyRequest = 1;
inline constexpr uint64_t kNbodyReply = 2;
inline constexpr uint64_t kNbodyError = 4;
inline constexpr double kNbodySoftening = 0.01;

// Declared work for the modelled column (nanopu's estimate at 3.2 GHz):
// two subtracts, two multiply-adds and a divide on the in-order core's FPU.
inline constexpr double kNbodyCycles = 30;

[[nodiscard]] double nbody_force(double x_com, double y_com, double x, double y);

class NbodyService : public WordService {
 public:
  [[nodiscard]] Outcome answer(std::span<const uint64_t> request, std::vector<uint64_t>* reply) override;
  [[nodiscard]] uint32_t max_reply_words() const override { return 3; }

 private:
  bool configured_ = false;
  double x_com_ = 0, y_com_ = 0;
};

}  // namespace nanopu::apps
