#include "apps/loopback/loopback.h"

#include <rte_cycles.h>
#include <rte_pause.h>

#include <cstdio>
#include <string>

namespace nanopu::apps {
namespace {

void spin_cycles(uint64_t model_cycles) {
  static const double tsc_per_ns = static_cast<double>(rte_get_tsc_hz()) / 1e9;
  const uint64_t host =
      static_cast<uint64_t>(static_cast<double>(model_cycles) / kServiceCyclesPerNs * tsc_per_ns);
  const uint64_t end = rte_rdtsc() + host;
  while (rte_rdtsc() < end) rte_pause();
}

}  // namespace

bool serve_loopback(Thread& t, uint16_t context, uint8_t priority, LoopbackMode mode) {
  if (absl::Status s = t.bind(context, priority); !s.ok()) {
    std::fprintf(stderr, "nanopu: loopback: %s\n", std::string(s.message()).c_str());
    return false;
  }
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
        spin_cycles(second);
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
      spin_cycles(service);
      (void)t.write(hdr);
      (void)t.write(service);
      (void)t.write(sent);
      for (uint32_t i = 2; i < words; ++i) (void)t.write(t.read());
    } else {
      const uint64_t add = mode == LoopbackMode::kIncrement ? 1 : 0;
      (void)t.write(hdr);  // the RX header (source) is the TX header (destination)
      for (uint32_t i = 0; i < words; ++i) (void)t.write(t.read() + add);
    }
    t.msg_done();
  }
  return true;
}

}  // namespace nanopu::apps
