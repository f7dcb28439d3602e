#include "runtime/platform/capture.h"

#include <fcntl.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_pcapng.h>
#include <rte_version.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace nanopu {
namespace {

// Copies in flight at once: one burst per direction per port is the most a
// callback holds, and each is written before it returns.
constexpr unsigned kCopyBuffers = 4095;
constexpr uint16_t kMaxBurst = 64;
// A whole 1024-byte-payload frame (14 + 20 + 30 + 1024) and headroom.
constexpr uint32_t kLargestFrame = 2048;

uint64_t wall_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace

absl::StatusOr<std::unique_ptr<Capture>> Capture::start(const std::string& path,
                                                        const std::vector<uint16_t>& ports,
                                                        uint32_t snap_bytes) {
  std::unique_ptr<Capture> c(new Capture);
  c->path_ = path;
  c->snap_bytes_ = snap_bytes == 0 ? UINT32_MAX : snap_bytes;
  c->fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (c->fd_ < 0)
    return absl::InvalidArgumentError(
        absl::StrCat("--pcap=", path, ": cannot create it: ", std::strerror(errno)));
  // The pcapng section header names the program; one interface block per
  // DPDK port is written by rte_pcapng itself (the port id is its index).
  c->writer_ = rte_pcapng_fdopen(c->fd_, nullptr, nullptr, "nanopu (" RTE_VER_PREFIX ")", nullptr);
  if (c->writer_ == nullptr) {
    ::close(c->fd_);
    c->fd_ = -1;
    return absl::InternalError(absl::StrCat("--pcap: rte_pcapng_fdopen: ", rte_strerror(rte_errno)));
  }
  const std::string pool_name = absl::StrCat("npcap_", getpid(), "_", ports.empty() ? 0 : ports[0]);
  c->pool_ = rte_pktmbuf_pool_create(pool_name.c_str(), kCopyBuffers, 0, 0,
                                     static_cast<uint16_t>(rte_pcapng_mbuf_size(kLargestFrame)),
                                     SOCKET_ID_ANY);
  if (c->pool_ == nullptr)
    return absl::ResourceExhaustedError(
        absl::StrCat("--pcap: buffers for the copies: ", rte_strerror(rte_errno)));
  c->start_ns_ = wall_ns();
  for (uint16_t port : ports) {
    auto hook = std::make_unique<Hook>();
    hook->capture = c.get();
    hook->port = port;
    hook->rx = rte_eth_add_rx_callback(port, 0, &Capture::on_rx, hook.get());
    hook->tx = rte_eth_add_tx_callback(port, 0, &Capture::on_tx, hook.get());
    const bool ok = hook->rx != nullptr && hook->tx != nullptr;
    c->hooks_.push_back(std::move(hook));
    if (!ok)
      return absl::InternalError(absl::StrCat("--pcap: cannot hook port ", port, ": ",
                                              rte_strerror(rte_errno)));
  }
  return c;
}

Capture::~Capture() {
  for (const auto& h : hooks_) {
    if (h->rx != nullptr) (void)rte_eth_remove_rx_callback(h->port, 0, h->rx);
    if (h->tx != nullptr) (void)rte_eth_remove_tx_callback(h->port, 0, h->tx);
  }
  if (writer_ != nullptr) {
    const uint64_t end_ns = wall_ns();
    for (const auto& h : hooks_)
      (void)rte_pcapng_write_stats(writer_, h->port, nullptr, start_ns_, end_ns, UINT64_MAX,
                                   lost());
    rte_pcapng_close(writer_);  // closes fd_ too
  } else if (fd_ >= 0) {
    ::close(fd_);
  }
  rte_mempool_free(pool_);
}

void Capture::record(uint16_t port, rte_mbuf* const* pkts, uint16_t n, bool outbound) {
  const uint64_t now = rte_rdtsc();
  while (n > 0) {
    const uint16_t burst = n < kMaxBurst ? n : kMaxBurst;
    rte_mbuf* copies[kMaxBurst];
    uint16_t made = 0;
    for (uint16_t i = 0; i < burst; ++i) {
      rte_mbuf* c = rte_pcapng_copy(port, 0, pkts[i], pool_, snap_bytes_, now,
                                    outbound ? RTE_PCAPNG_DIRECTION_OUT : RTE_PCAPNG_DIRECTION_IN);
      if (c != nullptr) copies[made++] = c;
    }
    lost_.fetch_add(burst - made, std::memory_order_relaxed);
    if (made > 0) {
      // DPDK 22.11's header says the copies are freed by the write; they are
      // not (its own dpdk-dumpcap frees them after the call), so free here.
      if (rte_pcapng_write_packets(writer_, copies, made) < 0)
        lost_.fetch_add(made, std::memory_order_relaxed);
      else
        written_.fetch_add(made, std::memory_order_relaxed);
      rte_pktmbuf_free_bulk(copies, made);
    }
    pkts += burst;
    n = static_cast<uint16_t>(n - burst);
  }
}

uint16_t Capture::on_rx(uint16_t, uint16_t, rte_mbuf** pkts, uint16_t n, uint16_t, void* arg) {
  auto* h = static_cast<Hook*>(arg);
  if (n > 0) h->capture->record(h->port, pkts, n, /*outbound=*/false);
  return n;
}

// A TX callback sees a burst before the PMD takes it: a frame the PMD
// refuses and the host sends again later is in the file twice.
uint16_t Capture::on_tx(uint16_t, uint16_t, rte_mbuf** pkts, uint16_t n, void* arg) {
  auto* h = static_cast<Hook*>(arg);
  if (n > 0) h->capture->record(h->port, pkts, n, /*outbound=*/true);
  return n;
}

}  // namespace nanopu
