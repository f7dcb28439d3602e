#include "runtime/platform/ring_port.h"

#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ring.h>

#include "absl/strings/str_cat.h"

namespace nanopu {
namespace {

absl::StatusOr<rte_ring*> ring(const std::string& name, unsigned size) {
  rte_ring* r = rte_ring_create(name.c_str(), size, SOCKET_ID_ANY, 0);
  if (r == nullptr)
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot create rte_ring ", name, ": ", rte_strerror(rte_errno)));
  return r;
}

}  // namespace

absl::StatusOr<RingPortPair> make_ring_port_pair(const std::string& tag, unsigned ring_size) {
  absl::StatusOr<rte_ring*> ab = ring(tag + "ab", ring_size);
  if (!ab.ok()) return ab.status();
  absl::StatusOr<rte_ring*> ba = ring(tag + "ba", ring_size);
  if (!ba.ok()) return ba.status();
  const int a = rte_eth_from_rings(absl::StrCat("net_ring_", tag, "a").c_str(), &*ba, 1, &*ab, 1,
                                   SOCKET_ID_ANY);
  const int b = rte_eth_from_rings(absl::StrCat("net_ring_", tag, "b").c_str(), &*ab, 1, &*ba, 1,
                                   SOCKET_ID_ANY);
  if (a < 0 || b < 0)
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot create net_ring port pair ", tag, ": ", rte_strerror(rte_errno),
        " (DPDK's port limit is RTE_MAX_ETHPORTS = ", RTE_MAX_ETHPORTS, ")"));
  return RingPortPair{static_cast<uint16_t>(a), static_cast<uint16_t>(b)};
}

absl::StatusOr<uint16_t> make_ring_loop_port(const std::string& tag, unsigned ring_size) {
  absl::StatusOr<rte_ring*> r = ring(tag + "loop", ring_size);
  if (!r.ok()) return r.status();
  const int p = rte_eth_from_ring(*r);
  if (p < 0)
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot create net_ring loop port ", tag, ": ", rte_strerror(rte_errno)));
  return static_cast<uint16_t>(p);
}

}  // namespace nanopu
