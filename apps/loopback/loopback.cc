#include "apps/loopback/loopback.h"


#include <algorithm>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "apps/boot/bind_service.h"
#include "nanopu/memory_message.h"

namespace nanopu::apps {
namespace {

// Words an echo moves per bulk call: one 1 KB packet segment.
constexpr uint32_t kBulkWords = 128;


// The same services on the traditional path: each request whole in memory
// (m), the reply built in `out` and sent whole. Returns false when a
// service-mode request with service_time 0 ends the thread.
class MemoryLoopback {
 public:
  MemoryLoopback(Thread& t, LoopbackMode mode) : t_(t), mode_(mode) {}

  bool serve(const MemoryMessage& m) {
    const std::span<const uint64_t> in = m.words();
    out_.assign(in.begin(), in.end());
    const bool tester = mode_ == LoopbackMode::kServiceTester || mode_ == LoopbackMode::kThroughput;
    if (tester && !in.empty()) {
      if (in[0] == kTesterConfig) {  // never answered
        config_msgs_ = in.size() >= 2 ? in[1] : 0;
        config_ts_ = in.size() >= 3 ? in[2] : 0;
        data_seen_ = 0;
        return true;
      }
      if (in[0] == kTesterData && mode_ == LoopbackMode::kServiceTester && in.size() >= 2) t_.compute(in[1]);
      if (in[0] == kTesterData && mode_ == LoopbackMode::kThroughput && config_msgs_ > 0 &&
          ++data_seen_ == config_msgs_) {
        if (in.size() >= 2) out_.back() = config_ts_;
        data_seen_ = 0;
      }
    } else if (mode_ == LoopbackMode::kService && in.size() >= 2) {
      if (in[0] == 0) return false;  // the load generator's convention: service_time 0 ends the thread
      t_.compute(in[0]);
    } else if (mode_ == LoopbackMode::kIncrement) {
      for (uint64_t& w : out_) ++w;
    }
    (void)t_.send_message(m.header, out_);  // the RX header (source) is the TX header (destination)
    return true;
  }

 private:
  Thread& t_;
  LoopbackMode mode_;
  std::vector<uint64_t> out_;  // the reply, reused
  uint64_t config_msgs_ = 0, config_ts_ = 0, data_seen_ = 0;  // kThroughput
};

bool serve_from_memory_until_done(Thread& t, LoopbackMode mode) {
  MemoryLoopback loopback(t, mode);
  MemoryMessage m;
  while (t.wait())
    while (t.receive_message(&m) == ApiError::kOk)
      if (!loopback.serve(m)) return true;
  return true;
}

}  // namespace

bool serve_loopback(Thread& t, uint16_t context, uint8_t priority, LoopbackMode mode, MessagePath path) {
  if (!bind_service(t, context, priority, "loopback")) return false;
  if (path == MessagePath::kMemory) return serve_from_memory_until_done(t, mode);
  // kThroughput: the CONFIG's message count and timestamp, DATA seen since.
  uint64_t config_msgs = 0, config_ts = 0, data_seen = 0;
  while (t.wait()) {
    const uint64_t hdr = t.read();
    const uint32_t words = AppHeader::from_word(hdr).payload_words();
    const bool tester = mode == LoopbackMode::kServiceTester || mode == LoopbackMode::kThroughput;
    if (tester && words >= 1) {
      const uint64_t type = t.read();
      if (type == kTesterConfig) {  // never answered
        config_msgs = words >= 2 ? t.read() : 0;
        config_ts = words >= 3 ? t.read() : 0;
        data_seen = 0;
        t.msg_done();
        continue;
      }
      uint64_t second = 0;
      if (type == kTesterData && mode == LoopbackMode::kServiceTester && words >= 2) {
        second = t.read();
        t.compute(second);
      }
      const bool last = type == kTesterData && mode == LoopbackMode::kThroughput && config_msgs > 0 &&
                        ++data_seen == config_msgs;
      (void)t.write(hdr);
      (void)t.write(type);
      uint32_t i = 1;
      if (type == kTesterData && mode == LoopbackMode::kServiceTester && words >= 2) {
        (void)t.write(second);
        i = 2;
      }
      for (; i < words; ++i) {
        const uint64_t w = t.read();
        (void)t.write(last && i + 1 == words ? config_ts : w);
      }
      if (last) data_seen = 0;
    } else if (mode == LoopbackMode::kService && words >= 2) {
      const uint64_t service = t.read();
      const uint64_t sent = t.read();
      if (service == 0) {  // the load generator's convention: service_time 0 ends the thread
        t.msg_done();
        return true;
      }
      t.compute(service);
      (void)t.write(hdr);
      (void)t.write(service);
      (void)t.write(sent);
      for (uint32_t i = 2; i < words; ++i) (void)t.write(t.read());
    } else {
      const uint64_t add = mode == LoopbackMode::kIncrement ? 1 : 0;
      (void)t.write(hdr);  // the RX header (source) is the TX header (destination)
      if (add == 0 && words > kBulkWords) {
        // Echo of a long message: the same words, a segment at a time
        // (Thread::read_words/write_words) instead of a call per word.
        uint64_t buf[kBulkWords];
        for (uint32_t i = 0; i < words; i += kBulkWords) {
          const std::span<uint64_t> chunk(buf, std::min<uint32_t>(kBulkWords, words - i));
          (void)t.read_words(chunk);
          (void)t.write_words(chunk);
        }
      } else {
        for (uint32_t i = 0; i < words; ++i) (void)t.write(t.read() + add);
      }
    }
    t.msg_done();
  }
  return true;
}

}  // namespace nanopu::apps
