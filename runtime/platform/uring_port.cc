#include "runtime/platform/uring_port.h"
#include "lib/base/log.h"

#include <arpa/inet.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"
#include "nanopu/address.h"

namespace nanopu {
namespace {

// user_data: the receive, a send (its slot in the low bits), or the cancel.
constexpr uint64_t kRecvTag = 1;
constexpr uint64_t kCancelTag = 2;
constexpr uint64_t kTxTag = uint64_t{1} << 32;
constexpr uint16_t kBufferGroup = 0;
// The multishot receive writes, into each buffer, io_uring_recvmsg_out and
// the peer's sockaddr_in before the payload (32 bytes): the buffer starts 2
// bytes into the mbuf, so the payload lands right after 34 bytes of room,
// where the envelope is then written over them.
constexpr size_t kRecvPrefixBytes = sizeof(io_uring_recvmsg_out) + sizeof(sockaddr_in);
static_assert(kRecvPrefixBytes <= wire::kUdpEnvelopeBytes);
constexpr size_t kBufferLead = wire::kUdpEnvelopeBytes - kRecvPrefixBytes;
constexpr int kSocketBufferBytes = 4 << 20;  // a burst of 64 KB messages without loss

}  // namespace

absl::StatusOr<std::unique_ptr<UringPort>> UringPort::open(const UringPortParams& params,
                                                          rte_mempool* pool) {
  if (params.rx_slots == 0 || (params.rx_slots & (params.rx_slots - 1)) != 0 || params.rx_slots > 32768)
    return absl::InvalidArgumentError("uring port: rx_slots must be a power of two up to 32768");
  std::unique_ptr<UringPort> p(new UringPort);
  p->params_ = params;
  p->pool_ = pool;
  p->mac_ = wire::mac_for_ipv4(params.ip);
  if (absl::Status s = p->bind_socket(); !s.ok()) return s;
  if (absl::Status s = p->setup_ring(); !s.ok()) return s;
  if (absl::Status s = p->provide_buffers(); !s.ok()) return s;
  p->recv_msg_.msg_namelen = sizeof(sockaddr_in);
  p->event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (p->event_fd_ < 0 || io_uring_register_eventfd(&p->ring_, p->event_fd_) != 0) {
    if (p->event_fd_ >= 0) ::close(p->event_fd_);
    p->event_fd_ = -1;  // adaptive polling falls back to timed sleeps
  }
  p->tx_slots_.resize(params.tx_slots);
  for (uint32_t i = 0; i < params.tx_slots; ++i) p->free_tx_.push_back(params.tx_slots - 1 - i);
  p->ready_.reserve(2 * size_t{params.rx_slots});
  return p;
}

absl::Status UringPort::bind_socket() {
  const std::string where = absl::StrCat(format_ipv4(params_.ip), ":", params_.udp_port);
  fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return absl::InternalError(absl::StrCat("socket(AF_INET, SOCK_DGRAM): ", strerror(errno)));
  int bytes = kSocketBufferBytes;
  (void)setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
  (void)setsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(params_.udp_port);
  a.sin_addr.s_addr = htonl(params_.ip);
  // A host killed a moment ago may still hold the address: the kernel
  // releases an io_uring's socket when it has torn the ring down, after
  // the process is gone (seen as a restarted client's EADDRINUSE under
  // ASan). So the bind is retried for kBindRetry before it is refused.
  constexpr auto kBindRetry = std::chrono::seconds(2);
  const auto give_up = std::chrono::steady_clock::now() + kBindRetry;
  int e = 0;
  while (true) {
    if (bind(fd_, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0) return absl::OkStatus();
    e = errno;
    if (e != EADDRINUSE || std::chrono::steady_clock::now() >= give_up) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (e == EADDRINUSE)
    return absl::UnavailableError(absl::StrCat(
        "--backend=uring: UDP ", where, " is already in use (another nanopu host on this "
        "address? tried for 2 s); give each host its own --ip (127.0.0.2, 127.0.0.3, ...) or another "
        "--udp_port"));
  if (e == EADDRNOTAVAIL)
    return absl::InvalidArgumentError(absl::StrCat(
        "--backend=uring: --ip=", format_ipv4(params_.ip), " is not an address of this machine "
        "(any 127.x.y.z is; or an address on one of its interfaces)"));
  return absl::InternalError(absl::StrCat("--backend=uring: bind UDP ", where, ": ", strerror(e)));
}

absl::Status UringPort::setup_ring() {
  // The NIC core polls: completions are made when it asks (DEFER_TASKRUN,
  // kernels >= 6.1), and the kernel raises IORING_SQ_TASKRUN in the shared
  // ring when there is work, so an idle poll makes no system call and a
  // busy one no signal or IPI. R_DISABLED: the ring is the first poller
  // thread's (SINGLE_ISSUER), not this opening thread's. Older kernels and
  // sqpoll get the default mode (completions by task work, signalled).
  const unsigned cq_entries = 4 * (params_.rx_slots + params_.tx_slots);
  io_uring_params up{};
  int rc = -EINVAL;
  if (!params_.sqpoll) {
    up.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
               IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_R_DISABLED;
    up.cq_entries = cq_entries;
    rc = io_uring_queue_init_params(256, &ring_, &up);
    deferred_ = rc == 0;
  }
  if (rc == -EINVAL) {
    up = {};
    up.flags = IORING_SETUP_CQSIZE;
    up.cq_entries = cq_entries;
    if (params_.sqpoll) {
      up.flags |= IORING_SETUP_SQPOLL;
      up.sq_thread_idle = 1000;  // ms before the kernel thread sleeps
    }
    rc = io_uring_queue_init_params(256, &ring_, &up);
  }
  if (rc < 0)
    return absl::UnavailableError(absl::StrCat(
        "--backend=uring: io_uring_setup: ", strerror(-rc),
        -rc == ENOSYS || -rc == EPERM
            ? " (this kernel or sandbox has no io_uring: seccomp, or kernel.io_uring_disabled); "
              "run with --backend=dpdk and a --vdev instead (net_af_packet on an interface)"
            : ""));
  ring_ok_ = true;
  return absl::OkStatus();
}

absl::Status UringPort::provide_buffers() {
  // The provided-buffer ring: rx_slots entries, each an mbuf's data area.
  br_bytes_ = params_.rx_slots * sizeof(io_uring_buf);
  void* br = mmap(nullptr, br_bytes_, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  if (br == MAP_FAILED) return absl::ResourceExhaustedError("uring port: mmap of the buffer ring failed");
  br_ = static_cast<io_uring_buf_ring*>(br);
  io_uring_buf_ring_init(br_);
  io_uring_buf_reg reg{};
  reg.ring_addr = reinterpret_cast<uint64_t>(br);
  reg.ring_entries = params_.rx_slots;
  reg.bgid = kBufferGroup;
  if (int r = io_uring_register_buf_ring(&ring_, &reg, 0); r != 0)
    return absl::UnavailableError(absl::StrCat("--backend=uring: registering the receive buffers: ",
                                               strerror(-r), " (needs Linux 5.19 or later); run with --backend=dpdk instead"));
  br_registered_ = true;
  rx_bufs_.assign(params_.rx_slots, nullptr);
  const int mask = io_uring_buf_ring_mask(params_.rx_slots);
  for (uint32_t b = 0; b < params_.rx_slots; ++b) {
    rte_mbuf* m = rte_pktmbuf_alloc(pool_);
    if (m == nullptr) return absl::ResourceExhaustedError("uring port: too few mbufs for the receive buffers");
    rx_bufs_[b] = m;
    io_uring_buf_ring_add(br_, rte_pktmbuf_mtod_offset(m, uint8_t*, kBufferLead),
                          static_cast<unsigned>(rte_pktmbuf_tailroom(m) - kBufferLead),
                          static_cast<unsigned short>(b), mask, static_cast<int>(b));
  }
  io_uring_buf_ring_advance(br_, static_cast<int>(params_.rx_slots));
  return absl::OkStatus();
}

UringPort::~UringPort() { close(); }

void UringPort::close() {
  if (ring_ok_) {
    // Normally quiesce() ran on the poller at the end of the run. If not,
    // what the kernel holds can be taken back only on the poller thread (a
    // deferred ring's completions run there); elsewhere it is leaked
    // (leaked() keeps the pool), never freed under the kernel.
    if (in_flight_ != 0 && (!deferred_ || gettid() == poller_tid_)) quiesce();
    const bool clean = in_flight_ == 0;
    leaked_ = !clean;
    if (clean && br_registered_) (void)io_uring_unregister_buf_ring(&ring_, kBufferGroup);
    io_uring_queue_exit(&ring_);
    if (clean) {
      for (rte_mbuf* m : rx_bufs_) rte_pktmbuf_free(m);
      if (br_ != nullptr) munmap(br_, br_bytes_);
    }
    for (size_t i = ready_head_; i < ready_.size(); ++i) rte_pktmbuf_free(ready_[i]);
    ready_.clear();
    ready_head_ = 0;
    ring_ok_ = false;
  }
  if (event_fd_ >= 0) ::close(event_fd_);
  if (fd_ >= 0) ::close(fd_);
  event_fd_ = fd_ = -1;
}

void UringPort::quiesce() {
  if (!ring_ok_ || in_flight_ == 0) return;
  if (recv_armed_)
    if (io_uring_sqe* sqe = io_uring_get_sqe(&ring_)) {
      io_uring_prep_cancel64(sqe, kRecvTag, 0);
      io_uring_sqe_set_data64(sqe, kCancelTag);
    }
  (void)io_uring_submit(&ring_);
  const uint64_t give_up = rte_rdtsc() + rte_get_tsc_hz();
  while (in_flight_ != 0 && rte_rdtsc() < give_up) {
    io_uring_cqe* cqe = nullptr;
    __kernel_timespec ts{0, 10 * 1000 * 1000};
    if (io_uring_wait_cqe_timeout(&ring_, &cqe, &ts) != 0 || cqe == nullptr) continue;
    const uint64_t tag = io_uring_cqe_get_data64(cqe);
    const int res = cqe->res;
    const uint32_t flags = cqe->flags;
    io_uring_cqe_seen(&ring_, cqe);
    if (tag != kCancelTag) take(tag, res, flags);
  }
  armed_ = false;  // a later poll posts the receive again
}

std::string UringPort::describe() const {
  return absl::StrCat("uring udp ", format_ipv4(params_.ip), ":", params_.udp_port,
                      params_.sqpoll ? " sqpoll" : "");
}

void UringPort::post_receive() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) return;  // retried at the next poll
  io_uring_prep_recvmsg_multishot(sqe, fd_, &recv_msg_, 0);
  sqe->flags |= IOSQE_BUFFER_SELECT;
  sqe->buf_group = kBufferGroup;
  io_uring_sqe_set_data64(sqe, kRecvTag);
  recv_armed_ = true;
  ++in_flight_;
}

void UringPort::arm() {
  armed_ = true;
  if (poller_tid_ == 0) {
    poller_tid_ = gettid();
    // io_uring_enable_rings() is declared by Debian's liburing 2.3 but not
    // exported: the register call it wraps.
    if (deferred_)
      (void)syscall(__NR_io_uring_register, ring_.ring_fd, IORING_REGISTER_ENABLE_RINGS, nullptr, 0);
  }
}

void UringPort::submit() {
  if (io_uring_sq_ready(&ring_) == 0) return;
  bump(submits_);
  (void)io_uring_submit(&ring_);
}

void UringPort::reap() {
  // Completions the kernel has not made yet (deferred ring): one system call
  // makes them, only when it says there are some, and submits what waits.
  if (deferred_ && (IO_URING_READ_ONCE(*ring_.sq.kflags) & IORING_SQ_TASKRUN) != 0) {
    bump(get_events_);
    if (io_uring_sq_ready(&ring_) != 0) bump(submits_);
    (void)io_uring_submit_and_get_events(&ring_);
  }
  io_uring_cqe* cqes[64];
  for (;;) {
    const unsigned k = io_uring_peek_batch_cqe(&ring_, cqes, 64);
    if (k == 0) break;
    for (unsigned c = 0; c < k; ++c) take(io_uring_cqe_get_data64(cqes[c]), cqes[c]->res, cqes[c]->flags);
    io_uring_cq_advance(&ring_, k);
    if (k < 64) break;
  }
  if (returned_ != 0) {
    io_uring_buf_ring_advance(br_, returned_);
    returned_ = 0;
  }
}

void UringPort::give_buffer(uint16_t bid, rte_mbuf* m) {
  rx_bufs_[bid] = m;
  io_uring_buf_ring_add(br_, rte_pktmbuf_mtod_offset(m, uint8_t*, kBufferLead),
                        static_cast<unsigned>(rte_pktmbuf_tailroom(m) - kBufferLead), bid,
                        io_uring_buf_ring_mask(params_.rx_slots), returned_++);
}

void UringPort::take(uint64_t tag, int res, uint32_t flags) {
  if (tag == kCancelTag) return;
  if ((tag & kTxTag) != 0) {
    const uint32_t i = static_cast<uint32_t>(tag & 0xffffffffu);
    --in_flight_;
    if (res < 0) bump(tx_errors_);
    rte_pktmbuf_free(tx_slots_[i].m);
    tx_slots_[i].m = nullptr;
    free_tx_.push_back(i);
    return;
  }
  // The receive: one completion per datagram while IORING_CQE_F_MORE says
  // it stays armed; without it the receive has ended (out of buffers,
  // cancelled) and is posted again at the next poll.
  if ((flags & IORING_CQE_F_MORE) == 0) {
    recv_armed_ = false;
    --in_flight_;
  }
  if ((flags & IORING_CQE_F_BUFFER) == 0) {
    if (res < 0 && res != -ENOBUFS && res != -ECANCELED) {
      bump(rx_errors_);
      if (res == -EINVAL && !told_einval_) {
        told_einval_ = true;
        NANOPU_LOG(kError, "--backend=uring: multishot receive refused (EINVAL): "
                           "this kernel is older than Linux 6.0");
      }
    }
    if (res == -ENOBUFS) bump(rx_no_buffer_);  // every buffer taken: the NIC core is behind
    return;
  }
  const auto bid = static_cast<uint16_t>(flags >> IORING_CQE_BUFFER_SHIFT);
  rte_mbuf* m = rx_bufs_[bid];
  const uint8_t* buf = rte_pktmbuf_mtod_offset(m, const uint8_t*, kBufferLead);
  // The buffer starts 2 bytes into the mbuf (kBufferLead): its header is not
  // 4-byte aligned, so it is copied out, not cast (io_uring_recvmsg_validate
  // would hand back a misaligned pointer).
  io_uring_recvmsg_out out{};
  const bool whole = res >= static_cast<int>(kRecvPrefixBytes);
  if (whole) std::memcpy(&out, buf, sizeof out);
  if (!whole || (out.flags & MSG_TRUNC) != 0 || out.payloadlen > kMaxDatagramBytes ||
      out.namelen < sizeof(sockaddr_in)) {
    bump(res < 0 ? rx_errors_ : rx_oversize_);  // none is this long: not a nanopu frame
    give_buffer(bid, m);
    return;
  }
  rte_mbuf* fresh = rte_pktmbuf_alloc(pool_);
  if (fresh == nullptr) {
    bump(rx_no_mbuf_);  // dropped; the transport retransmits
    give_buffer(bid, m);
    return;
  }
  give_buffer(bid, fresh);
  sockaddr_in peer_addr;
  std::memcpy(&peer_addr, buf + sizeof out, sizeof peer_addr);
  const uint32_t peer = ntohl(peer_addr.sin_addr.s_addr);
  const size_t len = out.payloadlen;
  wire::encode_udp_envelope(peer, params_.ip, wire::mac_for_ipv4(peer), mac_, wire::kIpProtoNdp, len,
                            rte_pktmbuf_mtod(m, uint8_t*));
  m->data_len = static_cast<uint16_t>(wire::kUdpEnvelopeBytes + len);
  m->pkt_len = m->data_len;
  ready_.push_back(m);
  bump(rx_datagrams_);
}

uint16_t UringPort::rx_burst(rte_mbuf** pkts, uint16_t n) {
  if (!armed_) arm();
  reap();
  if (!recv_armed_) post_receive();
  uint16_t got = 0;
  while (got < n && ready_head_ < ready_.size()) pkts[got++] = ready_[ready_head_++];
  if (ready_head_ == ready_.size()) {
    ready_.clear();
    ready_head_ = 0;
  } else if (ready_head_ >= params_.rx_slots) {
    ready_.erase(ready_.begin(), ready_.begin() + static_cast<std::ptrdiff_t>(ready_head_));
    ready_head_ = 0;
  }
  submit();
  return got;
}

uint16_t UringPort::tx_burst(rte_mbuf** pkts, uint16_t n) {
  if (free_tx_.size() < n) reap();  // finished sends give their slots back
  uint16_t sent = 0;
  for (; sent < n; ++sent) {
    rte_mbuf* m = pkts[sent];
    if (free_tx_.empty()) break;  // back-pressure: the caller keeps the rest
    if (m->nb_segs > kMaxIov || m->data_len < wire::kFrameHeaderBytes) {
      bump(tx_unsendable_);  // never built by this NIC; dropped, counted
      rte_pktmbuf_free(m);
      continue;
    }
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) {
      submit();
      sqe = io_uring_get_sqe(&ring_);
      if (sqe == nullptr) break;
    }
    const uint32_t i = free_tx_.back();
    free_tx_.pop_back();
    TxSlot& s = tx_slots_[i];
    s.m = m;
    const wire::UdpEnvelope env = wire::read_udp_envelope(rte_pktmbuf_mtod(m, const uint8_t*));
    s.addr = {};
    s.addr.sin_family = AF_INET;
    s.addr.sin_port = htons(params_.udp_port);
    s.addr.sin_addr.s_addr = htonl(env.dst_ip);
    unsigned iovs = 0;
    size_t skip = wire::kUdpEnvelopeBytes;
    for (rte_mbuf* seg = m; seg != nullptr; seg = seg->next) {
      s.iov[iovs++] = {rte_pktmbuf_mtod_offset(seg, uint8_t*, skip), seg->data_len - skip};
      skip = 0;
    }
    s.msg = {};
    s.msg.msg_name = &s.addr;
    s.msg.msg_namelen = sizeof s.addr;
    s.msg.msg_iov = s.iov;
    s.msg.msg_iovlen = iovs;
    io_uring_prep_sendmsg(sqe, fd_, &s.msg, 0);
    io_uring_sqe_set_data64(sqe, kTxTag | i);
    ++in_flight_;
  }
  bump(tx_datagrams_, sent);
  return sent;  // submitted at flush(), with the rest of the poll's

}

}  // namespace nanopu
