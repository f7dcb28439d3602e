// Raw kernel UDP ping-pongs over the loopback interface, the references of
// nanopu-bench-kernel: how fast the kernel path is without nanopu, measured
// in the same run. An echo process on one CPU, the timing client on another,
// 64-byte datagrams, one in flight.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nanopu::bench {

enum class RawUdpMode : uint8_t {
  kBlocking,    // recvfrom sleeps until the datagram
  kBusyPoll,    // recvfrom(MSG_DONTWAIT) in a loop
  kUringWait,   // io_uring: a receive, then io_uring_wait_cqe (sleeps)
  kUringPoll,   // io_uring: a receive, then spin on the completion ring
};
[[nodiscard]] const char* raw_udp_mode_name(RawUdpMode m);

struct RawUdpResult {
  bool ok = false;
  std::string error;
  double p50_us = 0, p99_us = 0;
  uint64_t round_trips = 0;
};

// Echo on `server_cpu`, client on `client_cpu`; `round_trips` after a
// warm-up. Forks the echo process and kills it before returning.
[[nodiscard]] RawUdpResult raw_udp_ping_pong(RawUdpMode mode, uint64_t round_trips, int client_cpu,
                                             int server_cpu);

}  // namespace nanopu::bench
