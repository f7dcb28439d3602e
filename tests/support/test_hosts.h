// Test support: drive several in-process hosts from the test's thread.
#pragma once

#include <chrono>
#include <functional>
#include <initializer_list>

#include <memory>

#include <gtest/gtest.h>

#include "nanopu/runtime.h"
#include "tests/support/eal_env.h"

namespace nanopu::testing {

// Two in-process hosts joined back to back by a net_ring pair; a host that
// cannot start is left null (and the test fails).
struct RingHosts {
  std::unique_ptr<Runtime> server, client;
};
// `tweak` (if given) changes each host's Config first, the server's with true.
inline RingHosts make_ring_hosts(uint32_t server_ip, uint32_t client_ip,
                                 const std::function<void(Config&, bool server)>& tweak = {}) {
  PortPair p = make_ring_pair();
  RingHosts h;
  Config sc = host_config(p.a, server_ip), cc = host_config(p.b, client_ip);
  if (tweak) {
    tweak(sc, true);
    tweak(cc, false);
  }
  auto s = Runtime::create(sc);
  auto c = Runtime::create(cc);
  EXPECT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(c.ok()) << c.status();
  if (s.ok()) h.server = std::move(*s);
  if (c.ok()) h.client = std::move(*c);
  return h;
}

// Polls every host until done() or the wall-clock limit; returns done().
inline bool poll_until(std::initializer_list<Runtime*> hosts, const std::function<bool()>& done,
                       std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    for (Runtime* h : hosts) h->poll_once();
  }
  return true;
}

// One host whose port loops back to itself (a message to its own address
// comes back to it); null (and the test fails) if it cannot start.
inline std::unique_ptr<Runtime> make_loop_host(uint32_t ip, uint32_t max_message_bytes = 1024) {
  Config c = host_config(make_loop_port(), ip);
  c.max_message_bytes = max_message_bytes;
  auto rt = Runtime::create(c);
  EXPECT_TRUE(rt.ok()) << rt.status();
  return rt.ok() ? std::move(*rt) : nullptr;
}

// Runs body as a thread on host, polling the host until body returns.
inline void run_thread(Runtime& host, const std::function<void(Thread&)>& body) {
  bool done = false;
  ASSERT_TRUE(host.spawn([&](Thread& t) { body(t); done = true; }).ok());
  ASSERT_TRUE(poll_until({&host}, [&] { return done; }));
}

}  // namespace nanopu::testing
