#include "runtime/simulation/mpi_peers.h"

#include <cstdlib>
#include <string>
#include <vector>

#ifdef NANOPU_HAVE_MPI
#define OMPI_SKIP_MPICXX 1  // MPI's C API only: the C++ bindings are gone from MPI-3
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace nanopu::sim {

bool under_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}

#ifdef NANOPU_HAVE_MPI
namespace {

class MpiPeers final : public model::SimPeers {
 public:
  MpiPeers() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
  }
  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int ranks() const override { return ranks_; }

  // Each rank's bytes to each other, one message a pair (empty ones too),
  // the receiver learning the size from the message: one latency a window,
  // not an all-to-all of sizes and then one of bytes.
  std::vector<std::string> exchange(std::vector<std::string> out) override {
    const auto n = static_cast<size_t>(ranks_);
    out.resize(n);
    std::vector<MPI_Request> sent;
    for (int r = 0; r < ranks_; ++r)
      if (r != rank_) {
        std::string& b = out[static_cast<size_t>(r)];
        sent.emplace_back();
        MPI_Isend(b.data(), static_cast<int>(b.size()), MPI_CHAR, r, kTag, MPI_COMM_WORLD, &sent.back());
      }
    std::vector<std::string> in(n);
    for (int r = 0; r < ranks_; ++r) {
      if (r == rank_) continue;
      MPI_Status st;
      MPI_Probe(r, kTag, MPI_COMM_WORLD, &st);
      int bytes = 0;
      MPI_Get_count(&st, MPI_CHAR, &bytes);
      std::string& b = in[static_cast<size_t>(r)];
      b.resize(static_cast<size_t>(bytes));
      MPI_Recv(b.data(), bytes, MPI_CHAR, r, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Waitall(static_cast<int>(sent.size()), sent.data(), MPI_STATUSES_IGNORE);
    return in;
  }

  void reduce(std::vector<uint64_t>& v, Reduce op) override {
    const MPI_Op mpi_op = op == Reduce::kMin   ? MPI_MIN
                          : op == Reduce::kMax ? MPI_MAX
                          : op == Reduce::kSum ? MPI_SUM
                                               : MPI_BXOR;
    MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_UINT64_T, mpi_op, MPI_COMM_WORLD);
  }

 private:
  static constexpr int kTag = 57;
  int rank_ = 0, ranks_ = 1;
};

}  // namespace

absl::StatusOr<std::unique_ptr<MpiRanks>> MpiRanks::join() {
  if (!under_mpirun()) return nullptr;
  int provided = 0;
  // One thread of a rank calls MPI (the loop runs a rank on one thread).
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  return std::unique_ptr<MpiRanks>(new MpiRanks(std::make_unique<MpiPeers>()));
}

MpiRanks::~MpiRanks() { MPI_Finalize(); }

#else

absl::StatusOr<std::unique_ptr<MpiRanks>> MpiRanks::join() {
  if (!under_mpirun()) return nullptr;
  return absl::FailedPreconditionError(
      "started by mpirun, but this binary was built without MPI (install libopenmpi-dev and build again: CMake "
      "finds it); run it without mpirun for one process");
}

MpiRanks::~MpiRanks() = default;

#endif

}  // namespace nanopu::sim
