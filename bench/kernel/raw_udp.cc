#include "bench/kernel/raw_udp.h"

#include <arpa/inet.h>
#include <liburing.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace nanopu::bench {
namespace {

constexpr uint32_t kServerIp = 0x7f000061;  // 127.0.0.97
constexpr uint32_t kClientIp = 0x7f000062;  // 127.0.0.98
constexpr size_t kBytes = 64;

void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  (void)sched_setaffinity(0, sizeof set, &set);
}

sockaddr_in addr_of(uint32_t ip, uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(ip);
  return a;
}

int bound_socket(uint32_t ip, uint16_t port) {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const sockaddr_in a = addr_of(ip, port);
  if (bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// One datagram in, by the mode's means; false on error.
class Receiver {
 public:
  Receiver(int fd, RawUdpMode mode) : fd_(fd), mode_(mode) {
    if (uring()) ok_ = io_uring_queue_init(8, &ring_, 0) == 0;
  }
  ~Receiver() {
    if (uring() && ok_) io_uring_queue_exit(&ring_);
  }
  [[nodiscard]] bool ok() const { return ok_; }
  // A lost datagram (none is expected on loopback) ends the run rather than
  // hanging it: the client gives up after a second (the echo never does).
  void expire_at(std::chrono::steady_clock::time_point t) {
    deadline_on_ = true;
    deadline_ = t;
  }
  ssize_t recv(uint8_t* buf, size_t len, sockaddr_in* from) {
    socklen_t fl = sizeof *from;
    switch (mode_) {
      case RawUdpMode::kBlocking:
        return recvfrom(fd_, buf, len, 0, reinterpret_cast<sockaddr*>(from), &fl);
      case RawUdpMode::kBusyPoll:
        for (uint64_t spins = 0;; ++spins) {
          const ssize_t n = recvfrom(fd_, buf, len, MSG_DONTWAIT, reinterpret_cast<sockaddr*>(from), &fl);
          if (n >= 0 || errno != EAGAIN || (spins % 4096 == 0 && expired())) return n;
        }
      case RawUdpMode::kUringWait:
      case RawUdpMode::kUringPoll: {
        iovec iov{buf, len};
        msghdr msg{};
        msg.msg_name = from;
        msg.msg_namelen = sizeof *from;
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
        io_uring_prep_recvmsg(sqe, fd_, &msg, 0);
        if (io_uring_submit(&ring_) != 1) return -1;
        io_uring_cqe* cqe = nullptr;
        if (mode_ == RawUdpMode::kUringWait) {
          if (io_uring_wait_cqe(&ring_, &cqe) != 0) return -1;
        } else {
          for (uint64_t spins = 0; io_uring_peek_cqe(&ring_, &cqe) != 0; ++spins)
            if (spins % 4096 == 0 && expired()) return -1;  // the request stays: this run is over
        }
        const ssize_t n = cqe->res;
        io_uring_cqe_seen(&ring_, cqe);
        return n;
      }
    }
    return -1;
  }

 private:
  [[nodiscard]] bool expired() const {
    return deadline_on_ && std::chrono::steady_clock::now() > deadline_;
  }
  [[nodiscard]] bool uring() const { return mode_ == RawUdpMode::kUringWait || mode_ == RawUdpMode::kUringPoll; }
  int fd_;
  RawUdpMode mode_;
  io_uring ring_{};
  bool ok_ = true;
  bool deadline_on_ = false;
  std::chrono::steady_clock::time_point deadline_{};
};

[[noreturn]] void echo_forever(int fd, RawUdpMode mode) {
  Receiver rx(fd, mode);
  uint8_t buf[2048];
  for (;;) {
    sockaddr_in from{};
    const ssize_t n = rx.recv(buf, sizeof buf, &from);
    if (n > 0) (void)sendto(fd, buf, static_cast<size_t>(n), 0, reinterpret_cast<sockaddr*>(&from), sizeof from);
  }
}

}  // namespace

const char* raw_udp_mode_name(RawUdpMode m) {
  switch (m) {
    case RawUdpMode::kBlocking: return "blocking";
    case RawUdpMode::kBusyPoll: return "busy-poll";
    case RawUdpMode::kUringWait: return "io_uring wait";
    case RawUdpMode::kUringPoll: return "io_uring poll";
  }
  return "?";
}

RawUdpResult raw_udp_ping_pong(RawUdpMode mode, uint64_t round_trips, int client_cpu, int server_cpu) {
  RawUdpResult r;
  // A port per mode: a killed echo's io_uring lets go of its socket a little
  // after the process is gone.
  const auto port = static_cast<uint16_t>(40000 + (getpid() % 5000) * 4 + static_cast<int>(mode));
  const int sfd = bound_socket(kServerIp, port);
  const int cfd = bound_socket(kClientIp, port);
  if (sfd < 0 || cfd < 0) {
    r.error = std::string("bind on 127.0.0.97/98: ") + strerror(errno);
    if (sfd >= 0) close(sfd);
    if (cfd >= 0) close(cfd);
    return r;
  }
  const pid_t child = fork();
  if (child == 0) {
    close(cfd);
    pin(server_cpu);
    echo_forever(sfd, mode);
  }
  close(sfd);
  pin(client_cpu);
  Receiver rx(cfd, mode);
  if (!rx.ok()) r.error = "io_uring_queue_init failed";
  const timeval one_s{1, 0};
  (void)setsockopt(cfd, SOL_SOCKET, SO_RCVTIMEO, &one_s, sizeof one_s);
  const sockaddr_in to = addr_of(kServerIp, port);
  uint8_t buf[2048] = {};
  std::vector<double> us;
  us.reserve(round_trips);
  const uint64_t warm = round_trips / 10 + 100;
  for (uint64_t i = 0; r.error.empty() && i < warm + round_trips; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    rx.expire_at(t0 + std::chrono::seconds(1));
    if (sendto(cfd, buf, kBytes, 0, reinterpret_cast<const sockaddr*>(&to), sizeof to) != kBytes) {
      r.error = std::string("sendto: ") + strerror(errno);
      break;
    }
    sockaddr_in from{};
    if (rx.recv(buf, sizeof buf, &from) != kBytes) {
      r.error = "no echo within 1 s, or a short one";
      break;
    }
    if (i >= warm)
      us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  close(cfd);
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int c = 0; c < CPU_SETSIZE; ++c) CPU_SET(c, &all);
  (void)sched_setaffinity(0, sizeof all, &all);
  if (!r.error.empty() || us.empty()) return r;
  std::sort(us.begin(), us.end());
  r.p50_us = us[us.size() / 2];
  r.p99_us = us[us.size() * 99 / 100];
  r.round_trips = us.size();
  r.ok = true;
  return r;
}

}  // namespace nanopu::bench
