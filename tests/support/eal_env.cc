#include "tests/support/eal_env.h"

#include <gtest/gtest.h>
#include <rte_ethdev.h>
#include <rte_eth_ring.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "runtime/platform/eal.h"
#include "runtime/platform/ring_port.h"

namespace nanopu::testing {
namespace {

std::atomic<int> g_pairs{0};
rte_mempool* g_inject_pool = nullptr;

class EalEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    EalParams c;
    // lcore 0: the test's thread (and every shared-core host's NIC loop);
    // lcores 1 and 2: worker cores for dedicated-NIC hosts, on the second CPU.
    c.lcores = {0, 1, 2};
    c.eal_lcore_map = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? "0@0,1@1,2@1" : "0@0,1@0,2@0";
    c.eal_log_level = 3;  // errors only
    absl::Status s = eal_init(c);
    if (!s.ok()) {
      std::fprintf(stderr, "EAL init failed: %s\n", std::string(s.message()).c_str());
      std::exit(1);
    }
    g_inject_pool = rte_pktmbuf_pool_create("test_inject", 4095, 64, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                            SOCKET_ID_ANY);
    if (g_inject_pool == nullptr) std::exit(1);
  }
};

}  // namespace

Config host_config(uint16_t port_id, uint32_t ip) {
  Config c;
  c.lcores = {0};
  c.port_id = port_id;
  c.ip = ip;
  c.mbufs = 4095;
  return c;
}

Config dedicated_config(uint16_t port_id, uint32_t ip, uint32_t workers) {
  Config c = host_config(port_id, ip);
  c.lcores = {0};
  for (uint32_t i = 1; i <= workers; ++i) c.lcores.push_back(i);
  c.link_wait_s = 0;
  return c;
}

PortPair make_ring_pair() {
  const int n = g_pairs.fetch_add(1);
  absl::StatusOr<RingPortPair> p = make_ring_port_pair(absl::StrCat("t", n));
  if (!p.ok()) {
    ADD_FAILURE() << p.status();
    return {};
  }
  return PortPair{p->a, p->b, absl::StrCat("t", n)};
}

uint16_t reopen_a(const PortPair& p) {
  rte_ring* ab = rte_ring_lookup((p.tag + "ab").c_str());
  rte_ring* ba = rte_ring_lookup((p.tag + "ba").c_str());
  if (ab == nullptr || ba == nullptr) return 0xffff;
  static std::atomic<int> reopened{0};
  const int id = rte_eth_from_rings(absl::StrCat("net_ring_", p.tag, "a", reopened.fetch_add(1)).c_str(), &ba, 1,
                                    &ab, 1, SOCKET_ID_ANY);
  return id < 0 ? 0xffff : static_cast<uint16_t>(id);
}

uint16_t make_loop_port() {
  const int n = g_pairs.fetch_add(1);
  absl::StatusOr<uint16_t> p = make_ring_loop_port(absl::StrCat("t", n));
  if (!p.ok()) ADD_FAILURE() << p.status();
  return p.ok() ? *p : 0;
}

void start_raw_port(uint16_t port) {
  rte_eth_conf conf{};
  ASSERT_EQ(rte_eth_dev_configure(port, 1, 1, &conf), 0);
  ASSERT_EQ(rte_eth_rx_queue_setup(port, 0, 1024, SOCKET_ID_ANY, nullptr, g_inject_pool), 0);
  ASSERT_EQ(rte_eth_tx_queue_setup(port, 0, 1024, SOCKET_ID_ANY, nullptr), 0);
  ASSERT_EQ(rte_eth_dev_start(port), 0);
}

void close_raw_port(uint16_t port) {
  (void)rte_eth_dev_stop(port);
  (void)rte_eth_dev_close(port);
}

bool send_frame(uint16_t port, const uint8_t* data, size_t len) {
  rte_mbuf* m = rte_pktmbuf_alloc(g_inject_pool);
  if (m == nullptr) return false;
  void* p = rte_pktmbuf_append(m, static_cast<uint16_t>(len));
  if (p == nullptr) {
    rte_pktmbuf_free(m);
    return false;
  }
  std::memcpy(p, data, len);
  if (rte_eth_tx_burst(port, 0, &m, 1) != 1) {
    rte_pktmbuf_free(m);
    return false;
  }
  return true;
}

size_t recv_frames(uint16_t port, std::string* frames, size_t max) {
  rte_mbuf* ms[32];
  size_t got = 0;
  while (got < max) {
    const uint16_t n = rte_eth_rx_burst(port, 0, ms, static_cast<uint16_t>(std::min<size_t>(32, max - got)));
    if (n == 0) break;
    for (uint16_t i = 0; i < n; ++i) {
      frames[got++].assign(rte_pktmbuf_mtod(ms[i], const char*), rte_pktmbuf_data_len(ms[i]));
      rte_pktmbuf_free(ms[i]);
    }
  }
  return got;
}

}  // namespace nanopu::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new nanopu::testing::EalEnvironment);
  return RUN_ALL_TESTS();
}
