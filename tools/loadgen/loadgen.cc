#include "tools/loadgen/loadgen.h"

#include <rte_cycles.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nanopu/memory_message.h"

namespace nanopu::apps {
namespace {

// Mask keeping the bytes of the last word that travel on the wire: a message
// whose length is not a multiple of 8 carries only the first len%8 bytes of
// its last big-endian word (docs/wire.md).
uint64_t last_word_mask(uint32_t len) {
  const uint32_t rem = len % 8;
  return rem == 0 ? ~0ull : ~0ull << (8 * (8 - rem));
}

class Client {
 public:
  Client(Thread& t, const LoadGenOptions& o, LoadGenResult* r)
      : t_(t), o_(o), r_(r), words_((o.msg_bytes + 7) / 8), rng_(o.seed),
        tsc_hz_(static_cast<double>(rte_get_tsc_hz())), failures_before_(t.tx_failures()) {}

  void run();

 private:
  bool send(uint64_t sent_tsc, uint64_t service);
  void receive_all(uint64_t now);
  void progress(uint64_t now);
  // Requests the transport gave up: no reply can come for them.
  [[nodiscard]] uint64_t given_up() const { return t_.tx_failures() - failures_before_; }
  [[nodiscard]] uint64_t in_flight() const {
    const uint64_t done = r_->received + r_->bad_replies + r_->lost + given_up();  // not duplicates
    return r_->sent > done ? r_->sent - done : 0;
  }
  [[nodiscard]] uint64_t expected(uint64_t word, uint32_t index) const {
    uint64_t mask = index + 1 == words_ ? last_word_mask(o_.msg_bytes) : ~0ull;
    const uint64_t add = o_.expect == Expect::kIncrement ? 1 : 0;
    return ((word & mask) + add) & mask;
  }

  Thread& t_;
  const LoadGenOptions& o_;
  LoadGenResult* r_;
  uint32_t words_;
  std::mt19937_64 rng_;
  double tsc_hz_;
  uint64_t start_ = 0;
  uint64_t last_reply_ = 0;
  uint64_t next_progress_s_ = 2;
  uint64_t failures_before_;
  std::vector<bool> answered_;  // by sequence number (requests of 24 bytes or more)
  std::vector<uint64_t> tx_memory_;  // the memory path's request, reused
  MemoryMessage rx_memory_;          // and its reply
};

uint64_t fill_word_impl(uint64_t seq, uint32_t i) {
  // splitmix64 of (seq, i): every word of every request differs.
  uint64_t z = seq * 0x9e3779b97f4a7c15ull + i;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

bool Client::send(uint64_t sent_tsc, uint64_t service) {
  const AppHeader h{o_.server_ip, o_.server_context, static_cast<uint16_t>(o_.msg_bytes)};
  const uint64_t seq = r_->sent;
  auto word = [&](uint32_t i) {
    return i == 0 ? service : i == 1 ? sent_tsc : i == 2 ? seq : fill_word_impl(seq, i);
  };
  if (o_.path == MessagePath::kMemory) {  // built in memory, handed over whole
    tx_memory_.resize(words_);
    for (uint32_t i = 0; i < words_; ++i) tx_memory_[i] = word(i);
    if (t_.send_message(h, tx_memory_) != ApiError::kOk) {
      ++r_->send_failures;
      return false;
    }
  } else {
    if (t_.write(h.word()) != ApiError::kOk) {
      ++r_->send_failures;
      return false;
    }
    for (uint32_t i = 0; i < words_; ++i) (void)t_.write(word(i));
  }
  ++r_->sent;
  return true;
}

void Client::receive_all(uint64_t now) {  // now: refreshed per reply
  const bool verify = o_.expect != Expect::kNone;
  const uint64_t add = o_.expect == Expect::kIncrement ? 1 : 0;
  const bool has_seq = o_.msg_bytes >= 24;  // word 2 arrives whole
  const bool memory = o_.path == MessagePath::kMemory;
  while (t_.msgs_ready()) {
    if (memory && t_.receive_message(&rx_memory_) != ApiError::kOk) break;
    const AppHeader h = memory ? rx_memory_.header : AppHeader::from_word(t_.read());
    bool ok = h.len == o_.msg_bytes && h.ip == o_.server_ip && h.context == o_.server_context;
    const uint32_t n = h.payload_words();
    uint64_t sent_tsc = 0;
    uint64_t seq = 0;
    // Every word is checked as it is read (on the register path words are
    // consumed by read(); on the memory path they are all there already).
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t v = memory ? rx_memory_.payload[i] : t_.read();
      if (i == 1) sent_tsc = v - add;
      if (i == 2) seq = v - add;
      if (!verify || !ok) continue;
      if (i == 0) ok = v == expected(o_.service_cycles, 0);
      else if (i == 2 && has_seq) ok = seq < r_->sent;
      else if (i >= 3 && has_seq) ok = v == expected(fill_word_impl(seq, i), i);
    }
    const double server_core_ns = memory ? rx_memory_.sender_core_ns : t_.sender_core_ns();
    if (!memory) t_.msg_done();
    if (!ok) {
      ++r_->bad_replies;
      continue;
    }
    // Exactly once: a second reply to the same request is counted apart.
    if (has_seq) {
      if (seq >= answered_.size()) answered_.resize(std::max<size_t>(2 * answered_.size(), seq + 1));
      if (answered_[seq]) {
        ++r_->duplicates;
        continue;
      }
      answered_[seq] = true;
    }
    ++r_->received;
    now = rte_rdtsc();
    last_reply_ = now;
    record_measured_reply(r_, sent_tsc, now, start_, tsc_hz_, server_core_ns, o_.msg_bytes, o_.msg_bytes);
  }
}

}  // namespace

void record_measured_reply(LoadGenResult* r, uint64_t sent_tsc, uint64_t now_tsc, uint64_t start_tsc,
                           double tsc_hz, double server_core_ns, uint32_t request_bytes,
                           uint32_t reply_bytes) {
  if (sent_tsc > now_tsc) return;
  const double rtt_ns = static_cast<double>(now_tsc - sent_tsc) * 1e9 / tsc_hz;
  r->latency_ns.record(static_cast<uint64_t>(rtt_ns));
  if (request_bytes == 0) return;
  if (r->samples.size() >= kMaxReplySamples) {
    ++r->samples_dropped;
    return;
  }
  if (r->samples.capacity() == 0) r->samples.reserve(1u << 16);
  const double sent_ns = static_cast<double>(sent_tsc - std::min(sent_tsc, start_tsc)) * 1e9 / tsc_hz;
  r->samples.push_back({sent_ns, rtt_ns, server_core_ns, request_bytes, reply_bytes});
}

void print_progress(const LoadGenResult& r, uint64_t start_tsc, uint64_t now_tsc, double tsc_hz,
                    uint64_t* next_s) {
  const double el = static_cast<double>(now_tsc - std::min(now_tsc, start_tsc)) / tsc_hz;
  if (el < static_cast<double>(*next_s)) return;
  *next_s = static_cast<uint64_t>(el) + 1;
  std::fprintf(stderr, "[%5.1fs] sent %llu  received %llu  %.0f msg/s  p50 %.2f us  p99 %.2f us\n", el,
               static_cast<unsigned long long>(r.sent), static_cast<unsigned long long>(r.received),
               static_cast<double>(r.received) / el, static_cast<double>(r.latency_ns.quantile(0.5)) / 1e3,
               static_cast<double>(r.latency_ns.quantile(0.99)) / 1e3);
}

namespace {

void Client::progress(uint64_t now) {
  if (o_.progress) print_progress(*r_, start_, now, tsc_hz_, &next_progress_s_);
}

void Client::run() {
  start_ = rte_rdtsc();
  last_reply_ = start_;
  const uint64_t end_tsc =
      o_.count == 0 ? start_ + static_cast<uint64_t>(o_.duration_s * tsc_hz_) : UINT64_MAX;
  auto more_to_send = [&](uint64_t now) {
    return o_.count ? r_->sent < o_.count : now < end_tsc;
  };
  std::exponential_distribution<double> gap(o_.rate > 0 ? o_.rate : 1.0);
  const auto drain_ticks = static_cast<uint64_t>(o_.drain_timeout_s * tsc_hz_);
  double next_send = static_cast<double>(start_);

  uint64_t now = start_;
  while (!t_.stopping() && more_to_send(now)) {
    if (o_.rate > 0) {
      // Open loop: send every request whose scheduled time has come.
      while (static_cast<double>(now) >= next_send && more_to_send(now)) {
        if (!send(static_cast<uint64_t>(next_send), o_.service_cycles)) break;
        next_send += gap(rng_) * tsc_hz_;
      }
    } else {
      while (in_flight() < o_.outstanding && more_to_send(now))
        if (!send(rte_rdtsc(), o_.service_cycles)) break;
      // Nothing back for drain_timeout: the window's requests are lost (the
      // transport does not retransmit yet); count them and carry on.
      if (in_flight() > 0 && now - last_reply_ > drain_ticks) {
        r_->lost += in_flight();
        last_reply_ = now;
      }
    }
    receive_all(now);
    progress(now);
    t_.idle();  // let the NIC loop (shared core) and other threads run
    now = rte_rdtsc();
  }
  // Drain: wait for outstanding replies.
  const uint64_t drain_end = now + drain_ticks;
  while (!t_.stopping() && in_flight() > 0 && now < drain_end) {
    receive_all(now);
    t_.idle();
    now = rte_rdtsc();
  }
  r_->lost += in_flight();
  r_->given_up = given_up();
  r_->elapsed_s = static_cast<double>(last_reply_ - start_) / tsc_hz_;
  if (o_.stop_server && send(rte_rdtsc(), 0)) --r_->sent;  // not a measured request
}

}  // namespace

uint64_t fill_word(uint64_t seq, uint32_t i) { return fill_word_impl(seq, i); }

void run_loadgen(Thread& t, const LoadGenOptions& o, LoadGenResult* r) {
  if (absl::Status s = t.bind(o.context, 0); !s.ok()) {
    r->error = std::string(s.message());
    return;
  }
  Client(t, o, r).run();
}

void print_result(FILE* out, const LoadGenOptions& o, const LoadGenResult& r) {
  const Histogram& h = r.latency_ns;
  auto us = [](uint64_t ns) { return static_cast<double>(ns) / 1e3; };
  std::fprintf(out, "nanopu-loadgen: %s, %u-byte requests%s\n",
               o.rate > 0 ? absl::StrFormat("open loop, Poisson %.0f req/s", o.rate).c_str()
                          : absl::StrFormat("closed loop, %u outstanding", o.outstanding).c_str(),
               o.msg_bytes, o.path == MessagePath::kMemory ? ", traditional path (whole messages in memory)" : "");
  std::fprintf(out,
               "  sent %llu  received %llu  lost %llu  given-up %llu  bad %llu  duplicated %llu  "
               "send-failures %llu\n",
               static_cast<unsigned long long>(r.sent), static_cast<unsigned long long>(r.received),
               static_cast<unsigned long long>(r.lost), static_cast<unsigned long long>(r.given_up),
               static_cast<unsigned long long>(r.bad_replies),
               static_cast<unsigned long long>(r.duplicates),
               static_cast<unsigned long long>(r.send_failures));
  if (r.lost + r.given_up + r.bad_replies + r.duplicates + r.send_failures != 0)
    std::fprintf(out,
                 "    lost: delivered (or not yet given up) but no reply within --drain_timeout;\n"
                 "    given-up: the transport gave up after --max_retransmits (server down?) or\n"
                 "    a restarted server refused a request meant for its predecessor;\n"
                 "    bad: a reply with a wrong header, length or word; duplicated: a second reply\n"
                 "    to one request (exactly-once broken); send-failures: no buffer\n");
  std::fprintf(out, "  throughput  %.0f msg/s over %.3f s (measured)\n",
               r.elapsed_s > 0 ? static_cast<double>(r.received) / r.elapsed_s : 0.0, r.elapsed_s);
  std::fprintf(out, "  latency (measured round trip, us)\n");
  std::fprintf(out, "    %8s %8s %8s %8s %8s %8s %8s\n", "min", "mean", "p50", "p90", "p99", "p99.9",
               "max");
  std::fprintf(out, "    %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f\n", us(h.min()), h.mean() / 1e3,
               us(h.quantile(0.5)), us(h.quantile(0.9)), us(h.quantile(0.99)),
               us(h.quantile(0.999)), us(h.max()));
  if (const ModelledLatency& m = r.modelled; !m.how.empty()) {
    std::fprintf(out, "  latency (modelled nanoPU hardware, us; %s; %s)\n",
                 m.source == ModelSource::kMeasured ? "per message, from this run's replies" : "from the declared work",
                 m.how.c_str());
    std::fprintf(out, "    %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f\n", m.min_ns / 1e3, m.mean_ns / 1e3,
                 m.p50_ns / 1e3, m.p90_ns / 1e3, m.p99_ns / 1e3, m.p999_ns / 1e3, m.max_ns / 1e3);
  }
}

namespace {
std::string modelled_json(const ModelledLatency& m) {
  if (m.how.empty()) return "";
  std::string cdf;
  for (const auto& [q, ns] : m.cdf) absl::StrAppend(&cdf, cdf.empty() ? "" : ",", "[", q, ",", ns, "]");
  return absl::StrFormat(
      ",\"latency_ns_modelled\":{\"kind\":\"modelled\",\"source\":\"%s\",\"how\":\"%s\",\"messages\":%u,"
      "\"server_core_p50_ns\":{\"measured\":%.1f,\"modelled\":%.1f},\"min\":%.1f,\"mean\":%.1f,"
      "\"p50\":%.1f,\"p90\":%.1f,\"p99\":%.1f,\"p999\":%.1f,\"max\":%.1f,\"cdf\":[%s]}",
      m.source == ModelSource::kMeasured ? "measured" : "declared", m.how, m.messages, m.measured_core_p50_ns, m.modelled_core_p50_ns, m.min_ns, m.mean_ns,
      m.p50_ns, m.p90_ns, m.p99_ns, m.p999_ns, m.max_ns, cdf);
}

// The measured distribution as [fraction, ns] points, for latency CDF plots
// (tools/plot_latency.py): every percentile, then the tail more finely.
std::string cdf_json(const Histogram& h) {
  std::string out = "[";
  if (h.count() > 0)
    for (double q : cdf_fractions())
      absl::StrAppend(&out, out.size() > 1 ? "," : "", "[", q, ",", q < 1 ? h.quantile(q) : h.max(), "]");
  return out + "]";
}

}  // namespace

const std::vector<double>& cdf_fractions() {
  static const std::vector<double> kFractions = [] {
    std::vector<double> f;
    for (int i = 1; i < 100; ++i) f.push_back(i / 100.0);
    for (double q : {0.995, 0.999, 0.9995, 0.9999, 1.0}) f.push_back(q);
    return f;
  }();
  return kFractions;
}

std::string result_json(const LoadGenOptions& o, const LoadGenResult& r) {
  const Histogram& h = r.latency_ns;
  return absl::StrFormat(
      "{\"mode\":\"%s\",\"app_mode\":\"%s\",\"rate\":%.1f,\"outstanding\":%u,\"msg_bytes\":%u,"
      "\"sent\":%u,\"received\":%u,\"lost\":%u,\"given_up\":%u,\"bad_replies\":%u,"
      "\"duplicates\":%u,\"send_failures\":%u,"
      "\"elapsed_s\":%.6f,\"throughput_msgs_per_s\":%.1f,"
      "\"latency_ns\":{\"kind\":\"measured\",\"min\":%u,\"mean\":%.1f,\"p50\":%u,\"p90\":%u,"
      "\"p99\":%u,\"p999\":%u,\"max\":%u,\"cdf\":%s}%s}",
      o.rate > 0 ? "open" : "closed", app_mode_name(o.path), o.rate, o.outstanding, o.msg_bytes, r.sent, r.received,
      r.lost, r.given_up, r.bad_replies, r.duplicates, r.send_failures, r.elapsed_s,
      r.elapsed_s > 0 ? static_cast<double>(r.received) / r.elapsed_s : 0.0, h.min(), h.mean(),
      h.quantile(0.5), h.quantile(0.9), h.quantile(0.99), h.quantile(0.999), h.max(),
      cdf_json(h), modelled_json(r.modelled));
}

}  // namespace nanopu::apps
