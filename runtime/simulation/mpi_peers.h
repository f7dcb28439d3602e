// The processes of a distributed simulation under mpirun (docs/running.md,
// "Across processes and machines"): MPI's ranks as model::SimPeers. Each
// rank builds the whole topology and runs its share of the hosts and
// switches; between windows the ranks swap the frames that cross
// (MPI_Alltoallv) and agree on the next window, the end and the trace
// hash (MPI_Allreduce) — the conservative, window-based synchronisation
// ns-3's distributed simulator uses, with the links' latency as lookahead.
// MPI is Open MPI from Debian; a binary built without it refuses a run
// under mpirun rather than run every host in every rank.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "model/network/sim_peers.h"

namespace nanopu::sim {

class MpiRanks {
 public:
  // Under mpirun (its environment says so): MPI started, this process's
  // rank known; otherwise null. An error: under mpirun, but this binary
  // was built without MPI.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<MpiRanks>> join();
  ~MpiRanks();  // MPI_Finalize
  MpiRanks(const MpiRanks&) = delete;
  MpiRanks& operator=(const MpiRanks&) = delete;

  [[nodiscard]] int rank() const { return peers_->rank(); }
  [[nodiscard]] int ranks() const { return peers_->ranks(); }
  // The ranks as the loop's peers (null for one rank: an ordinary run).
  [[nodiscard]] model::SimPeers* peers() { return ranks() > 1 ? peers_.get() : nullptr; }

 private:
  explicit MpiRanks(std::unique_ptr<model::SimPeers> peers) : peers_(std::move(peers)) {}
  std::unique_ptr<model::SimPeers> peers_;
};

// Whether this process was started by mpirun (Open MPI's, MPICH's or a
// PMIx launcher's environment).
[[nodiscard]] bool under_mpirun();

}  // namespace nanopu::sim
