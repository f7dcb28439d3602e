#include "runtime/platform/port.h"

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/base/log.h"
#include "lib/contract/message.h"
#include "runtime/platform/memif_unmap_guard.h"
#include "runtime/platform/uring_port.h"

namespace nanopu {
namespace {
constexpr unsigned kPoolCacheSize = 256;

// The pool every message buffer of a host comes from, MsgMeta in each mbuf's
// private area; the error says what to do about it.
absl::StatusOr<rte_mempool*> create_pool(const PortParams& config, const std::string& name_tag, int socket,
                                         absl::string_view remedy) {
  const std::string pool_name = absl::StrCat("np_", name_tag);
  rte_mempool* pool = rte_pktmbuf_pool_create(pool_name.c_str(), config.mbufs, kPoolCacheSize,
                                              kMsgMetaBytes, RTE_MBUF_DEFAULT_BUF_SIZE, socket);
  if (pool == nullptr)
    return absl::ResourceExhaustedError(
        absl::StrCat("mempool of ", config.mbufs, " mbufs: ", rte_strerror(rte_errno), "; ", remedy));
  return pool;
}
}  // namespace

std::string describe_ports() {
  std::string out;
  uint16_t pid = 0;
  RTE_ETH_FOREACH_DEV(pid) {
    char name[RTE_ETH_NAME_MAX_LEN] = {};
    rte_eth_dev_get_name_by_port(pid, name);
    absl::StrAppend(&out, out.empty() ? "" : ", ", pid, "=", name);
  }
  return out.empty() ? "none (add one with --vdev, e.g. --vdev=net_ring0)" : out;
}

PacketIo* Port::io() const { return external_ != nullptr ? external_ : uring_.get(); }

absl::StatusOr<std::unique_ptr<Port>> Port::open_external(const PortParams& config, PacketIo* io,
                                                          std::string driver, const std::string& name_tag) {
  std::unique_ptr<Port> p(new Port);
  p->id_ = UINT16_MAX;
  absl::StatusOr<rte_mempool*> pool = create_pool(config, name_tag, SOCKET_ID_ANY, "lower --mbufs");
  if (!pool.ok()) return pool.status();
  p->pool_ = *pool;
  p->external_ = io;
  p->driver_ = std::move(driver);
  p->mac_ = wire::mac_for_ipv4(config.ip);
  return p;
}

absl::StatusOr<std::unique_ptr<Port>> Port::open_uring(const PortParams& config, const std::string& name_tag) {
  std::unique_ptr<Port> p(new Port);
  p->id_ = UINT16_MAX;
  absl::StatusOr<rte_mempool*> pool = create_pool(config, name_tag, SOCKET_ID_ANY, "lower --mbufs");
  if (!pool.ok()) return pool.status();
  p->pool_ = *pool;
  UringPortParams up;
  up.ip = config.ip;
  up.udp_port = config.udp_port;
  up.sqpoll = config.uring_sqpoll;
  absl::StatusOr<std::unique_ptr<UringPort>> u = UringPort::open(up, p->pool_);
  if (!u.ok()) return u.status();
  p->uring_ = std::move(*u);
  p->driver_ = p->uring_->describe();
  p->takes_kept_ = true;  // sendmsg from the mbuf; freed when the send completes
  p->mac_ = p->uring_->mac();
  return p;
}

namespace {

// The DPDK port a config names: by id, or by probe order (--port).
absl::StatusOr<uint16_t> find_port(const PortParams& config) {
  if (config.port_id >= 0) {
    if (rte_eth_dev_is_valid_port(static_cast<uint16_t>(config.port_id)) != 0)
      return static_cast<uint16_t>(config.port_id);
    return absl::NotFoundError(absl::StrCat("port id ", config.port_id, " is not a DPDK port; ports: ",
                                            describe_ports()));
  }
  uint16_t index = 0;
  uint16_t pid = 0;
  RTE_ETH_FOREACH_DEV(pid) {
    if (index++ == config.port_index) return pid;
  }
  // The EAL logs a --vdev its PMD refused and goes on without it: say so,
  // rather than "no such port" for a port the user did ask for.
  if (index == 0 && !config.vdevs.empty())
    return absl::InvalidArgumentError(absl::StrCat(
        "no DPDK port: the EAL created none from --vdev=", absl::StrJoin(config.vdevs, " --vdev="),
        " (its PMD refused the arguments; DPDK's own line above says which)"));
  return absl::NotFoundError(absl::StrCat("--port=", config.port_index, ": no such DPDK port; ports: ",
                                          describe_ports()));
}

// The queue pairs; RX interrupts asked for when the config wants them (a PMD
// without them refuses or ignores the request); the port's check of
// received IPv4 header checksums wherever the PMD offers it (the NIC core
// then does not sum them: Pipeline). *rx_queues: configured;
// *rx_interrupts, *checks_ipv4: granted.
absl::Status configure_queues(uint16_t id, const rte_eth_dev_info& info, const PortParams& config,
                              int socket, rte_mempool* pool, uint16_t* rx_queues,
                              bool* rx_interrupts, bool* checks_ipv4) {
  // Each NIC core sends on a queue of its own (a TX queue is not safe for
  // two senders); receiving on fewer queues than cores is fine (the others'
  // frames are handed over: nic/dispatch/peer_dispatch.h).
  if (info.max_tx_queues < config.queues)
    return absl::InvalidArgumentError(absl::StrCat(
        "--nic_lcores=", config.queues, ": port ", id, " (",
        info.driver_name != nullptr ? info.driver_name : "?", ") has ", info.max_tx_queues,
        " TX queue(s); each NIC core needs one (net_null, net_tap with "
        "queues=N, net_af_packet with qpairs=N and most NICs have several)"));
  const uint16_t nrx = std::max<uint16_t>(1, std::min<uint16_t>(config.queues, info.max_rx_queues));
  const uint16_t ntx = config.queues;
  // RX interrupts let an idle NIC core sleep until the next packet; the
  // checksum offload spares it a sum a frame. A PMD that refuses either is
  // configured without it: the offload given up first, then the interrupts.
  const bool want_offload = (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM) != 0;
  std::vector<std::pair<bool, bool>> tries;  // (interrupts, offload), in order of preference
  for (bool interrupts : {config.rx_interrupts, false})
    for (bool offload : {want_offload, false})
      if (std::find(tries.begin(), tries.end(), std::pair{interrupts, offload}) == tries.end())
        tries.emplace_back(interrupts, offload);
  rte_eth_conf conf{};
  int rc = -EINVAL;
  for (const auto& [interrupts, offload] : tries) {
    conf.intr_conf.rxq = interrupts ? 1 : 0;
    conf.rxmode.offloads = offload ? RTE_ETH_RX_OFFLOAD_IPV4_CKSUM : 0;
    if ((rc = rte_eth_dev_configure(id, nrx, ntx, &conf)) == 0) break;
  }
  if (rc != 0) return absl::InternalError(absl::StrCat("rte_eth_dev_configure(port ", id, "): ", rte_strerror(-rc)));
  *rx_interrupts = conf.intr_conf.rxq != 0;
  *checks_ipv4 = (conf.rxmode.offloads & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM) != 0;
  *rx_queues = nrx;
  uint16_t rxd = config.rx_descriptors, txd = config.tx_descriptors;
  if (int e = rte_eth_dev_adjust_nb_rx_tx_desc(id, &rxd, &txd); e != 0)
    return absl::InternalError(absl::StrCat("rte_eth_dev_adjust_nb_rx_tx_desc: ", rte_strerror(-e)));
  for (uint16_t q = 0; q < nrx; ++q)
    if (int e = rte_eth_rx_queue_setup(id, q, rxd, socket, nullptr, pool); e != 0)
      return absl::InternalError(
          absl::StrCat("rte_eth_rx_queue_setup(queue ", q, "): ", rte_strerror(-e)));
  for (uint16_t q = 0; q < ntx; ++q)
    if (int e = rte_eth_tx_queue_setup(id, q, txd, socket, nullptr); e != 0)
      return absl::InternalError(
          absl::StrCat("rte_eth_tx_queue_setup(queue ", q, "): ", rte_strerror(-e)));
  return absl::OkStatus();
}

// What the device's arguments say of it: whether a memif is the client end
// (it reconnects by itself), and an af_packet's kernel interface (whose
// carrier is its link).
void read_devargs(const rte_eth_dev_info& info, const std::string& driver, bool* reconnects,
                  bool* listens, bool* zero_copy, std::string* kernel_iface) {
  if (info.device == nullptr) return;
  const rte_devargs* da = rte_dev_devargs(info.device);
  const std::string args = da != nullptr && da->args != nullptr ? da->args : "";
  if (driver.find("memif") != std::string::npos) {
    *reconnects = args.find("role=client") != std::string::npos || args.find("role=slave") != std::string::npos;
    *listens = !*reconnects;  // memif's default role is server
    *zero_copy = args.find("zero-copy=yes") != std::string::npos;
  }
  if (driver.find("af_packet") != std::string::npos)
    if (const size_t at = args.find("iface="); at != std::string::npos) {
      const size_t end = args.find(',', at);
      *kernel_iface = args.substr(at + 6, end == std::string::npos ? std::string::npos : end - at - 6);
    }
}

// Starts the port. A memif client whose server is not listening yet
// (starting, or still tearing down its previous client's connection on a
// busy CPU) is refused: try again until start_retry_s has passed.
absl::Status start_port(uint16_t id, const std::string& driver, double start_retry_s) {
  const bool memif = driver.find("memif") != std::string::npos;
  const uint64_t retry_end = rte_rdtsc() + static_cast<uint64_t>(start_retry_s * static_cast<double>(rte_get_tsc_hz()));
  int rc = rte_eth_dev_start(id);
  while (rc != 0 && memif && rte_rdtsc() < retry_end) {
    rte_delay_us_sleep(50 * 1000);
    rc = rte_eth_dev_start(id);
  }
  if (rc == 0) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat(
      "rte_eth_dev_start(port ", id, ", ", driver, "): ", rte_strerror(-rc),
      memif ? absl::StrCat("; a role=client memif needs its role=server peer running (tried for ",
                           start_retry_s, " s)")
            : ""));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Port>> Port::open(const PortParams& config, const std::string& name_tag) {
  if (config.backend == Backend::kUring) return open_uring(config, name_tag);
  std::unique_ptr<Port> p(new Port);
  absl::StatusOr<uint16_t> id = find_port(config);
  if (!id.ok()) return id.status();
  p->id_ = *id;
  rte_eth_dev_info info{};
  if (int rc = rte_eth_dev_info_get(p->id_, &info); rc != 0)
    return absl::InternalError(absl::StrCat("rte_eth_dev_info_get: ", rte_strerror(-rc)));
  p->driver_ = info.driver_name != nullptr ? info.driver_name : "?";
  const int socket = rte_eth_dev_socket_id(p->id_) < 0 ? SOCKET_ID_ANY : rte_eth_dev_socket_id(p->id_);
  absl::StatusOr<rte_mempool*> pool =
      create_pool(config, name_tag, socket, "lower --mbufs or reserve more hugepages (deploy/setup.sh)");
  if (!pool.ok()) return pool.status();
  p->pool_ = *pool;
  bool rx_interrupts = false;
  if (absl::Status s =
          configure_queues(p->id_, info, config, socket, p->pool_, &p->rx_queues_, &rx_interrupts,
                           &p->checks_ipv4_);
      !s.ok())
    return s;
  bool zero_copy = false;
  read_devargs(info, p->driver_, &p->reconnects_, &p->listens_, &zero_copy, &p->kernel_iface_);
  // The PMDs known to copy a frame out (or send it from the mbuf) and let
  // go of it: anything else — net_ring hands the mbuf on, a zero-copy
  // memif maps it, a NIC PMD may free its TX mbufs without looking at the
  // reference count (MBUF_FAST_FREE) — gets copies and clones.
  static constexpr std::string_view kTakesKept[] = {"net_memif", "net_af_packet", "net_null",
                                                    "net_tap", "net_pcap"};
  p->takes_kept_ = !zero_copy && std::find(std::begin(kTakesKept), std::end(kTakesKept),
                                           p->driver_) != std::end(kTakesKept);
  guard_unmaps_of(p->id_);  // before the link comes up: memif
  if (absl::Status s = start_port(p->id_, p->driver_, config.start_retry_s); !s.ok()) return s;
  p->started_ = true;
  // Masked until the NIC core sleeps: a peer then writes no interrupt per packet.
  if (rx_interrupts) (void)rte_eth_dev_rx_intr_disable(p->id_, 0);
  rte_ether_addr mac{};
  if (rte_eth_macaddr_get(p->id_, &mac) == 0) std::memcpy(p->mac_.data(), mac.addr_bytes, 6);
  return p;
}

bool Port::wait_link_up(double seconds, absl::FunctionRef<bool()> stop) {
  if (!has_device()) return true;  // a socket, or a modelled link: no link to wait for
  const uint64_t hz = rte_get_tsc_hz();
  const uint64_t start = rte_rdtsc();
  const uint64_t end = std::isinf(seconds) ? UINT64_MAX : start + static_cast<uint64_t>(seconds * static_cast<double>(hz));
  // Measured beside a CPU hog: one memif client in ten, started right after
  // its server, held no connection at all after the handshake failed, and
  // waited out its 10 s. A second between tries leaves a slow handshake
  // time to finish (the NIC loop's LinkWatch retries the same way later).
  uint64_t next_restart = start + hz;
  bool told = false;
  for (;;) {
    rte_eth_link link{};
    if (rte_eth_link_get_nowait(id_, &link) == 0 && link.link_status == RTE_ETH_LINK_UP) return true;
    const uint64_t now = rte_rdtsc();
    if (now >= end || stop()) return false;
    if (reconnects_ && now >= next_restart) {
      next_restart = now + hz;
      if (started_) (void)rte_eth_dev_stop(id_);
      started_ = rte_eth_dev_start(id_) == 0;  // refused while nobody listens: the next try
    }
    if (!told && now - start > hz) {
      const std::string limit = std::isinf(seconds) ? std::string("without limit")
                                                    : absl::StrCat("up to ", seconds, " s");
      NANOPU_LOG(kInfo, "waiting for the link of port %u (%s)%s %s%s...", id_, driver_.c_str(),
                 listens_ ? ": a server, waiting for its first peer" : "", limit.c_str(),
                 listens_ ? " (Ctrl-C stops)" : "");
      told = true;
    }
    rte_delay_us_sleep(1000);
  }
}

Port::~Port() {
  // The socket's posted buffers go back to the pool first; a pool the kernel
  // may still write into is kept (uring_port.h, leaked()).
  bool keep_pool = false;
  if (uring_ != nullptr) {
    uring_->close();
    keep_pool = uring_->leaked();
    uring_.reset();
  }
  if (keep_pool) return;
  if (started_) {
    (void)rte_eth_dev_stop(id_);
    // Closing releases the queues' mbufs before the pool goes; a vdev port is
    // then gone for good (one host per port, as in hardware).
    (void)rte_eth_dev_close(id_);
  }
  rte_mempool_free(pool_);
}

}  // namespace nanopu
