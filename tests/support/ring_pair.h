// Test support: a server host and a client host on a net_ring pair, each a
// Runtime in this process, polled from the test's thread until the client
// is done; and one request answered on the client's thread.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "nanopu/runtime.h"
#include "tests/support/eal_env.h"
#include "tests/support/test_hosts.h"

namespace nanopu::testing {

using Words = std::vector<uint64_t>;

// Runs `serve` on the server (`server_ip`) and `client` on the client
// (`client_ip`) until `client` returns (at most `limit`).
inline void run_pair(uint32_t server_ip, uint32_t client_ip, const std::function<void(Thread&)>& serve,
                     const std::function<void(Thread&)>& client,
                     std::chrono::milliseconds limit = std::chrono::seconds(180)) {
  PortPair p = make_ring_pair();
  auto server = Runtime::create(host_config(p.a, server_ip));
  auto host = Runtime::create(host_config(p.b, client_ip));
  ASSERT_TRUE(server.ok()) << server.status();
  ASSERT_TRUE(host.ok()) << host.status();
  ASSERT_TRUE((*server)->spawn(serve, 0).ok());
  bool done = false;
  ASSERT_TRUE((*host)->spawn([&](Thread& t) {
    client(t);
    done = true;
  }).ok());
  ASSERT_TRUE(poll_until({server->get(), host->get()}, [&] { return done; }, limit));
}

// Sends `payload` to ip/context from the calling (bound) thread; the
// reply's payload words, or none if no reply came within two seconds.
inline Words call(Thread& t, uint32_t ip, uint16_t context, const Words& payload) {
  (void)t.write(AppHeader{ip, context, static_cast<uint16_t>(8 * payload.size())}.word());
  for (uint64_t w : payload) (void)t.write(w);
  if (!t.wait_for(std::chrono::milliseconds(2000))) return {};
  const AppHeader h = AppHeader::from_word(t.read());
  Words r(h.payload_words());
  for (uint64_t& w : r) w = t.read();
  t.msg_done();
  return r;
}

}  // namespace nanopu::testing
