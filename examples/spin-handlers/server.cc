// spin-server: the six use cases' execution contexts installed on this
// host's NIC (use_cases.h), and the host side of each: a thread per context
// that takes what the handlers wrote to the host and tells its client what it
// got (its length and FNV-1a, for the client to check against its reference),
// and kvstore's store, which answers what the NIC's cache did not.
#include <cstdio>
#include <unordered_map>
#include <vector>

#include "absl/flags/flag.h"
#include "nanopu/address.h"
#include "nanopu/spin_model.h"
#include "programs.h"
#include "use_cases.h"

ABSL_FLAG(uint64_t, data_seed, 1,
          "The seed of the use cases' tables and workloads: the client's and the server's must agree.");

namespace {

using spin_demo::UseCase;

// Takes each host message of `context` and answers its source with
// [context][length][FNV-1a of its bytes].
void collect(nanopu::Thread& t, uint16_t context) {
  if (!t.bind(context).ok()) return (void)std::fprintf(stderr, "spin-server: context %u is taken\n", context);
  spin_demo::Bytes bytes;
  while (t.wait()) {
    const nanopu::AppHeader h = nanopu::AppHeader::from_word(t.read());
    bytes.resize(8 * size_t{h.payload_words()});
    for (size_t i = 0; i < h.payload_words(); ++i) nanopu::spin::store_be<uint64_t>(bytes.data() + 8 * i, t.read());
    bytes.resize(h.len);
    t.msg_done();
    (void)t.write(nanopu::AppHeader{h.ip, h.context, 24}.word());
    (void)t.write(context);
    (void)t.write(h.len);
    (void)t.write(spin_demo::fnv1a(bytes));
  }
}

// kvstore's host: GETs the NIC's cache missed and every PUT (written through).
void serve_store(nanopu::Thread& t, uint16_t context) {
  if (!t.bind(context).ok()) return (void)std::fprintf(stderr, "spin-server: context %u is taken\n", context);
  std::unordered_map<uint64_t, uint64_t> store;
  while (t.wait()) {
    const nanopu::AppHeader h = nanopu::AppHeader::from_word(t.read());
    if (h.len != 24) {  // not a request: nothing to answer
      t.msg_done();
      continue;
    }
    const uint64_t w0 = t.read(), key = t.read(), value = t.read();
    t.msg_done();
    const bool put = static_cast<spin_demo::KvOp>(w0 >> 56) == spin_demo::KvOp::kPut;
    if (put) store[key] = value;
    const auto it = store.find(key);
    (void)t.write(nanopu::AppHeader{h.ip, h.context, 24}.word());
    (void)t.write(uint64_t{static_cast<uint8_t>(spin_demo::KvFrom::kHost)} << 56 | (w0 & spin_demo::kIdMask));
    (void)t.write(key);
    (void)t.write(it == store.end() ? 0 : it->second);
  }
}

class SpinServer final : public nanopu::Program {
 public:
  explicit SpinServer(const nanopu::ProgramArgs& a)
      : ip_(a.config.ip), workers_(static_cast<uint32_t>(a.config.worker_count())), seed_(absl::GetFlag(FLAGS_data_seed)) {}

  absl::Status spawn(nanopu::Runtime& rt) override {
    for (UseCase u : spin_demo::kUseCases) {
      if (absl::Status s = rt.install(spin_demo::make_context(u, spin_demo::context_of(u), seed_)); !s.ok()) return s;
      const uint16_t ctx = spin_demo::context_of(u);
      auto body = u == UseCase::kKvstore ? std::function<void(nanopu::Thread&)>([ctx](nanopu::Thread& t) { serve_store(t, ctx); })
                                         : [ctx](nanopu::Thread& t) { collect(t, ctx); };
      if (absl::StatusOr<nanopu::Thread*> t = rt.spawn(body, static_cast<uint32_t>(u) % workers_); !t.ok())
        return t.status();
    }
    return absl::OkStatus();
  }

  std::string banner() const override {
    return "spin-server: sPIN handlers for reduce, aggregate, filtering, kvstore, strided_ddt and histogram on " +
           nanopu::format_ipv4(ip_) + " contexts " + std::to_string(spin_demo::kFirstContext) + ".." +
           std::to_string(spin_demo::kFirstContext + 5);
  }

  // Each context's figures (`streamed`: multi-packet messages whose
  // handlers ran as their packets arrived): measured where the handlers ran (the NIC core,
  // or an HPU lcore: --spin_hpu_lcores), and what PsPIN would
  // take for its packets (modelled, from the cycles its handlers declared).
  int report(nanopu::Runtime& rt, FILE*) override {
    std::fprintf(stderr, "  %-12s %8s %8s %8s %10s %15s %12s %12s %14s\n", "sPIN context", "messages", "streamed",
                 "packets", "out", "handler ns/pkt", "cycles/pkt", "PsPIN ns/pkt", "PsPIN Gbit/s");
    std::fprintf(stderr, "  %-12s %8s %8s %8s %10s %15s %12s %12s %14s\n", "", "", "", "", "", "(measured)",
                 "(declared)", "(modelled)", "(modelled)");
    for (const nanopu::spin::ContextReport& r : rt.spin_reports()) {
      const nanopu::spin::ModelledContext m = nanopu::spin::modelled(r);
      std::fprintf(stderr, "  %-12s %8llu %8llu %8llu %10llu %15.1f %12.1f %12.1f %14.1f%s%s\n", r.name.c_str(),
                   static_cast<unsigned long long>(r.messages), static_cast<unsigned long long>(r.streamed),
                   static_cast<unsigned long long>(r.packets),
                   static_cast<unsigned long long>(r.host_messages + r.sends), m.measured_ns_per_packet,
                   m.cycles_per_packet, m.packet_latency_ns, m.throughput_gbps,
                   r.fault == nanopu::spin::Fault::kNone ? "" : "  DISABLED: ", r.fault_detail.c_str());
    }
    return 0;
  }

 private:
  uint32_t ip_, workers_;
  uint64_t seed_;
};

}  // namespace

nanopu::ProgramSpec spin_server_program() {
  nanopu::ProgramSpec s;
  s.name = "spin-server";
  s.help = "PsPIN's six use cases as sPIN handlers on this host's NIC, and their host side";
  s.flags = {"data_seed"};
  s.make = [](const nanopu::ProgramArgs& a) -> absl::StatusOr<std::unique_ptr<nanopu::Program>> {
    if (a.config.nic_lcores != 1) return absl::InvalidArgumentError("spin-server: sPIN contexts need --nic_lcores=1");
    if (a.config.max_threads_per_core * a.config.worker_count() < 6)
      return absl::InvalidArgumentError(
          "spin-server runs six threads (one per use case): --max_threads_per_core=6, or more worker lcores");
    return std::make_unique<SpinServer>(a);
  };
  return s;
}
