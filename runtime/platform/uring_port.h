// The io_uring backend's port (docs/design.md, "Backends"): one kernel UDP
// socket bound to the host's ip:udp_port, driven by io_uring, standing in for
// a DPDK port. It hands the NIC core the same frames a DPDK port would: each
// datagram is received into an mbuf after 34 bytes of room, where the
// Ethernet + IPv4 envelope is written from the socket's addresses
// (docs/wire.md, "UDP encapsulation"); a frame to send goes out without it,
// to its IPv4 destination at the same udp_port.
//
// Batched both ways, no system call per packet on the fast path: rx_slots
// receives stay posted, each into its own mbuf; completions are read from the
// completion ring in user memory (no system call while nothing arrives); the
// receives re-posted and the sends of one burst go to the kernel in one
// io_uring_enter (none with sqpoll: a kernel thread takes them).
//
// One multishot receive takes every datagram, each into a buffer of a
// provided-buffer ring whose buffers are mbufs' data areas: no copy. Why not
// many single-shot receives: each posted receive is a waiter on the socket,
// and every datagram wakes them all (measured: ~140 us round trips with 256
// posted, against ~20 with one multishot).
// Only the NIC core's thread may call rx_burst/tx_burst; the first call posts
// the receives and makes the ring that thread's, so that completions run there.
// Completions are made when the poller asks (IORING_SETUP_DEFER_TASKRUN)
// rather than by a signal to it.
#pragma once

#include <liburing.h>
#include <netinet/in.h>
#include <rte_mempool.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "nic/link/packet_io.h"
#include "lib/wire/frame.h"

namespace nanopu {

struct UringPortParams {
  uint32_t ip = 0;           // host order; must be an address of this machine
  uint16_t udp_port = 9099;  // every host's: the peer is its IPv4 address
  bool sqpoll = false;       // IORING_SETUP_SQPOLL
  uint32_t rx_slots = 256;   // receives kept posted
  uint32_t tx_slots = 512;   // sends in flight (beyond: back-pressure)
};

class UringPort final : public PacketIo {
 public:
  // Opens the socket and the ring; every failure is one line naming the
  // cause and what to do (a port in use, an address not on this machine, no
  // io_uring in this kernel or sandbox).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<UringPort>> open(const UringPortParams& params,
                                                                      rte_mempool* pool);
  ~UringPort() override;  // close()
  // Closes the ring and the socket (once); then leaked() says whether the
  // kernel may still hold buffers of the pool.
  void close();
  UringPort(const UringPort&) = delete;
  UringPort& operator=(const UringPort&) = delete;

  uint16_t rx_burst(rte_mbuf** pkts, uint16_t n) override;
  uint16_t tx_burst(rte_mbuf** pkts, uint16_t n) override;
  [[nodiscard]] int rx_event_fd() const override { return event_fd_; }
  void flush() override { submit(); }
  // On the poller thread, at the end of a run: takes back every buffer the
  // kernel holds (cancels the posted receives, waits for the sends).
  void quiesce() override;
  // Whether buffers may still be the kernel's (the port was destroyed on
  // another thread without quiesce()): the pool must then be kept.
  [[nodiscard]] bool leaked() const { return leaked_; }

  [[nodiscard]] const wire::MacAddr& mac() const { return mac_; }
  [[nodiscard]] std::string describe() const;  // "uring udp 127.0.0.2:9099"

  // Counters by name, as NicCounters::for_each (print_counters). Written by
  // the NIC core's thread, read at exit and by telemetry.
  template <typename Fn>
  void for_each(Fn&& fn) const {
    fn(std::string_view("rx_datagrams"), load(rx_datagrams_));
    fn(std::string_view("rx_drop_oversize"), load(rx_oversize_));
    fn(std::string_view("rx_errors"), load(rx_errors_));
    fn(std::string_view("rx_drop_no_mbuf"), load(rx_no_mbuf_));
    fn(std::string_view("rx_out_of_buffers"), load(rx_no_buffer_));
    fn(std::string_view("tx_datagrams"), load(tx_datagrams_));
    fn(std::string_view("tx_errors"), load(tx_errors_));
    fn(std::string_view("tx_drop_unsendable"), load(tx_unsendable_));
    fn(std::string_view("submits"), load(submits_));
    fn(std::string_view("get_events"), load(get_events_));
  }
  [[nodiscard]] uint64_t rx_datagrams() const { return load(rx_datagrams_); }
  [[nodiscard]] uint64_t tx_errors() const { return load(tx_errors_); }
  [[nodiscard]] uint64_t submits() const { return load(submits_); }

  // The largest datagram a peer sends: a full DATA frame less its envelope.
  static constexpr size_t kMaxDatagramBytes =
      wire::kFrameHeaderBytes + wire::kSegmentBytes - wire::kUdpEnvelopeBytes;

 private:
  // The steps of open(): the UDP socket, the io_uring, the receive buffers.
  absl::Status bind_socket();
  absl::Status setup_ring();
  absl::Status provide_buffers();
  static constexpr unsigned kMaxIov = 4;  // segments of one frame (header + payload)
  struct TxSlot {
    rte_mbuf* m = nullptr;
    msghdr msg{};
    iovec iov[kMaxIov]{};
    sockaddr_in addr{};
  };
  UringPort() = default;
  static uint64_t load(const std::atomic<uint64_t>& c) { return c.load(std::memory_order_relaxed); }
  static void bump(std::atomic<uint64_t>& c, uint64_t n = 1) {
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);  // one writer
  }
  void arm();
  void post_receive();
  // Takes every completion: received frames join ready_, finished sends are
  // freed and their slots given back.
  void reap();
  void take(uint64_t tag, int res, uint32_t flags);
  void give_buffer(uint16_t bid, rte_mbuf* m);  // into the provided-buffer ring
  void submit();

  UringPortParams params_;
  rte_mempool* pool_ = nullptr;
  int fd_ = -1;
  int event_fd_ = -1;
  io_uring ring_{};
  bool ring_ok_ = false;
  bool armed_ = false;
  bool recv_armed_ = false;
  bool told_einval_ = false;
  bool deferred_ = false;  // DEFER_TASKRUN ring: completions made when the poller asks
  pid_t poller_tid_ = 0;   // the thread that polls (and, deferred, owns the ring)
  wire::MacAddr mac_{};
  msghdr recv_msg_{};      // the multishot receive's template: a sockaddr_in, no control
  io_uring_buf_ring* br_ = nullptr;
  size_t br_bytes_ = 0;
  bool br_registered_ = false;
  int returned_ = 0;                 // buffers added since the last advance
  std::vector<rte_mbuf*> rx_bufs_;   // by buffer id: the mbuf lent to the kernel
  std::vector<TxSlot> tx_slots_;
  std::vector<uint32_t> free_tx_;    // send slots not in flight
  std::vector<rte_mbuf*> ready_;     // received frames not yet taken, from ready_head_
  size_t ready_head_ = 0;
  uint32_t in_flight_ = 0;           // requests the kernel holds (the receive, sends)
  bool leaked_ = false;
  std::atomic<uint64_t> rx_datagrams_{0}, rx_oversize_{0}, rx_errors_{0}, rx_no_mbuf_{0};
  std::atomic<uint64_t> rx_no_buffer_{0};
  std::atomic<uint64_t> tx_datagrams_{0}, tx_errors_{0}, tx_unsendable_{0}, submits_{0};
  std::atomic<uint64_t> get_events_{0};
};

}  // namespace nanopu
