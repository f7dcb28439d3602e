// The other processes of a distributed simulation (MPI ranks: docs/design.md
// §11): what model::SimLoop needs of them between two windows. Each process
// builds the whole topology and runs its own share of the nodes; frames to
// another's nodes cross as bytes (model/network/rank_frames.h). The MPI one is
// runtime/simulation/mpi_peers.h; the loop itself knows no MPI.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nanopu::model {

class SimPeers {
 public:
  enum class Reduce : uint8_t { kMin, kMax, kSum, kXor };

  virtual ~SimPeers() = default;
  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int ranks() const = 0;
  // out[r]: the bytes for rank r (this rank's own is ignored); returns, for
  // each rank, what it sent this one. Every rank calls it, in step.
  [[nodiscard]] virtual std::vector<std::string> exchange(std::vector<std::string> out) = 0;
  // Every rank's v, element by element, combined by op: the same result on
  // every rank. Every rank calls it, in step, with as many elements.
  virtual void reduce(std::vector<uint64_t>& v, Reduce op) = 0;
};

}  // namespace nanopu::model
